/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two devices wired back to back in memory, on virtual time: handshake on demand, data
 * both ways through the egress queue, staged packets, roaming, keepalives, rekeying,
 * malformed datagrams and a peer removed with packets queued.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "crypto/x25519.h"
#include "qdisc/gso.h"
#include "src/core/device.h"
#include "tests/support/device_pair.h"

TestSuite(device, .init = setup, .fini = teardown);

Test(device, handshake_on_demand_and_data_both_ways)
{
	handshake_and_ping(NULL);
}

Test(device, handshake_with_preshared_key)
{
	uint8_t psk[32];

	memset(psk, 0x5a, sizeof(psk));
	handshake_and_ping(psk);
}

Test(device, mismatched_preshared_key_never_delivers)
{
	uint8_t psk[32];

	memset(psk, 0x5a, sizeof(psk));
	configure(&A, &B, 2, true, psk);
	configure(&B, &A, 1, false, NULL);
	wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 10, 1), now);
	pump();
	cr_assert_eq(B.delivered, 0);
	cr_assert_eq(A.dev.peers_head->has_handshake, false);
}

Test(device, inner_source_outside_allowed_ips_is_dropped)
{
	handshake_and_ping(NULL);
	wg_device_tx(&A.dev, ip_packet(&A, 9, 2, 10, 1), now); /* source 10.0.0.9 */
	pump();
	cr_assert_eq(B.delivered, 1);
	cr_assert_eq(B.dev.stats.rx_bad_source, 1);
}

Test(device, roaming_follows_the_latest_authenticated_source)
{
	const struct wg_peer *peer_of_a;

	handshake_and_ping(NULL);
	endpoint4(&A.addr, 77, 40000); /* A's underlay address changes */
	wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 10, 1), now);
	pump();
	peer_of_a = B.dev.peers_head;
	cr_assert(wg_endpoint_same_remote(&peer_of_a->endpoint, &A.addr));
	cr_assert_eq(peer_of_a->stats.roams, 1);
}

Test(device, underlay_backpressure_holds_packets_without_loss)
{
	handshake_and_ping(NULL);
	A.full = true;
	for (int i = 0; i < 50; i++)
		wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 100, (uint8_t)i), now);
	pump();
	cr_assert_gt(A.refused, 0);
	cr_assert_eq(B.delivered, 1, "nothing passes while the underlay is full");
	A.full = false;
	pump();
	cr_assert_eq(B.delivered, 51, "every held packet goes out, none dropped");
	cr_assert_eq(A.dev.egress.stats.dropped, 0);
}

/*
 * A UDP super-packet from an offloading TUN (USO, 5 segments of 200 bytes) queued whole
 * (no-split-gso): after dequeue its segments wait in the held list, and an underlay that
 * hands each buffer straight back to the pool must not cost the segments behind it.
 */
Test(device, no_split_gso_segments_all_go_when_sent_synchronously)
{
	enum { SEGS = 5, MSS = 200 };
	struct wg_pkt *p;
	struct cake_vnet_hdr vh = {.flags = CAKE_VNET_F_NEEDS_CSUM,
				   .gso_type = CAKE_VNET_GSO_UDP_L4, .gso_size = MSS,
				   .hdr_len = 28, .csum_start = 20, .csum_offset = 6};
	char err[128];

	handshake_and_ping(NULL);
	cr_assert_eq(wg_device_set_cake(&A.dev, false, "no-split-gso", err, sizeof(err), now), 0,
		     "%s", err);
	p = wg_device_pkt_get(&A.dev, true);
	fill_udp(p->cp.data, 1, 2, SEGS * MSS);
	memset(p->cp.data + 28, 0x5a, SEGS * MSS);
	p->cp.len = 28 + SEGS * MSS;
	cr_assert_eq(cake_gso_plan(p->cp.data, p->cp.len, &vh, &p->gso), 0);
	cr_assert_eq(p->gso.segs, SEGS);
	cake_gso_fill_pkt(&p->cp, &p->gso);
	wg_device_tx(&A.dev, p, now);
	pump();
	cr_assert_eq(B.delivered, 1 + SEGS, "delivered %zu", (size_t)B.delivered);
	cr_assert_eq(B.last_delivered_len, 28 + MSS);
	cr_assert_eq(A.dev.pool.outstanding, 0, "every buffer came back");
	cr_assert_eq(A.dev.pool_large.outstanding, 0);
}

Test(device, malformed_datagrams_are_counted_and_harmless)
{
	static const size_t lens[] = { 0, 1, 3, 4, 31, 32, 91, 93, 147, 149, 63, 65 };

	handshake_and_ping(NULL);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (uint8_t type = 0; type < 6; type++) {
			struct wg_pkt *p = wg_device_pkt_get(&B.dev, false);

			memset(wg_pkt_msg(p), 0, lens[i] + 1);
			wg_pkt_msg(p)[0] = type;
			p->msg_len = (uint32_t)lens[i];
			p->src = A.addr;
			wg_device_rx(&B.dev, p, now);
		}
	}
	cr_assert_gt(B.dev.stats.rx_malformed + B.dev.stats.rx_no_keypair +
			     B.dev.stats.rx_invalid_mac + B.dev.stats.rx_cookie_bad, 0);
	wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 10, 1), now);
	pump();
	cr_assert_eq(B.delivered, 2, "the session survives the garbage");
}

Test(device, removing_a_peer_with_queued_packets)
{
	handshake_and_ping(NULL);
	A.full = true;
	for (int i = 0; i < 10; i++)
		wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 100, 1), now);
	wg_device_tx_flush(&A.dev, now, NULL);
	wg_device_remove_peer(&A.dev, A.dev.peers_head);
	A.full = false;
	pump();
	cr_assert_eq(A.dev.n_peers, 0);
	cr_assert_eq(A.dev.pool.outstanding, 0, "every buffer came back");
}

Test(device, rekey_after_time_and_keepalive)
{
	uint64_t hs0;

	handshake_and_ping(NULL);
	hs0 = A.dev.peers_head->stats.handshakes_completed;
	/* B received data at the last ping and A sent nothing since: after the keepalive
	 * timeout, the side that received data answers with a keepalive. */
	now += (KEEPALIVE_TIMEOUT_SECS + 1) * WG_NSEC_PER_SEC;
	wg_device_run_timers(&A.dev, now);
	wg_device_run_timers(&B.dev, now);
	cr_assert_gt(pump(), 0, "a keepalive went out");
	now += REKEY_AFTER_TIME_NS;
	wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 10, 1), now);
	pump();
	cr_assert_gt(A.dev.peers_head->stats.handshakes_completed, hs0, "the initiator rekeyed");
	cr_assert_eq(B.delivered, 2);
}

Test(device, snapshot_reports_the_configuration)
{
	struct wg_devconf *snap;

	handshake_and_ping(NULL);
	snap = wg_device_snapshot(&A.dev, now);
	cr_assert_eq(snap->n_peers, 1);
	cr_assert_eq(memcmp(snap->peers[0]->public_key, B.pub, 32), 0);
	cr_assert_eq(snap->peers[0]->n_allowedips, 1);
	cr_assert_gt(snap->peers[0]->tx_bytes, 0);
	cr_assert_gt(snap->peers[0]->rx_bytes, 0);
	wg_devconf_free(snap);
}

Test(device, ingress_shaping_on_and_off)
{
	char err[128];

	handshake_and_ping(NULL);
	cr_assert_eq(wg_device_set_cake(&B.dev, true, "bandwidth 100mbit ingress", err, sizeof(err),
					now),
		     0, "%s", err);
	cr_assert_not_null(B.dev.ingress);
	wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 100, 7), now);
	pump();
	cr_assert_eq(B.delivered, 1, "held by ingress CAKE until it is flushed");
	(void)wg_device_rx_flush(&B.dev, now);
	cr_assert_eq(B.delivered, 2);
	cr_assert_eq(wg_device_set_cake(&B.dev, true, "none", err, sizeof(err), now), 0);
	cr_assert_null(B.dev.ingress);
	cr_assert_neq(wg_device_set_cake(&B.dev, false, "none", err, sizeof(err), now), 0,
		      "egress has no off switch");
	wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 100, 8), now);
	pump();
	cr_assert_eq(B.delivered, 3, "straight to TUN again");
}

static unsigned int count_lines(const char *text, const char *prefix)
{
	unsigned int n = 0;
	size_t len = strlen(prefix);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		n += !strncmp(l, prefix, len);
	return n;
}

/* The shaper's late counters are device keys, from the egress instance only: an ingress
 * instance without the `ingress` keyword (which also bounds its lag) must not write them
 * a second time, or a reader takes its numbers for the egress's. */
Test(device, shaper_late_counters_come_once_from_egress)
{
	struct wg_devconf_buf out = { 0 };
	char err[128];

	handshake_and_ping(NULL);
	cr_assert_eq(wg_device_set_cake(&B.dev, false, "bandwidth 10mbit", err, sizeof(err), now),
		     0, "%s", err);
	cr_assert_eq(wg_device_set_cake(&B.dev, true, "bandwidth 20mbit", err, sizeof(err), now),
		     0, "%s", err);
	cr_assert_eq(wg_device_ext_get_write(&B.dev, NULL, &out), 0);
	cr_assert_not_null(out.data);
	cr_assert_eq(count_lines(out.data, "cake_ingress="), 1, "%s", out.data);
	cr_assert_eq(count_lines(out.data, "shaper_late="), 1, "%s", out.data);
	cr_assert_eq(count_lines(out.data, "shaper_late_ns="), 1, "%s", out.data);
	cr_assert_lt(strstr(out.data, "shaper_late="), strstr(out.data, "cake_ingress="),
		     "written with the egress instance");
	wg_devconf_buf_wipe(&out);
}

/* 10 Mbit/s: a 1000-byte payload arrives as a 1100-byte datagram, 0.88 ms of the link. */
Test(device, ingress_releases_bulk_in_gulps_and_sparse_at_once)
{
	const uint64_t t0 = now, ms = WG_NSEC_PER_MSEC;
	struct wg_pkt *sparse;
	char err[128];
	uint64_t next;
	size_t d0;

	handshake_and_ping(NULL);
	d0 = B.delivered;
	cr_assert_eq(
		wg_device_set_cake(&B.dev, true, "bandwidth 10mbit ingress", err, sizeof(err), now),
		0, "%s", err);
	for (uint8_t i = 0; i < 20; i++)
		wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 1000, i), now);
	pump();
	cr_assert_eq(B.delivered - d0, 0);
	next = wg_device_rx_flush(&B.dev, now);
	cr_assert_eq(B.delivered - d0, 1, "the shaper's first packet goes at once");
	cr_assert_eq(next, t0 + WG_INGRESS_GULP_NS,
		     "the next one is due in 0.88 ms: the gulp ends later");
	cr_assert_eq(B.dev.ingress->stats.gulps, 1);

	now = t0 + 9 * ms / 10;
	cr_assert_eq(wg_device_rx_flush(&B.dev, now), t0 + WG_INGRESS_GULP_NS);
	cr_assert_eq(B.delivered - d0, 1, "due, but bulk waits for the gulp");
	sparse = ip_packet(&A, 1, 2, 20, 0xee);
	sparse->cp.data[21] ^= 1; /* another source port: another flow */
	wg_device_tx(&A.dev, sparse, now);
	pump();
	cr_assert_eq(wg_device_rx_flush(&B.dev, now), t0 + WG_INGRESS_GULP_NS);
	cr_assert_eq(B.delivered - d0, 2, "a sparse flow does not wait for the gulp");
	cr_assert_eq(B.last_delivered_len, 48);
	cr_assert_eq(B.last_delivered[28], 0xee);

	now = t0 + 3 * ms;
	next = wg_device_rx_flush(&B.dev, now);
	cr_assert_eq(B.delivered - d0, 5,
		     "the gulp takes what came due meanwhile: bulk due at 0.97, 1.85, 2.73 ms");
	cr_assert_eq(B.last_delivered[28], 3, "in order");
	cr_assert_eq(next, now + WG_INGRESS_GULP_NS);
	cr_assert_eq(B.dev.ingress->stats.gulps, 2);

	now = t0 + 20 * ms;
	next = wg_device_rx_flush(&B.dev, now);
	cr_assert_eq(B.delivered - d0 + B.dev.ingress->stats.dropped, 21,
		     "the rest, long due, goes in one gulp (COBALT may drop some: %zu)",
		     B.delivered - d0);
	cr_assert_eq(B.last_delivered[28], 19);
	cr_assert_eq(next, UINT64_MAX);
	cr_assert_eq(B.dev.ingress->stats.gulps, 2, "nothing left to gulp");
}

/* A new MTU reaches both CAKE instances (their largest encapsulated size), and packet
 * buffers state the memory that holds them. */
Test(device, mtu_change_reaches_egress_and_ingress_cake)
{
	struct wg_pkt *p;
	char err[128];

	cr_assert_eq(wg_device_set_cake(&B.dev, true, "bandwidth 100mbit ingress", err, sizeof(err),
					now),
		     0, "%s", err);
	cr_assert_eq(cake_mtu(B.dev.egress.q), B.dev.mtu + MESSAGE_OVERHEAD_IPV6_LEN);
	cr_assert_eq(cake_mtu(B.dev.ingress->q), B.dev.mtu + MESSAGE_OVERHEAD_IPV6_LEN);
	wg_device_set_mtu(&B.dev, 8920);
	cr_assert_eq(cake_mtu(B.dev.egress.q), 8920 + MESSAGE_OVERHEAD_IPV6_LEN);
	cr_assert_eq(cake_mtu(B.dev.ingress->q), 8920 + MESSAGE_OVERHEAD_IPV6_LEN);
	p = wg_device_pkt_get(&B.dev, false);
	cr_assert_not_null(p);
	cr_assert_geq(p->cp.truesize, sizeof(*p) + p->cap);
	cr_assert_geq(p->cap, 8920);
	wg_device_pkt_put(&B.dev, p);
	wg_device_set_mtu(&B.dev, 1280);
	cr_assert_eq(cake_mtu(B.dev.egress.q), 1280 + MESSAGE_OVERHEAD_IPV6_LEN);
	cr_assert_eq(cake_mtu(B.dev.ingress->q), 1280 + MESSAGE_OVERHEAD_IPV6_LEN);
}
