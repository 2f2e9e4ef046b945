/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Link events: a nonblocking rtnetlink socket subscribed to RTMGRP_LINK, and on request
 * to the IPv4 and IPv6 address and route groups too. The loop watches its fd and calls
 * wg_netlink_events_read() when it is readable; the parsers are separate and pure so that
 * they can be fed any bytes.
 */
#include "src/edge/netlink.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "src/edge/netlink_priv.h"

enum {
	/* Datagrams read per call: the fd stays readable, so the loop comes back for more. */
	EVENTS_DATAGRAMS_PER_READ = 64,
	/* Room for bursts of link changes before the kernel drops events (ENOBUFS). */
	EVENTS_RCVBUF_BYTES = 1 << 20,
};

struct wg_nl_events {
	struct mnl_socket *sk;
	void (*net_cb)(void *ctx, const struct wg_nl_net_event *e); /* NULL: links only */
	void *net_ctx;
	union {
		struct nlmsghdr hdr; /* alignment */
		uint8_t buf[WG_NL_RX_BYTES];
	} rx;
};

int wg_netlink_events_open(struct wg_nl_events **out)
{
	struct wg_nl_events *ev = calloc(1, sizeof(*ev));
	int ret;

	if (!ev)
		return -ENOMEM;
	ev->sk = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!ev->sk) {
		ret = -errno;
		free(ev);
		return ret;
	}
	/* Best effort: past rmem_max as root, else whatever the kernel allows. */
	if (setsockopt(mnl_socket_get_fd(ev->sk), SOL_SOCKET, SO_RCVBUFFORCE,
		       &(int){EVENTS_RCVBUF_BYTES}, sizeof(int)) < 0)
		(void)setsockopt(mnl_socket_get_fd(ev->sk), SOL_SOCKET, SO_RCVBUF,
				 &(int){EVENTS_RCVBUF_BYTES}, sizeof(int));
	if (mnl_socket_bind(ev->sk, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		wg_netlink_events_close(ev);
		return ret;
	}
	*out = ev;
	return 0;
}

void wg_netlink_events_close(struct wg_nl_events *ev)
{
	if (!ev)
		return;
	if (ev->sk)
		mnl_socket_close(ev->sk);
	free(ev);
}

int wg_netlink_events_fd(const struct wg_nl_events *ev)
{
	return mnl_socket_get_fd(ev->sk);
}

enum { WG_NL_EVENT_COPY_BYTES = 4096 }; /* a link message is far smaller */

static int parse_link(const struct nlmsghdr *nlh, struct wg_nl_link_event *e)
{
	const struct nlattr *tb[IFLA_MAX + 1];
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (wg_netlink_parse(nlh, sizeof(*ifi), tb, IFLA_MAX) < 0 || ifi->ifi_index <= 0)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->kind = nlh->nlmsg_type == RTM_DELLINK ? WG_NL_LINK_DELETED : WG_NL_LINK_CHANGED;
	e->ifindex = (uint32_t)ifi->ifi_index;
	e->flags = ifi->ifi_flags;
	if (!wg_netlink_attr_u32(tb[IFLA_MTU], &e->mtu))
		e->mtu = 0;
	if (!wg_netlink_attr_str(tb[IFLA_IFNAME], e->name, sizeof(e->name)))
		e->name[0] = '\0';
	return 0;
}

/* An address or route message; 1 when it is one to skip (a cloned route). */
static int parse_net(const struct nlmsghdr *nlh, void *out)
{
	struct wg_nl_net_event *e = out;

	memset(e, 0, sizeof(*e));
	e->type = nlh->nlmsg_type;
	if (nlh->nlmsg_type == RTM_NEWADDR || nlh->nlmsg_type == RTM_DELADDR) {
		const struct nlattr *tb[IFA_MAX + 1];
		const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);

		if (wg_netlink_parse(nlh, sizeof(*ifa), tb, IFA_MAX) < 0)
			return -EINVAL;
		e->family = ifa->ifa_family;
		e->ifindex = ifa->ifa_index;
	} else {
		const struct nlattr *tb[RTA_MAX + 1];
		const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);

		if (wg_netlink_parse(nlh, sizeof(*rtm), tb, RTA_MAX) < 0)
			return -EINVAL;
		if (rtm->rtm_flags & RTM_F_CLONED)
			return 1; /* a cache entry (a PMTU exception), not a route */
		e->family = rtm->rtm_family;
		if (!wg_netlink_attr_u32(tb[RTA_OIF], &e->ifindex))
			e->ifindex = 0;
	}
	return 0;
}

static int parse_link_event(const struct nlmsghdr *nlh, void *out)
{
	return parse_link(nlh, out);
}

/*
 * libmnl bounds its attribute walk by the message's aligned length. The kernel may end a
 * datagram with an unaligned message, and a caller's buffer may end right there: then
 * the message is parsed from a zero-padded copy, so nothing is read past the buffer.
 */
static int parse_whole(const struct nlmsghdr *nlh, size_t rest,
		       int (*parse)(const struct nlmsghdr *nlh, void *out), void *e)
{
	union {
		struct nlmsghdr hdr;
		uint8_t bytes[WG_NL_EVENT_COPY_BYTES];
	} copy;

	if (NLMSG_ALIGN((size_t)nlh->nlmsg_len) <= rest)
		return parse(nlh, e);
	if (nlh->nlmsg_len > sizeof(copy))
		return -EINVAL;
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, nlh, nlh->nlmsg_len);
	return parse(&copy.hdr, e);
}

typedef void (*link_cb)(void *ctx, const struct wg_nl_link_event *e);
typedef void (*net_cb)(void *ctx, const struct wg_nl_net_event *e);

/* One kind of event: which messages, their parser (0, 1 to skip, or < 0), and where an
 * event goes. */
struct event_kind {
	bool (*wanted)(uint16_t type);
	int (*parse)(const struct nlmsghdr *nlh, void *out);
	void (*deliver)(const struct event_kind *k, const void *event);
	union {
		link_cb link;
		net_cb net;
	} cb;
	void *ctx;
};

/* Walks the messages of buf, delivering each event of kind k. */
static int walk(const void *buf, size_t len, const struct event_kind *k, void *event)
{
	const struct nlmsghdr *nlh = buf;
	size_t rest = len;
	int n = 0;

	if (len > WG_NL_RX_BYTES || ((uintptr_t)buf & (NLMSG_ALIGNTO - 1)))
		return -EINVAL;
	for (; wg_netlink_msg_ok(nlh, rest); nlh = wg_netlink_msg_next(nlh, &rest)) {
		int ret;

		if (!k->wanted(nlh->nlmsg_type))
			continue;
		ret = parse_whole(nlh, rest, k->parse, event);
		if (ret < 0)
			return -EINVAL;
		if (ret)
			continue;
		k->deliver(k, event);
		n++;
	}
	if (rest > 0)
		return -EINVAL; /* a truncated message or trailing garbage */
	return n;
}

static bool is_link(uint16_t type)
{
	return type == RTM_NEWLINK || type == RTM_DELLINK;
}

static void deliver_link(const struct event_kind *k, const void *event)
{
	k->cb.link(k->ctx, event);
}

int wg_netlink_events_parse(const void *buf, size_t len,
			    void (*cb)(void *ctx, const struct wg_nl_link_event *e), void *ctx)
{
	const struct event_kind k = {is_link, parse_link_event, deliver_link, {.link = cb}, ctx};
	struct wg_nl_link_event e;

	return walk(buf, len, &k, &e);
}

static bool is_net(uint16_t type)
{
	return type == RTM_NEWADDR || type == RTM_DELADDR || type == RTM_NEWROUTE ||
	       type == RTM_DELROUTE;
}

static void deliver_net(const struct event_kind *k, const void *event)
{
	k->cb.net(k->ctx, event);
}

int wg_netlink_net_events_parse(const void *buf, size_t len,
				void (*cb)(void *ctx, const struct wg_nl_net_event *e), void *ctx)
{
	const struct event_kind k = {is_net, parse_net, deliver_net, {.net = cb}, ctx};
	struct wg_nl_net_event e;

	return walk(buf, len, &k, &e);
}

int wg_netlink_events_watch_net(struct wg_nl_events *ev,
				void (*cb)(void *ctx, const struct wg_nl_net_event *e), void *ctx)
{
	static const unsigned int groups[] = {RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR,
					      RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE};

	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		int g = (int)groups[i];

		if (mnl_socket_setsockopt(ev->sk, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) < 0)
			return -errno;
	}
	ev->net_cb = cb;
	ev->net_ctx = ctx;
	return 0;
}

/* One datagram from the kernel; 0 when the socket is empty. */
static ssize_t recv_kernel(int fd, void *buf, size_t cap)
{
	struct sockaddr_nl sa;
	struct iovec iov = {.iov_base = buf, .iov_len = cap};
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1};

	for (;;) {
		ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		if (msg.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		if (msg.msg_namelen != sizeof(sa) || sa.nl_pid != 0)
			return -ESRCH; /* not from the kernel: ignored */
		return n;
	}
}

int wg_netlink_events_read(struct wg_nl_events *ev,
			   void (*cb)(void *ctx, const struct wg_nl_link_event *e), void *ctx)
{
	int fd = mnl_socket_get_fd(ev->sk), total = 0, ret = 0, i;

	for (i = 0; i < EVENTS_DATAGRAMS_PER_READ; i++) {
		ssize_t n = recv_kernel(fd, ev->rx.buf, sizeof(ev->rx.buf));
		int got;

		if (n == 0)
			break;
		if (n == -ESRCH)
			continue;
		if (n == -ENOBUFS || n == -EMSGSIZE) {
			ret = -ENOBUFS; /* events were lost: keep draining, the caller resyncs */
			continue;
		}
		if (n < 0)
			return (int)n;
		got = wg_netlink_events_parse(ev->rx.buf, (size_t)n, cb, ctx);
		if (got >= 0 && ev->net_cb) {
			int net = wg_netlink_net_events_parse(ev->rx.buf, (size_t)n, ev->net_cb,
							      ev->net_ctx);

			got = net < 0 ? net : got + net;
		}
		if (got > 0)
			total += got;
		else if (got < 0 && !ret)
			ret = got;
	}
	return ret ? ret : total;
}
