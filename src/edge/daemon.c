/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/daemon.h"

#include <errno.h>
#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "crypto/aead_key.h"
#include "src/core/device.h"
#include "src/edge/alloc.h"
#include "src/edge/control.h"
#include "src/edge/icmp_out.h"
#include "src/edge/log.h"
#include "src/edge/monoclock.h"
#include "src/edge/netlink.h"
#include "src/edge/netwatch.h"
#include "src/edge/probe.h"
#include "src/edge/sched.h"
#include "src/edge/timerfd.h"
#include "src/edge/tun.h"
#include "src/edge/tun_gro.h"
#include "src/edge/underlay.h"

enum {
	WG_DAEMON_BATCH = 64,
	/*
	 * Received datagrams are read first and most: up to this many batches per loop
	 * iteration, against one batch of TUN reads and one send round. What arrives has
	 * no managed queue before decryption (the socket's receive buffer is a FIFO), while
	 * what waits to be sent waits in CAKE; so when the CPU is short, the send side
	 * yields and CAKE's AQM slows the senders down.
	 */
	WG_DAEMON_RX_BATCHES = 4,
	/*
	 * TUN reads per iteration: the TUN ring is a blind FIFO that tail-drops, so it is
	 * emptied into CAKE (which drops from the fattest flow) in large gulps. 64 left a
	 * 300 Mbit/s UDP flood overflowing the ring (148k drops, 35 % of the pings lost in
	 * 12 s at a 200 Mbit/s local bottleneck); 256 moved those drops into CAKE.
	 */
	WG_DAEMON_TUN_READS = 256,
	/*
	 * Send rounds per iteration. A round ends when the socket's byte limit is reached;
	 * when the socket then holds under half its buffer (a veth frees a datagram on the
	 * way through), the kernel would signal writability at once, and the next round
	 * follows without the trip through epoll (two system calls and a loop turn). Bounded
	 * so that receiving still gets its turn.
	 */
	WG_DAEMON_TX_ROUNDS = 8,
	/*
	 * The shaper's timer fires on this grid (2^17 ns, 131 us), rounded up: epoll's
	 * millisecond let it sleep up to a millisecond past its time, while a timer per
	 * packet would wake the loop 16,000 times a second at 190 Mbit/s, to send one packet
	 * each. A packet waits at most this much longer (far under CAKE's 2 ms of forgiven
	 * lag, so the rate holds), and those due within it leave in one send.
	 */
	WG_DAEMON_SHAPER_GRID_NS = 1 << 17,
	TUN_TXQLEN = 1000,
	TUN_KERNEL_DEFAULT_MTU = 1500, /* what the kernel gives a new TUN device */
};

struct daemon {
	struct ev_loop *loop;
	char ifname[IFNAMSIZ];
	uint32_t ifindex;
	struct wg_device dev;
	struct wg_tun tun;
	struct wg_tun_gro gro; /* coalesces TCP segments on their way to TUN */
	struct wg_underlay udp;
	struct wg_control ctl; /* the UAPI, on its own thread */
	struct wg_nl_events *nlev;
	struct wg_netwatch netwatch; /* routes to the endpoints, and their host names */
	struct wg_probe probe; /* autorate's ICMP echo requests through the tunnel */
	struct wg_icmp_out icmp; /* ICMP errors for addresses no peer holds */
	/* Buffers kept between reads, so that a read takes from the pool only what it
	 * used: the receive batch's, and the large one a TUN read may spill into. */
	struct wg_pkt *rx[WG_DAEMON_BATCH];
	struct wg_pkt *spare_big;
	ev_io tun_w, udp4_w, udp6_w, udp_write_w, nl_w;
	ev_io tx_w; /* the shaper's next send time: a timerfd, on a 131 us grid */
	struct wg_timerfd tx_timer;
	bool tx_timer_failed; /* logged once */
	ev_timer timers_w;
	ev_timer rx_more_w; /* coalesced datagrams wait in the underlay: take them next */
	ev_prepare prepare_w;
	ev_signal sigint_w, sigterm_w;
	uint64_t now_ns;
	bool waiting_writable;
	int exit_code;
};

static void tick(struct daemon *d)
{
	struct timespec ts;
	struct wg_walltime wall;

	d->now_ns = wg_mono_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	wall.sec = (uint64_t)ts.tv_sec;
	wall.nsec = (uint32_t)ts.tv_nsec;
	wg_device_set_clock(&d->dev, d->now_ns, &wall);
}

static void tick_op(void *ctx)
{
	tick(ctx);
}

static void rng_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	randombytes_buf(buf, len);
}

/* --- device I/O operations --- */

static int op_send_data(void *ctx, const struct wg_endpoint *ep, struct wg_pkt *pkt)
{
	struct daemon *d = ctx;

	return wg_underlay_queue(&d->udp, ep, pkt);
}

static void op_send_control(void *ctx, const struct wg_endpoint *ep, const uint8_t *msg, size_t len)
{
	struct daemon *d = ctx;

	wg_underlay_send_now(&d->udp, ep, msg, len);
}

static void op_send_probe(void *ctx, const struct wg_ipaddr *dst)
{
	struct daemon *d = ctx;

	wg_probe_send(&d->probe, dst, d->now_ns);
}

static void op_send_icmp(void *ctx, const uint8_t *pkt, size_t len)
{
	struct daemon *d = ctx;

	wg_icmp_out_send(&d->icmp, pkt, len);
}

/* Decrypted packets are written at the end of the batch, TCP segments coalesced. */
static void op_tun_write(void *ctx, struct wg_pkt *pkt)
{
	struct daemon *d = ctx;

	wg_tun_gro_add(&d->gro, pkt);
}

/* --- event handlers --- */

/* The buffer kept in *slot, of the pool's current size (the MTU may have changed), or
 * NULL when the pool is out of memory. */
static struct wg_pkt *kept_buf(struct daemon *d, struct wg_pkt **slot, bool large)
{
	const struct wg_pktpool *pool = large ? &d->dev.pool_large : &d->dev.pool;

	if (*slot && (*slot)->cap != pool->cap) {
		wg_device_pkt_put(&d->dev, *slot);
		*slot = NULL;
	}
	if (!*slot)
		*slot = wg_device_pkt_get(&d->dev, large);
	return *slot;
}

static void put_kept(struct daemon *d)
{
	for (int i = 0; i < WG_DAEMON_BATCH; i++) {
		wg_device_pkt_put(&d->dev, d->rx[i]);
		d->rx[i] = NULL;
	}
	wg_device_pkt_put(&d->dev, d->spare_big);
	d->spare_big = NULL;
}

/* Without offloads: one MTU-sized packet per read, straight into a pool buffer. */
static bool read_plain(struct daemon *d)
{
	struct wg_pkt *pkt = wg_device_pkt_get(&d->dev, false);
	ssize_t n;

	if (!pkt)
		return false;
	n = wg_tun_read(&d->tun, NULL, pkt->cp.data, wg_pkt_payload_room(pkt));
	if (n <= 0) {
		wg_device_pkt_put(&d->dev, pkt);
		return false;
	}
	pkt->cp.len = (uint32_t)n;
	wg_device_tx(&d->dev, pkt, d->now_ns);
	return true;
}

/*
 * With offloads (IFF_VNET_HDR, TSO/USO): a read may bring a 64 KiB super-packet, and any
 * packet may carry a partial checksum (the device plans or completes it: src/core/
 * offload.h). The read fills an MTU-sized buffer first and spills into a large one, so an
 * ordinary packet costs no copy and a super-packet one copy of its first MTU's worth.
 */
static bool read_offload(struct daemon *d)
{
	struct wg_pkt *big = kept_buf(d, &d->spare_big, true);
	struct wg_pkt *pkt = big ? wg_device_pkt_get(&d->dev, false) : NULL;
	size_t room = pkt ? wg_pkt_payload_room(pkt) : 0;
	struct wg_vnet_hdr h;
	struct cake_vnet_hdr vh;
	ssize_t n;

	if (!pkt)
		return false;
	n = wg_tun_read_split(&d->tun, &h, pkt->cp.data, room, big->cp.data + room,
			      wg_pkt_payload_room(big) - room);
	if (n <= 0) {
		wg_device_pkt_put(&d->dev, pkt);
		return n == -EBADMSG; /* a malformed header: skip it, keep reading */
	}
	if ((size_t)n > room) {
		memcpy(big->cp.data, pkt->cp.data, room);
		wg_device_pkt_put(&d->dev, pkt);
		pkt = big;
		d->spare_big = NULL; /* the next read takes another */
	}
	pkt->cp.len = (uint32_t)n;
	vh = (struct cake_vnet_hdr){ h.flags, h.gso_type, h.hdr_len, h.gso_size, h.csum_start,
				     h.csum_offset };
	wg_device_tx_offload(&d->dev, pkt, &vh, d->now_ns);
	return true;
}

static void tun_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	tick(d);
	for (int i = 0; i < WG_DAEMON_TUN_READS; i++)
		if (!(d->tun.vnet_hdr ? read_offload(d) : read_plain(d)))
			break;
}

/* One batch from the socket: false when it had fewer than a batch waiting. The buffers
 * a batch did not fill stay for the next. The decrypted TCP segments stay with the TUN
 * GRO until the drain ends (udp_drain). */
static bool udp_batch(struct daemon *d, int fd)
{
	int n, i;

	for (i = 0; i < WG_DAEMON_BATCH && kept_buf(d, &d->rx[i], false); i++)
		;
	n = wg_underlay_recv(&d->udp, fd, d->rx, i);
	for (int k = 0; k < n; k++) {
		struct wg_pkt *pkt = d->rx[k];

		d->rx[k] = NULL;
		wg_device_rx(&d->dev, pkt, d->now_ns);
	}
	return n == WG_DAEMON_BATCH;
}

/* Up to WG_DAEMON_RX_BATCHES batches from fd, their TCP segments written as super-packets
 * of up to 64 KiB at the end (one per batch made them a third smaller, and each is one
 * trip through the kernel's TCP receive path). Datagrams of a coalesced receive that are
 * left in the underlay are taken in the next iteration: the socket may have nothing more
 * to wake us for them, and the other sources get their turn first. */
static void udp_drain(struct daemon *d, int fd)
{
	tick(d);
	for (int b = 0; b < WG_DAEMON_RX_BATCHES && udp_batch(d, fd); b++)
		tick(d);
	wg_tun_gro_flush(&d->gro);
	if (wg_underlay_rx_pending(&d->udp) >= 0 && !ev_is_active(&d->rx_more_w)) {
		ev_timer_set(&d->rx_more_w, 0., 0.);
		ev_timer_start(d->loop, &d->rx_more_w);
	}
}

static void udp_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	udp_drain(w->data, w->fd);
}

static void rx_more_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct daemon *d = w->data;
	int fd = wg_underlay_rx_pending(&d->udp);

	(void)loop;
	(void)revents;
	if (fd >= 0)
		udp_drain(d, fd);
}

static void writable_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)revents;
	/* The send path resumes in the prepare watcher; stop watching until it blocks again. */
	ev_io_stop(loop, w);
	d->waiting_writable = false;
	tick(d);
	wg_underlay_writable(&d->udp, w->fd, d->now_ns);
}

static void timers_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	tick(d);
	wg_device_run_timers(&d->dev, d->now_ns);
}

static void tx_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	wg_timerfd_expired(&d->tx_timer); /* the prepare watcher does the sending */
}

static void arm_timer(struct daemon *d, ev_timer *t, uint64_t at_ns)
{
	ev_timer_stop(d->loop, t);
	if (at_ns == UINT64_MAX)
		return;
	ev_timer_set(t, at_ns > d->now_ns ? (double)(at_ns - d->now_ns) / 1e9 : 0., 0.);
	ev_timer_start(d->loop, t);
}

/* The shaper's timer, on its grid: set only when its deadline changed. */
static void arm_tx_timer(struct daemon *d, uint64_t at_ns)
{
	int ret;

	if (at_ns != UINT64_MAX)
		at_ns = (at_ns | (WG_DAEMON_SHAPER_GRID_NS - 1)) + 1;
	ret = wg_timerfd_arm(&d->tx_timer, at_ns);
	if (ret && !d->tx_timer_failed) {
		d->tx_timer_failed = true;
		wg_log_err("Unable to set the shaper's timer: %s", strerror(-ret));
	}
}

/* One send round: true when it ended with a socket to wait for. */
static bool send_round(struct daemon *d, uint64_t *next)
{
	bool more;

	wg_underlay_begin(&d->udp, d->now_ns);
	more = wg_device_tx_flush(&d->dev, d->now_ns, next);
	return wg_underlay_flush(&d->udp) == -EAGAIN || (more && *next == 0);
}

/* The kernel's receive times while autorate reads them (its arrivals), and only then. */
static void sync_rx_stamps(struct daemon *d)
{
	bool want = wg_device_autorate_next(&d->dev) != UINT64_MAX;
	int ret;

	if (want == d->udp.rx_stamps)
		return;
	ret = wg_underlay_set_rx_stamps(&d->udp, want); /* tried once per change */
	if (ret < 0)
		wg_log_err("Unable to turn receive times %s: %s (autorate times arrivals by "
			   "their read)", want ? "on" : "off", strerror(-ret));
}

/* Once per loop iteration, before it blocks: send what may go, then set the timers. */
static void prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct daemon *d = w->data;
	uint64_t next = UINT64_MAX;

	(void)loop;
	(void)revents;
	tick(d);
	sync_rx_stamps(d);
	if (!d->waiting_writable) {
		bool blocked = send_round(d, &next);

		for (int r = 1; blocked && r < WG_DAEMON_TX_ROUNDS; r++) {
			tick(d);
			if (!wg_underlay_resume_drained(&d->udp, d->now_ns))
				break;
			next = UINT64_MAX;
			blocked = send_round(d, &next);
		}
		if (blocked) {
			d->waiting_writable = true;
			ev_io_set(&d->udp_write_w, wg_underlay_blocked_fd(&d->udp), EV_WRITE);
			ev_io_start(d->loop, &d->udp_write_w);
			next = UINT64_MAX;
		}
	}
	{
		uint64_t rx_next = wg_device_rx_flush(&d->dev, d->now_ns);

		if (rx_next < next)
			next = rx_next;
		wg_tun_gro_flush(&d->gro); /* what ingress CAKE let go */
	}
	arm_tx_timer(d, next);
	arm_timer(d, &d->timers_w, wg_device_next_deadline(&d->dev));
}

static void link_event(void *ctx, const struct wg_nl_link_event *e)
{
	struct daemon *d = ctx;

	if (e->ifindex != d->ifindex)
		return;
	if (e->kind == WG_NL_LINK_DELETED) {
		wg_log_info("Interface deleted: shutting down");
		ev_break(d->loop, EVBREAK_ALL);
		return;
	}
	if (e->mtu && e->mtu != d->dev.mtu) {
		wg_log_debug("MTU is now %u", e->mtu);
		wg_device_set_mtu(&d->dev, e->mtu);
	}
}

static void nl_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	if (wg_netlink_events_read(d->nlev, link_event, d) == -ENOBUFS) {
		wg_log_err("Link events were lost (netlink socket overflow)");
		wg_netwatch_events_lost(&d->netwatch); /* the routes are looked up again */
	}
}

static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)revents;
	wg_log_info("Received signal %d: shutting down", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

/* --- UAPI --- */

static uint64_t ctl_now(void *ctx)
{
	struct daemon *d = ctx;

	tick(d);
	return d->now_ns;
}

/* The underlay as a set found it: put back, best effort, when a later step fails. */
struct underlay_was {
	uint16_t port;
	uint32_t fwmark, limit;
	bool rebound, marked, limited;
};

static void underlay_put_back(struct daemon *d, const struct underlay_was *was)
{
	int ret;

	/* The limit and the mark first: a rebind gives the new sockets both. */
	if (was->limited && (ret = wg_underlay_set_limit(&d->udp, was->limit)))
		wg_log_err("Unable to restore the send buffers' size: %s", strerror(-ret));
	if (was->marked && (ret = wg_underlay_set_fwmark(&d->udp, was->fwmark)))
		wg_log_err("Unable to restore fwmark %u: %s", was->fwmark, strerror(-ret));
	if (was->rebound && (ret = wg_underlay_rebind(&d->udp, was->port)))
		wg_log_err("Unable to bind listen port %u again: %s", was->port, strerror(-ret));
}

/* A set's underlay part, before the device changes (src/edge/control.h). */
static int uapi_set_begin(void *ctx, const struct wg_devconf *conf)
{
	struct daemon *d = ctx;
	struct underlay_was was = {
		.port = d->udp.port,
		.fwmark = d->udp.fwmark,
		.limit = d->udp.limit_setting,
	};
	int ret;

	if ((conf->flags & WG_DEVCONF_HAS_LISTEN_PORT) && conf->listen_port != d->udp.port) {
		ret = wg_underlay_rebind(&d->udp, conf->listen_port);
		if (ret) {
			wg_log_err("Unable to bind listen port %u: %s", conf->listen_port,
				   strerror(-ret));
			return -EADDRINUSE;
		}
		was.rebound = true;
	}
	if ((conf->flags & WG_DEVCONF_HAS_FWMARK) && conf->fwmark != d->udp.fwmark) {
		ret = wg_underlay_set_fwmark(&d->udp, conf->fwmark);
		was.marked = true; /* a failure may leave some sockets marked */
		if (ret) {
			underlay_put_back(d, &was);
			return -EADDRINUSE; /* as wireguard-go answers a failed SO_MARK */
		}
	}
	/* After a rebind, so that the new sockets get it too. */
	if (conf->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT) {
		ret = wg_underlay_set_limit(&d->udp, conf->underlay_limit);
		was.limited = true;
		if (ret) {
			wg_log_err("Unable to size the send buffers: %s", strerror(-ret));
			underlay_put_back(d, &was);
			return ret;
		}
	}
	return 0;
}

static void uapi_set_end(void *ctx, int ret)
{
	struct daemon *d = ctx;

	d->dev.listen_port = d->udp.port;
	if (!ret)
		wg_netwatch_configured(&d->netwatch);
}

static int uapi_ext_get(void *ctx, struct wg_devconf_buf *out)
{
	struct daemon *d = ctx;
	struct wg_device_ext ext = {0};

	wg_underlay_report(&d->udp, &ext);
	wg_tun_gro_report(&d->gro, &ext.counters);
	wg_netwatch_report(&d->netwatch, &ext.counters);
	return wg_device_ext_get_head(&d->dev, &ext, out); /* the peers follow in slices */
}

/* --- setup and teardown --- */

static void watch_udp(struct daemon *d)
{
	ev_io_stop(d->loop, &d->udp4_w);
	ev_io_stop(d->loop, &d->udp6_w);
	if (d->udp.fd4 >= 0) {
		ev_io_set(&d->udp4_w, d->udp.fd4, EV_READ);
		ev_io_start(d->loop, &d->udp4_w);
	}
	if (d->udp.fd6 >= 0) {
		ev_io_set(&d->udp6_w, d->udp.fd6, EV_READ);
		ev_io_start(d->loop, &d->udp6_w);
	}
}

/* New sockets: watch them, and forget a wait for writability on a closed one. */
static void rebound(void *ctx)
{
	struct daemon *d = ctx;

	ev_io_stop(d->loop, &d->udp_write_w);
	d->waiting_writable = false;
	watch_udp(d);
}

static int setup_io(struct daemon *d, const char *ifname, uint16_t port)
{
	struct wg_nl_link link;
	struct wg_nl *nl;
	int ret;

	/* CAKEWG_NO_OFFLOAD=1 keeps the TUN device plain (for kernels that mishandle
	 * vnet headers). */
	ret = wg_tun_open(&d->tun, ifname, getenv("CAKEWG_NO_OFFLOAD") ? 0 : WG_TUN_VNET_HDR);
	if (ret) {
		wg_log_err("Failed to create TUN device %s: %s", ifname, strerror(-ret));
		return ret;
	}
	snprintf(d->ifname, sizeof(d->ifname), "%s", d->tun.name);
	/* CAKEWG_NO_GRO=1 writes every decrypted packet on its own. */
	wg_tun_gro_init(&d->gro, &d->tun, &d->dev);
	wg_tun_gro_set_enabled(&d->gro, !getenv("CAKEWG_NO_GRO"));
	wg_log_info("TUN offloads:%s%s%s%s%s", d->tun.offloads & WG_TUN_F_CSUM ? " csum" : "",
		    d->tun.offloads & WG_TUN_F_TSO4 ? " tso4" : "",
		    d->tun.offloads & WG_TUN_F_TSO6 ? " tso6" : "",
		    d->tun.offloads & WG_TUN_F_USO4 ? " uso4" : "",
		    d->tun.offloads & WG_TUN_F_USO6 ? " uso6" : "");
	ret = wg_netlink_open(&nl);
	if (!ret) {
		ret = wg_netlink_link_get(nl, d->ifname, &link);
		if (!ret) {
			d->ifindex = link.ifindex;
			/* A new TUN device has Ethernet's 1500: start at WireGuard's 1420, as
			 * wireguard-go does (wg-quick sets its own afterwards). */
			if (link.mtu == TUN_KERNEL_DEFAULT_MTU &&
			    !wg_netlink_link_set_mtu(nl, link.ifindex, DEFAULT_MTU))
				link.mtu = DEFAULT_MTU;
			wg_device_set_mtu(&d->dev, link.mtu);
			(void)wg_netlink_link_set_txqlen(nl, link.ifindex, TUN_TXQLEN);
		}
		wg_netlink_close(nl);
	}
	if (ret) {
		wg_log_err("Failed to query %s: %s", d->ifname, strerror(-ret));
		return ret;
	}
	ret = wg_netlink_events_open(&d->nlev);
	if (!ret)
		ret = wg_netwatch_start(&d->netwatch, d->loop, &d->dev, d->ifindex, tick_op, d);
	if (!ret)
		ret = wg_netlink_events_watch_net(d->nlev, wg_netwatch_net_event, &d->netwatch);
	if (ret) {
		wg_log_err("Failed to watch the network: %s", strerror(-ret));
		return ret;
	}
	wg_icmp_out_init(&d->icmp, d->ifindex);
	wg_icmp_out_open(&d->icmp); /* raw sockets: before the privilege drop */
	ret = wg_underlay_open(&d->udp, &d->dev, port, rebound, d);
	if (ret) {
		wg_log_err("Failed to open UDP sockets: %s", strerror(-ret));
		return ret;
	}
	ret = wg_timerfd_open(&d->tx_timer);
	if (ret) {
		wg_log_err("Failed to create the shaper's timer: %s", strerror(-ret));
		return ret;
	}
	d->dev.listen_port = d->udp.port;
	return 0;
}

static void start_watchers(struct daemon *d)
{
	ev_io_init(&d->tun_w, tun_cb, d->tun.fd, EV_READ);
	ev_io_init(&d->udp4_w, udp_cb, -1, EV_READ);
	ev_io_init(&d->udp6_w, udp_cb, -1, EV_READ);
	ev_io_init(&d->udp_write_w, writable_cb, -1, EV_WRITE);
	ev_io_init(&d->nl_w, nl_cb, wg_netlink_events_fd(d->nlev), EV_READ);
	ev_timer_init(&d->timers_w, timers_cb, 0., 0.);
	ev_io_init(&d->tx_w, tx_cb, d->tx_timer.fd, EV_READ);
	ev_timer_init(&d->rx_more_w, rx_more_cb, 0., 0.);
	ev_prepare_init(&d->prepare_w, prepare_cb);
	ev_signal_init(&d->sigint_w, signal_cb, SIGINT);
	ev_signal_init(&d->sigterm_w, signal_cb, SIGTERM);
	d->tun_w.data = d->udp4_w.data = d->udp6_w.data = d->udp_write_w.data = d;
	d->nl_w.data = d->timers_w.data = d->tx_w.data = d->prepare_w.data = d;
	d->rx_more_w.data = d;
	ev_io_start(d->loop, &d->tun_w);
	ev_io_start(d->loop, &d->nl_w);
	ev_io_start(d->loop, &d->tx_w);
	ev_prepare_start(d->loop, &d->prepare_w);
	ev_signal_start(d->loop, &d->sigint_w);
	ev_signal_start(d->loop, &d->sigterm_w);
	watch_udp(d);
}

static void teardown(struct daemon *d)
{
	wg_control_stop(&d->ctl);
	wg_netwatch_stop(&d->netwatch);
	wg_probe_close(&d->probe);
	wg_icmp_out_close(&d->icmp);
	wg_underlay_close(&d->udp);
	wg_timerfd_close(&d->tx_timer);
	put_kept(d);
	wg_device_deinit(&d->dev);
	if (d->nlev)
		wg_netlink_events_close(d->nlev);
	wg_tun_close(&d->tun);
}

/* A short scheduler slice (src/edge/sched.h) when CAKEWG_SLICE_US asks; never fatal. */
static void set_slice(void)
{
	const char *env = getenv("CAKEWG_SLICE_US");
	uint32_t us;
	int ret;

	if (wg_sched_slice_from_env(env, &us)) {
		wg_log_err("CAKEWG_SLICE_US=%s is not 0..%u microseconds: the kernel's slice stays",
			   env, (unsigned int)WG_SCHED_SLICE_MAX_US);
		return;
	}
	if (!us)
		return;
	ret = wg_sched_set_slice(us);
	if (ret)
		wg_log_err("Scheduler slice of %u us not set: %s", us, strerror(-ret));
	else
		wg_log_info("Scheduler slice: %u us", us);
}

/* Least privilege once everything is open (src/edge/privdrop.h), before any thread
 * starts: capabilities are per thread. */
static int drop_privileges(struct daemon *d, const struct wg_daemon_opts *opts)
{
	if (!opts->priv.keep_root)
		wg_probe_open(&d->probe); /* a raw socket needs CAP_NET_RAW */
	return wg_privdrop_apply(&opts->priv, d->ctl.uapi.path);
}

/* The system call filter (src/edge/seccomp.h), once every thread runs: it is loaded for
 * all of them (TSYNC), so none needs the right to create threads. */
static int filter_system_calls(const struct wg_daemon_opts *opts)
{
	int ret = cw_aead_backend_ready(); /* OpenSSL reads its configuration at first use */

	if (ret) {
		wg_log_err("Unable to set up the AEAD (%s): %s", CW_AEAD_BACKEND_NAME, strerror(-ret));
		return ret;
	}
	ret = wg_seccomp_load_daemon(opts->seccomp);

	if (ret) {
		wg_log_err("Unable to load the system call filter: %s", strerror(-ret));
		return ret;
	}
	wg_log_info("System call filter: %s", wg_seccomp_mode_name(opts->seccomp));
	if (getenv("CAKEWG_TEST_FORBIDDEN_SYSCALL")) {
		wg_log_info("CAKEWG_TEST_FORBIDDEN_SYSCALL: calling mount(2)");
		wg_seccomp_test_forbidden_call();
	}
	return 0;
}

int wg_daemon_run(const struct wg_daemon_opts *opts)
{
	struct wg_io_ops ops = {
		.send_data = op_send_data,
		.send_control = op_send_control,
		.tun_write = op_tun_write,
		.log = wg_log_device_op,
		.send_probe = op_send_probe,
		.send_icmp = op_send_icmp,
	};
	struct wg_control_ops ctl_ops = { .now = ctl_now, .set_begin = uapi_set_begin,
					  .set_end = uapi_set_end, .ext_get = uapi_ext_get };
	struct wg_rng rng = { .fill = rng_fill };
	struct daemon *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	wg_alloc_tune();
	d->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	ops.ctx = ctl_ops.ctx = d;
	d->udp.fd4 = d->udp.fd6 = -1;
	d->tun.fd = -1;
	wg_icmp_out_init(&d->icmp, 0);
	d->tx_timer.fd = -1;
	wg_probe_init(&d->probe, opts->ifname, (uint16_t)getpid());
	tick(d);
	ret = wg_device_init(&d->dev, opts->ifname, &ops, &rng, d->now_ns);
	if (!ret)
		ret = setup_io(d, opts->ifname, opts->listen_port);
	if (!ret) {
		ret = wg_control_open(&d->ctl, d->loop, &d->dev, d->ifname, &ctl_ops);
		if (ret)
			wg_log_err("UAPI listen error: %s", strerror(-ret));
	}
	if (!ret) {
		start_watchers(d);
		set_slice();
		ret = drop_privileges(d, opts);
	}
	if (!ret)
		ret = wg_control_run(&d->ctl); /* after the drop: it would keep root's */
	if (!ret)
		ret = wg_netwatch_run(&d->netwatch); /* the resolver's thread, likewise */
	if (!ret)
		ret = filter_system_calls(opts);
	if (!ret) {
		wg_log_info("Device started");
		if (opts->ready_fd >= 0) {
			(void)!write(opts->ready_fd, "1", 1);
			close(opts->ready_fd);
		}
		ev_run(d->loop, 0);
		wg_log_info("Device closing");
	}
	teardown(d);
	ev_loop_destroy(d->loop);
	sodium_memzero(d, sizeof(*d));
	free(d);
	return ret ? 1 : 0;
}
