/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's side of the underlay: packet ownership and batching over src/edge/udp.c,
 * which does all the socket work. A queued packet belongs to its batch until it was sent
 * (back to the device's pool), refused by the kernel (counted, back to the pool) or the
 * sockets close; when the socket is full it stays, in order, for the next flush.
 */
#include "src/edge/underlay.h"
#include "src/edge/underlay_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/ecn.h"
#include "src/core/messages.h"

/* The descriptors, port and mark the daemon reads, from the sockets now open. */
static void sync_udp(struct wg_underlay *u)
{
	u->fd4 = u->udp.fd[WG_UDP_V4];
	u->fd6 = u->udp.fd[WG_UDP_V6];
	u->port = u->udp.port;
	u->fwmark = u->udp.fwmark;
	u->rx_stamps = u->udp.rx_stamps;
}

/*
 * Each open socket's send buffer is its family's limit: the kernel's writability signal
 * then comes when the socket has drained to half of it. The limit moves by a few bytes at
 * almost every stall; the buffer follows only when they are more than an eighth apart,
 * which keeps the signal below the limit (at most 9/16 of it) without two system calls a
 * stall.
 */
static int size_sndbuf(struct wg_underlay *u, enum wg_udp_family f)
{
	uint32_t want = u->limit_setting == WG_UNDERLAY_LIMIT_OFF ? WG_UNDERLAY_SNDBUF_OFF_BYTES :
								    u->gate[f].bql.limit;
	uint32_t have = u->gate[f].sndbuf, slack = want >> WG_UNDERLAY_SNDBUF_SLACK_SHIFT;
	int ret;

	if (u->udp.fd[f] < 0 || (have <= want + slack && have + slack >= want))
		return 0;
	ret = wg_udp_set_sndbuf(&u->udp, f, want);
	if (ret) {
		u->stats.sndbuf_errors++;
		return ret;
	}
	u->gate[f].sndbuf = want;
	return 0;
}

int wg_underlay_set_limit(struct wg_underlay *u, uint32_t setting)
{
	int ret = 0;

	u->limit_setting = setting;
	for (int i = 0; i < WG_UDP_FAMILIES; i++) {
		enum wg_udp_family f = (enum wg_udp_family)i;
		int r;

		wg_bql_fix(&u->gate[f].bql, setting == WG_UNDERLAY_LIMIT_OFF ? 0 : setting);
		u->gate[f].measured = false;
		r = size_sndbuf(u, f);
		if (r)
			ret = r;
	}
	return ret;
}

/* Forgets the coalesced datagrams not handed out yet (their socket closes). */
static void rx_reset(struct wg_underlay *u)
{
	u->rxq.have = u->rxq.next = 0;
	u->rxq.off = 0;
	u->rxq.fd = -1;
}

static int open_udp(struct wg_underlay *u, uint16_t port)
{
	struct wg_udp_config cfg = {
		.port = port,
		.fwmark = u->fwmark,
		.rx_stamps = u->rx_stamps,
		.sndbuf_bytes = WG_BQL_INIT_BYTES,
		.gro = u->rxq.bufs != NULL,
	};
	int ret = wg_udp_open(&u->udp, &cfg);

	for (int f = 0; !ret && f < WG_UDP_FAMILIES; f++) {
		u->gate[f].sndbuf = cfg.sndbuf_bytes; /* what wg_udp_open set */
		(void)size_sndbuf(u, (enum wg_udp_family)f);
	}
	return ret;
}

int wg_underlay_open(struct wg_underlay *u, struct wg_device *dev, uint16_t port,
		     void (*rebound)(void *ctx), void *ctx)
{
	int ret;

	memset(u, 0, sizeof(*u));
	u->blocked_fd = -1;
	u->dev = dev;
	for (int f = 0; f < WG_UDP_FAMILIES; f++)
		wg_bql_init(&u->gate[f].bql);
	u->rebound = rebound;
	u->rebound_ctx = ctx;
	/* Without these buffers the sockets do without GRO. */
	u->rxq.bufs = malloc((size_t)WG_UNDERLAY_BATCH * WG_UNDERLAY_GRO_BYTES);
	rx_reset(u);
	ret = open_udp(u, port);
	sync_udp(u);
	return ret;
}

/* Hands pkts[from..from+n) of a batch back to the device's pools. */
static void put_pkts(struct wg_underlay *u, struct wg_underlay_batch *b, unsigned int from,
		     unsigned int n)
{
	for (unsigned int i = from; i < from + n; i++)
		wg_device_pkt_put(u->dev, b->pkts[i]);
}

static void drop_batches(struct wg_underlay *u)
{
	wg_underlay_ctl_drop_all(u);
	for (int f = 0; f < WG_UDP_FAMILIES; f++) {
		put_pkts(u, &u->batch[f], 0, u->batch[f].n);
		u->batch[f].n = 0;
	}
}

void wg_underlay_close(struct wg_underlay *u)
{
	drop_batches(u);
	if (u->fd4 >= 0 || u->fd6 >= 0)
		wg_udp_close(&u->udp);
	u->fd4 = u->fd6 = u->blocked_fd = -1;
	free(u->rxq.bufs);
	u->rxq.bufs = NULL;
	rx_reset(u);
}

/* What the old sockets learned stays: the counters and the sources the kernel refused. */
static void carry_over(struct wg_underlay *u, const struct wg_udp *old)
{
	u->udp.stats = old->stats;
	memcpy(u->udp.refused, old->refused, sizeof(u->udp.refused));
}

int wg_underlay_rebind(struct wg_underlay *u, uint16_t port)
{
	struct wg_udp old = u->udp;
	bool have_old = u->fd4 >= 0 || u->fd6 >= 0;
	int ret;

	drop_batches(u);
	rx_reset(u);
	u->blocked_fd = -1;
	for (int f = 0; f < WG_UDP_FAMILIES; f++)
		u->gate[f].bql.stalled = u->gate[f].starved = u->gate[f].measured = false;
	/* The old sockets hold the port: to bind it again, close them first. */
	if (have_old && port && port == old.port) {
		wg_udp_close(&old);
		have_old = false;
	}
	ret = open_udp(u, port);
	if (!ret && have_old)
		wg_udp_close(&old);
	if (ret && have_old)
		u->udp = old; /* still open: keep it */
	else if (ret && old.port)
		(void)open_udp(u, old.port); /* best effort: back to where we were */
	if (!ret || !have_old)
		carry_over(u, &old);
	sync_udp(u);
	if (u->rebound)
		u->rebound(u->rebound_ctx);
	return ret;
}

int wg_underlay_set_fwmark(struct wg_underlay *u, uint32_t mark)
{
	int ret = wg_udp_set_fwmark(&u->udp, mark);

	sync_udp(u);
	return ret;
}

int wg_underlay_set_rx_stamps(struct wg_underlay *u, bool on)
{
	int ret = wg_udp_set_rx_stamps(&u->udp, on);

	sync_udp(u);
	return ret;
}

/* --- receive --- */

/* The pool buffer gets what the socket said of the datagram (msg_len is set; 0 when
 * truncated). */
static void rx_meta(struct wg_underlay *u, struct wg_pkt *pkt, const struct wg_udp_rx *rx,
		    bool truncated)
{
	if (truncated)
		u->stats.truncated++;
	pkt->src = rx->ep;
	pkt->outer_ecn = rx->tos & CAKE_ECN_MASK;
	pkt->rx_ns = rx->rx_ns;
	u->stats.received++;
}

/* The bytes a buffer holds from wg_pkt_msg on: the longest datagram it takes. */
static size_t msg_room(const struct wg_pkt *pkt)
{
	return wg_pkt_room(pkt) + DATA_HEADROOM_LEN;
}

/*
 * A datagram of len bytes is longer than the MTU-sized buffer in *slot (a peer whose MTU
 * is larger than ours, as Linux and wireguard-go accept): a large buffer takes the
 * buffer's place, and *slot goes back to the pool once the first `have` bytes it holds
 * were copied over. false, *slot kept, when no large buffer is to be had.
 */
static bool rx_grow(struct wg_underlay *u, struct wg_pkt **slot, size_t len, size_t have)
{
	struct wg_pkt *big = wg_device_pkt_get(u->dev, true);

	if (big && len > msg_room(big)) {
		wg_device_pkt_put(u->dev, big);
		big = NULL;
	}
	if (!big)
		return false;
	memcpy(wg_pkt_msg(big), wg_pkt_msg(*slot), have);
	wg_device_pkt_put(u->dev, *slot);
	*slot = big;
	u->stats.rx_large++;
	return true;
}

/*
 * One datagram at a time, straight into the pool buffers. A datagram longer than its
 * buffer goes on into the slot's area of the GRO buffers (unused without GRO), and is
 * then moved into a large buffer: datagrams that fit cost nothing more.
 */
static int recv_direct(struct wg_underlay *u, enum wg_udp_family f, struct wg_pkt **pkts, int n)
{
	struct wg_udp_rx rx[WG_UNDERLAY_BATCH];
	int got;

	for (int i = 0; i < n; i++) {
		rx[i].buf = wg_pkt_msg(pkts[i]);
		rx[i].cap = msg_room(pkts[i]);
	}
	got = wg_udp_recv_spill(&u->udp, f, rx, (unsigned int)n, u->rxq.bufs,
				u->rxq.bufs ? WG_UNDERLAY_GRO_BYTES : 0);
	for (int i = 0; i < got; i++) {
		bool truncated = rx[i].truncated;

		if (!truncated && rx[i].len > rx[i].cap) {
			truncated = !rx_grow(u, &pkts[i], rx[i].len, rx[i].cap);
			if (!truncated)
				memcpy(wg_pkt_msg(pkts[i]) + rx[i].cap,
				       u->rxq.bufs + (size_t)i * WG_UNDERLAY_GRO_BYTES,
				       rx[i].len - rx[i].cap);
		}
		pkts[i]->msg_len = truncated ? 0 : (uint32_t)rx[i].len;
		rx_meta(u, pkts[i], &rx[i], truncated);
	}
	return got > 0 ? got : 0;
}

/* Hands out waiting datagrams of coalesced receives into pkts[0..n); returns how many. */
static int rx_hand_out(struct wg_underlay *u, struct wg_pkt **pkts, int n)
{
	struct wg_underlay_rx *q = &u->rxq;
	int k = 0;

	while (k < n && q->next < q->have) {
		const struct wg_udp_rx *rx = &q->rx[q->next];
		size_t seg = rx->gro_size ? rx->gro_size : rx->len;
		size_t len = WG_MIN(seg, rx->len - q->off);
		bool truncated = rx->truncated ||
				 (len > msg_room(pkts[k]) && !rx_grow(u, &pkts[k], len, 0));
		struct wg_pkt *pkt = pkts[k++];

		pkt->msg_len = truncated ? 0 : (uint32_t)len;
		if (!truncated)
			memcpy(wg_pkt_msg(pkt), (const uint8_t *)rx->buf + q->off, len);
		rx_meta(u, pkt, rx, truncated);
		if (rx->gro_size && rx->len > seg)
			u->stats.rx_trains++;
		q->off += len;
		if (q->off >= rx->len || rx->truncated || !len) {
			q->next++;
			q->off = 0;
		}
	}
	if (q->next == q->have)
		rx_reset(u);
	return k;
}

/* Coalesced receives into the underlay's buffers, cut into datagrams for pkts. */
static int recv_coalesced(struct wg_underlay *u, enum wg_udp_family f, int fd, struct wg_pkt **pkts,
			  int n)
{
	struct wg_underlay_rx *q = &u->rxq;
	int k = 0, got;

	if (q->have) {
		if (q->fd != fd)
			return 0; /* the other socket's come first */
		k = rx_hand_out(u, pkts, n);
		if (k == n || q->have)
			return k;
	}
	for (int i = 0; i < n - k; i++) {
		q->rx[i].buf = q->bufs + (size_t)i * WG_UNDERLAY_GRO_BYTES;
		q->rx[i].cap = WG_UNDERLAY_GRO_BYTES;
	}
	got = wg_udp_recv(&u->udp, f, q->rx, (unsigned int)(n - k));
	if (got <= 0)
		return k;
	q->have = (unsigned int)got;
	q->next = 0;
	q->off = 0;
	q->fd = fd;
	return k + rx_hand_out(u, pkts + k, n - k);
}

int wg_underlay_recv(struct wg_underlay *u, int fd, struct wg_pkt **pkts, int n)
{
	enum wg_udp_family f;

	if (fd < 0 || n <= 0)
		return 0;
	if (fd == u->fd4)
		f = WG_UDP_V4;
	else if (fd == u->fd6)
		f = WG_UDP_V6;
	else
		return 0; /* a socket closed by a rebind */
	if (n > WG_UNDERLAY_BATCH)
		n = WG_UNDERLAY_BATCH;
	if (u->udp.gro[f] && u->rxq.bufs)
		return recv_coalesced(u, f, fd, pkts, n);
	return recv_direct(u, f, pkts, n);
}

int wg_underlay_rx_pending(const struct wg_underlay *u)
{
	return u->rxq.have ? u->rxq.fd : -1;
}

/* --- send --- */

/* Moves the unsent tail of a batch, from index done, to its front. */
static void keep_rest(struct wg_underlay_batch *b, unsigned int done)
{
	unsigned int rest = b->n - done;

	if (done && rest) {
		memmove(b->pkts, b->pkts + done, rest * sizeof(b->pkts[0]));
		memmove(b->eps, b->eps + done, rest * sizeof(b->eps[0]));
		memmove(b->tos, b->tos + done, rest * sizeof(b->tos[0]));
	}
	b->n = rest;
}

/* What the socket holds now; 0 when that cannot be told (no limit can then be learnt). */
static uint32_t held_bytes(const struct wg_underlay *u, enum wg_udp_family f)
{
	int held = wg_udp_queued_bytes(&u->udp, f);

	return held > 0 ? (uint32_t)held : 0;
}

/* The socket f cannot take more: wait for it to drain, and time the wait. */
static void stall(struct wg_underlay *u, enum wg_udp_family f)
{
	uint32_t held = held_bytes(u, f);

	u->gate[f].starved = false;
	u->gate[f].empty_stalls = held ? 0 : u->gate[f].empty_stalls + 1;
	u->blocked_fd = u->udp.fd[f];
	if (wg_bql_stall(&u->gate[f].bql, u->now_ns, held))
		(void)size_sndbuf(u, f);
}

bool wg_underlay_resume_drained(struct wg_underlay *u, uint64_t now_ns)
{
	for (int f = 0; f < WG_UDP_FAMILIES; f++) {
		struct wg_underlay_gate *g = &u->gate[f];

		if (u->blocked_fd < 0 || u->udp.fd[f] != u->blocked_fd)
			continue;
		/* The kernel signals a UDP socket writable below half its send buffer. */
		if (!g->bql.stalled || g->pushed_back || u->ctlq[f].n ||
		    g->bql.stall_bytes >= g->sndbuf / 2)
			return false;
		/* Nothing was sent since: it holds at most what it held at the stall. */
		if (wg_bql_resume(&g->bql, now_ns, g->bql.stall_bytes))
			(void)size_sndbuf(u, (enum wg_udp_family)f);
		u->blocked_fd = -1;
		return true;
	}
	return false;
}

/* --- trains (UDP GSO) --- */

/*
 * The most a train of f may carry: a quarter of the byte limit. The socket gets a
 * train's bytes back all at once, when the kernel frees it, so large trains make what
 * it holds drop in lumps: the socket looks empty (to the limit's learning, starved) while
 * the link below still sends, and a rate sampled over a stall jumps. Measured at a
 * 50 Mbit/s tbf, unlimited trains let the limit swing between 8 and 55 KiB and the tbf
 * hold 3-4 ms (against 1 ms without trains); half the limit, 8-43 KiB; a quarter, 9-13
 * KiB and 1 ms, and at 200 Mbit/s still about five datagrams per send.
 */
static size_t train_cap(const struct wg_underlay *u, enum wg_udp_family f)
{
	const struct wg_underlay_gate *g = &u->gate[f];

	if (u->limit_setting == WG_UNDERLAY_LIMIT_OFF)
		return WG_UNDERLAY_TRAIN_MAX_BYTES;
	/* A socket found empty stall after stall gives what it is handed back at once (a
	 * veth frees it on the way through): no lumps, so a train may fill the limit. */
	return WG_MIN((size_t)WG_UNDERLAY_TRAIN_MAX_BYTES,
		      (size_t)g->bql.limit / (g->empty_stalls >= WG_UNDERLAY_EMPTY_STALLS ?
						      1 :
						      WG_UNDERLAY_TRAIN_LIMIT_DIV));
}

/* Whether pkts[i] may join the train that starts at pkts[first] and has n messages of
 * `bytes` so far: the same way out and outer TOS, no longer than the first, after a
 * message as long as the first (only a train's last segment may be shorter), and no
 * more than cap bytes in all. */
static bool joins_train(const struct wg_underlay_batch *b, unsigned int first, unsigned int n,
			size_t bytes, size_t cap, unsigned int i)
{
	uint32_t seg = b->pkts[first]->msg_len, len = b->pkts[i]->msg_len;

	if (n == WG_UDP_GSO_MAX_SEGMENTS || len > seg || b->pkts[i - 1]->msg_len != seg ||
	    bytes + len > cap)
		return false;
	return b->tos[i] == b->tos[first] && wg_endpoint_same_path(&b->eps[i], &b->eps[first]);
}

/* Describes f's batch from pkts[from] as send entries: one per train when trains are
 * wanted and the socket has GSO, else one per message. counts[k] is how many messages
 * tx[k] carries. Returns the number of entries. */
static unsigned int build_tx(struct wg_underlay *u, enum wg_udp_family f, unsigned int from,
			     bool trains, struct wg_udp_tx *tx, struct iovec *iov,
			     unsigned int *counts)
{
	struct wg_underlay_batch *b = &u->batch[f];
	bool gso = trains && u->udp.gso[f];
	size_t cap = train_cap(u, f);
	unsigned int k = 0, i = from;

	while (i < b->n) {
		unsigned int first = i, n = 0;
		size_t bytes = 0;

		do {
			iov[i] = (struct iovec){.iov_base = wg_pkt_msg(b->pkts[i]),
						.iov_len = b->pkts[i]->msg_len};
			bytes += b->pkts[i]->msg_len;
			i++;
			n++;
		} while (gso && i < b->n && joins_train(b, first, n, bytes, cap, i));
		tx[k] = (struct wg_udp_tx){
			.iov = &iov[first],
			.iovcnt = n,
			.ep = &b->eps[first],
			.tos = b->tos[first],
			.gso_size = n > 1 ? (uint16_t)b->pkts[first]->msg_len : 0,
		};
		counts[k++] = n;
	}
	return k;
}

/* Sends one family's batch; the sent packets go back to the pool. -EAGAIN when some wait
 * or the socket has no room left. */
static int flush_batch(struct wg_underlay *u, enum wg_udp_family f)
{
	struct wg_underlay_batch *b = &u->batch[f];
	struct wg_udp_tx tx[WG_UNDERLAY_BATCH];
	struct iovec iov[WG_UNDERLAY_BATCH];
	unsigned int counts[WG_UNDERLAY_BATCH];
	struct wg_udp_send_result res;
	unsigned int done = 0;
	bool trains = true;

	if (wg_underlay_ctl_flush(u, f))
		return -EAGAIN; /* no data goes before the control messages that wait */
	while (done < b->n) {
		unsigned int ntx = build_tx(u, f, done, trains, tx, iov, counts), went = 0;
		enum wg_udp_send_outcome o = wg_udp_send(&u->udp, tx, ntx, &res);

		for (unsigned int k = 0; k < res.sent; k++) {
			went += counts[k];
			u->stats.trains += counts[k] > 1;
		}
		put_pkts(u, b, done, went);
		u->stats.sent += went;
		done += went;
		if (o == WG_UDP_SENT_ALL)
			break;
		if (o == WG_UDP_SEND_BLOCKED) {
			/* EAGAIN: the room was overestimated. ENOBUFS: something below the
			 * socket holds less than the limit: keep under what it held. */
			u->stats.blocked++;
			u->gate[f].pushed_back = true;
			if (res.err == -ENOBUFS &&
			    wg_bql_overflow(&u->gate[f].bql, held_bytes(u, f)))
				(void)size_sndbuf(u, f);
			stall(u, f);
			break;
		}
		if (counts[res.sent] > 1) {
			/* A train refused: the rest of this batch goes one by one. When the
			 * train itself was the fault (EIO: the device cannot checksum; EINVAL or
			 * EMSGSIZE: a segment is larger than the route's MTU, which only a plain
			 * datagram may be fragmented for), this socket sends no more trains; an
			 * unreachable peer costs its own messages only. */
			if (res.err == -EIO || res.err == -EINVAL || res.err == -EMSGSIZE) {
				u->udp.gso[f] = false;
				u->stats.trains_refused++;
			}
			trains = false;
			continue;
		}
		/* An unreachable peer or a refused packet: this one cannot go; drop it,
		 * counted, and keep the batch moving. */
		u->stats.send_errors++;
		put_pkts(u, b, done++, 1);
	}
	keep_rest(b, done);
	if (b->n)
		return -EAGAIN;
	if (u->gate[f].starved) {
		stall(u, f);
		return -EAGAIN;
	}
	return 0;
}

static int flush_family(struct wg_underlay *u, enum wg_udp_family f)
{
	return u->batch[f].n || u->gate[f].starved || u->ctlq[f].n ? flush_batch(u, f) : 0;
}

int wg_underlay_flush(struct wg_underlay *u)
{
	int r4 = flush_family(u, WG_UDP_V4);
	int r6 = flush_family(u, WG_UDP_V6);

	return r4 ? r4 : r6;
}

void wg_underlay_begin(struct wg_underlay *u, uint64_t now_ns)
{
	u->now_ns = now_ns;
	for (int f = 0; f < WG_UDP_FAMILIES; f++)
		u->gate[f].measured = u->gate[f].pushed_back = false;
}

/* Takes cost bytes of f's room for this round: false when there is none left. A socket
 * that holds nothing always takes one message, however large. */
static bool take_room(struct wg_underlay *u, enum wg_udp_family f, uint32_t cost)
{
	struct wg_underlay_gate *g = &u->gate[f];
	uint32_t held = 0;

	if (u->limit_setting == WG_UNDERLAY_LIMIT_OFF)
		return true;
	if (!g->measured) {
		held = held_bytes(u, f);
		g->room = wg_bql_room(&g->bql, held);
		g->measured = true;
		if (!held && !u->batch[f].n && g->room < cost)
			g->room = cost;
	}
	if (g->room < cost) {
		g->starved = true;
		return false;
	}
	g->room -= cost;
	return true;
}

int wg_underlay_queue(struct wg_underlay *u, const struct wg_endpoint *ep, struct wg_pkt *pkt)
{
	enum wg_udp_family f = wg_udp_family_of(ep);
	struct wg_underlay_batch *b;
	unsigned int i;

	if (f == WG_UDP_FAMILIES || u->udp.fd[f] < 0) {
		u->stats.send_errors++;
		wg_device_pkt_put(u->dev, pkt);
		return 0;
	}
	b = &u->batch[f];
	if (b->n == WG_UNDERLAY_BATCH && flush_batch(u, f))
		return -EAGAIN;
	if (!take_room(u, f, pkt->msg_len + WG_UNDERLAY_SKB_COST))
		return -EAGAIN;
	i = b->n++;
	b->pkts[i] = pkt;
	b->eps[i] = *ep;
	b->tos[i] = cake_ecn_encap(pkt->cp.ecn);
	return 0;
}

int wg_underlay_blocked_fd(const struct wg_underlay *u)
{
	if (u->blocked_fd >= 0)
		return u->blocked_fd;
	return u->fd4 >= 0 ? u->fd4 : u->fd6;
}

void wg_underlay_writable(struct wg_underlay *u, int fd, uint64_t now_ns)
{
	for (int i = 0; i < WG_UDP_FAMILIES; i++) {
		enum wg_udp_family f = (enum wg_udp_family)i;

		if (fd < 0 || u->udp.fd[f] != fd)
			continue;
		if (wg_bql_resume(&u->gate[f].bql, now_ns, held_bytes(u, f)))
			(void)size_sndbuf(u, f);
	}
	if (fd == u->blocked_fd)
		u->blocked_fd = -1;
}

struct wg_bql_stats wg_underlay_bql_stats(const struct wg_underlay *u)
{
	struct wg_bql_stats sum = {0};

	for (int f = 0; f < WG_UDP_FAMILIES; f++) {
		const struct wg_bql_stats *s = &u->gate[f].bql.stats;

		sum.stalls += s->stalls;
		sum.samples += s->samples;
		sum.starved += s->starved;
		sum.overflows += s->overflows;
		sum.regrown += s->regrown;
	}
	return sum;
}

const struct wg_bql *wg_underlay_busiest(const struct wg_underlay *u)
{
	const struct wg_bql *v4 = &u->gate[WG_UDP_V4].bql, *v6 = &u->gate[WG_UDP_V6].bql;

	return v6->stats.stalls > v4->stats.stalls ? v6 : v4;
}

void wg_underlay_report(const struct wg_underlay *u, struct wg_device_ext *ext)
{
	struct wg_device_counters *c = &ext->counters;
	struct wg_bql_stats pushback = wg_underlay_bql_stats(u);
	const struct wg_bql *busiest = wg_underlay_busiest(u);

	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_SENT, u->stats.sent);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_TRAINS, u->stats.trains);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_TRAINS_REFUSED, u->stats.trains_refused);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_SEND_ERRORS, u->stats.send_errors);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_SEND_BLOCKED, u->stats.blocked);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_RECEIVED, u->stats.received);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_RX_TRAINS, u->stats.rx_trains);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_TRUNCATED, u->stats.truncated);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_RX_LARGE, u->stats.rx_large);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_CTL_QUEUED, u->stats.ctl_queued);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_CTL_DROPPED, u->stats.ctl_dropped);
	wg_device_counters_set(c, WG_COUNTER_BACKPRESSURE_STALLS, pushback.stalls);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_STARVED, pushback.starved);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_REGROWN, pushback.regrown);
	wg_device_counters_set(c, WG_COUNTER_UNDERLAY_OVERFLOWS, pushback.overflows);
	ext->has_underlay_limit = true;
	ext->underlay_limit = busiest->limit;
	ext->underlay_drain_rate = busiest->rate;
	ext->underlay_limit_setting = u->limit_setting;
}
