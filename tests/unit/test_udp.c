/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The UDP underlay on loopback, each test in its own network namespace: binding rules,
 * batched exchange with the local address reported and used as the reply's source,
 * recovery from a stale source (remembered until it is seen again), backpressure from a
 * small send buffer, GSO/GRO.
 */
#define _GNU_SOURCE /* unshare(), in tests/support/netns.h */
#include "src/edge/udp.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "src/edge/monoclock.h"
#include "src/edge/netlink.h"
#include "tests/support/netns.h"

enum {
	WAIT_MS = 5000, /* upper bound for the kernel to deliver what is already sent */
	PAYLOAD_MAX = 2048,
};

TestSuite(udp, .init = support_enter_netns);

static bool wait_fd(int fd, short events);

/* Where the tests send to, per family: a second local address and the usual one. */
struct family_case {
	enum wg_udp_family f;
	const char *sticky;  /* a local address that is not the default source */
	const char *other;   /* the address the kernel would pick by itself */
	const char *foreign; /* not local: a stale sticky source */
};

static const struct family_case cases[] = {
	{WG_UDP_V4, "127.0.0.2", "127.0.0.1", "192.0.2.99"},
	{WG_UDP_V6, "fd00:77::2", "::1", "2001:db8::99"},
};

/* Whether fd00:77::2 is routable yet (its local route is in place). */
static bool v6_address_ready(struct wg_nl *nl, const struct wg_nl_prefix *p)
{
	struct wg_nl_route_info info;

	return wg_netlink_route_get(nl, p, 0, &info) == 0 && info.type == RTN_LOCAL;
}

/*
 * fd00:77::2 on lo, so that IPv6 has a second local address too. The kernel installs an
 * IPv6 address's local route from a workqueue, after the address itself: wait for the
 * route's RTM_NEWROUTE instead of sending into a "no route" drop.
 */
static void add_v6_address(void)
{
	struct wg_nl *nl;
	struct wg_nl_prefix p = {.family = AF_INET6, .len = 128};
	struct mnl_socket *ev = mnl_socket_open(NETLINK_ROUTE);
	static uint8_t buf[8192];

	cr_assert(ev && mnl_socket_bind(ev, RTMGRP_IPV6_ROUTE, MNL_SOCKET_AUTOPID) == 0);
	cr_assert_eq(inet_pton(AF_INET6, "fd00:77::2", &p.addr.v6), 1);
	cr_assert_eq(wg_netlink_open(&nl), 0);
	cr_assert_eq(wg_netlink_addr_add(nl, 1, &p, WG_NL_ADDR_NODAD), 0);
	while (!v6_address_ready(nl, &p)) {
		cr_assert(wait_fd(mnl_socket_get_fd(ev), POLLIN), "no route for fd00:77::2");
		cr_assert_gt(mnl_socket_recvfrom(ev, buf, sizeof(buf)), 0);
	}
	wg_netlink_close(nl);
	mnl_socket_close(ev);
}

static struct wg_endpoint endpoint(enum wg_udp_family f, const char *addr, uint16_t port)
{
	struct wg_endpoint ep;

	memset(&ep, 0, sizeof(ep));
	if (f == WG_UDP_V4) {
		ep.remote.addr4.sin_family = AF_INET;
		ep.remote.addr4.sin_port = htons(port);
		cr_assert_eq(inet_pton(AF_INET, addr, &ep.remote.addr4.sin_addr), 1);
	} else {
		ep.remote.addr6.sin6_family = AF_INET6;
		ep.remote.addr6.sin6_port = htons(port);
		cr_assert_eq(inet_pton(AF_INET6, addr, &ep.remote.addr6.sin6_addr), 1);
	}
	return ep;
}

static void open_udp(struct wg_udp *u, uint16_t port, uint32_t sndbuf, bool gro)
{
	struct wg_udp_config cfg = {.port = port, .sndbuf_bytes = sndbuf, .gro = gro};

	cr_assert_eq(wg_udp_open(u, &cfg), 0);
}

static bool wait_fd(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};

	return poll(&p, 1, WAIT_MS) == 1;
}

/* Receives exactly want datagrams (waiting for each batch), into bufs. */
static void recv_n(struct wg_udp *u, enum wg_udp_family f, struct wg_udp_rx *rx,
		   uint8_t (*bufs)[PAYLOAD_MAX], unsigned int want)
{
	unsigned int got = 0, i;

	while (got < want) {
		unsigned int n = want - got < WG_UDP_BATCH_MAX ? want - got : WG_UDP_BATCH_MAX;
		int r;

		for (i = 0; i < n; i++) {
			rx[got + i].buf = bufs[got + i];
			rx[got + i].cap = PAYLOAD_MAX;
		}
		r = wg_udp_recv(u, f, &rx[got], n);
		cr_assert_geq(r, 0, "recv: %s", strerror(-r));
		if (r == 0)
			cr_assert(wait_fd(u->fd[f], POLLIN), "only %u of %u datagrams arrived", got,
				  want);
		got += (unsigned int)r;
	}
}

static bool same_addr(const struct wg_endpoint *ep, enum wg_udp_family f, const char *text)
{
	uint8_t want[16];

	cr_assert_eq(inet_pton(f == WG_UDP_V4 ? AF_INET : AF_INET6, text, want), 1);
	if (f == WG_UDP_V4)
		return !memcmp(&ep->src4, want, 4);
	return !memcmp(&ep->src6, want, 16);
}

static bool remote_is(const struct wg_endpoint *ep, enum wg_udp_family f, const char *text,
		      uint16_t port)
{
	struct wg_endpoint want = endpoint(f, text, port);

	return wg_endpoint_same_remote(ep, &want);
}

Test(udp, bind_same_port_both_families)
{
	struct wg_udp a, b;
	struct wg_udp_config cfg = {0};
	int v6only = 0;
	socklen_t len = sizeof(v6only);

	open_udp(&a, 0, 0, false);
	cr_assert_neq(a.port, 0);
	cr_assert_geq(a.fd[WG_UDP_V4], 0);
	cr_assert_geq(a.fd[WG_UDP_V6], 0);
	cr_assert_eq(getsockopt(a.fd[WG_UDP_V6], IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &len), 0);
	cr_assert_eq(v6only, 1);
	cfg.port = a.port;
	cr_assert_eq(wg_udp_open(&b, &cfg), -EADDRINUSE);
	cr_assert_eq(b.fd[WG_UDP_V4], -1, "nothing left open after a failure");
	cr_assert_eq(b.fd[WG_UDP_V6], -1);
	wg_udp_close(&a);
	open_udp(&b, cfg.port, 0, false); /* the port is free again */
	cr_assert_eq(b.port, cfg.port);
	wg_udp_close(&b);
}

/* The send buffer is the configured byte limit; the receive buffer is large (as root). */
Test(udp, buffer_sizes)
{
	struct wg_udp u;
	int f, snd = 0, rcv = 0;
	socklen_t len;

	open_udp(&u, 0, 32768, false);
	for (f = 0; f < WG_UDP_FAMILIES; f++) {
		len = sizeof(snd);
		cr_assert_eq(getsockopt(u.fd[f], SOL_SOCKET, SO_SNDBUF, &snd, &len), 0);
		cr_assert_eq(snd, 32768);
		len = sizeof(rcv);
		cr_assert_eq(getsockopt(u.fd[f], SOL_SOCKET, SO_RCVBUF, &rcv, &len), 0);
		cr_assert_geq(rcv, WG_UDP_RCVBUF_BYTES, "SO_RCVBUFFORCE past rmem_max");
	}
	wg_udp_close(&u);
}

Test(udp, fwmark)
{
	struct wg_udp u;
	struct wg_udp_config cfg = {.fwmark = 51820};
	int mark = 0, f;
	socklen_t len = sizeof(mark);

	cr_assert_eq(wg_udp_open(&u, &cfg), 0);
	cr_assert_eq(wg_udp_set_fwmark(&u, 7), 0);
	for (f = 0; f < WG_UDP_FAMILIES; f++) {
		len = sizeof(mark);
		cr_assert_eq(getsockopt(u.fd[f], SOL_SOCKET, SO_MARK, &mark, &len), 0);
		cr_assert_eq(mark, 7);
	}
	wg_udp_close(&u);
}

static void fill(uint8_t *p, size_t len, unsigned int seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seq * 31 + i);
}

/* One datagram A -> B, read by B: its receive time. */
static uint64_t one_rx_ns(struct wg_udp *a, struct wg_udp *b, const struct family_case *c)
{
	static uint8_t out[PAYLOAD_MAX], in[PAYLOAD_MAX];
	struct wg_endpoint to_b = endpoint(c->f, c->other, b->port);
	struct wg_udp_tx tx = {.buf = out, .len = 200, .ep = &to_b};
	struct wg_udp_send_result res;
	struct wg_udp_rx rx;

	cr_assert_eq(wg_udp_send(a, &tx, 1, &res), WG_UDP_SENT_ALL);
	recv_n(b, c->f, &rx, &in, 1);
	return rx.rx_ns;
}

/*
 * With receive times on, each datagram carries the kernel's receive time on the
 * monotonic clock: between its send and its read, and earlier than the read by the
 * time it waited in the socket. The kernel turns its receive stamps on for everyone a
 * moment after the first socket asks (a deferred static key); until then it stamps at
 * the read. So a few tries. Off (the default, and after turning them off), none.
 */
static void receive_time(const struct family_case *c)
{
	enum { WAIT_IN_SOCKET_MS = 50, TRIES = 10 };
	static struct wg_udp a, b;
	static uint8_t out[PAYLOAD_MAX], in[PAYLOAD_MAX];
	struct wg_udp_tx tx = {.buf = out, .len = 200};
	struct wg_udp_rx rx;
	struct wg_udp_send_result res;
	struct wg_endpoint to_b;
	bool waited = false;

	open_udp(&a, 0, 0, false);
	open_udp(&b, 0, 0, false);
	cr_assert_eq(one_rx_ns(&a, &b, c), 0, "off by default");
	cr_assert_eq(wg_udp_set_rx_stamps(&b, true), 0);
	to_b = endpoint(c->f, c->other, b.port);
	tx.ep = &to_b;
	for (int i = 0; i < TRIES && !waited; i++) {
		uint64_t sent_ns = wg_mono_ns(), read_ns, done_ns;

		cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SENT_ALL);
		cr_assert(wait_fd(b.fd[c->f], POLLIN));
		usleep(WAIT_IN_SOCKET_MS * 1000);
		read_ns = wg_mono_ns();
		recv_n(&b, c->f, &rx, &in, 1);
		done_ns = wg_mono_ns();
		cr_assert(rx.rx_ns >= sent_ns && rx.rx_ns <= done_ns,
			  "try %d: received %lld ns after the send, read at %lld", i,
			  (long long)(rx.rx_ns - sent_ns), (long long)(read_ns - sent_ns));
		waited = rx.rx_ns < read_ns &&
			 read_ns - rx.rx_ns >= WAIT_IN_SOCKET_MS * 1000000ull / 2;
	}
	cr_assert(waited, "no receive time earlier than the read in %d tries", TRIES);
	cr_assert_eq(wg_udp_set_rx_stamps(&b, false), 0);
	cr_assert_eq(one_rx_ns(&a, &b, c), 0, "turned off");
	wg_udp_close(&a);
	wg_udp_close(&b);
}

Test(udp, receive_time_v4)
{
	receive_time(&cases[0]);
}

Test(udp, receive_time_v6)
{
	receive_time(&cases[1]);
}

/* A sends a batch to B's second local address; B answers from that address. */
static void exchange(const struct family_case *c)
{
	enum { N = 40 };
	static struct wg_udp a, b;
	static uint8_t out[N][PAYLOAD_MAX], in[N][PAYLOAD_MAX];
	struct wg_udp_tx tx[N];
	struct wg_udp_rx rx[N];
	struct wg_udp_send_result res;
	struct wg_endpoint to_b;
	unsigned int i;

	open_udp(&a, 0, 0, false);
	open_udp(&b, 0, 0, false);
	to_b = endpoint(c->f, c->sticky, b.port);
	/* A speaks from the default address (IPv6 would otherwise pick the destination). */
	to_b.has_src = true;
	cr_assert_eq(inet_pton(c->f == WG_UDP_V4 ? AF_INET : AF_INET6, c->other, &to_b.src6), 1);
	for (i = 0; i < N; i++) {
		fill(out[i], 100 + i * 37, i);
		tx[i] = (struct wg_udp_tx){.buf = out[i],
					   .len = 100 + i * 37,
					   .ep = &to_b,
					   .tos = (uint8_t)(i % 4)}; /* every ECN codepoint */
	}
	cr_assert_eq(wg_udp_send(&a, tx, N, &res), WG_UDP_SENT_ALL);
	cr_assert_eq(res.sent, N);
	recv_n(&b, c->f, rx, in, N);
	for (i = 0; i < N; i++) {
		cr_assert_eq(rx[i].len, 100 + i * 37);
		cr_assert_eq(memcmp(in[i], out[i], rx[i].len), 0, "datagram %u differs", i);
		cr_assert_not(rx[i].truncated);
		cr_assert_eq(rx[i].tos, i % 4, "ECN bits of datagram %u", i);
		cr_assert(remote_is(&rx[i].ep, c->f, c->other, a.port));
		cr_assert(rx[i].ep.has_src && same_addr(&rx[i].ep, c->f, c->sticky),
			  "the local address the datagram went to is reported");
		cr_assert_eq(rx[i].ep.src_ifindex, 1);
	}
	/* The reply leaves from the address A talked to, not the kernel's default. */
	tx[0] = (struct wg_udp_tx){.buf = out[0], .len = 64, .ep = &rx[0].ep};
	cr_assert_eq(wg_udp_send(&b, tx, 1, &res), WG_UDP_SENT_ALL);
	recv_n(&a, c->f, rx + 1, in + 1, 1);
	cr_assert(remote_is(&rx[1].ep, c->f, c->sticky, b.port), "reply not from sticky source");
	wg_udp_close(&a);
	wg_udp_close(&b);
}

Test(udp, batch_exchange_sticky_v4)
{
	exchange(&cases[0]);
}

Test(udp, batch_exchange_sticky_v6)
{
	add_v6_address();
	exchange(&cases[1]);
}

/* Sticky sources the kernel refuses: an address that is not ours, or a gone interface. */
struct stale_case {
	bool foreign; /* the family case's foreign address, else its usual one */
	int ifindex;
};

static const struct stale_case stale_cases[] = {
	{true, 0},    /* address removed, no interface pinned */
	{true, 1},    /* address removed, interface still there */
	{false, 999}, /* address fine, interface deleted */
};

/* Each stale source is cleared, counted, and the datagram still goes. */
static void stale_source(const struct family_case *c)
{
	struct wg_udp a, b;
	struct wg_udp_rx rx;
	uint8_t in[1][PAYLOAD_MAX], out[32] = "stale";
	struct wg_udp_send_result res;
	struct wg_endpoint ep;
	struct wg_udp_tx tx;
	size_t i;

	open_udp(&a, 0, 0, false);
	open_udp(&b, 0, 0, false);
	for (i = 0; i < WG_ARRAY_SIZE(stale_cases); i++) {
		const char *src = stale_cases[i].foreign ? c->foreign : c->other;

		ep = endpoint(c->f, c->other, b.port);
		ep.has_src = true;
		ep.src_ifindex = stale_cases[i].ifindex;
		cr_assert_eq(inet_pton(c->f == WG_UDP_V4 ? AF_INET : AF_INET6, src, &ep.src6), 1);
		tx = (struct wg_udp_tx){.buf = out, .len = sizeof(out), .ep = &ep};
		cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SENT_ALL, "case %zu: err %d", i,
			     res.err);
		cr_assert_not(ep.has_src, "case %zu: the stale source is forgotten", i);
		cr_assert_eq(ep.src_ifindex, 0);
		cr_assert_eq(a.stats.sticky_resets, i + 1);
		recv_n(&b, c->f, &rx, in, 1);
		cr_assert(remote_is(&rx.ep, c->f, c->other, a.port), "case %zu", i);
	}
	wg_udp_close(&a);
	wg_udp_close(&b);
}

Test(udp, stale_source_v4)
{
	stale_source(&cases[0]);
}

Test(udp, stale_source_v6)
{
	stale_source(&cases[1]);
}

/* An endpoint to B at the usual address, naming a local source on a deleted interface. */
static struct wg_endpoint gone_source(const struct family_case *c, uint16_t port)
{
	struct wg_endpoint ep = endpoint(c->f, c->other, port);

	ep.has_src = true;
	ep.src_ifindex = 999;
	cr_assert_eq(inet_pton(c->f == WG_UDP_V4 ? AF_INET : AF_INET6, c->other, &ep.src6), 1);
	return ep;
}

/*
 * A refused source is left out of later datagrams (fresh copies of the endpoint still
 * name it) without asking the kernel again, in the rest of the batch too, until a
 * datagram arrives at that address.
 */
static void refused_source_remembered(const struct family_case *c)
{
	enum { N = 6 };
	struct wg_udp a, b;
	struct wg_udp_rx rx[N];
	static uint8_t in[N][PAYLOAD_MAX];
	uint8_t out[32] = "refused";
	struct wg_udp_send_result res;
	struct wg_endpoint eps[N], to_a;
	struct wg_udp_tx tx[N];
	unsigned int i;

	open_udp(&a, 0, 0, false);
	open_udp(&b, 0, 0, false);
	for (i = 0; i < N; i++) {
		eps[i] = gone_source(c, b.port);
		tx[i] = (struct wg_udp_tx){.buf = out, .len = sizeof(out), .ep = &eps[i]};
	}
	cr_assert_eq(wg_udp_send(&a, tx, N, &res), WG_UDP_SENT_ALL, "err %d", res.err);
	cr_assert_eq(a.stats.sticky_resets, 1, "only the first datagram was refused");
	for (i = 0; i < N; i++)
		cr_assert_not(eps[i].has_src, "datagram %u kept the gone source", i);
	recv_n(&b, c->f, rx, in, N);
	eps[0] = gone_source(c, b.port);
	cr_assert_eq(wg_udp_send(&a, tx, 1, &res), WG_UDP_SENT_ALL);
	cr_assert_eq(a.stats.sticky_resets, 1, "a later send asked the kernel again");
	cr_assert_not(eps[0].has_src);
	recv_n(&b, c->f, rx, in, 1);
	/* A datagram arrives at that address: it is usable again, so it is tried again. */
	to_a = endpoint(c->f, c->other, a.port);
	tx[0].ep = &to_a;
	cr_assert_eq(wg_udp_send(&b, tx, 1, &res), WG_UDP_SENT_ALL);
	recv_n(&a, c->f, rx, in, 1);
	eps[0] = gone_source(c, b.port);
	tx[0].ep = &eps[0];
	cr_assert_eq(wg_udp_send(&a, tx, 1, &res), WG_UDP_SENT_ALL);
	cr_assert_eq(a.stats.sticky_resets, 2, "the source stayed condemned after it was seen");
	wg_udp_close(&a);
	wg_udp_close(&b);
}

Test(udp, refused_source_remembered_v4)
{
	refused_source_remembered(&cases[0]);
}

Test(udp, refused_source_remembered_v6)
{
	refused_source_remembered(&cases[1]);
}

/* A destination without a route fails with and without the source: the source is not
 * blamed, and the next datagram to a reachable peer still leaves from it. */
static void unreachable_keeps_source(const struct family_case *c, const char *unrouted)
{
	struct wg_udp a, b;
	struct wg_udp_rx rx;
	uint8_t in[1][PAYLOAD_MAX], out[16] = "unreachable";
	struct wg_udp_send_result res;
	struct wg_endpoint ep;
	struct wg_udp_tx tx = {.buf = out, .len = sizeof(out), .ep = &ep};
	int af = c->f == WG_UDP_V4 ? AF_INET : AF_INET6;

	open_udp(&a, 0, 0, false);
	open_udp(&b, 0, 0, false);
	ep = endpoint(c->f, unrouted, b.port);
	ep.has_src = true;
	cr_assert_eq(inet_pton(af, c->other, &ep.src6), 1);
	cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SEND_FAILED);
	cr_assert_eq(res.err, -ENETUNREACH);
	cr_assert_not(a.refused[c->f].set, "a good source was blamed for the route");
	ep = endpoint(c->f, c->other, b.port);
	ep.has_src = true;
	cr_assert_eq(inet_pton(af, c->other, &ep.src6), 1);
	cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SENT_ALL);
	cr_assert(ep.has_src, "the source was left out");
	recv_n(&b, c->f, &rx, in, 1);
	wg_udp_close(&a);
	wg_udp_close(&b);
}

Test(udp, unreachable_keeps_source_v4)
{
	unreachable_keeps_source(&cases[0], "192.0.2.1");
}

Test(udp, unreachable_keeps_source_v6)
{
	unreachable_keeps_source(&cases[1], "2001:db8::1");
}

/*
 * Loopback frees a datagram's send-buffer charge at once, so a slow qdisc (tbf) on lo
 * holds the datagrams: then a small send buffer fills and the sender must wait. Every
 * datagram must still arrive exactly once: blocked ones are kept, not dropped. (Not
 * necessarily in order: tbf's watchdog may hand datagrams to lo on either CPU, and each
 * CPU delivers its own backlog; CI saw 10 and 11 swap.)
 */
static void backpressure(const struct family_case *c)
{
	enum { N = 600, LEN = 1200 };
	static struct wg_udp a, b;
	static uint8_t out[N][LEN], in[N][PAYLOAD_MAX];
	static struct wg_udp_tx tx[N];
	static struct wg_udp_rx rx[N];
	static bool seen[N];
	struct wg_udp_send_result res;
	struct wg_endpoint to_b;
	unsigned int sent = 0, i, blocked = 0;

	if (system("tc qdisc add dev lo root tbf rate 200mbit burst 3000 limit 8000000") != 0)
		cr_skip_test("needs tc with tbf");
	open_udp(&a, 0, 16384, false);
	open_udp(&b, 0, 0, false);
	to_b = endpoint(c->f, c->other, b.port);
	for (i = 0; i < N; i++) {
		memcpy(out[i], &i, sizeof(i));
		tx[i] = (struct wg_udp_tx){.buf = out[i], .len = LEN, .ep = &to_b};
	}
	while (sent < N) {
		unsigned int n = N - sent < WG_UDP_BATCH_MAX ? N - sent : WG_UDP_BATCH_MAX;
		enum wg_udp_send_outcome o = wg_udp_send(&a, &tx[sent], n, &res);

		cr_assert_neq(o, WG_UDP_SEND_FAILED, "send: %s", strerror(-res.err));
		cr_assert_leq(res.sent, n);
		sent += res.sent;
		if (o == WG_UDP_SEND_BLOCKED) {
			blocked++;
			cr_assert(res.err == -EAGAIN || res.err == -ENOBUFS);
			cr_assert_eq(res.blocked_fd, a.fd[c->f]);
			cr_assert(wait_fd(res.blocked_fd, POLLOUT), "never writable again");
		}
	}
	cr_assert_gt(blocked, 0, "a 16 KiB send buffer never filled");
	recv_n(&b, c->f, rx, in, N);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < N; i++) {
		unsigned int seq;

		memcpy(&seq, in[i], sizeof(seq));
		cr_assert_lt(seq, N, "datagram %u is not one we sent", seq);
		cr_assert_not(seen[seq], "datagram %u arrived twice", seq);
		seen[seq] = true;
	}
	wg_udp_close(&a);
	wg_udp_close(&b);
}

Test(udp, backpressure_v4)
{
	backpressure(&cases[0]);
}

Test(udp, backpressure_v6)
{
	backpressure(&cases[1]);
}

Test(udp, refused_inputs)
{
	struct wg_udp a;
	struct wg_endpoint good, none;
	uint8_t buf[8] = {0};
	struct wg_udp_tx tx[3];
	struct wg_udp_rx rx = {.buf = buf, .cap = sizeof(buf)};
	struct wg_udp_send_result res;

	open_udp(&a, 0, 0, false);
	good = endpoint(WG_UDP_V4, "127.0.0.1", a.port);
	memset(&none, 0, sizeof(none));
	tx[0] = (struct wg_udp_tx){.buf = buf, .len = sizeof(buf), .ep = &good};
	tx[1] = (struct wg_udp_tx){.buf = buf, .len = sizeof(buf), .ep = &none};
	tx[2] = tx[0];
	cr_assert_eq(wg_udp_send(&a, tx, 3, &res), WG_UDP_SEND_FAILED);
	cr_assert_eq(res.sent, 1, "the datagram before the bad one went out");
	cr_assert_eq(res.err, -EDESTADDRREQ);
	cr_assert_eq(wg_udp_recv(&a, WG_UDP_V4, &rx, 1), 1);
	cr_assert_eq(wg_udp_recv(&a, WG_UDP_V4, &rx, 1), 0, "empty socket: 0, not an error");
	cr_assert_eq(wg_udp_recv(&a, WG_UDP_FAMILIES, &rx, 1), -EINVAL);
	cr_assert_eq(wg_udp_recv(&a, WG_UDP_V4, &rx, WG_UDP_BATCH_MAX + 1), -EINVAL);
	/* A datagram larger than the buffer is reported truncated. */
	tx[0].len = 4;
	cr_assert_eq(wg_udp_send(&a, tx, 1, &res), WG_UDP_SENT_ALL);
	rx.cap = 2;
	cr_assert(wait_fd(a.fd[WG_UDP_V4], POLLIN));
	cr_assert_eq(wg_udp_recv(&a, WG_UDP_V4, &rx, 1), 1);
	cr_assert(rx.truncated);
	a.gso[WG_UDP_V4] = false;
	tx[0].gso_size = 2;
	cr_assert_eq(wg_udp_send(&a, tx, 1, &res), WG_UDP_SEND_FAILED);
	cr_assert_eq(res.err, -EOPNOTSUPP);
	wg_udp_close(&a);
}

/* One send of four equal segments: four datagrams, or one coalesced one with GRO. */
Test(udp, gso_and_gro)
{
	enum { SEG = 500, SEGS = 4 };
	struct wg_udp a, b, g;
	uint8_t out[SEG * SEGS], in[SEGS][PAYLOAD_MAX * 2];
	struct wg_udp_rx rx[SEGS];
	struct wg_udp_send_result res;
	struct wg_endpoint to_b, to_g;
	struct wg_udp_tx tx = {.buf = out, .len = sizeof(out), .gso_size = SEG};
	unsigned int i;

	open_udp(&a, 0, 0, false);
	if (!a.gso[WG_UDP_V4])
		cr_skip_test("no UDP_SEGMENT in this kernel");
	open_udp(&b, 0, 0, false);
	open_udp(&g, 0, 0, true);
	fill(out, sizeof(out), 9);
	to_b = endpoint(WG_UDP_V4, "127.0.0.1", b.port);
	tx.ep = &to_b;
	cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SENT_ALL, "err %d", res.err);
	for (i = 0; i < SEGS; i++) {
		rx[i].buf = in[i];
		rx[i].cap = SEG;
		cr_assert(wait_fd(b.fd[WG_UDP_V4], POLLIN));
		cr_assert_eq(wg_udp_recv(&b, WG_UDP_V4, &rx[i], 1), 1);
		cr_assert_eq(rx[i].len, SEG);
		cr_assert_eq(memcmp(in[i], out + i * SEG, SEG), 0, "segment %u", i);
	}
	if (!g.gro[WG_UDP_V4])
		cr_skip_test("no UDP_GRO in this kernel");
	to_g = endpoint(WG_UDP_V4, "127.0.0.1", g.port);
	tx.ep = &to_g;
	cr_assert_eq(wg_udp_send(&a, &tx, 1, &res), WG_UDP_SENT_ALL);
	rx[0].buf = in[0];
	rx[0].cap = sizeof(in[0]);
	cr_assert(wait_fd(g.fd[WG_UDP_V4], POLLIN));
	cr_assert_eq(wg_udp_recv(&g, WG_UDP_V4, rx, 1), 1);
	cr_assert_eq(rx[0].len, sizeof(out), "GRO hands the train over whole");
	cr_assert_eq(rx[0].gro_size, SEG);
	wg_udp_close(&a);
	wg_udp_close(&b);
	wg_udp_close(&g);
}
