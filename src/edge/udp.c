/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * UDP underlay sockets: open/bind with wireguard-go's port rule, batched receive with
 * the local destination address, batched send with sticky source and backpressure.
 * See udp.h for the contract.
 */
#define _GNU_SOURCE /* struct mmsghdr, recvmmsg, sendmmsg, struct in6_pktinfo */
#include "src/edge/udp.h"
#include "src/edge/monoclock.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/sockios.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

struct wg_udp_scratch {
	struct mmsghdr msgs[WG_UDP_BATCH_MAX];
	struct iovec iov[WG_UDP_BATCH_MAX][2]; /* receive: the buffer, then its spill area */
	union wg_ipaddr_sockaddr names[WG_UDP_BATCH_MAX];
	union {
		struct cmsghdr align;
		uint8_t buf[WG_UDP_CMSG_BYTES];
	} cmsg[WG_UDP_BATCH_MAX];
};

static const int family_af[WG_UDP_FAMILIES] = {AF_INET, AF_INET6};

static int sockopt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) < 0 ? -errno : 0;
}

/* Large receive buffer: past rmem_max as root (SO_RCVBUFFORCE), else as large as allowed. */
static void set_buffers(int fd, const struct wg_udp_config *cfg)
{
	int rcv = (int)(cfg->rcvbuf_bytes ? cfg->rcvbuf_bytes : WG_UDP_RCVBUF_BYTES);
	int snd = (int)(cfg->sndbuf_bytes ? cfg->sndbuf_bytes : WG_UDP_SNDBUF_BYTES);

	if (sockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, rcv) < 0)
		(void)sockopt(fd, SOL_SOCKET, SO_RCVBUF, rcv);
	/* Small on purpose: the kernel doubles it and that is the backpressure limit. */
	(void)sockopt(fd, SOL_SOCKET, SO_SNDBUF, snd / 2);
}

int wg_udp_queued_bytes(const struct wg_udp *u, enum wg_udp_family f)
{
	int held = 0;

	if (u->fd[f] < 0)
		return -EBADF;
	return ioctl(u->fd[f], SIOCOUTQ, &held) < 0 ? -errno : held;
}

int wg_udp_set_sndbuf(struct wg_udp *u, enum wg_udp_family f, uint32_t bytes)
{
	int ret;

	if (u->fd[f] < 0)
		return -EBADF;
	/* The kernel doubles what it is given (room for its bookkeeping). */
	ret = sockopt(u->fd[f], SOL_SOCKET, SO_SNDBUFFORCE, (int)(bytes / 2));
	return ret ? sockopt(u->fd[f], SOL_SOCKET, SO_SNDBUF, (int)(bytes / 2)) : 0;
}

/* Per-datagram metadata on receive, and IPv6 kept apart from IPv4. */
static int set_family_options(int fd, enum wg_udp_family f)
{
	int ret;

	if (f == WG_UDP_V6) {
		ret = sockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
		if (!ret)
			ret = sockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1);
		if (!ret)
			ret = sockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
		return ret;
	}
	ret = sockopt(fd, IPPROTO_IP, IP_PKTINFO, 1);
	if (!ret)
		ret = sockopt(fd, IPPROTO_IP, IP_RECVTOS, 1);
	return ret;
}

static int bind_port(int fd, enum wg_udp_family f, uint16_t port, uint16_t *bound)
{
	union wg_ipaddr_sockaddr sa;
	socklen_t len;

	memset(&sa, 0, sizeof(sa));
	if (f == WG_UDP_V6) {
		sa.addr6.sin6_family = AF_INET6;
		sa.addr6.sin6_addr = in6addr_any;
		sa.addr6.sin6_port = htons(port);
		len = sizeof(sa.addr6);
	} else {
		sa.addr4.sin_family = AF_INET;
		sa.addr4.sin_addr.s_addr = htonl(INADDR_ANY);
		sa.addr4.sin_port = htons(port);
		len = sizeof(sa.addr4);
	}
	if (bind(fd, &sa.addr, len) < 0)
		return -errno;
	len = sizeof(sa);
	if (getsockname(fd, &sa.addr, &len) < 0)
		return -errno;
	*bound = ntohs(f == WG_UDP_V6 ? sa.addr6.sin6_port : sa.addr4.sin_port);
	return 0;
}

/* GSO is usable when the kernel knows UDP_SEGMENT; GRO only when asked and accepted. */
static void probe_offloads(struct wg_udp *u, enum wg_udp_family f, bool want_gro)
{
	int fd = u->fd[f], val = 0;
	socklen_t len = sizeof(val);

	u->gso[f] = getsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &val, &len) == 0;
	u->gro[f] = false;
	if (want_gro && sockopt(fd, IPPROTO_UDP, UDP_GRO, 1) == 0) {
		len = sizeof(val);
		/* Reading it back needs Linux 5.12; older kernels stay without GRO. */
		u->gro[f] = getsockopt(fd, IPPROTO_UDP, UDP_GRO, &val, &len) == 0 && val == 1;
	}
}

static int open_family(struct wg_udp *u, enum wg_udp_family f, const struct wg_udp_config *cfg,
		       uint16_t port, uint16_t *bound)
{
	int fd, ret;

	fd = socket(family_af[f], SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0)
		return -errno;
	ret = set_family_options(fd, f);
	if (!ret && cfg->fwmark)
		ret = sockopt(fd, SOL_SOCKET, SO_MARK, (int)cfg->fwmark);
	if (!ret) {
		set_buffers(fd, cfg);
		ret = bind_port(fd, f, port, bound);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	u->fd[f] = fd;
	probe_offloads(u, f, cfg->gro);
	if (cfg->rx_stamps) /* without: rx_ns 0, and the caller's own time stands */
		(void)sockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	return 0;
}

static void close_family(struct wg_udp *u, enum wg_udp_family f)
{
	if (u->fd[f] >= 0)
		close(u->fd[f]);
	u->fd[f] = -1;
	u->gso[f] = u->gro[f] = false;
}

/* One attempt: IPv4 on port (or a free one), then IPv6 on the same number. */
static int open_both(struct wg_udp *u, const struct wg_udp_config *cfg)
{
	uint16_t port = cfg->port, bound = 0;
	int ret;

	ret = open_family(u, WG_UDP_V4, cfg, port, &bound);
	if (ret && ret != -EAFNOSUPPORT)
		return ret;
	if (!ret)
		port = bound;
	ret = open_family(u, WG_UDP_V6, cfg, port, &bound);
	if (ret && ret != -EAFNOSUPPORT) {
		close_family(u, WG_UDP_V4);
		return ret;
	}
	if (!ret)
		port = bound;
	if (u->fd[WG_UDP_V4] < 0 && u->fd[WG_UDP_V6] < 0)
		return -EAFNOSUPPORT;
	u->port = port;
	return 0;
}

int wg_udp_open(struct wg_udp *u, const struct wg_udp_config *cfg)
{
	int attempt, ret;

	memset(u, 0, sizeof(*u));
	u->fd[WG_UDP_V4] = u->fd[WG_UDP_V6] = -1;
	u->fwmark = cfg->fwmark;
	u->rx_stamps = cfg->rx_stamps;
	u->scratch = malloc(sizeof(*u->scratch));
	if (!u->scratch)
		return -ENOMEM;
	for (attempt = 0; attempt < WG_UDP_BIND_ATTEMPTS; attempt++) {
		ret = open_both(u, cfg);
		/* A kernel-chosen IPv4 port may be taken for IPv6: pick another pair. */
		if (ret != -EADDRINUSE || cfg->port != 0)
			break;
	}
	if (ret)
		wg_udp_close(u);
	return ret;
}

void wg_udp_close(struct wg_udp *u)
{
	close_family(u, WG_UDP_V4);
	close_family(u, WG_UDP_V6);
	free(u->scratch);
	u->scratch = NULL;
}

int wg_udp_set_fwmark(struct wg_udp *u, uint32_t mark)
{
	int f, ret;

	for (f = 0; f < WG_UDP_FAMILIES; f++) {
		if (u->fd[f] < 0)
			continue;
		ret = sockopt(u->fd[f], SOL_SOCKET, SO_MARK, (int)mark);
		if (ret)
			return ret;
	}
	u->fwmark = mark;
	return 0;
}

int wg_udp_set_rx_stamps(struct wg_udp *u, bool on)
{
	int ret = 0;

	u->rx_stamps = on; /* the wish, for sockets opened later, even if this one failed */
	for (int f = 0; f < WG_UDP_FAMILIES; f++)
		if (u->fd[f] >= 0 && !ret)
			ret = sockopt(u->fd[f], SOL_SOCKET, SO_TIMESTAMPNS, on);
	return ret;
}

enum wg_udp_family wg_udp_family_of(const struct wg_endpoint *ep)
{
	if (ep->remote.addr.sa_family == AF_INET)
		return WG_UDP_V4;
	if (ep->remote.addr.sa_family == AF_INET6)
		return WG_UDP_V6;
	return WG_UDP_FAMILIES;
}

/* Refused sources */

static bool same_source(const struct wg_udp_refused_src *r, enum wg_udp_family f,
			const struct wg_endpoint *ep)
{
	if (f == WG_UDP_V4)
		return r->v4.s_addr == ep->src4.s_addr;
	return !memcmp(&r->v6, &ep->src6, sizeof(r->v6));
}

static void forget_source(struct wg_endpoint *ep)
{
	ep->has_src = false;
	ep->src_ifindex = 0;
	memset(&ep->src6, 0, sizeof(ep->src6));
}

/* A datagram arrived at a source we had given up on: the address is back. */
static void source_seen(struct wg_udp *u, enum wg_udp_family f, const struct wg_endpoint *ep)
{
	struct wg_udp_refused_src *r = &u->refused[f];

	if (r->set && ep->has_src && same_source(r, f, ep))
		r->set = false;
}

/* Leaves out a source the kernel refused before, without asking it again. */
static void skip_refused_source(const struct wg_udp *u, enum wg_udp_family f,
				struct wg_endpoint *ep)
{
	const struct wg_udp_refused_src *r = &u->refused[f];

	if (r->set && ep->has_src && r->ifindex == ep->src_ifindex && same_source(r, f, ep))
		forget_source(ep);
}

/* Receive */

/* The kernel's receive time (SCM_TIMESTAMPNS is on CLOCK_REALTIME) on the monotonic
 * clock, given the two clocks' offset; 0 for no stamp or one before the monotonic
 * clock's start (the wall clock stepped back since). */
static uint64_t rx_mono_ns(const struct timespec *ts, int64_t mono_minus_real)
{
	int64_t ns = (int64_t)ts->tv_sec * (int64_t)WG_NSEC_PER_SEC + ts->tv_nsec + mono_minus_real;

	return ts->tv_sec > 0 && ns > 0 ? (uint64_t)ns : 0;
}

static void rx_cmsg(const struct cmsghdr *c, struct wg_udp_rx *rx, int64_t mono_minus_real)
{
	const void *data = CMSG_DATA(c);
	int ival;

	if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
	    c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
		struct in_pktinfo pi;

		memcpy(&pi, data, sizeof(pi));
		rx->ep.src4 = pi.ipi_spec_dst; /* the local address, as wireguard-go keeps */
		rx->ep.src_ifindex = pi.ipi_ifindex;
		rx->ep.has_src = true;
	} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
		   c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
		struct in6_pktinfo pi;

		memcpy(&pi, data, sizeof(pi));
		rx->ep.src6 = pi.ipi6_addr;
		rx->ep.src_ifindex = (int)pi.ipi6_ifindex;
		rx->ep.has_src = true;
	} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS &&
		   c->cmsg_len >= CMSG_LEN(sizeof(uint8_t))) {
		rx->tos = *(const uint8_t *)data;
	} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS &&
		   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
		memcpy(&ival, data, sizeof(ival));
		rx->tos = (uint8_t)ival;
	} else if (c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_GRO &&
		   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
		memcpy(&ival, data, sizeof(ival));
		rx->gro_size = (uint16_t)ival;
	} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
		   c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
		struct timespec ts;

		memcpy(&ts, data, sizeof(ts));
		rx->rx_ns = rx_mono_ns(&ts, mono_minus_real);
	}
}

static void rx_fill(struct wg_udp *u, enum wg_udp_family f, struct wg_udp_rx *rx, struct mmsghdr *m,
		    const union wg_ipaddr_sockaddr *name, int64_t mono_minus_real)
{
	struct msghdr *mh = &m->msg_hdr;
	struct cmsghdr *c;

	rx->len = m->msg_len;
	rx->truncated = mh->msg_flags & MSG_TRUNC;
	rx->tos = 0;
	rx->gro_size = 0;
	rx->rx_ns = 0;
	memset(&rx->ep, 0, sizeof(rx->ep));
	if (name->addr.sa_family == AF_INET && mh->msg_namelen >= sizeof(name->addr4))
		rx->ep.remote.addr4 = name->addr4;
	else if (name->addr.sa_family == AF_INET6 && mh->msg_namelen >= sizeof(name->addr6))
		rx->ep.remote.addr6 = name->addr6;
	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
		rx_cmsg(c, rx, mono_minus_real);
	source_seen(u, f, &rx->ep);
}

int wg_udp_recv(struct wg_udp *u, enum wg_udp_family f, struct wg_udp_rx *rx, unsigned int n)
{
	return wg_udp_recv_spill(u, f, rx, n, NULL, 0);
}

int wg_udp_recv_spill(struct wg_udp *u, enum wg_udp_family f, struct wg_udp_rx *rx,
		      unsigned int n, uint8_t *spill, size_t spill_len)
{
	struct wg_udp_scratch *s = u->scratch;
	int64_t mono_minus_real;
	unsigned int i;
	int got;

	if ((unsigned int)f >= WG_UDP_FAMILIES || u->fd[f] < 0 || n > WG_UDP_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		struct msghdr *mh = &s->msgs[i].msg_hdr;

		s->iov[i][0].iov_base = rx[i].buf;
		s->iov[i][0].iov_len = rx[i].cap;
		memset(mh, 0, sizeof(*mh));
		memset(&s->names[i], 0, sizeof(s->names[i]));
		mh->msg_name = &s->names[i];
		mh->msg_namelen = sizeof(s->names[i]);
		mh->msg_iov = s->iov[i];
		mh->msg_iovlen = 1;
		if (spill) {
			s->iov[i][1].iov_base = spill + (size_t)i * spill_len;
			s->iov[i][1].iov_len = spill_len;
			mh->msg_iovlen = 2;
		}
		mh->msg_control = s->cmsg[i].buf;
		mh->msg_controllen = sizeof(s->cmsg[i].buf);
	}
	do {
		got = recvmmsg(u->fd[f], s->msgs, n, MSG_DONTWAIT, NULL);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	/* Once per batch: the offset moves only with the wall clock's steps and slews. */
	mono_minus_real = (int64_t)wg_mono_ns() - (int64_t)wg_clock_read_ns(CLOCK_REALTIME);
	for (i = 0; i < (unsigned int)got; i++)
		rx_fill(u, f, &rx[i], &s->msgs[i], &s->names[i], mono_minus_real);
	return got;
}

/* Send */

static struct cmsghdr *put_cmsg(struct msghdr *mh, struct cmsghdr *c, int level, int type,
				const void *data, size_t len)
{
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
	mh->msg_controllen += CMSG_SPACE(len);
	return (struct cmsghdr *)((uint8_t *)c + CMSG_SPACE(len));
}

static void tx_source(struct msghdr *mh, struct cmsghdr **c, const struct wg_endpoint *ep,
		      enum wg_udp_family f)
{
	if (f == WG_UDP_V4) {
		struct in_pktinfo pi = {.ipi_ifindex = ep->src_ifindex, .ipi_spec_dst = ep->src4};

		*c = put_cmsg(mh, *c, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
	} else {
		struct in6_pktinfo pi = {.ipi6_addr = ep->src6,
					 .ipi6_ifindex = (unsigned int)ep->src_ifindex};

		*c = put_cmsg(mh, *c, IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	}
}

/* Control data of one datagram: sticky source, TOS, segment size. */
static void tx_control(struct wg_udp *u, unsigned int i, const struct wg_udp_tx *tx,
		       enum wg_udp_family f)
{
	struct msghdr *mh = &u->scratch->msgs[i].msg_hdr;
	struct cmsghdr *c = &u->scratch->cmsg[i].align;
	int tos = tx->tos;

	memset(u->scratch->cmsg[i].buf, 0, sizeof(u->scratch->cmsg[i].buf));
	mh->msg_control = c;
	mh->msg_controllen = 0;
	if (tx->ep->has_src)
		tx_source(mh, &c, tx->ep, f);
	if (tos)
		c = put_cmsg(mh, c, f == WG_UDP_V4 ? IPPROTO_IP : IPPROTO_IPV6,
			     f == WG_UDP_V4 ? IP_TOS : IPV6_TCLASS, &tos, sizeof(tos));
	if (tx->gso_size)
		c = put_cmsg(mh, c, IPPROTO_UDP, UDP_SEGMENT, &tx->gso_size, sizeof(tx->gso_size));
	if (!mh->msg_controllen)
		mh->msg_control = NULL;
}

static void tx_build(struct wg_udp *u, unsigned int i, const struct wg_udp_tx *tx,
		     enum wg_udp_family f)
{
	struct msghdr *mh = &u->scratch->msgs[i].msg_hdr;

	skip_refused_source(u, f, tx->ep);
	memset(mh, 0, sizeof(*mh));
	u->scratch->names[i] = tx->ep->remote;
	mh->msg_name = &u->scratch->names[i];
	mh->msg_namelen = f == WG_UDP_V4 ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	if (tx->iovcnt) {
		mh->msg_iov = (struct iovec *)tx->iov; /* sendmmsg only reads it */
		mh->msg_iovlen = tx->iovcnt;
	} else {
		u->scratch->iov[i][0].iov_base = (void *)tx->buf;
		u->scratch->iov[i][0].iov_len = tx->len;
		mh->msg_iov = u->scratch->iov[i];
		mh->msg_iovlen = 1;
	}
	tx_control(u, i, tx, f);
}

/* How many entries from tx[0] share its family, and fit one sendmmsg. */
static unsigned int run_length(const struct wg_udp_tx *tx, unsigned int n, enum wg_udp_family f)
{
	unsigned int i;

	for (i = 0; i < n && i < WG_UDP_BATCH_MAX; i++)
		if (wg_udp_family_of(tx[i].ep) != f)
			break;
	return i;
}

/*
 * After an error on tx[i]: true when it is worth sending tx[i] again (the control
 * data was fixed up), false when the error stands. A source cleared here goes to
 * *suspect: it counts as refused once the retry without it goes out.
 */
static bool recover(struct wg_udp *u, unsigned int i, struct wg_udp_tx *tx, enum wg_udp_family f,
		    int err, struct wg_udp_refused_src *suspect)
{
	if (tx->ep->has_src &&
	    (err == -EINVAL || err == -ENODEV || err == -ENETUNREACH || err == -EADDRNOTAVAIL)) {
		/*
		 * The sticky source is gone (address removed, link deleted): IPv4 answers
		 * EINVAL or, without an interface index, ENETUNREACH; IPv6 EINVAL; a deleted
		 * interface ENODEV. If the destination itself is unreachable, the retry
		 * without a source says so, and the source is not blamed.
		 */
		memcpy(&suspect->v6, &tx->ep->src6, sizeof(suspect->v6)); /* either family */
		suspect->ifindex = tx->ep->src_ifindex;
		suspect->set = true;
		forget_source(tx->ep);
		u->stats.sticky_resets++;
		tx_control(u, i, tx, f);
		return true;
	}
	if (err == -EIO && tx->gso_size && u->gso[f]) {
		/* UDP_SEGMENT needs checksum offload on the egress device: stop using it. */
		u->gso[f] = false;
		u->stats.gso_disabled++;
	}
	return false;
}

/* Remembers a refused source and leaves it out of tx[from..n) of the run still to go. */
static void refuse_source(struct wg_udp *u, struct wg_udp_tx *tx, unsigned int from, unsigned int n,
			  enum wg_udp_family f, struct wg_udp_refused_src *suspect)
{
	unsigned int j;

	u->refused[f] = *suspect;
	suspect->set = false;
	for (j = from; j < n; j++) {
		if (!tx[j].ep->has_src)
			continue;
		skip_refused_source(u, f, tx[j].ep);
		if (!tx[j].ep->has_src)
			tx_control(u, j, &tx[j], f);
	}
}

/* Sends one run; 0 when all went, else *done is how many did and the -errno. */
static int send_run(struct wg_udp *u, struct wg_udp_tx *tx, unsigned int n, enum wg_udp_family f,
		    unsigned int *done)
{
	struct wg_udp_refused_src suspect = {.set = false};
	unsigned int i = 0;

	while (i < n) {
		int r = sendmmsg(u->fd[f], &u->scratch->msgs[i], n - i, MSG_DONTWAIT);

		if (r > 0) {
			i += (unsigned int)r;
			if (suspect.set) /* it went without its source: that was the fault */
				refuse_source(u, tx, i, n, f, &suspect);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || !recover(u, i, &tx[i], f, -errno, &suspect)) {
			*done = i;
			return r == 0 ? -EAGAIN : -errno;
		}
	}
	*done = n;
	return 0;
}

static enum wg_udp_send_outcome finish(struct wg_udp_send_result *res, unsigned int sent, int err,
				       int fd)
{
	res->sent = sent;
	res->err = err;
	res->blocked_fd = -1;
	if (!err)
		return WG_UDP_SENT_ALL;
	if (err == -EAGAIN || err == -EWOULDBLOCK || err == -ENOBUFS) {
		res->blocked_fd = fd;
		return WG_UDP_SEND_BLOCKED;
	}
	return WG_UDP_SEND_FAILED;
}

/* A reason not to hand tx to the kernel at all, or 0. */
static int tx_invalid(const struct wg_udp *u, const struct wg_udp_tx *tx)
{
	enum wg_udp_family f = wg_udp_family_of(tx->ep);

	if (f == WG_UDP_FAMILIES)
		return -EDESTADDRREQ;
	if (u->fd[f] < 0)
		return -EAFNOSUPPORT;
	if (tx->gso_size && !u->gso[f])
		return -EOPNOTSUPP;
	return 0;
}

enum wg_udp_send_outcome wg_udp_send(struct wg_udp *u, struct wg_udp_tx *tx, unsigned int n,
				     struct wg_udp_send_result *res)
{
	unsigned int sent = 0;

	while (sent < n) {
		enum wg_udp_family f;
		unsigned int len, i, done;
		int err = tx_invalid(u, &tx[sent]);

		if (err)
			return finish(res, sent, err, -1);
		f = wg_udp_family_of(tx[sent].ep);
		len = run_length(&tx[sent], n - sent, f);
		for (i = 0; i < len; i++) {
			err = tx_invalid(u, &tx[sent + i]);
			if (err) {
				len = i; /* send what precedes it; it fails on the next turn */
				break;
			}
			tx_build(u, i, &tx[sent + i], f);
		}
		err = send_run(u, &tx[sent], len, f, &done);
		sent += done;
		if (err)
			return finish(res, sent, err, u->fd[f]);
	}
	return finish(res, sent, 0, -1);
}
