/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's underlay on loopback, each test in its own network namespace: packet
 * ownership (every buffer goes back to the device's pool: sent, refused or closed),
 * batches per family with the outer ECN bits, trains of equal messages (UDP GSO) and
 * their fallback, AF41 on handshakes, backpressure that keeps every packet in order,
 * rebinding with its callback, and a vanished source that the caller's endpoint may keep
 * naming.
 */
#define _GNU_SOURCE /* unshare(), in tests/support/netns.h */
#include "src/edge/underlay.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qdisc/ecn.h"
#include "src/edge/netlink.h"
#include "tests/support/det_rng.h"
#include "tests/support/netns.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

enum {
	WAIT_MS = 5000, /* upper bound for the kernel to deliver what is already sent */
	RX_MAX = 4096,
};

static struct wg_device dev;
static struct det_rng rng_state = {.state = 42};

static int no_send_data(void *ctx, const struct wg_endpoint *ep, struct wg_pkt *pkt)
{
	(void)ctx;
	(void)ep;
	(void)pkt;
	return 0;
}

static void no_send_control(void *ctx, const struct wg_endpoint *ep, const uint8_t *msg, size_t len)
{
	(void)ctx;
	(void)ep;
	(void)msg;
	(void)len;
}

static void no_tun_write(void *ctx, struct wg_pkt *pkt)
{
	(void)ctx;
	(void)pkt;
}

static void setup(void)
{
	struct wg_io_ops ops = {.send_data = no_send_data,
				.send_control = no_send_control,
				.tun_write = no_tun_write};
	struct wg_rng rng = det_rng_as_wg(&rng_state);

	support_enter_netns();
	cr_assert_eq(wg_device_init(&dev, "test", &ops, &rng, 1), 0);
}

static void teardown(void)
{
	wg_device_deinit(&dev);
}

TestSuite(underlay, .init = setup, .fini = teardown);

static bool wait_fd(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};

	return poll(&p, 1, WAIT_MS) == 1;
}

static struct wg_endpoint endpoint(int af, const char *addr, uint16_t port)
{
	struct wg_endpoint ep;

	memset(&ep, 0, sizeof(ep));
	ep.remote.addr.sa_family = (sa_family_t)af;
	if (af == AF_INET) {
		ep.remote.addr4.sin_port = htons(port);
		cr_assert_eq(inet_pton(AF_INET, addr, &ep.remote.addr4.sin_addr), 1);
	} else {
		ep.remote.addr6.sin6_port = htons(port);
		cr_assert_eq(inet_pton(AF_INET6, addr, &ep.remote.addr6.sin6_addr), 1);
	}
	return ep;
}

static uint16_t remote_port(const struct wg_endpoint *ep)
{
	return ntohs(ep->remote.addr.sa_family == AF_INET ? ep->remote.addr4.sin_port
							  : ep->remote.addr6.sin6_port);
}

static void open_underlay(struct wg_underlay *u, uint16_t port)
{
	cr_assert_eq(wg_underlay_open(u, &dev, port, NULL, NULL), 0);
	cr_assert_geq(u->fd4, 0);
	cr_assert_geq(u->fd6, 0);
	cr_assert_neq(u->port, 0);
}

/* A data message of len bytes from the pool: type 4, then seq, then a pattern. */
static struct wg_pkt *data_pkt(uint32_t seq, uint32_t len, uint8_t ecn)
{
	struct wg_pkt *pkt = wg_device_pkt_get(&dev, false);
	uint8_t *msg;

	cr_assert(pkt);
	msg = wg_pkt_msg(pkt);
	for (uint32_t i = 0; i < len; i++)
		msg[i] = (uint8_t)(seq * 7 + i);
	msg[0] = MESSAGE_DATA;
	memcpy(msg + 4, &seq, sizeof(seq));
	pkt->msg_len = len;
	pkt->cp.ecn = ecn;
	return pkt;
}

/* Receives one datagram from one of u's sockets into a pool buffer. */
static struct wg_pkt *recv_one(struct wg_underlay *u, int fd)
{
	struct wg_pkt *pkt = wg_device_pkt_get(&dev, false);
	int n = 0;

	cr_assert(pkt);
	while (n == 0) {
		n = wg_underlay_recv(u, fd, &pkt, 1);
		if (n == 0)
			cr_assert(wait_fd(fd, POLLIN), "a datagram did not arrive");
	}
	cr_assert_eq(n, 1);
	return pkt;
}

static void expect_payload(struct wg_pkt *pkt, uint32_t seq, uint32_t len)
{
	const uint8_t *msg = wg_pkt_msg(pkt);
	uint32_t got;

	cr_assert_eq(pkt->msg_len, len);
	memcpy(&got, msg + 4, sizeof(got));
	cr_assert_eq(got, seq);
	for (uint32_t i = 8; i < len; i++)
		cr_assert_eq(msg[i], (uint8_t)(seq * 7 + i), "datagram %u byte %u", seq, i);
}

/* Both families in one flush: each datagram arrives whole, with our source port, the
 * local address it went to and its outer ECN bits; the sent buffers are back. */
Test(underlay, batches_both_families)
{
	static const uint8_t ecns[] = {CAKE_ECN_NOT_ECT, CAKE_ECN_ECT_1, CAKE_ECN_ECT_0,
				       CAKE_ECN_CE};
	struct wg_underlay a, b;
	struct wg_endpoint to_b[2];
	const int afs[2] = {AF_INET, AF_INET6};
	const uint32_t per_family = 20;

	open_underlay(&a, 0);
	open_underlay(&b, 0);
	to_b[0] = endpoint(AF_INET, "127.0.0.1", b.port);
	to_b[1] = endpoint(AF_INET6, "::1", b.port);
	for (uint32_t i = 0; i < 2 * per_family; i++) {
		struct wg_pkt *pkt = data_pkt(i, 64 + i * 16, ecns[i % 4]);

		cr_assert_eq(wg_underlay_queue(&a, &to_b[i % 2], pkt), 0);
	}
	cr_assert_eq(dev.pool.outstanding, 2 * per_family, "queued packets belong to the batch");
	cr_assert_eq(wg_underlay_flush(&a), 0);
	cr_assert_eq(a.stats.sent, 2 * per_family);
	cr_assert_eq(dev.pool.outstanding, 0, "sent packets go back to the pool");
	for (uint32_t i = 0; i < 2 * per_family; i++) {
		int fd = i % 2 ? b.fd6 : b.fd4;
		struct wg_pkt *pkt = recv_one(&b, fd);

		expect_payload(pkt, i, 64 + i * 16);
		cr_assert_eq(pkt->src.remote.addr.sa_family, afs[i % 2]);
		cr_assert_eq(remote_port(&pkt->src), a.port);
		cr_assert(pkt->src.has_src, "the local address is reported");
		cr_assert_eq(pkt->outer_ecn, cake_ecn_encap(ecns[i % 4]), "datagram %u", i);
		if (ecns[i % 4] != CAKE_ECN_CE)
			cr_assert_eq(pkt->outer_ecn, ecns[i % 4], "ECT and not-ECT are copied");
		wg_device_pkt_put(&dev, pkt);
	}
	cr_assert_eq(b.stats.received, 2 * per_family);
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

static uint64_t mono_ns(void);

enum { MSGS_MAX = 20 };

/* A batch to send: message i (seq i) has lens[i] bytes, goes to eps[to[i]] with the
 * inner ECN bits ecns[i]. */
struct msgs {
	uint32_t n;
	uint32_t lens[MSGS_MAX];
	unsigned int to[MSGS_MAX];
	uint8_t ecns[MSGS_MAX];
};

/* Queues m in one send round, flushes, and checks that each message arrives whole, in
 * order, on the family's socket of b. */
static void send_and_expect(struct wg_underlay *a, struct wg_underlay *b,
			    const struct wg_endpoint *eps, const struct msgs *m)
{
	wg_underlay_begin(a, mono_ns());
	for (uint32_t i = 0; i < m->n; i++)
		cr_assert_eq(
			wg_underlay_queue(a, &eps[m->to[i]], data_pkt(i, m->lens[i], m->ecns[i])),
			0);
	cr_assert_eq(wg_underlay_flush(a), 0);
	cr_assert_eq(dev.pool.outstanding, 0, "sent packets go back to the pool");
	for (uint32_t i = 0; i < m->n; i++) {
		int fd = eps[m->to[i]].remote.addr.sa_family == AF_INET ? b->fd4 : b->fd6;
		struct wg_pkt *pkt = recv_one(b, fd);

		expect_payload(pkt, i, m->lens[i]);
		cr_assert_eq(pkt->outer_ecn, cake_ecn_encap(m->ecns[i]), "datagram %u", i);
		wg_device_pkt_put(&dev, pkt);
	}
}

/*
 * Messages of one length to one endpoint leave as one UDP GSO send (a train), the last
 * one possibly shorter; the peer still receives each as its own datagram, whole and in
 * order. A train ends where the endpoint, the outer ECN bits or the length change, or a
 * shorter message was its last.
 */
Test(underlay, trains_of_equal_messages)
{
	enum { N = MSGS_MAX };
	struct wg_underlay a, b;
	struct wg_endpoint eps[3];
	struct msgs m = {.n = N};

	open_underlay(&a, 0);
	open_underlay(&b, 0);
	if (!a.udp.gso[WG_UDP_V4] || !a.udp.gso[WG_UDP_V6])
		cr_skip_test("the kernel has no UDP GSO");
	eps[0] = endpoint(AF_INET, "127.0.0.1", b.port);
	eps[1] = endpoint(AF_INET6, "::1", b.port);
	eps[2] = endpoint(AF_INET, "127.0.0.2", b.port);

	/* 19 of 1452 bytes and a shorter last: two trains per family, since a train
	 * carries at most a quarter of the byte limit (64 KiB at first): 11 and 9. */
	for (uint32_t i = 0; i < N; i++)
		m.lens[i] = i == N - 1 ? 300 : 1452;
	send_and_expect(&a, &b, eps, &m);
	cr_assert_eq(a.stats.trains, 2);
	for (uint32_t i = 0; i < N; i++)
		m.to[i] = 1;
	send_and_expect(&a, &b, eps, &m);
	cr_assert_eq(a.stats.trains, 4);

	/*
	 * 0-3 one train; 4 (another address) alone; 5-6 a train ended by 6 being shorter;
	 * 7-9 a train ended by 10's ECN bits; 10-11 a train; 12 (longer than 11, so it
	 * starts anew) and the shorter 13 a train; 14-19 a train. 4 is the only single.
	 */
	for (uint32_t i = 0; i < N; i++) {
		m.lens[i] = i == 6 ? 1000 : i >= 12 ? 1200 : 1100;
		m.to[i] = i == 4 ? 2 : 0;
		m.ecns[i] = i == 10 || i == 11 ? CAKE_ECN_ECT_0 : CAKE_ECN_NOT_ECT;
	}
	m.lens[12] = 1300;
	send_and_expect(&a, &b, eps, &m);
	cr_assert_eq(a.stats.trains, 4 + 6, "trains: %llu", (unsigned long long)a.stats.trains);
	cr_assert_eq(a.stats.sent, 3 * N);

	/*
	 * A train carries at most a quarter of the byte limit: the socket gets its bytes
	 * back at once, and must not look drained while the link still sends it. With a
	 * limit of 40000, the round takes 16 messages of 1400 (at 2424 each, with the skb
	 * estimate), and 7 of them fit 10000 bytes: trains of 7, 7 and 2.
	 */
	cr_assert_eq(wg_underlay_set_limit(&a, 40000), 0);
	for (uint32_t i = 0; i < N; i++) {
		m.lens[i] = 1400;
		m.to[i] = 0;
		m.ecns[i] = 0;
	}
	m.n = 16;
	send_and_expect(&a, &b, eps, &m);
	cr_assert_eq(a.stats.trains, 4 + 6 + 3, "trains: %llu", (unsigned long long)a.stats.trains);
	cr_assert_eq(a.stats.trains_refused, 0);
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

/* One send round of n messages of len bytes to ep, the way the daemon sends: queue until
 * the room runs out, flush (which stalls), then receive all on fd. Returns the trains
 * the round took. */
static uint64_t stalled_round(struct wg_underlay *a, struct wg_underlay *b, int fd,
			      const struct wg_endpoint *ep, uint32_t n, uint32_t len)
{
	uint64_t trains = a->stats.trains;
	struct wg_pkt *extra;

	wg_underlay_begin(a, mono_ns());
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(wg_underlay_queue(a, ep, data_pkt(i, len, 0)), 0, "message %u", i);
	extra = data_pkt(n, len, 0);
	cr_assert_eq(wg_underlay_queue(a, ep, extra), -EAGAIN, "no room left");
	wg_device_pkt_put(&dev, extra); /* refused: it stayed ours */
	cr_assert_eq(wg_underlay_flush(a), -EAGAIN, "the round ends in a stall");
	for (uint32_t i = 0; i < n; i++) {
		struct wg_pkt *pkt = recv_one(b, fd);

		expect_payload(pkt, i, len);
		wg_device_pkt_put(&dev, pkt);
	}
	return a->stats.trains - trains;
}

/*
 * Loopback, like a veth, frees a datagram on its way through, so the socket is empty at
 * every stall: the stall ends at once (wg_underlay_resume_drained: no wait for the
 * kernel's signal, and nothing learnt), and after WG_UNDERLAY_EMPTY_STALLS such stalls in
 * a row a train may carry the whole limit instead of a quarter of it. With a limit of
 * 40000 a round takes 16 messages of 1400: trains of 7, 7 and 2 at first, then one.
 */
Test(underlay, drained_socket_resumes_at_once_and_trains_fill_the_limit)
{
	struct wg_underlay a, b;
	struct wg_endpoint ep;

	open_underlay(&a, 0);
	open_underlay(&b, 0);
	if (!a.udp.gso[WG_UDP_V4])
		cr_skip_test("the kernel has no UDP GSO");
	ep = endpoint(AF_INET, "127.0.0.1", b.port);
	cr_assert_eq(wg_underlay_set_limit(&a, 40000), 0);
	cr_assert_not(wg_underlay_resume_drained(&a, mono_ns()), "no stall yet");
	for (int i = 0; i < WG_UNDERLAY_EMPTY_STALLS; i++) {
		cr_assert_eq(stalled_round(&a, &b, b.fd4, &ep, 16, 1400), 3, "round %d", i);
		cr_assert(a.gate[WG_UDP_V4].bql.stalled);
		cr_assert(wg_underlay_resume_drained(&a, mono_ns()), "round %d: drained", i);
		cr_assert_not(a.gate[WG_UDP_V4].bql.stalled);
		cr_assert_not(wg_underlay_resume_drained(&a, mono_ns()), "the stall is over");
	}
	cr_assert_eq(a.gate[WG_UDP_V4].bql.stats.samples, 0, "a stall of no time measures nothing");
	cr_assert_eq(stalled_round(&a, &b, b.fd4, &ep, 16, 1400), 1);
	cr_assert(wg_underlay_resume_drained(&a, mono_ns()));
	cr_assert_eq(dev.pool.outstanding, 0);
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

/*
 * A train the kernel refuses (here its segments are larger than the link's MTU: one
 * datagram may be fragmented, a GSO segment may not) is sent message by message, and
 * that socket sends no more trains.
 */
Test(underlay, refused_train_goes_one_by_one)
{
	enum { N = 6 };
	struct wg_underlay a, b;
	struct wg_endpoint eps[1];
	struct msgs m = {.n = N};

	if (system("ip link set dev lo mtu 1200") != 0)
		cr_skip_test("needs ip(8)");
	open_underlay(&a, 0);
	open_underlay(&b, 0);
	if (!a.udp.gso[WG_UDP_V4])
		cr_skip_test("the kernel has no UDP GSO");
	eps[0] = endpoint(AF_INET, "127.0.0.1", b.port);
	for (uint32_t i = 0; i < N; i++)
		m.lens[i] = 1300;
	send_and_expect(&a, &b, eps, &m);
	cr_assert_eq(a.stats.trains_refused, 1);
	cr_assert_eq(a.stats.trains, 0);
	cr_assert_eq(a.stats.send_errors, 0);
	cr_assert_not(a.udp.gso[WG_UDP_V4], "no more trains on this socket");
	send_and_expect(&a, &b, eps, &m);
	cr_assert_eq(a.stats.trains_refused, 1, "no train was tried again");
	cr_assert_eq(a.stats.sent, 2 * N);
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

/* A train to a peer the kernel cannot reach fails like its messages would, one by one,
 * counted; it says nothing against trains, which go on for the other peers. */
Test(underlay, unreachable_train_costs_its_own_messages)
{
	enum { N = 6 };
	struct wg_underlay a, b;
	struct wg_endpoint eps[2];
	struct msgs m = {.n = 2 * N};

	open_underlay(&a, 0);
	open_underlay(&b, 0);
	if (!a.udp.gso[WG_UDP_V4])
		cr_skip_test("the kernel has no UDP GSO");
	eps[0] = endpoint(AF_INET, "192.0.2.1", b.port); /* TEST-NET-1: no route here */
	eps[1] = endpoint(AF_INET, "127.0.0.1", b.port);
	wg_underlay_begin(&a, mono_ns());
	for (uint32_t i = 0; i < N; i++)
		cr_assert_eq(wg_underlay_queue(&a, &eps[0], data_pkt(i, 1000, 0)), 0);
	cr_assert_eq(wg_underlay_flush(&a), 0);
	cr_assert_eq(a.stats.send_errors, N);
	cr_assert_eq(a.stats.trains_refused, 0);
	cr_assert(a.udp.gso[WG_UDP_V4], "trains stay on");
	cr_assert_eq(dev.pool.outstanding, 0);
	for (uint32_t i = 0; i < m.n; i++) {
		m.lens[i] = 1000;
		m.to[i] = 1;
	}
	send_and_expect(&a, &b, eps, &m);
	cr_assert_eq(a.stats.trains, 1);
	cr_assert_eq(a.stats.send_errors, N);
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

/*
 * A train arrives at a socket with UDP GRO in one piece and is cut into its datagrams.
 * What does not fit the caller's batch waits for the next call on that socket (a call
 * for the other socket takes nothing meanwhile, and loses nothing).
 */
Test(underlay, coalesced_receive_cut_into_datagrams)
{
	enum { N = 11, LEN = 1452, LAST = 100, BATCH = 3 }; /* one train: a quarter of the limit */
	struct wg_underlay a, b;
	struct wg_endpoint to_b4, to_b6;
	struct wg_pkt *pkts[BATCH];
	uint32_t got = 0;

	open_underlay(&a, 0);
	open_underlay(&b, 0);
	if (!a.udp.gso[WG_UDP_V4] || !b.udp.gro[WG_UDP_V4])
		cr_skip_test("the kernel has no UDP GSO or GRO");
	to_b4 = endpoint(AF_INET, "127.0.0.1", b.port);
	to_b6 = endpoint(AF_INET6, "::1", b.port);
	wg_underlay_begin(&a, mono_ns());
	for (uint32_t i = 0; i < N; i++)
		cr_assert_eq(wg_underlay_queue(&a, &to_b4, data_pkt(i, i == N - 1 ? LAST : LEN, 0)),
			     0);
	cr_assert_eq(wg_underlay_queue(&a, &to_b6, data_pkt(N, 200, 0)), 0);
	cr_assert_eq(wg_underlay_flush(&a), 0);
	cr_assert_eq(a.stats.trains, 1);
	cr_assert(wait_fd(b.fd4, POLLIN));
	cr_assert(wait_fd(b.fd6, POLLIN));
	while (got < N) {
		int n;

		for (int i = 0; i < BATCH; i++)
			pkts[i] = wg_device_pkt_get(&dev, false);
		n = wg_underlay_recv(&b, b.fd4, pkts, BATCH);
		cr_assert_eq(n, (int)WG_MIN(BATCH, N - got), "%u of %u so far", got, N);
		for (int i = 0; i < n; i++, got++)
			expect_payload(pkts[i], got, got == N - 1 ? LAST : LEN);
		if (got < N) {
			cr_assert_eq(wg_underlay_rx_pending(&b), b.fd4);
			cr_assert_eq(wg_underlay_recv(&b, b.fd6, pkts + n, BATCH - n), 0,
				     "the other socket waits");
		}
		for (int i = 0; i < BATCH; i++)
			wg_device_pkt_put(&dev, pkts[i]);
	}
	cr_assert_eq(wg_underlay_rx_pending(&b), -1);
	cr_assert_eq(b.stats.rx_trains, N);
	cr_assert_eq(b.stats.received, N);
	pkts[0] = recv_one(&b, b.fd6);
	expect_payload(pkts[0], N, 200);
	wg_device_pkt_put(&dev, pkts[0]);
	cr_assert_eq(b.stats.rx_trains, N, "a single datagram is not a train");
	cr_assert_eq(dev.pool.outstanding, 0);
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

/* Control messages go out at once: handshakes marked AF41, a keepalive (data) is not. */
Test(underlay, handshakes_marked_af41)
{
	static const struct {
		uint8_t type;
		size_t len;
		uint8_t tos;
	} cases[] = {
		{MESSAGE_HANDSHAKE_INITIATION, MESSAGE_HANDSHAKE_INITIATION_LEN, 0x88},
		{MESSAGE_HANDSHAKE_RESPONSE, MESSAGE_HANDSHAKE_RESPONSE_LEN, 0x88},
		{MESSAGE_HANDSHAKE_COOKIE, MESSAGE_HANDSHAKE_COOKIE_LEN, 0x88},
		{MESSAGE_DATA, MESSAGE_MINIMUM_LENGTH, 0},
	};
	struct wg_underlay a;
	struct wg_udp b;
	struct wg_udp_config cfg = {0};
	uint8_t msg[256] = {0}, in[RX_MAX];
	struct wg_udp_rx rx = {.buf = in, .cap = sizeof(in)};

	open_underlay(&a, 0);
	cr_assert_eq(wg_udp_open(&b, &cfg), 0);
	for (size_t i = 0; i < WG_ARRAY_SIZE(cases); i++) {
		for (int f = 0; f < WG_UDP_FAMILIES; f++) {
			struct wg_endpoint ep = f == WG_UDP_V4
							? endpoint(AF_INET, "127.0.0.1", b.port)
							: endpoint(AF_INET6, "::1", b.port);

			msg[0] = cases[i].type;
			wg_underlay_send_now(&a, &ep, msg, cases[i].len);
			cr_assert(wait_fd(b.fd[f], POLLIN), "case %zu family %d", i, f);
			cr_assert_eq(wg_udp_recv(&b, (enum wg_udp_family)f, &rx, 1), 1);
			cr_assert_eq(rx.len, cases[i].len);
			cr_assert_eq(rx.tos, cases[i].tos, "case %zu family %d: tos %#x", i, f,
				     rx.tos);
		}
	}
	wg_underlay_close(&a);
	wg_udp_close(&b);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * WG_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The daemon's way: wait for the stalled socket, end the stall, start a new round. */
static void wait_writable(struct wg_underlay *u, enum wg_udp_family f)
{
	cr_assert_eq(wg_underlay_blocked_fd(u), u->udp.fd[f]);
	cr_assert(wait_fd(wg_underlay_blocked_fd(u), POLLOUT), "never writable");
	wg_underlay_writable(u, u->udp.fd[f], mono_ns());
	wg_underlay_begin(u, mono_ns());
}

/*
 * A slow qdisc (tbf) on lo holds the datagrams, so the socket fills to its limit.
 * Sending the way the daemon does (queue until -EAGAIN, flush, wait for the blocked
 * socket, end the stall), every packet arrives exactly once, every buffer comes back,
 * the socket never holds much more than its limit, and the limit learns the tbf's rate.
 * (Not necessarily in order: tbf's timer may hand packets to lo on either CPU, and each
 * CPU delivers its own backlog.)
 */
static void backpressure(enum wg_udp_family f, uint32_t setting)
{
	enum { N = 500, LEN = 1200 };
	struct wg_underlay a;
	struct wg_udp b;
	struct wg_udp_config cfg = {0};
	struct wg_endpoint to_b;
	static uint8_t in[WG_UDP_BATCH_MAX][RX_MAX];
	struct wg_udp_rx rx[WG_UDP_BATCH_MAX];
	static bool seen[N];
	uint32_t got = 0, held_max = 0, limit_max = 0;

	if (system("tc qdisc add dev lo root tbf rate 10mbit burst 3000 limit 8000000") != 0)
		cr_skip_test("needs tc with tbf");
	open_underlay(&a, 0);
	cr_assert_eq(wg_underlay_set_limit(&a, setting), 0);
	cr_assert_eq(wg_udp_open(&b, &cfg), 0);
	to_b = f == WG_UDP_V4 ? endpoint(AF_INET, "127.0.0.1", b.port)
			      : endpoint(AF_INET6, "::1", b.port);
	wg_underlay_begin(&a, mono_ns());
	for (uint32_t i = 0; i < N; i++) {
		struct wg_pkt *pkt = data_pkt(i, LEN, 0);

		while (wg_underlay_queue(&a, &to_b, pkt) == -EAGAIN) {
			if (wg_underlay_flush(&a) != -EAGAIN)
				continue; /* the batch was full and has gone */
			held_max = WG_MAX(held_max, (uint32_t)wg_udp_queued_bytes(&a.udp, f));
			limit_max = WG_MAX(limit_max, a.gate[f].bql.limit);
			wait_writable(&a, f);
		}
	}
	while (wg_underlay_flush(&a) == -EAGAIN)
		wait_writable(&a, f);
	held_max = WG_MAX(held_max, (uint32_t)wg_udp_queued_bytes(&a.udp, f));
	if (setting == WG_UNDERLAY_LIMIT_OFF) {
		/* No limit: the tbf holds most of what was sent, far past any limit. */
		cr_assert_eq(wg_underlay_bql_stats(&a).stalls, 0);
		cr_assert_gt(held_max, WG_BQL_MAX_BYTES, "held %u", held_max);
	} else {
		/* The socket never held more than its limit, give or take the estimate of
		 * a datagram's truesize. */
		cr_assert_gt(wg_underlay_bql_stats(&a).stalls, 0, "the socket never pushed back");
		cr_assert_leq(held_max, limit_max + limit_max / 8 + 2304, "held %u, limit %u",
			      held_max, limit_max);
		cr_assert_gt(a.gate[f].bql.stats.samples, 0);
	}
	if (setting == 0) /* 10 Mbit/s: the learnt limit is below where it started */
		cr_assert_lt(a.gate[f].bql.limit, WG_BQL_INIT_BYTES, "limit %u", a.gate[f].bql.limit);
	else if (setting != WG_UNDERLAY_LIMIT_OFF)
		cr_assert_eq(limit_max, setting);
	cr_assert_eq(a.stats.sent, N);
	cr_assert_eq(a.stats.send_errors, 0);
	cr_assert_eq(dev.pool.outstanding, 0);
	while (got < N) {
		int n;

		for (int i = 0; i < WG_UDP_BATCH_MAX; i++)
			rx[i] = (struct wg_udp_rx){.buf = in[i], .cap = sizeof(in[i])};
		n = wg_udp_recv(&b, f, rx, WG_UDP_BATCH_MAX);
		cr_assert_geq(n, 0);
		if (n == 0)
			cr_assert(wait_fd(b.fd[f], POLLIN), "%u of %u arrived", got, N);
		for (int i = 0; i < n; i++, got++) {
			uint32_t seq;

			memcpy(&seq, in[i] + 4, sizeof(seq));
			cr_assert_lt(seq, N);
			cr_assert_not(seen[seq], "packet %u arrived twice", seq);
			seen[seq] = true;
		}
	}
	wg_underlay_close(&a);
	wg_udp_close(&b);
}

Test(underlay, backpressure_keeps_every_packet_v4)
{
	backpressure(WG_UDP_V4, 0);
}

Test(underlay, backpressure_keeps_every_packet_v6)
{
	backpressure(WG_UDP_V6, 0);
}

Test(underlay, backpressure_with_a_fixed_limit)
{
	backpressure(WG_UDP_V4, 20000);
}

Test(underlay, backpressure_off_leaves_the_queue_below)
{
	backpressure(WG_UDP_V6, WG_UNDERLAY_LIMIT_OFF);
}

/*
 * Control messages meet a full socket (a slow tbf on lo holds what was sent): they wait in
 * the bounded queue, no data message goes while they do, and on writability every one
 * that the queue held arrives; those beyond its bound are counted, not silently lost.
 */
Test(underlay, control_messages_wait_ahead_of_data)
{
	enum { FILL_LEN = 1200, N_CTL = WG_UNDERLAY_CTL_QUEUE + 40 };
	static uint8_t in[WG_UDP_BATCH_MAX][RX_MAX];
	struct wg_udp_rx rx[WG_UDP_BATCH_MAX];
	struct wg_underlay a;
	struct wg_udp b;
	struct wg_udp_config cfg = {0};
	struct wg_endpoint to_b;
	uint8_t fill[FILL_LEN] = {MESSAGE_DATA}, msg[MESSAGE_HANDSHAKE_INITIATION_LEN] = {0};
	struct wg_udp_tx tx = {.buf = fill, .len = sizeof(fill), .ep = &to_b};
	struct wg_udp_send_result res;
	uint32_t fills = 0, ctl_got = 0, data_got = 0, want_ctl;
	struct wg_pkt *pkt = data_pkt(7, 200, 0);

	if (system("tc qdisc add dev lo root tbf rate 1mbit burst 3000 limit 8000000") != 0)
		cr_skip_test("needs tc with tbf");
	open_underlay(&a, 0);
	cr_assert_eq(wg_underlay_set_limit(&a, WG_BQL_MIN_BYTES), 0);
	cr_assert_eq(wg_udp_open(&b, &cfg), 0);
	to_b = endpoint(AF_INET, "127.0.0.1", b.port);
	while (wg_udp_send(&a.udp, &tx, 1, &res) == WG_UDP_SENT_ALL)
		fills++;
	cr_assert_eq(res.err, -EAGAIN, "the socket is full");
	msg[0] = MESSAGE_HANDSHAKE_INITIATION;
	for (uint32_t i = 0; i < N_CTL; i++) {
		memcpy(msg + 4, &i, sizeof(i));
		wg_underlay_send_now(&a, &to_b, msg, sizeof(msg));
	}
	cr_assert_gt(a.stats.ctl_queued, 0);
	cr_assert_gt(a.stats.ctl_dropped, 0, "the queue is bounded");
	cr_assert_leq(a.ctlq[WG_UDP_V4].n, WG_UNDERLAY_CTL_QUEUE);
	cr_assert_eq(wg_underlay_blocked_fd(&a), a.fd4);
	want_ctl = N_CTL - (uint32_t)a.stats.ctl_dropped;
	wg_underlay_begin(&a, mono_ns());
	for (bool queued = false;;) {
		int r;

		if (!queued) /* the daemon's way: CAKE keeps it while the socket has no room */
			queued = wg_underlay_queue(&a, &to_b, pkt) == 0;
		r = wg_underlay_flush(&a);
		if (a.ctlq[WG_UDP_V4].n)
			cr_assert_eq(a.stats.sent, 0, "data went before a waiting control message");
		if (queued && r == 0)
			break;
		wait_writable(&a, WG_UDP_V4);
	}
	cr_assert_eq(a.ctlq[WG_UDP_V4].n, 0);
	cr_assert_eq(a.stats.sent, 1);
	cr_assert_eq(dev.pool.outstanding, 0);
	while (ctl_got + data_got < want_ctl + fills + 1) {
		int n;

		for (int i = 0; i < WG_UDP_BATCH_MAX; i++)
			rx[i] = (struct wg_udp_rx){.buf = in[i], .cap = sizeof(in[i])};
		n = wg_udp_recv(&b, WG_UDP_V4, rx, WG_UDP_BATCH_MAX);
		cr_assert_geq(n, 0);
		if (n == 0)
			cr_assert(wait_fd(b.fd[WG_UDP_V4], POLLIN), "%u control messages of %u",
				  ctl_got, want_ctl);
		for (int i = 0; i < n; i++) {
			if (in[i][0] == MESSAGE_HANDSHAKE_INITIATION) {
				cr_assert_eq(rx[i].len, sizeof(msg));
				ctl_got++;
			} else {
				data_got++;
			}
		}
	}
	cr_assert_eq(ctl_got, want_ctl);
	cr_assert_eq(data_got, fills + 1);
	wg_underlay_close(&a);
	wg_udp_close(&b);
}

/* An endpoint without an address, or one the kernel refuses, costs that packet only. */
Test(underlay, refused_packets_counted_and_returned)
{
	struct wg_underlay a, b;
	struct wg_endpoint none, good, unrouted;
	struct wg_pkt *pkt;

	open_underlay(&a, 0);
	open_underlay(&b, 0);
	memset(&none, 0, sizeof(none));
	good = endpoint(AF_INET, "127.0.0.1", b.port);
	unrouted = endpoint(AF_INET, "192.0.2.1", b.port);
	cr_assert_eq(wg_underlay_queue(&a, &none, data_pkt(0, 64, 0)), 0);
	cr_assert_eq(a.stats.send_errors, 1);
	cr_assert_eq(dev.pool.outstanding, 0, "an unaddressed packet goes back at once");
	cr_assert_eq(wg_underlay_queue(&a, &good, data_pkt(1, 64, 0)), 0);
	cr_assert_eq(wg_underlay_queue(&a, &unrouted, data_pkt(2, 64, 0)), 0);
	cr_assert_eq(wg_underlay_queue(&a, &good, data_pkt(3, 64, 0)), 0);
	cr_assert_eq(wg_underlay_flush(&a), 0, "a refused packet does not hold up the batch");
	cr_assert_eq(a.stats.sent, 2);
	cr_assert_eq(a.stats.send_errors, 2);
	cr_assert_eq(dev.pool.outstanding, 0);
	pkt = recv_one(&b, b.fd4);
	expect_payload(pkt, 1, 64);
	wg_device_pkt_put(&dev, pkt);
	pkt = recv_one(&b, b.fd4);
	expect_payload(pkt, 3, 64);
	wg_device_pkt_put(&dev, pkt);
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

/* A pattern that tells where in a datagram a byte was. */
static void fill_pattern(uint8_t *buf, size_t len, uint8_t salt)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + (i >> 8) + salt);
}

static void expect_pattern(struct wg_pkt *pkt, size_t len, uint8_t salt)
{
	const uint8_t *msg = wg_pkt_msg(pkt);

	cr_assert_eq(pkt->msg_len, len);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(msg[i], (uint8_t)(i * 7 + (i >> 8) + salt), "byte %zu of %zu", i, len);
}

/* Datagrams of every size up to the UDP maximum arrive whole, whatever the MTU-sized
 * buffers hold: the longer ones in large buffers, which go back to their pool. */
static void expect_any_size_arrives(bool gro)
{
	static const size_t sizes[] = {100, 1452, 3000, 9000, 65535 - 20 - 8, 200};
	static uint8_t buf[65535];
	struct wg_underlay b;
	struct wg_udp a;
	struct wg_udp_config cfg = {0};
	struct wg_endpoint to_b;
	struct wg_udp_send_result res;
	uint64_t large = 0;

	open_underlay(&b, 0);
	if (!gro) { /* the kernel's coalescing off: each datagram straight into its buffer */
		int off = 0;

		cr_assert_eq(setsockopt(b.fd4, IPPROTO_UDP, UDP_GRO, &off, sizeof(off)), 0);
		b.udp.gro[WG_UDP_V4] = false;
	} else if (!b.udp.gro[WG_UDP_V4]) {
		cr_skip_test("the kernel has no UDP GRO");
	}
	cr_assert_eq(wg_udp_open(&a, &cfg), 0);
	to_b = endpoint(AF_INET, "127.0.0.1", b.port);
	for (size_t i = 0; i < WG_ARRAY_SIZE(sizes); i++) {
		struct wg_udp_tx tx = {.buf = buf, .len = sizes[i], .ep = &to_b};
		struct wg_pkt *pkt;

		fill_pattern(buf, sizes[i], (uint8_t)i);
		cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SENT_ALL, "size %zu", sizes[i]);
		pkt = recv_one(&b, b.fd4);
		expect_pattern(pkt, sizes[i], (uint8_t)i);
		large += pkt->cap == dev.pool_large.cap;
		wg_device_pkt_put(&dev, pkt);
	}
	cr_assert_eq(large, 3, "the datagrams over the MTU came in large buffers");
	cr_assert_eq(b.stats.rx_large, 3);
	cr_assert_eq(b.stats.truncated, 0);
	cr_assert_eq(b.stats.received, WG_ARRAY_SIZE(sizes));
	cr_assert_eq(dev.pool.outstanding, 0);
	cr_assert_eq(dev.pool_large.outstanding, 0);
	cr_assert_eq(wg_underlay_recv(&b, 12345, NULL, 1), 0, "not one of our sockets");
	wg_underlay_close(&b);
	wg_udp_close(&a);
}

Test(underlay, datagram_longer_than_mtu_arrives_whole)
{
	expect_any_size_arrives(false);
}

Test(underlay, datagram_longer_than_mtu_arrives_whole_with_gro)
{
	expect_any_size_arrives(true);
}

/* A coalesced receive whose datagrams are larger than the pool's buffers: each arrives
 * whole in a large buffer, and the shorter last one in the buffer it was given. */
Test(underlay, coalesced_oversized_datagrams_arrive_whole)
{
	enum { SEG = 3000, SEGS = 3, LAST = 100 };
	struct wg_underlay b;
	struct wg_udp a;
	struct wg_udp_config cfg = {0};
	static uint8_t train[SEGS * SEG + LAST];
	struct wg_endpoint to_b;
	struct wg_udp_tx tx = {.buf = train, .len = sizeof(train), .ep = &to_b, .gso_size = SEG};
	struct wg_udp_send_result res;

	open_underlay(&b, 0);
	cr_assert_eq(wg_udp_open(&a, &cfg), 0);
	if (!a.gso[WG_UDP_V4] || !b.udp.gro[WG_UDP_V4])
		cr_skip_test("the kernel has no UDP GSO or GRO");
	to_b = endpoint(AF_INET, "127.0.0.1", b.port);
	for (int i = 0; i < SEGS; i++)
		memset(train + i * SEG, 0x10 + i, SEG);
	memset(train + SEGS * SEG, 0x5a, LAST);
	cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SENT_ALL);
	for (int i = 0; i <= SEGS; i++) {
		struct wg_pkt *pkt = recv_one(&b, b.fd4);
		const uint8_t *msg = wg_pkt_msg(pkt);

		cr_assert_eq(pkt->msg_len, i < SEGS ? SEG : LAST, "datagram %d", i);
		cr_assert_eq(msg[0], i < SEGS ? 0x10 + i : 0x5a);
		cr_assert_eq(msg[pkt->msg_len - 1], i < SEGS ? 0x10 + i : 0x5a);
		cr_assert_eq(pkt->cap == dev.pool_large.cap, i < SEGS, "datagram %d", i);
		wg_device_pkt_put(&dev, pkt);
	}
	cr_assert_eq(b.stats.truncated, 0);
	cr_assert_eq(b.stats.rx_large, SEGS);
	cr_assert_eq(b.stats.received, SEGS + 1);
	cr_assert_eq(b.stats.rx_trains, SEGS + 1);
	cr_assert_eq(wg_underlay_rx_pending(&b), -1);
	cr_assert_eq(dev.pool_large.outstanding, 0);
	wg_underlay_close(&b);
	wg_udp_close(&a);
}

/*
 * The peer's endpoint (const to the underlay) keeps naming a local address that is gone:
 * each packet still goes, the kernel is asked once, and the caller's endpoint is not
 * written to.
 */
Test(underlay, vanished_source)
{
	struct wg_underlay a, b;
	struct wg_endpoint stale;
	struct wg_pkt *pkt;

	open_underlay(&a, 0);
	open_underlay(&b, 0);
	stale = endpoint(AF_INET, "127.0.0.1", b.port);
	stale.has_src = true;
	cr_assert_eq(inet_pton(AF_INET, "192.0.2.99", &stale.src4), 1);
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_eq(wg_underlay_queue(&a, &stale, data_pkt(i, 80, 0)), 0);
		cr_assert_eq(wg_underlay_flush(&a), 0);
		cr_assert(stale.has_src, "the caller's endpoint was changed");
		pkt = recv_one(&b, b.fd4);
		expect_payload(pkt, i, 80);
		wg_device_pkt_put(&dev, pkt);
	}
	pkt = data_pkt(9, 92, 0);
	wg_underlay_send_now(&a, &stale, wg_pkt_msg(pkt), 92);
	wg_device_pkt_put(&dev, pkt);
	cr_assert(stale.has_src);
	pkt = recv_one(&b, b.fd4);
	expect_payload(pkt, 9, 92);
	wg_device_pkt_put(&dev, pkt);
	cr_assert_eq(a.stats.sent, 3);
	cr_assert_eq(a.stats.send_errors, 0);
	cr_assert_eq(a.udp.stats.sticky_resets, 1, "the kernel was asked again");
	wg_underlay_close(&a);
	wg_underlay_close(&b);
}

static unsigned int rebound_calls;

static void count_rebound(void *ctx)
{
	cr_assert_eq(ctx, &rebound_calls);
	rebound_calls++;
}

static uint16_t bound_port(int fd)
{
	union wg_ipaddr_sockaddr sa;
	socklen_t len = sizeof(sa);

	cr_assert_eq(getsockname(fd, &sa.addr, &len), 0);
	return ntohs(sa.addr.sa_family == AF_INET ? sa.addr4.sin_port : sa.addr6.sin6_port);
}

/* A UDP socket on some free port of one family, to take that port away. */
static int squat(int af, uint16_t *port)
{
	union wg_ipaddr_sockaddr sa;
	socklen_t len = af == AF_INET ? sizeof(sa.addr4) : sizeof(sa.addr6);
	int fd = socket(af, SOCK_DGRAM, 0);

	cr_assert_geq(fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.addr.sa_family = (sa_family_t)af;
	cr_assert_eq(bind(fd, &sa.addr, len), 0);
	*port = bound_port(fd);
	return fd;
}

static bool rx_stamps_on(int fd)
{
	int on = -1;
	socklen_t len = sizeof(on);

	cr_assert_eq(getsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, &len), 0);
	return on == 1;
}

/* A new port moves both sockets and tells the daemon; a taken one keeps the old sockets;
 * the mark and the receive times stay. */
Test(underlay, rebind)
{
	struct wg_underlay u;
	struct wg_endpoint self;
	uint16_t free_port, taken;
	int fd, blocker;

	cr_assert_eq(wg_underlay_open(&u, &dev, 0, count_rebound, &rebound_calls), 0);
	cr_assert_eq(rebound_calls, 0);
	fd = squat(AF_INET6, &free_port); /* free for v4, and free for v6 once closed */
	close(fd);
	self = endpoint(AF_INET, "127.0.0.1", u.port);
	cr_assert_eq(wg_underlay_queue(&u, &self, data_pkt(0, 64, 0)), 0);
	cr_assert_eq(wg_underlay_rebind(&u, free_port), 0);
	cr_assert_eq(rebound_calls, 1);
	cr_assert_eq(u.port, free_port);
	cr_assert_eq(bound_port(u.fd4), free_port);
	cr_assert_eq(bound_port(u.fd6), free_port);
	cr_assert_eq(dev.pool.outstanding, 0, "batched packets of the old sockets are dropped");

	blocker = squat(AF_INET, &taken);
	cr_assert_eq(wg_underlay_rebind(&u, taken), -EADDRINUSE);
	cr_assert_eq(rebound_calls, 2);
	cr_assert_eq(u.port, free_port, "the old port stays");
	cr_assert_eq(bound_port(u.fd4), free_port);
	cr_assert_eq(bound_port(u.fd6), free_port);
	close(blocker);

	cr_assert_eq(wg_underlay_rebind(&u, free_port), 0, "the same port: closed first");
	cr_assert_eq(bound_port(u.fd4), free_port);
	cr_assert_eq(wg_underlay_set_fwmark(&u, 77), 0);
	cr_assert_eq(u.fwmark, 77);
	cr_assert_eq(wg_underlay_rebind(&u, 0), 0);
	cr_assert_neq(u.port, free_port);
	cr_assert_eq(u.fwmark, 77, "the mark survives a rebind");
	cr_assert_eq(rebound_calls, 4);
	cr_assert(!rx_stamps_on(u.fd4) && !rx_stamps_on(u.fd6), "receive times off after open");
	cr_assert_eq(wg_underlay_set_rx_stamps(&u, true), 0);
	cr_assert(u.rx_stamps && rx_stamps_on(u.fd4) && rx_stamps_on(u.fd6));
	cr_assert_eq(wg_underlay_rebind(&u, 0), 0);
	cr_assert(rx_stamps_on(u.fd4) && rx_stamps_on(u.fd6), "receive times survive a rebind");
	cr_assert_eq(wg_underlay_set_rx_stamps(&u, false), 0);
	cr_assert(!u.rx_stamps && !rx_stamps_on(u.fd4) && !rx_stamps_on(u.fd6));
	wg_underlay_close(&u);
	cr_assert_eq(u.fd4, -1);
	cr_assert_eq(u.fd6, -1);
}

/* The daemon closes an underlay it never opened (setup failed early): nothing happens. */
Test(underlay, close_never_opened)
{
	struct wg_underlay u;
	int before = fcntl(0, F_GETFD);

	memset(&u, 0, sizeof(u));
	u.fd4 = u.fd6 = -1;
	wg_underlay_close(&u);
	cr_assert_eq(fcntl(0, F_GETFD) >= 0, before >= 0, "closed a descriptor it never had");
}
