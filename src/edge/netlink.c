/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtnetlink requests: links, addresses, routes, rules and route lookups.
 *
 * Shape of every request (the libmnl examples' shape): build the whole message in a
 * stack buffer, then wg_netlink_talk() sends it with NLM_F_ACK and reads the answer
 * until the kernel's ACK, error or NLMSG_DONE. Answers are matched by sequence number;
 * anything left over from an earlier, aborted conversation is skipped.
 */
#include "src/edge/netlink.h"

#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "src/edge/netlink_priv.h"

struct wg_nl {
	struct mnl_socket *sk;
	uint32_t portid;
	uint32_t seq;
	union {
		struct nlmsghdr hdr; /* alignment */
		uint8_t buf[WG_NL_RX_BYTES];
	} rx;
};

size_t wg_netlink_addr_len(uint8_t family)
{
	if (family == AF_INET)
		return sizeof(struct in_addr);
	if (family == AF_INET6)
		return sizeof(struct in6_addr);
	return 0;
}

static bool prefix_ok(const struct wg_nl_prefix *p)
{
	size_t alen = wg_netlink_addr_len(p->family);

	return alen && p->len <= alen * 8;
}

int wg_netlink_open(struct wg_nl **out)
{
	struct wg_nl *nl = calloc(1, sizeof(*nl));
	int one = 1, ret;

	if (!nl)
		return -ENOMEM;
	nl->sk = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl->sk) {
		ret = -errno;
		free(nl);
		return ret;
	}
	/* Acks need not echo our request back. Optional: older kernels lack it. */
	(void)mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		wg_netlink_close(nl);
		return ret;
	}
	nl->portid = mnl_socket_get_portid(nl->sk);
	*out = nl;
	return 0;
}

void wg_netlink_close(struct wg_nl *nl)
{
	if (!nl)
		return;
	if (nl->sk)
		mnl_socket_close(nl->sk);
	free(nl);
}

struct nlmsghdr *wg_netlink_put_req(union wg_nl_req *req, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req->buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

struct talk {
	wg_nl_msg_fn fn;
	void *data;
	int err;
};

static int talk_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (!t->err && t->fn)
		t->err = t->fn(nlh, t->data);
	return MNL_CB_OK;
}

/* Runs the messages of one datagram. 1: read more; 0 or -errno: the answer is complete. */
static int run_datagram(struct wg_nl *nl, size_t n, struct talk *t)
{
	const struct nlmsghdr *nlh = &nl->rx.hdr;
	size_t rest = n;

	for (; wg_netlink_msg_ok(nlh, rest); nlh = wg_netlink_msg_next(nlh, &rest)) {
		int ret;

		if (nlh->nlmsg_seq != nl->seq)
			continue; /* the tail of an earlier, aborted conversation */
		ret = mnl_cb_run(nlh, nlh->nlmsg_len, nl->seq, nl->portid, talk_data_cb, t);
		if (ret == MNL_CB_ERROR)
			return errno ? -errno : -EPROTO;
		if (ret == MNL_CB_STOP)
			return t->err;
	}
	return 1;
}

int wg_netlink_talk(struct wg_nl *nl, struct nlmsghdr *nlh, wg_nl_msg_fn fn, void *data)
{
	struct talk t = {.fn = fn, .data = data};

	if (++nl->seq == 0)
		nl->seq = 1; /* seq 0 would disable libmnl's sequence check */
	nlh->nlmsg_seq = nl->seq;
	/* NLM_F_DUMP shares bits with NLM_F_EXCL: only RTM_GET* requests are dumps. */
	if ((nlh->nlmsg_type & 3) != 2 || (nlh->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP)
		nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl->sk, nl->rx.buf, sizeof(nl->rx.buf));
		int ret;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		ret = run_datagram(nl, (size_t)n, &t);
		if (ret <= 0)
			return ret;
	}
}

struct tb_ctx {
	const struct nlattr **tb;
	uint16_t max;
};

static int tb_cb(const struct nlattr *a, void *data)
{
	struct tb_ctx *c = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type <= c->max)
		c->tb[type] = a;
	return MNL_CB_OK; /* unknown attributes are skipped */
}

int wg_netlink_parse(const struct nlmsghdr *nlh, size_t hdr_len, const struct nlattr **tb,
		     uint16_t max)
{
	struct tb_ctx c = {.tb = tb, .max = max};

	memset(tb, 0, (max + 1U) * sizeof(*tb));
	if (mnl_nlmsg_get_payload_len(nlh) < hdr_len)
		return -EINVAL;
	if (mnl_attr_parse(nlh, (unsigned int)hdr_len, tb_cb, &c) < 0)
		return -EINVAL;
	return 0;
}

bool wg_netlink_attr_u32(const struct nlattr *a, uint32_t *out)
{
	if (!a || mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return false;
	*out = mnl_attr_get_u32(a);
	return true;
}

bool wg_netlink_attr_u8(const struct nlattr *a, uint8_t *out)
{
	if (!a || mnl_attr_validate(a, MNL_TYPE_U8) < 0)
		return false;
	*out = mnl_attr_get_u8(a);
	return true;
}

bool wg_netlink_attr_str(const struct nlattr *a, char *out, size_t cap)
{
	size_t len;

	if (!a || mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return false;
	len = strnlen(mnl_attr_get_str(a), mnl_attr_get_payload_len(a));
	if (len >= cap)
		return false;
	memcpy(out, mnl_attr_get_str(a), len);
	out[len] = '\0';
	return true;
}

bool wg_netlink_attr_addr(const struct nlattr *a, uint8_t family, uint8_t out[WG_NL_ADDR_MAX_BYTES])
{
	size_t alen = wg_netlink_addr_len(family);

	if (!a || !alen || mnl_attr_validate2(a, MNL_TYPE_BINARY, alen) < 0)
		return false;
	memset(out, 0, WG_NL_ADDR_MAX_BYTES);
	memcpy(out, mnl_attr_get_payload(a), alen);
	return true;
}

/* Links */

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[IFLA_MAX + 1];
	struct wg_nl_link *l = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (wg_netlink_parse(nlh, sizeof(*ifi), tb, IFLA_MAX) < 0)
		return -EBADMSG;
	memset(l, 0, sizeof(*l));
	l->ifindex = (uint32_t)ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	if (!wg_netlink_attr_str(tb[IFLA_IFNAME], l->name, sizeof(l->name)) ||
	    !wg_netlink_attr_u32(tb[IFLA_MTU], &l->mtu))
		return -EBADMSG;
	if (!wg_netlink_attr_u32(tb[IFLA_TXQLEN], &l->txqlen))
		l->txqlen = 0;
	return 0;
}

static int link_get(struct wg_nl *nl, const char *name, uint32_t ifindex, struct wg_nl_link *out)
{
	union wg_nl_req req;
	struct nlmsghdr *nlh = wg_netlink_put_req(&req, RTM_GETLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	int ret;

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	out->ifindex = 0;
	ret = wg_netlink_talk(nl, nlh, link_cb, out);
	if (!ret && !out->ifindex)
		ret = -ENODEV;
	return ret;
}

static bool name_ok(const char *name)
{
	size_t len = name ? strnlen(name, IFNAMSIZ) : 0;

	return len > 0 && len < IFNAMSIZ;
}

int wg_netlink_link_get(struct wg_nl *nl, const char *name, struct wg_nl_link *out)
{
	if (!name_ok(name))
		return -EINVAL;
	return link_get(nl, name, 0, out);
}

int wg_netlink_link_get_index(struct wg_nl *nl, uint32_t ifindex, struct wg_nl_link *out)
{
	if (!ifindex || ifindex > INT32_MAX)
		return -EINVAL;
	return link_get(nl, NULL, ifindex, out);
}

/* RTM_NEWLINK on an existing link: flags to change, and one optional u32 attribute. */
static int link_set(struct wg_nl *nl, uint32_t ifindex, unsigned int change, unsigned int flags,
		    uint16_t attr, uint32_t value)
{
	union wg_nl_req req;
	struct nlmsghdr *nlh = wg_netlink_put_req(&req, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	if (!ifindex || ifindex > INT32_MAX)
		return -EINVAL;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_change = change;
	ifi->ifi_flags = flags;
	if (attr != IFLA_UNSPEC)
		mnl_attr_put_u32(nlh, attr, value);
	return wg_netlink_talk(nl, nlh, NULL, NULL);
}

int wg_netlink_link_set_up(struct wg_nl *nl, uint32_t ifindex, bool up)
{
	return link_set(nl, ifindex, IFF_UP, up ? IFF_UP : 0, IFLA_UNSPEC, 0);
}

int wg_netlink_link_set_mtu(struct wg_nl *nl, uint32_t ifindex, uint32_t mtu)
{
	return link_set(nl, ifindex, 0, 0, IFLA_MTU, mtu);
}

int wg_netlink_link_set_txqlen(struct wg_nl *nl, uint32_t ifindex, uint32_t txqlen)
{
	return link_set(nl, ifindex, 0, 0, IFLA_TXQLEN, txqlen);
}

int wg_netlink_link_delete(struct wg_nl *nl, const char *name)
{
	union wg_nl_req req;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	if (!name_ok(name))
		return -EINVAL;
	nlh = wg_netlink_put_req(&req, RTM_DELLINK, 0);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return wg_netlink_talk(nl, nlh, NULL, NULL);
}

/* Addresses */

static int addr_req(struct wg_nl *nl, uint16_t type, uint16_t flags, uint32_t ifindex,
		    const struct wg_nl_prefix *p, unsigned int addr_flags)
{
	union wg_nl_req req;
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	size_t alen;

	if (!p || !prefix_ok(p) || !ifindex || (addr_flags & ~(unsigned int)WG_NL_ADDR_NODAD))
		return -EINVAL;
	alen = wg_netlink_addr_len(p->family);
	nlh = wg_netlink_put_req(&req, type, flags);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = p->family;
	ifa->ifa_prefixlen = p->len;
	ifa->ifa_index = ifindex;
	if (addr_flags & WG_NL_ADDR_NODAD)
		ifa->ifa_flags |= IFA_F_NODAD;
	/* As ip(8): host scope for 127.0.0.0/8, universe otherwise. */
	if (type == RTM_NEWADDR && p->family == AF_INET && p->addr.bytes[0] == 127)
		ifa->ifa_scope = RT_SCOPE_HOST;
	mnl_attr_put(nlh, IFA_LOCAL, alen, p->addr.bytes);
	mnl_attr_put(nlh, IFA_ADDRESS, alen, p->addr.bytes);
	return wg_netlink_talk(nl, nlh, NULL, NULL);
}

int wg_netlink_addr_add(struct wg_nl *nl, uint32_t ifindex, const struct wg_nl_prefix *p,
			unsigned int flags)
{
	return addr_req(nl, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, ifindex, p, flags);
}

int wg_netlink_addr_del(struct wg_nl *nl, uint32_t ifindex, const struct wg_nl_prefix *p)
{
	return addr_req(nl, RTM_DELADDR, 0, ifindex, p, 0);
}

/* Routes */

/* Tables below 256 travel in the header, larger ones in an attribute, as ip(8) does. */
static uint8_t put_table(struct nlmsghdr *nlh, uint16_t attr, uint32_t table)
{
	if (table < 256)
		return (uint8_t)table;
	mnl_attr_put_u32(nlh, attr, table);
	return RT_TABLE_UNSPEC;
}

static int route_req(struct wg_nl *nl, uint16_t type, uint16_t flags,
		     const struct wg_nl_route_spec *r)
{
	union wg_nl_req req;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	if (!r || !prefix_ok(&r->dst))
		return -EINVAL;
	nlh = wg_netlink_put_req(&req, type, flags);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = r->dst.family;
	rtm->rtm_dst_len = r->dst.len;
	rtm->rtm_table = put_table(nlh, RTA_TABLE, r->table ? r->table : WG_NL_TABLE_MAIN);
	if (type == RTM_NEWROUTE) {
		rtm->rtm_protocol = r->protocol ? r->protocol : RTPROT_BOOT;
		rtm->rtm_type = RTN_UNICAST;
		/* ip(8): a gatewayless IPv4 route is link scope; IPv6 routes are universe. */
		rtm->rtm_scope = r->dst.family == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	} else {
		rtm->rtm_protocol = r->protocol; /* 0 matches any */
		rtm->rtm_scope = RT_SCOPE_NOWHERE;
	}
	if (r->dst.len)
		mnl_attr_put(nlh, RTA_DST, wg_netlink_addr_len(r->dst.family), r->dst.addr.bytes);
	if (r->ifindex)
		mnl_attr_put_u32(nlh, RTA_OIF, r->ifindex);
	if (r->metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, r->metric);
	if (r->mtu && type == RTM_NEWROUTE) {
		struct nlattr *nest = mnl_attr_nest_start(nlh, RTA_METRICS);

		mnl_attr_put_u32(nlh, RTAX_MTU, r->mtu);
		mnl_attr_nest_end(nlh, nest);
	}
	return wg_netlink_talk(nl, nlh, NULL, NULL);
}

int wg_netlink_route_add(struct wg_nl *nl, const struct wg_nl_route_spec *r)
{
	return route_req(nl, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, r);
}

int wg_netlink_route_del(struct wg_nl *nl, const struct wg_nl_route_spec *r)
{
	return route_req(nl, RTM_DELROUTE, 0, r);
}

static int mtu_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == RTAX_MTU && wg_netlink_attr_u32(a, data))
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

bool wg_netlink_metrics_mtu(const struct nlattr *metrics, uint32_t *mtu)
{
	uint32_t found = 0;

	if (!metrics || mnl_attr_validate(metrics, MNL_TYPE_NESTED) < 0)
		return false;
	if (mnl_attr_parse_nested(metrics, mtu_attr_cb, &found) < 0 || !found)
		return false;
	*mtu = found;
	return true;
}

static int route_get_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RTA_MAX + 1];
	struct wg_nl_route_info *info = data;
	uint8_t family;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return 0;
	if (wg_netlink_parse(nlh, sizeof(struct rtmsg), tb, RTA_MAX) < 0)
		return -EBADMSG;
	info->type = ((const struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_type;
	family = ((const struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_family;
	(void)wg_netlink_attr_addr(tb[RTA_PREFSRC], family, info->src);
	(void)wg_netlink_attr_addr(tb[RTA_GATEWAY], family, info->gateway);
	if (!wg_netlink_attr_u32(tb[RTA_OIF], &info->oif))
		return -ENETUNREACH; /* e.g. a blackhole or prohibit route */
	if (wg_netlink_metrics_mtu(tb[RTA_METRICS], &info->mtu))
		info->mtu_from_route = true;
	return 0;
}

int wg_netlink_route_get(struct wg_nl *nl, const struct wg_nl_prefix *dst, uint32_t fwmark,
			 struct wg_nl_route_info *out)
{
	union wg_nl_req req;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	struct wg_nl_link link;
	size_t alen = dst ? wg_netlink_addr_len(dst->family) : 0;
	int ret;

	if (!alen)
		return -EINVAL;
	nlh = wg_netlink_put_req(&req, RTM_GETROUTE, 0);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = dst->family;
	rtm->rtm_dst_len = (uint8_t)(alen * 8);
	mnl_attr_put(nlh, RTA_DST, alen, dst->addr.bytes);
	if (fwmark)
		mnl_attr_put_u32(nlh, RTA_MARK, fwmark);
	memset(out, 0, sizeof(*out));
	ret = wg_netlink_talk(nl, nlh, route_get_cb, out);
	if (ret)
		return ret;
	if (!out->oif)
		return -ENETUNREACH;
	if (out->mtu_from_route)
		return 0;
	ret = wg_netlink_link_get_index(nl, out->oif, &link);
	if (!ret)
		out->mtu = link.mtu;
	return ret;
}

/* Rules */

struct wg_nl_rule_spec wg_netlink_rule_not_fwmark(uint8_t family, uint32_t table)
{
	return (struct wg_nl_rule_spec){
		.family = family,
		.invert = true,
		.has_fwmark = true,
		.fwmark = table,
		.table = table,
		.suppress_prefixlen = -1,
	};
}

struct wg_nl_rule_spec wg_netlink_rule_suppress_main(uint8_t family)
{
	return (struct wg_nl_rule_spec){
		.family = family,
		.table = WG_NL_TABLE_MAIN,
		.suppress_prefixlen = 0,
	};
}

static int rule_req(struct wg_nl *nl, uint16_t type, uint16_t flags,
		    const struct wg_nl_rule_spec *r)
{
	union wg_nl_req req;
	struct nlmsghdr *nlh;
	struct fib_rule_hdr *frh;

	if (!r || !wg_netlink_addr_len(r->family))
		return -EINVAL;
	if (type == RTM_NEWRULE && !r->table)
		return -EINVAL; /* we only make rules that look a table up */
	nlh = wg_netlink_put_req(&req, type, flags);
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = r->family;
	frh->action = type == RTM_NEWRULE ? FR_ACT_TO_TBL : FR_ACT_UNSPEC;
	if (r->invert)
		frh->flags |= FIB_RULE_INVERT;
	if (r->table)
		frh->table = put_table(nlh, FRA_TABLE, r->table);
	if (r->has_fwmark)
		mnl_attr_put_u32(nlh, FRA_FWMARK, r->fwmark);
	if (r->has_priority)
		mnl_attr_put_u32(nlh, FRA_PRIORITY, r->priority);
	if (r->suppress_prefixlen >= 0)
		mnl_attr_put_u32(nlh, FRA_SUPPRESS_PREFIXLEN, (uint32_t)r->suppress_prefixlen);
	return wg_netlink_talk(nl, nlh, NULL, NULL);
}

int wg_netlink_rule_add(struct wg_nl *nl, const struct wg_nl_rule_spec *r)
{
	return rule_req(nl, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL, r);
}

int wg_netlink_rule_del(struct wg_nl *nl, const struct wg_nl_rule_spec *r)
{
	return rule_req(nl, RTM_DELRULE, 0, r);
}
