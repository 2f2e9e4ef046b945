/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/underlay.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "qdisc/ecn.h"
#include "src/core/messages.h"

enum {
	BIND_ATTEMPTS = 100,
	HANDSHAKE_TOS = 0x88, /* AF41, as Linux marks handshakes */
};

static int sockopt(int fd, int level, int name, int value)
{
	return setsockopt(fd, level, name, &value, sizeof(value)) ? -errno : 0;
}

static int open_socket(int family, uint16_t port, uint32_t fwmark, uint16_t *bound)
{
	union wg_ipaddr_sockaddr sa;
	socklen_t len;
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	if (family == AF_INET6) {
		(void)sockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
		(void)sockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1);
		(void)sockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
		sa.addr6.sin6_family = AF_INET6;
		sa.addr6.sin6_port = htons(port);
		len = sizeof(sa.addr6);
	} else {
		(void)sockopt(fd, IPPROTO_IP, IP_PKTINFO, 1);
		(void)sockopt(fd, IPPROTO_IP, IP_RECVTOS, 1);
		sa.addr4.sin_family = AF_INET;
		sa.addr4.sin_port = htons(port);
		len = sizeof(sa.addr4);
	}
	if (sockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, WG_UNDERLAY_RCVBUF_BYTES))
		(void)sockopt(fd, SOL_SOCKET, SO_RCVBUF, WG_UNDERLAY_RCVBUF_BYTES);
	(void)sockopt(fd, SOL_SOCKET, SO_SNDBUF, WG_UNDERLAY_SNDBUF_BYTES);
	if (fwmark && (ret = sockopt(fd, SOL_SOCKET, SO_MARK, (int)fwmark)))
		goto fail;
	if (bind(fd, &sa.addr, len) || getsockname(fd, &sa.addr, &len)) {
		ret = -errno;
		goto fail;
	}
	*bound = ntohs(family == AF_INET6 ? sa.addr6.sin6_port : sa.addr4.sin_port);
	return fd;
fail:
	close(fd);
	return ret;
}

static void close_fds(struct wg_underlay *u)
{
	if (u->fd4 >= 0)
		close(u->fd4);
	if (u->fd6 >= 0)
		close(u->fd6);
	u->fd4 = u->fd6 = -1;
}

/* Both families on one port; with port 0, retry when the v4 pick is taken for v6. */
static int bind_both(struct wg_underlay *u, uint16_t port)
{
	for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
		uint16_t p4 = 0, p6 = 0;
		int fd4 = open_socket(AF_INET, port, u->fwmark, &p4);
		int fd6 = open_socket(AF_INET6, fd4 >= 0 ? p4 : port, u->fwmark, &p6);

		if (fd4 < 0 && fd6 < 0)
			return fd4;
		if (fd4 >= 0 && fd6 < 0 && fd6 == -EADDRINUSE && !port) {
			close(fd4);
			continue;
		}
		if (fd4 >= 0 && fd6 < 0 && fd6 != -EAFNOSUPPORT && fd6 != -EADDRNOTAVAIL) {
			close(fd4);
			return fd6;
		}
		u->fd4 = fd4;
		u->fd6 = fd6 >= 0 ? fd6 : -1;
		u->port = fd4 >= 0 ? p4 : p6;
		return 0;
	}
	return -EADDRINUSE;
}

int wg_underlay_open(struct wg_underlay *u, struct wg_device *dev, uint16_t port,
		     void (*rebound)(void *ctx), void *ctx)
{
	memset(u, 0, sizeof(*u));
	u->fd4 = u->fd6 = u->blocked_fd = -1;
	u->dev = dev;
	u->rebound = rebound;
	u->rebound_ctx = ctx;
	return bind_both(u, port);
}

static void drop_batch(struct wg_underlay *u, struct wg_underlay_batch *b)
{
	for (unsigned int i = 0; i < b->n; i++)
		wg_device_pkt_put(u->dev, b->pkts[i]);
	b->n = 0;
}

void wg_underlay_close(struct wg_underlay *u)
{
	drop_batch(u, &u->batch4);
	drop_batch(u, &u->batch6);
	close_fds(u);
}

int wg_underlay_rebind(struct wg_underlay *u, uint16_t port)
{
	int old4 = u->fd4, old6 = u->fd6, ret;
	uint16_t old_port = u->port;

	u->fd4 = u->fd6 = -1;
	/* The old sockets hold the old port: close them first when it is the same. */
	if (port == old_port || !port) {
		if (old4 >= 0)
			close(old4);
		if (old6 >= 0)
			close(old6);
		old4 = old6 = -1;
	}
	ret = bind_both(u, port);
	if (ret) {
		if (old4 >= 0 || old6 >= 0) {
			u->fd4 = old4;
			u->fd6 = old6;
			u->port = old_port;
		} else {
			(void)bind_both(u, old_port);
		}
	} else {
		if (old4 >= 0)
			close(old4);
		if (old6 >= 0)
			close(old6);
	}
	drop_batch(u, &u->batch4);
	drop_batch(u, &u->batch6);
	if (u->rebound)
		u->rebound(u->rebound_ctx);
	return ret;
}

int wg_underlay_set_fwmark(struct wg_underlay *u, uint32_t mark)
{
	int ret = 0;

	if (u->fd4 >= 0)
		ret = sockopt(u->fd4, SOL_SOCKET, SO_MARK, (int)mark);
	if (!ret && u->fd6 >= 0)
		ret = sockopt(u->fd6, SOL_SOCKET, SO_MARK, (int)mark);
	if (!ret)
		u->fwmark = mark;
	return ret;
}

/* --- receive --- */

static void parse_cmsgs(struct msghdr *mh, struct wg_pkt *pkt)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			pkt->src.src4 = pi.ipi_spec_dst;
			pkt->src.src_ifindex = pi.ipi_ifindex;
			pkt->src.has_src = true;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			pkt->src.src6 = pi.ipi6_addr;
			pkt->src.src_ifindex = (int)pi.ipi6_ifindex;
			pkt->src.has_src = true;
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
			pkt->outer_ecn = *(uint8_t *)CMSG_DATA(c) & CAKE_ECN_MASK;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS) {
			int tclass;

			memcpy(&tclass, CMSG_DATA(c), sizeof(tclass));
			pkt->outer_ecn = (uint8_t)tclass & CAKE_ECN_MASK;
		}
	}
}

int wg_underlay_recv(struct wg_underlay *u, int fd, struct wg_pkt **pkts, int n)
{
	struct mmsghdr msgs[WG_UNDERLAY_BATCH];
	struct iovec iov[WG_UNDERLAY_BATCH];
	uint8_t cmsg[WG_UNDERLAY_BATCH][WG_UNDERLAY_CMSG_BYTES];
	int got;

	if (n > WG_UNDERLAY_BATCH)
		n = WG_UNDERLAY_BATCH;
	for (int i = 0; i < n; i++) {
		iov[i].iov_base = wg_pkt_msg(pkts[i]);
		iov[i].iov_len = wg_pkt_room(pkts[i]) + DATA_HEADROOM_LEN;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_name = &pkts[i]->src.remote;
		msgs[i].msg_hdr.msg_namelen = sizeof(pkts[i]->src.remote);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_control = cmsg[i];
		msgs[i].msg_hdr.msg_controllen = sizeof(cmsg[i]);
	}
	got = recvmmsg(fd, msgs, (unsigned int)n, MSG_DONTWAIT, NULL);
	if (got <= 0)
		return 0;
	for (int i = 0; i < got; i++) {
		struct wg_pkt *pkt = pkts[i];

		pkt->msg_len = msgs[i].msg_len;
		if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
			pkt->msg_len = 0;
			u->stats.truncated++;
		}
		parse_cmsgs(&msgs[i].msg_hdr, pkt);
		/* A packet arrived at an address we had given up on: it is back. */
		if (pkt->src.has_src && u->has_bad_src4 &&
		    pkt->src.remote.addr.sa_family == AF_INET &&
		    pkt->src.src4.s_addr == u->bad_src4.s_addr)
			u->has_bad_src4 = false;
		if (pkt->src.has_src && u->has_bad_src6 &&
		    pkt->src.remote.addr.sa_family == AF_INET6 &&
		    !memcmp(&pkt->src.src6, &u->bad_src6, sizeof(u->bad_src6)))
			u->has_bad_src6 = false;
	}
	u->stats.received += (uint64_t)got;
	return got;
}

/* --- send --- */

/* Fills the control messages of one datagram: source address and outer TOS. */
static size_t put_cmsgs(uint8_t *buf, const struct wg_endpoint *ep, uint8_t tos)
{
	struct msghdr mh = { .msg_control = buf, .msg_controllen = WG_UNDERLAY_CMSG_BYTES };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	size_t used = 0;
	int tclass = tos;

	memset(buf, 0, WG_UNDERLAY_CMSG_BYTES);
	if (ep->remote.addr.sa_family == AF_INET) {
		if (ep->has_src) {
			struct in_pktinfo pi = { .ipi_spec_dst = ep->src4 };

			c->cmsg_level = IPPROTO_IP;
			c->cmsg_type = IP_PKTINFO;
			c->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(c), &pi, sizeof(pi));
			used += CMSG_SPACE(sizeof(pi));
			c = (struct cmsghdr *)(buf + used);
		}
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_TOS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &tclass, sizeof(tclass));
		return used + CMSG_SPACE(sizeof(int));
	}
	if (ep->has_src) {
		struct in6_pktinfo pi = { .ipi6_addr = ep->src6 };

		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		used += CMSG_SPACE(sizeof(pi));
		c = (struct cmsghdr *)(buf + used);
	}
	c->cmsg_level = IPPROTO_IPV6;
	c->cmsg_type = IPV6_TCLASS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &tclass, sizeof(tclass));
	return used + CMSG_SPACE(sizeof(int));
}

static socklen_t name_len(const union wg_ipaddr_sockaddr *sa)
{
	return sa->addr.sa_family == AF_INET6 ? sizeof(sa->addr6) : sizeof(sa->addr4);
}

/* What the kernel answers when a datagram names a local source address that is gone:
 * EINVAL or EADDRNOTAVAIL, or ENETUNREACH from the route lookup with that source. */
static bool stale_source_errno(int err)
{
	return err == EINVAL || err == EADDRNOTAVAIL || err == ENETUNREACH;
}

/*
 * After such an error: if the datagram names a local source (IP_PKTINFO), that address is gone
 * (the host roamed). Remember it as bad so later packets leave it out too, drop the
 * control message from this one and return true to retry. The peer's next authenticated
 * packet teaches the device the new local address.
 */
static bool strip_source(struct wg_underlay *u, struct msghdr *mh)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			u->bad_src4 = pi.ipi_spec_dst;
			u->has_bad_src4 = true;
			break;
		}
		if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			u->bad_src6 = pi.ipi6_addr;
			u->has_bad_src6 = true;
			break;
		}
	}
	if (!c)
		return false;
	mh->msg_control = NULL;
	mh->msg_controllen = 0;
	u->stats.sticky_resets++;
	return true;
}

/* The endpoint to send to, without a local source the kernel refused before. */
static const struct wg_endpoint *usable(const struct wg_underlay *u, const struct wg_endpoint *ep,
					struct wg_endpoint *tmp)
{
	bool bad;

	if (!ep->has_src)
		return ep;
	if (ep->remote.addr.sa_family == AF_INET)
		bad = u->has_bad_src4 && ep->src4.s_addr == u->bad_src4.s_addr;
	else
		bad = u->has_bad_src6 && !memcmp(&ep->src6, &u->bad_src6, sizeof(ep->src6));
	if (!bad)
		return ep;
	*tmp = *ep;
	tmp->has_src = false;
	return tmp;
}

/* Sends batch b on fd; the sent packets go back to the pool. */
static int flush_batch(struct wg_underlay *u, struct wg_underlay_batch *b, int fd)
{
	unsigned int done = 0;

	while (done < b->n) {
		int n = sendmmsg(fd, b->msgs + done, b->n - done, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == ENOBUFS) {
				u->stats.blocked++;
				u->blocked_fd = fd;
				break;
			}
			if (stale_source_errno(errno) && strip_source(u, &b->msgs[done].msg_hdr))
				continue; /* the sticky source is gone: retry without it */
			/* An unreachable peer or a refused packet: this one cannot go; drop it,
			 * counted, and keep the batch moving. */
			u->stats.send_errors++;
			n = 1;
		} else {
			u->stats.sent += (uint64_t)n;
		}
		for (int i = 0; i < n; i++)
			wg_device_pkt_put(u->dev, b->pkts[done + (unsigned int)i]);
		done += (unsigned int)n;
	}
	if (done && done < b->n) {
		memmove(b->msgs, b->msgs + done, (b->n - done) * sizeof(b->msgs[0]));
		memmove(b->pkts, b->pkts + done, (b->n - done) * sizeof(b->pkts[0]));
		memmove(b->iov, b->iov + done, (b->n - done) * sizeof(b->iov[0]));
		memmove(b->names, b->names + done, (b->n - done) * sizeof(b->names[0]));
		memmove(b->cmsg, b->cmsg + done, (b->n - done) * sizeof(b->cmsg[0]));
		for (unsigned int i = 0; i < b->n - done; i++) {
			b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
			b->msgs[i].msg_hdr.msg_name = &b->names[i];
			b->msgs[i].msg_hdr.msg_control = b->cmsg[i];
		}
	}
	b->n -= done;
	return b->n ? -EAGAIN : 0;
}

int wg_underlay_flush(struct wg_underlay *u)
{
	int r4 = u->batch4.n ? flush_batch(u, &u->batch4, u->fd4) : 0;
	int r6 = u->batch6.n ? flush_batch(u, &u->batch6, u->fd6) : 0;

	return r4 ? r4 : r6;
}

int wg_underlay_queue(struct wg_underlay *u, const struct wg_endpoint *ep, struct wg_pkt *pkt)
{
	bool v6 = ep->remote.addr.sa_family == AF_INET6;
	struct wg_underlay_batch *b = v6 ? &u->batch6 : &u->batch4;
	int fd = v6 ? u->fd6 : u->fd4;
	struct wg_endpoint tmp;
	struct msghdr *mh;
	unsigned int i;

	if (fd < 0) {
		u->stats.send_errors++;
		wg_device_pkt_put(u->dev, pkt);
		return 0;
	}
	if (b->n == WG_UNDERLAY_BATCH && flush_batch(u, b, fd))
		return -EAGAIN;
	i = b->n++;
	b->pkts[i] = pkt;
	b->names[i] = ep->remote;
	b->iov[i].iov_base = wg_pkt_msg(pkt);
	b->iov[i].iov_len = pkt->msg_len;
	mh = &b->msgs[i].msg_hdr;
	memset(mh, 0, sizeof(*mh));
	mh->msg_name = &b->names[i];
	mh->msg_namelen = name_len(&ep->remote);
	mh->msg_iov = &b->iov[i];
	mh->msg_iovlen = 1;
	mh->msg_control = b->cmsg[i];
	mh->msg_controllen = put_cmsgs(b->cmsg[i], usable(u, ep, &tmp), cake_ecn_encap(pkt->cp.ecn));
	return 0;
}

void wg_underlay_send_now(struct wg_underlay *u, const struct wg_endpoint *ep, const uint8_t *msg,
			  size_t len)
{
	bool v6 = ep->remote.addr.sa_family == AF_INET6;
	int fd = v6 ? u->fd6 : u->fd4;
	uint8_t cmsg[WG_UNDERLAY_CMSG_BYTES];
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	union wg_ipaddr_sockaddr name = ep->remote;
	struct msghdr mh = {
		.msg_name = &name,
		.msg_namelen = name_len(&ep->remote),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cmsg,
	};
	uint8_t tos = msg[0] == MESSAGE_DATA ? 0 : HANDSHAKE_TOS;

	struct wg_endpoint tmp;

	if (fd < 0 || !wg_endpoint_is_set(ep))
		return;
	ep = usable(u, ep, &tmp);
	mh.msg_controllen = put_cmsgs(cmsg, ep, tos);
	if (sendmsg(fd, &mh, MSG_DONTWAIT) < 0 && stale_source_errno(errno) && ep->has_src) {
		/* The sticky source is gone (address removed): let the kernel choose. */
		struct wg_endpoint plain = *ep;

		plain.has_src = false;
		u->stats.sticky_resets++;
		mh.msg_controllen = put_cmsgs(cmsg, &plain, tos);
		(void)sendmsg(fd, &mh, MSG_DONTWAIT);
	}
}

int wg_underlay_blocked_fd(const struct wg_underlay *u)
{
	return u->blocked_fd >= 0 ? u->blocked_fd : u->fd4;
}
