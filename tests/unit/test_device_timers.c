/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device's timer queue, driven the way the loop drives it: sleep until
 * wg_device_next_deadline(), then wg_device_run_timers(). After every step the queue must
 * agree with a walk over every peer (what the device did before the queue existed): each
 * peer filed under its earliest deadline, nothing due left unrun. Over that, the protocol
 * must come out as the timer state machine says: initiations that go unanswered are
 * retried every REKEY_TIMEOUT plus jitter, MAX_TIMER_HANDSHAKES + 2 in all, then given up;
 * peers never sent to never wake the loop.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "src/core/device.h"
#include "tests/support/det_rng.h"
#include "tests/support/device_pair.h"

enum {
	N_PEERS = 1000,
	ATTEMPTS = MAX_TIMER_HANDSHAKES + 2,
	MAX_SENT = ATTEMPTS + 2,
};

/* The brute force: what the walk over every peer finds. */
static uint64_t walk_next_deadline(const struct wg_device *dev)
{
	uint64_t next = UINT64_MAX;

	for (const struct wg_peer *p = dev->peers_head; p; p = p->next) {
		uint64_t d = wg_timers_next_deadline(&p->timers);

		if (d && d < next)
			next = d;
	}
	return WG_MIN(next, wg_device_autorate_next(dev));
}

static void check_queue(const struct wg_device *dev, uint64_t t)
{
	for (const struct wg_peer *p = dev->peers_head; p; p = p->next) {
		uint64_t d = wg_timers_next_deadline(&p->timers);

		cr_assert_eq(wg_timerq_key(&dev->timerq, &p->timer_node), d,
			     "peer %llu is filed under its earliest deadline",
			     (unsigned long long)p->id);
		cr_assert(!d || d > t, "peer %llu: nothing due is left unrun",
			  (unsigned long long)p->id);
	}
	cr_assert_eq(wg_device_next_deadline(dev), walk_next_deadline(dev));
}

/* --- one device, many peers, none of which ever answers --- */

struct many {
	struct wg_device dev;
	struct det_rng rng_state;
	uint64_t now;
	uint64_t sent_at[N_PEERS][MAX_SENT]; /* initiation times per peer */
	unsigned int sent[N_PEERS];
};

static struct many M;

static int many_send_data(void *ctx, const struct wg_endpoint *ep, struct wg_pkt *pkt)
{
	struct many *m = ctx;

	(void)ep;
	wg_device_pkt_put(&m->dev, pkt);
	return 0;
}

static void many_send_control(void *ctx, const struct wg_endpoint *ep, const uint8_t *msg,
			      size_t len)
{
	struct many *m = ctx;
	/* The peer is in the endpoint: 198.18.hi.lo, peer hi * 256 + lo. */
	uint32_t i = ntohl(ep->remote.addr4.sin_addr.s_addr) & 0xffff;

	cr_assert_eq(len, sizeof(struct message_handshake_initiation));
	cr_assert_eq(msg[0], MESSAGE_HANDSHAKE_INITIATION);
	cr_assert_lt(i, N_PEERS);
	cr_assert_lt(m->sent[i], MAX_SENT);
	m->sent_at[i][m->sent[i]++] = m->now;
}

static void many_tun_write(void *ctx, struct wg_pkt *pkt)
{
	struct many *m = ctx;

	wg_device_pkt_put(&m->dev, pkt);
}

static void many_setup(void)
{
	struct wg_io_ops ops = {
		.ctx = &M,
		.send_data = many_send_data,
		.send_control = many_send_control,
		.tun_write = many_tun_write,
	};
	struct wg_devconf *conf = wg_devconf_new();
	uint8_t priv[32], pub[32];
	struct wg_rng rng;

	memset(&M, 0, sizeof(M));
	M.now = 1000 * WG_NSEC_PER_SEC;
	M.rng_state.state = 99;
	rng = det_rng_as_wg(&M.rng_state);
	cr_assert_eq(wg_device_init(&M.dev, "t", &ops, &rng, M.now), 0);
	conf->flags = WG_DEVCONF_HAS_PRIVATE_KEY;
	wg_rng_fill(&rng, conf->private_key, 32);
	cw_x25519_clamp(conf->private_key);
	for (uint32_t i = 0; i < N_PEERS; i++) {
		struct wg_devconf_peer *pc = wg_devconf_add_peer(conf);
		struct wg_ipaddr_prefix pfx = {.addr.family = AF_INET, .cidr = 32};

		cr_assert(pc);
		wg_rng_fill(&rng, priv, 32);
		cw_x25519_clamp(priv);
		cr_assert(cw_x25519_public(pub, priv));
		pc->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT;
		memcpy(pc->public_key, pub, 32);
		pc->endpoint.addr4.sin_family = AF_INET;
		pc->endpoint.addr4.sin_port = htons(51820);
		pc->endpoint.addr4.sin_addr.s_addr = htonl(0xc6120000 | i); /* 198.18.hi.lo */
		pfx.addr.ip4.s_addr = htonl(0x0a010000 | i);		     /* 10.1.hi.lo */
		cr_assert_eq(wg_devconf_peer_add_allowedip(pc, &pfx, 0), 0);
	}
	cr_assert_eq(wg_device_apply(&M.dev, conf, M.now), 0);
	wg_devconf_free(conf);
	cr_assert_eq(M.dev.n_peers, N_PEERS);
}

static void many_teardown(void)
{
	wg_device_deinit(&M.dev);
}

/* An IPv4/UDP packet to 10.1.hi.lo, peer i's allowed IP. */
static void send_to_peer(uint32_t i)
{
	struct wg_pkt *p = wg_device_pkt_get(&M.dev, false);

	fill_udp(p->cp.data, 1, 0, 20);
	p->cp.data[17] = 1;
	p->cp.data[18] = (uint8_t)(i >> 8);
	p->cp.data[19] = (uint8_t)i;
	p->cp.len = 48;
	wg_device_tx(&M.dev, p, M.now);
}

TestSuite(device_timers, .init = many_setup, .fini = many_teardown, .timeout = 60);

Test(device_timers, idle_peers_leave_the_queue_empty)
{
	check_queue(&M.dev, M.now);
	cr_assert_eq(M.dev.timerq.len, 0, "configured but idle: nothing armed");
	cr_assert_eq(wg_device_next_deadline(&M.dev), UINT64_MAX);
}

Test(device_timers, unanswered_handshakes_retry_and_give_up_as_before)
{
	uint64_t start = M.now, wakeups = 0;
	unsigned int active = 0;

	for (uint32_t i = 0; i < N_PEERS; i += 3) { /* one peer in three has data */
		send_to_peer(i);
		active++;
		M.now += 1000003; /* about 1 ms apart, so the deadlines interleave */
	}
	check_queue(&M.dev, M.now);
	cr_assert_eq(M.dev.timerq.len, active, "only the peers with something armed are in");
	for (;;) {
		uint64_t next = wg_device_next_deadline(&M.dev);

		if (next == UINT64_MAX)
			break;
		cr_assert_geq(next, M.now, "no deadline in the past");
		M.now = next;
		wg_device_run_timers(&M.dev, M.now);
		wakeups++;
		check_queue(&M.dev, M.now);
	}
	cr_assert_eq(M.dev.timerq.len, 0, "every key wiped, every timer spent");
	cr_assert_lt(M.now - start, 2 * ZERO_KEYS_AFTER_TIME_NS);
	for (uint32_t i = 0; i < N_PEERS; i++) {
		if (i % 3) {
			cr_assert_eq(M.sent[i], 0, "peer %u had nothing to send", i);
			continue;
		}
		cr_assert_eq(M.sent[i], ATTEMPTS, "peer %u: %u initiations", i, M.sent[i]);
		for (unsigned int k = 1; k < M.sent[i]; k++) {
			uint64_t gap = M.sent_at[i][k] - M.sent_at[i][k - 1];

			cr_assert_geq(gap, REKEY_TIMEOUT_NS, "peer %u retry %u", i, k);
			cr_assert_lt(gap, REKEY_TIMEOUT_NS + REKEY_TIMEOUT_JITTER_MAX_NS,
				     "peer %u retry %u", i, k);
		}
	}
	/* Per active peer: ATTEMPTS - 1 retransmissions, the give-up and the key wipe. */
	cr_assert_leq(wakeups, (uint64_t)active * (ATTEMPTS + 1));
}

Test(device_timers, a_late_wakeup_runs_every_due_peer_once)
{
	for (uint32_t i = 0; i < N_PEERS; i++)
		send_to_peer(i);
	M.now += REKEY_TIMEOUT_NS + REKEY_TIMEOUT_JITTER_MAX_NS;
	wg_device_run_timers(&M.dev, M.now);
	check_queue(&M.dev, M.now);
	for (uint32_t i = 0; i < N_PEERS; i++)
		cr_assert_eq(M.sent[i], 2, "peer %u: the first initiation and one retry", i);
}

Test(device_timers, removing_a_peer_takes_it_out_of_the_queue)
{
	send_to_peer(0);
	send_to_peer(1);
	cr_assert_eq(M.dev.timerq.len, 2);
	wg_device_remove_peer(&M.dev, M.dev.peers_head);
	check_queue(&M.dev, M.now);
	cr_assert_eq(M.dev.timerq.len, 1);
	M.now += 200 * WG_NSEC_PER_SEC;
	wg_device_run_timers(&M.dev, M.now);
	cr_assert_eq(M.sent[0], 1, "the removed peer never retries");
	cr_assert_eq(M.sent[1], 2, "the other one retries");
}

/* --- two devices that talk: every receive and send path re-files its peer --- */

static void pair_step(uint64_t until)
{
	while (walk_next_deadline(&A.dev) <= until || walk_next_deadline(&B.dev) <= until) {
		now = WG_MIN(wg_device_next_deadline(&A.dev), wg_device_next_deadline(&B.dev));
		wg_device_run_timers(&A.dev, now);
		wg_device_run_timers(&B.dev, now);
		pump();
		check_queue(&A.dev, now);
		check_queue(&B.dev, now);
	}
	now = until;
}

Test(device_timers_pair, traffic_keepalives_and_rekeys_keep_the_queue_exact,
     .init = setup, .fini = teardown, .timeout = 60)
{
	struct wg_devconf *conf = wg_devconf_new();
	struct wg_devconf_peer *pc = wg_devconf_add_peer(conf);

	handshake_and_ping(NULL);
	check_queue(&A.dev, now);
	check_queue(&B.dev, now);
	/* B keeps the session alive every 7 s. */
	pc->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_UPDATE_ONLY |
		    WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE;
	memcpy(pc->public_key, A.pub, 32);
	pc->persistent_keepalive_secs = 7;
	cr_assert_eq(wg_device_apply(&B.dev, conf, now), 0);
	wg_devconf_free(conf);
	pump();
	check_queue(&B.dev, now);
	/* Half an hour: bursts of data both ways now and then, quiet in between. */
	for (int minute = 0; minute < 30; minute++) {
		if (minute % 4 == 0) {
			wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 100, 1), now);
			wg_device_tx(&B.dev, ip_packet(&B, 2, 1, 100, 2), now);
			pump();
			check_queue(&A.dev, now);
			check_queue(&B.dev, now);
		}
		pair_step(now + 60 * WG_NSEC_PER_SEC);
	}
	cr_assert_gt(A.dev.peers_head->stats.handshakes_completed, 3, "rekeyed along the way");
	cr_assert_gt(B.dev.peers_head->stats.tx_packets, 200, "persistent keepalives went out");
}
