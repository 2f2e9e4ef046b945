/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtnetlink dumps: the namespace's addresses, routes and rules as a sorted snapshot
 * (what `down` and the tests compare against "before"), table-use queries built on it,
 * and the link-event socket with its parser.
 *
 * Snapshot entries are zero-filled before their fields are set, so that two snapshots of
 * the same state compare equal byte for byte after sorting.
 */
#include "src/edge/netlink.h"

#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "src/edge/netlink_priv.h"

enum {
	/* A dump interrupted by a concurrent change (NLM_F_DUMP_INTR) is retried this often. */
	DUMP_ATTEMPTS = 4,
	/* IFA_F_* bits the kernel flips by itself (DAD, lifetimes): not part of the state. */
	ADDR_VOLATILE_FLAGS =
		IFA_F_TENTATIVE | IFA_F_OPTIMISTIC | IFA_F_DADFAILED | IFA_F_DEPRECATED,
};

struct vec {
	void *items;
	size_t n, cap, size;
};

/* Appends a zeroed item; NULL when out of memory. */
static void *vec_push(struct vec *v)
{
	uint8_t *item;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *items = realloc(v->items, cap * v->size);

		if (!items)
			return NULL;
		v->items = items;
		v->cap = cap;
	}
	item = (uint8_t *)v->items + v->n++ * v->size;
	memset(item, 0, v->size);
	return item;
}

/* Runs one AF_UNSPEC dump of `type` whose request header is hdr_len zero bytes. */
static int dump(struct wg_nl *nl, uint16_t type, size_t hdr_len, wg_nl_msg_fn fn, struct vec *v)
{
	int attempt, ret = -EINTR;

	for (attempt = 0; attempt < DUMP_ATTEMPTS && ret == -EINTR; attempt++) {
		union wg_nl_req req;
		struct nlmsghdr *nlh = wg_netlink_put_req(&req, type, NLM_F_DUMP);

		mnl_nlmsg_put_extra_header(nlh, hdr_len); /* zeroed: family AF_UNSPEC */
		v->n = 0;
		ret = wg_netlink_talk(nl, nlh, fn, v);
	}
	return ret;
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[IFA_MAX + 1];
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct wg_nl_addr_entry *e;
	uint32_t flags;

	if (nlh->nlmsg_type != RTM_NEWADDR)
		return 0;
	if (wg_netlink_parse(nlh, sizeof(*ifa), tb, IFA_MAX) < 0)
		return -EBADMSG;
	if (!wg_netlink_addr_len(ifa->ifa_family))
		return 0;
	e = vec_push(data);
	if (!e)
		return -ENOMEM;
	e->ifindex = ifa->ifa_index;
	e->p.family = ifa->ifa_family;
	e->p.len = ifa->ifa_prefixlen;
	e->scope = ifa->ifa_scope;
	if (!wg_netlink_attr_u32(tb[IFA_FLAGS], &flags))
		flags = ifa->ifa_flags;
	e->flags = flags & ~(uint32_t)ADDR_VOLATILE_FLAGS;
	if (!wg_netlink_attr_addr(tb[IFA_LOCAL], ifa->ifa_family, e->p.addr.bytes) &&
	    !wg_netlink_attr_addr(tb[IFA_ADDRESS], ifa->ifa_family, e->p.addr.bytes))
		return -EBADMSG;
	return 0;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RTA_MAX + 1];
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct wg_nl_route_entry *e;
	uint8_t fam;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return 0;
	if (wg_netlink_parse(nlh, sizeof(*rtm), tb, RTA_MAX) < 0)
		return -EBADMSG;
	fam = rtm->rtm_family;
	if (!wg_netlink_addr_len(fam) || (rtm->rtm_flags & RTM_F_CLONED))
		return 0;
	e = vec_push(data);
	if (!e)
		return -ENOMEM;
	e->family = fam;
	e->dst_len = rtm->rtm_dst_len;
	e->protocol = rtm->rtm_protocol;
	e->scope = rtm->rtm_scope;
	e->type = rtm->rtm_type;
	if (!wg_netlink_attr_u32(tb[RTA_TABLE], &e->table))
		e->table = rtm->rtm_table;
	wg_netlink_attr_u32(tb[RTA_OIF], &e->oif);
	wg_netlink_attr_u32(tb[RTA_PRIORITY], &e->priority);
	wg_netlink_attr_addr(tb[RTA_DST], fam, e->dst);
	wg_netlink_attr_addr(tb[RTA_GATEWAY], fam, e->gateway);
	wg_netlink_attr_addr(tb[RTA_PREFSRC], fam, e->prefsrc);
	wg_netlink_metrics_mtu(tb[RTA_METRICS], &e->mtu);
	return 0;
}

static void rule_optional(struct wg_nl_rule_entry *e, const struct nlattr **tb)
{
	uint32_t v;

	wg_netlink_attr_u32(tb[FRA_PRIORITY], &e->priority);
	wg_netlink_attr_u32(tb[FRA_FWMARK], &e->fwmark);
	wg_netlink_attr_u32(tb[FRA_FWMASK], &e->fwmask);
	e->suppress_prefixlen = -1;
	if (wg_netlink_attr_u32(tb[FRA_SUPPRESS_PREFIXLEN], &v))
		e->suppress_prefixlen = (int32_t)v;
	wg_netlink_attr_addr(tb[FRA_SRC], e->family, e->src);
	wg_netlink_attr_addr(tb[FRA_DST], e->family, e->dst);
	if (!wg_netlink_attr_str(tb[FRA_IIFNAME], e->iifname, sizeof(e->iifname)))
		e->iifname[0] = '\0';
	if (!wg_netlink_attr_str(tb[FRA_OIFNAME], e->oifname, sizeof(e->oifname)))
		e->oifname[0] = '\0';
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[FRA_MAX + 1];
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	struct wg_nl_rule_entry *e;

	if (nlh->nlmsg_type != RTM_NEWRULE)
		return 0;
	if (wg_netlink_parse(nlh, sizeof(*frh), tb, FRA_MAX) < 0)
		return -EBADMSG;
	if (!wg_netlink_addr_len(frh->family))
		return 0;
	e = vec_push(data);
	if (!e)
		return -ENOMEM;
	e->family = frh->family;
	e->action = frh->action;
	e->src_len = frh->src_len;
	e->dst_len = frh->dst_len;
	e->invert = !!(frh->flags & FIB_RULE_INVERT);
	if (!wg_netlink_attr_u32(tb[FRA_TABLE], &e->table))
		e->table = frh->table;
	rule_optional(e, tb);
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct wg_nl_addr_entry));
}

static int cmp_route(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct wg_nl_route_entry));
}

static int cmp_rule(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct wg_nl_rule_entry));
}

static int snapshot_routes_rules(struct wg_nl *nl, struct wg_nl_snapshot *s)
{
	struct vec routes = {.size = sizeof(struct wg_nl_route_entry)};
	struct vec rules = {.size = sizeof(struct wg_nl_rule_entry)};
	int ret;

	ret = dump(nl, RTM_GETROUTE, sizeof(struct rtmsg), route_cb, &routes);
	if (!ret)
		ret = dump(nl, RTM_GETRULE, sizeof(struct fib_rule_hdr), rule_cb, &rules);
	s->routes = routes.items;
	s->n_routes = routes.n;
	s->rules = rules.items;
	s->n_rules = rules.n;
	return ret;
}

int wg_netlink_snapshot(struct wg_nl *nl, struct wg_nl_snapshot *out)
{
	struct vec addrs = {.size = sizeof(struct wg_nl_addr_entry)};
	int ret;

	memset(out, 0, sizeof(*out));
	ret = dump(nl, RTM_GETADDR, sizeof(struct ifaddrmsg), addr_cb, &addrs);
	out->addrs = addrs.items;
	out->n_addrs = addrs.n;
	if (!ret)
		ret = snapshot_routes_rules(nl, out);
	if (ret) {
		wg_netlink_snapshot_free(out);
		return ret;
	}
	if (out->n_addrs)
		qsort(out->addrs, out->n_addrs, sizeof(*out->addrs), cmp_addr);
	if (out->n_routes)
		qsort(out->routes, out->n_routes, sizeof(*out->routes), cmp_route);
	if (out->n_rules)
		qsort(out->rules, out->n_rules, sizeof(*out->rules), cmp_rule);
	return 0;
}

int wg_netlink_addr_dump(struct wg_nl *nl, uint32_t ifindex, struct wg_nl_addr_entry **out,
			 size_t *n)
{
	struct vec addrs = {.size = sizeof(struct wg_nl_addr_entry)};
	struct wg_nl_addr_entry *e;
	int ret = dump(nl, RTM_GETADDR, sizeof(struct ifaddrmsg), addr_cb, &addrs);

	*out = NULL;
	*n = 0;
	if (ret) {
		free(addrs.items);
		return ret;
	}
	e = addrs.items;
	for (size_t i = 0; i < addrs.n; i++)
		if (e[i].ifindex == ifindex)
			e[(*n)++] = e[i];
	*out = e;
	return 0;
}

void wg_netlink_snapshot_free(struct wg_nl_snapshot *s)
{
	if (!s)
		return;
	free(s->addrs);
	free(s->routes);
	free(s->rules);
	memset(s, 0, sizeof(*s));
}

static bool same_items(const void *a, const void *b, size_t n, size_t size)
{
	return n == 0 || memcmp(a, b, n * size) == 0;
}

bool wg_netlink_snapshot_equal(const struct wg_nl_snapshot *a, const struct wg_nl_snapshot *b)
{
	return a->n_addrs == b->n_addrs && a->n_routes == b->n_routes && a->n_rules == b->n_rules &&
	       same_items(a->addrs, b->addrs, a->n_addrs, sizeof(*a->addrs)) &&
	       same_items(a->routes, b->routes, a->n_routes, sizeof(*a->routes)) &&
	       same_items(a->rules, b->rules, a->n_rules, sizeof(*a->rules));
}

static bool same_prefix(const struct wg_nl_prefix *p, uint8_t family, uint8_t len,
			const uint8_t *bytes)
{
	return p->family == family && p->len == len &&
	       memcmp(p->addr.bytes, bytes, wg_netlink_addr_len(family)) == 0;
}

bool wg_netlink_snapshot_has_addr(const struct wg_nl_snapshot *s, uint32_t ifindex,
				  const struct wg_nl_prefix *p)
{
	size_t i;

	for (i = 0; i < s->n_addrs; i++) {
		const struct wg_nl_addr_entry *e = &s->addrs[i];

		if (e->ifindex == ifindex && same_prefix(p, e->p.family, e->p.len, e->p.addr.bytes))
			return true;
	}
	return false;
}

bool wg_netlink_snapshot_has_route(const struct wg_nl_snapshot *s, const struct wg_nl_route_spec *r)
{
	uint32_t table = r->table ? r->table : WG_NL_TABLE_MAIN;
	size_t i;

	for (i = 0; i < s->n_routes; i++) {
		const struct wg_nl_route_entry *e = &s->routes[i];

		if (e->table == table && same_prefix(&r->dst, e->family, e->dst_len, e->dst) &&
		    (!r->ifindex || e->oif == r->ifindex) &&
		    (!r->metric || e->priority == r->metric) && (!r->mtu || e->mtu == r->mtu) &&
		    (!r->protocol || e->protocol == r->protocol))
			return true;
	}
	return false;
}

/* Absent fields of the spec match anything; `invert` is compared along with the fwmark. */
static bool rule_matches(const struct wg_nl_rule_entry *e, const struct wg_nl_rule_spec *r)
{
	return e->family == r->family && (!r->table || e->table == r->table) &&
	       (!r->has_fwmark || (e->fwmark == r->fwmark && e->invert == r->invert)) &&
	       (!r->has_priority || e->priority == r->priority) &&
	       (r->suppress_prefixlen < 0 || e->suppress_prefixlen == r->suppress_prefixlen);
}

size_t wg_netlink_snapshot_count_rules(const struct wg_nl_snapshot *s,
				       const struct wg_nl_rule_spec *r)
{
	size_t i, n = 0;

	for (i = 0; i < s->n_rules; i++)
		n += rule_matches(&s->rules[i], r);
	return n;
}

static bool table_used(const struct wg_nl_snapshot *s, uint32_t table)
{
	size_t i;

	for (i = 0; i < s->n_routes; i++)
		if (s->routes[i].table == table)
			return true;
	for (i = 0; i < s->n_rules; i++)
		if (s->rules[i].table == table && s->rules[i].action == FR_ACT_TO_TBL)
			return true;
	return false;
}

int wg_netlink_table_in_use(struct wg_nl *nl, uint32_t table, bool *in_use)
{
	struct wg_nl_snapshot s = {0};
	int ret = snapshot_routes_rules(nl, &s);

	if (!ret)
		*in_use = table_used(&s, table);
	wg_netlink_snapshot_free(&s);
	return ret;
}

int wg_netlink_table_pick(struct wg_nl *nl, uint32_t first, uint32_t *table)
{
	struct wg_nl_snapshot s = {0};
	int ret = snapshot_routes_rules(nl, &s);
	uint32_t t;

	if (!ret) {
		ret = -ENOSPC;
		for (t = first; t != 0 && t != UINT32_MAX; t++) {
			if (!table_used(&s, t)) {
				*table = t;
				ret = 0;
				break;
			}
		}
	}
	wg_netlink_snapshot_free(&s);
	return ret;
}
