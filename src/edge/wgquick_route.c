/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wg-quick's add_addr, set_mtu_up, add_route and add_default, and the rule loops of
 * del_if, over rtnetlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/edge/wgquick_priv.h"

enum {
	/* wg-quick's del_if loops while a rule is left; a bound keeps a kernel that
	 * answers success without deleting from spinning us forever. */
	RULE_DELETE_MAX = 1024,
	/* A route's own MTU is at most this; larger means "none found" in wg-quick. */
	MTU_NONE = INT32_MAX,
};

static const char src_valid_mark[] = "/proc/sys/net/ipv4/conf/all/src_valid_mark";

struct wg_nl_prefix wg_quick_nl_prefix(const struct wg_ipaddr_prefix *p)
{
	struct wg_nl_prefix n = {.family = (uint8_t)p->addr.family, .len = p->cidr};

	memcpy(n.addr.bytes, p->addr.bytes, p->addr.family == AF_INET ? 4 : 16);
	return n;
}

static const char *ipv(sa_family_t family)
{
	return family == AF_INET ? "-4" : "-6";
}

static enum wg_quick_family_slot slot(sa_family_t family)
{
	return family == AF_INET ? WG_QUICK_V4 : WG_QUICK_V6;
}

int wg_quick_add_addresses(struct wg_quick *q)
{
	char text[WG_IPADDR_PREFIX_STRLEN];

	for (size_t i = 0; i < q->conf->n_addresses; i++) {
		const struct wg_ipaddr_prefix *a = &q->conf->addresses[i];
		struct wg_nl_prefix p = wg_quick_nl_prefix(a);
		int ret;

		wg_ipaddr_prefix_format(text, a);
		wg_quick_trace(q, "ip %s address add %s dev %s", ipv(a->addr.family), text,
			       q->cfg.ifname);
		ret = wg_netlink_addr_add(q->nl, q->ifindex, &p, 0);
		if (ret)
			return wg_quick_fail(q, ret, "cannot add address %s to `%s': %s", text,
					     q->cfg.ifname, strerror(-ret));
	}
	return 0;
}

uint32_t wg_quick_auto_mtu(uint32_t smallest_underlay_mtu)
{
	uint32_t mtu = smallest_underlay_mtu;

	if (!mtu || mtu >= MTU_NONE)
		mtu = WG_QUICK_MTU_FALLBACK_BYTES;
	return mtu > WG_QUICK_MTU_OVERHEAD_BYTES ? mtu - WG_QUICK_MTU_OVERHEAD_BYTES : 0;
}

/* `ip route show default`: the IPv4 default route of the main table with the lowest
 * metric, and its MTU or its device's. 0 when there is none. */
static uint32_t default_route_mtu(struct wg_quick *q)
{
	const struct wg_nl_route_entry *best = NULL;
	struct wg_nl_snapshot s = {0};
	struct wg_nl_link link;
	uint32_t mtu = 0;

	if (wg_netlink_snapshot(q->nl, &s))
		return 0;
	for (size_t i = 0; i < s.n_routes; i++) {
		const struct wg_nl_route_entry *r = &s.routes[i];

		if (r->family == AF_INET && r->table == WG_NL_TABLE_MAIN && r->dst_len == 0 &&
		    (!best || r->priority < best->priority))
			best = r;
	}
	if (best && best->mtu)
		mtu = best->mtu;
	else if (best && best->oif && !wg_netlink_link_get_index(q->nl, best->oif, &link))
		mtu = link.mtu;
	wg_netlink_snapshot_free(&s);
	return mtu;
}

/* set_mtu_up: the smallest MTU of the routes to the peers' endpoints. */
static uint32_t endpoints_mtu(struct wg_quick *q)
{
	uint32_t best = 0;

	for (size_t i = 0; i < q->live->n_peers; i++) {
		const struct wg_devconf_peer *peer = q->live->peers[i];
		const union wg_ipaddr_sockaddr *ep = &peer->endpoint;
		struct wg_nl_route_info info;
		struct wg_nl_prefix dst = {.family = (uint8_t)ep->addr.sa_family};

		if (!(peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) || !wg_ipaddr_endpoint_is_set(ep))
			continue;
		if (dst.family == AF_INET) {
			memcpy(dst.addr.bytes, &ep->addr4.sin_addr, 4);
		} else {
			if (ep->addr6.sin6_scope_id)
				continue; /* wg-quick's endpoint pattern skips "%zone" */
			memcpy(dst.addr.bytes, &ep->addr6.sin6_addr, 16);
		}
		if (!wg_netlink_route_get(q->nl, &dst, 0, &info) && info.mtu &&
		    (!best || info.mtu < best))
			best = info.mtu;
	}
	return best;
}

int wg_quick_set_mtu_up(struct wg_quick *q)
{
	uint32_t mtu = q->conf->mtu;
	int ret;

	if (!mtu) {
		uint32_t underlay = endpoints_mtu(q);

		mtu = wg_quick_auto_mtu(underlay ? underlay : default_route_mtu(q));
	}
	wg_quick_trace(q, "ip link set mtu %u up dev %s", mtu, q->cfg.ifname);
	ret = wg_netlink_link_set_mtu(q->nl, q->ifindex, mtu);
	if (ret)
		return wg_quick_fail(q, ret, "cannot set the MTU of `%s' to %u: %s", q->cfg.ifname,
				     mtu, strerror(-ret));
	ret = wg_netlink_link_set_up(q->nl, q->ifindex, true);
	if (ret)
		return wg_quick_fail(q, ret, "cannot bring `%s' up: %s", q->cfg.ifname,
				     strerror(-ret));
	return 0;
}

bool wg_quick_has_default_route(const struct wg_devconf *live)
{
	for (size_t i = 0; i < live->n_peers; i++)
		for (size_t j = 0; j < live->peers[i]->n_allowedips; j++)
			if (live->peers[i]->allowedips[j].prefix.cidr == 0)
				return true;
	return false;
}

struct ordered {
	struct wg_ipaddr_prefix p;
	size_t order;
};

static int longest_first(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;

	if (x->p.cidr != y->p.cidr)
		return x->p.cidr > y->p.cidr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int wg_quick_route_prefixes(const struct wg_devconf *live, struct wg_ipaddr_prefix **out, size_t *n)
{
	struct ordered *v;
	size_t total = 0, k = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < live->n_peers; i++)
		total += live->peers[i]->n_allowedips;
	if (!total)
		return 0;
	v = calloc(total, sizeof(*v));
	*out = calloc(total, sizeof(**out));
	if (!v || !*out) {
		free(v);
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < live->n_peers; i++) {
		const struct wg_devconf_peer *peer = live->peers[i];

		for (size_t j = 0; j < peer->n_allowedips; j++) {
			if (peer->allowedips[j].flags & WG_DEVCONF_AIP_REMOVE_ME)
				continue;
			v[k].p = peer->allowedips[j].prefix;
			wg_ipaddr_prefix_mask(&v[k].p);
			v[k].order = k;
			k++;
		}
	}
	qsort(v, k, sizeof(*v), longest_first);
	for (size_t i = 0; i < k; i++)
		(*out)[i] = v[i].p;
	*n = k;
	free(v);
	return 0;
}

static bool prefix_contains(const uint8_t *net, unsigned int len, const uint8_t *addr)
{
	unsigned int bytes = len / 8, bits = len % 8;

	if (memcmp(net, addr, bytes))
		return false;
	return !bits || !((net[bytes] ^ addr[bytes]) & (uint8_t)(0xff << (8 - bits)));
}

bool wg_quick_main_route_covers(const struct wg_nl_snapshot *s, uint32_t ifindex,
				const struct wg_ipaddr_prefix *p)
{
	for (size_t i = 0; i < s->n_routes; i++) {
		const struct wg_nl_route_entry *r = &s->routes[i];

		if (r->family == p->addr.family && r->table == WG_NL_TABLE_MAIN &&
		    r->oif == ifindex && r->dst_len <= p->cidr &&
		    prefix_contains(r->dst, r->dst_len, p->addr.bytes))
			return true;
	}
	return false;
}

static int add_route(struct wg_quick *q, const struct wg_ipaddr_prefix *p, uint32_t table)
{
	struct wg_nl_route_spec r = {
		.dst = wg_quick_nl_prefix(p), .ifindex = q->ifindex, .table = table};
	char text[WG_IPADDR_PREFIX_STRLEN];
	int ret;

	wg_ipaddr_prefix_format(text, p);
	if (table == WG_NL_TABLE_MAIN)
		wg_quick_trace(q, "ip %s route add %s dev %s", ipv(p->addr.family), text,
			       q->cfg.ifname);
	else
		wg_quick_trace(q, "ip %s route add %s dev %s table %u", ipv(p->addr.family), text,
			       q->cfg.ifname, table);
	ret = wg_netlink_route_add(q->nl, &r);
	if (ret)
		return wg_quick_fail(q, ret, "cannot add a route to %s via `%s': %s", text,
				     q->cfg.ifname, strerror(-ret));
	return 0;
}

static int add_rule(struct wg_quick *q, sa_family_t family, enum wg_quick_rule_kind kind)
{
	struct wg_nl_rule_spec r = kind == WG_QUICK_RULE_NOT_FWMARK
					   ? wg_netlink_rule_not_fwmark((uint8_t)family, q->table)
					   : wg_netlink_rule_suppress_main((uint8_t)family);
	int ret;

	if (kind == WG_QUICK_RULE_NOT_FWMARK)
		wg_quick_trace(q, "ip %s rule add not fwmark %u table %u", ipv(family), q->table,
			       q->table);
	else
		wg_quick_trace(q, "ip %s rule add table main suppress_prefixlength 0", ipv(family));
	ret = wg_netlink_rule_add(q->nl, &r);
	if (ret)
		return wg_quick_fail(q, ret, "cannot add a routing rule: %s", strerror(-ret));
	q->rules[slot(family)][kind]++;
	return 0;
}

/* The first byte of the sysctl; '\0' when unreadable. */
static char read_sysctl(const char *path)
{
	char c = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '\0';
		close(fd);
	}
	return c;
}

static int write_sysctl(const char *path, char value)
{
	char text[2] = {value, '\n'};
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, sizeof(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Replies to the tunnel's own address must be routed by the mark of their request. */
static int set_src_valid_mark(struct wg_quick *q)
{
	int ret;

	if (read_sysctl(src_valid_mark) == '1')
		return 0;
	wg_quick_trace(q, "sysctl -q net.ipv4.conf.all.src_valid_mark=1");
	ret = write_sysctl(src_valid_mark, '1');
	if (ret)
		return wg_quick_fail(q, ret, "cannot set net.ipv4.conf.all.src_valid_mark: %s",
				     strerror(-ret));
	q->set_src_valid_mark = true;
	return 0;
}

/* add_default: the /0 goes into its own table, which everything not marked looks up. */
static int add_default(struct wg_quick *q, const struct wg_ipaddr_prefix *p)
{
	sa_family_t family = p->addr.family;
	int ret;

	if (!q->table && (q->live->flags & WG_DEVCONF_HAS_FWMARK) && q->live->fwmark)
		q->table = q->live->fwmark;
	if (!q->table) {
		uint32_t table;

		ret = wg_netlink_table_pick(q->nl, WG_NL_TABLE_WG_QUICK_FIRST, &table);
		if (ret)
			return wg_quick_fail(q, ret, "cannot find a free routing table: %s",
					     strerror(-ret));
		ret = wg_quick_set_fwmark(q, table);
		if (ret)
			return ret;
		q->table = table;
	}
	ret = add_rule(q, family, WG_QUICK_RULE_NOT_FWMARK);
	ret = ret ?: add_rule(q, family, WG_QUICK_RULE_SUPPRESS_MAIN);
	ret = ret ?: add_route(q, p, q->table);
	if (!ret && family == AF_INET)
		ret = set_src_valid_mark(q);
	if (!ret) /* its nft/iptables part: wg_quick_set_firewall, for all families at once */
		q->fw_families |= 1U << slot(family);
	return ret;
}

int wg_quick_add_routes(struct wg_quick *q)
{
	struct wg_ipaddr_prefix *v = NULL;
	struct wg_nl_snapshot s = {0};
	size_t n = 0;
	int ret;

	if (q->conf->table_mode == WG_DEVCONF_TABLE_OFF)
		return 0;
	ret = wg_quick_route_prefixes(q->live, &v, &n);
	if (!ret && n)
		ret = wg_netlink_snapshot(q->nl, &s);
	if (ret)
		wg_quick_fail(q, ret, "cannot read the routes: %s", strerror(-ret));
	for (size_t i = 0; !ret && i < n; i++) {
		if (q->conf->table_mode == WG_DEVCONF_TABLE_ID)
			ret = add_route(q, &v[i], q->conf->table_id);
		else if (v[i].cidr == 0)
			ret = add_default(q, &v[i]);
		else if (!wg_quick_main_route_covers(&s, q->ifindex, &v[i]))
			ret = add_route(q, &v[i], WG_NL_TABLE_MAIN);
	}
	wg_netlink_snapshot_free(&s);
	free(v);
	return ret;
}

static struct wg_nl_rule_spec rule_spec(enum wg_quick_rule_kind kind, sa_family_t family,
					uint32_t table)
{
	return kind == WG_QUICK_RULE_NOT_FWMARK ? wg_netlink_rule_not_fwmark((uint8_t)family, table)
						: wg_netlink_rule_suppress_main((uint8_t)family);
}

static void undo_rule(struct wg_quick *q, sa_family_t family, enum wg_quick_rule_kind kind)
{
	struct wg_nl_rule_spec r = rule_spec(kind, family, q->table);

	if (kind == WG_QUICK_RULE_NOT_FWMARK)
		wg_quick_trace(q, "ip %s rule delete not fwmark %u table %u", ipv(family), q->table,
			       q->table);
	else
		wg_quick_trace(q, "ip %s rule delete table main suppress_prefixlength 0",
			       ipv(family));
	(void)wg_netlink_rule_del(q->nl, &r);
}

void wg_quick_undo_rules(struct wg_quick *q)
{
	static const sa_family_t families[WG_QUICK_FAMILIES] = {AF_INET, AF_INET6};

	for (int f = 0; f < WG_QUICK_FAMILIES; f++)
		for (int k = 0; k < WG_QUICK_RULE_KINDS; k++)
			for (; q->rules[f][k]; q->rules[f][k]--)
				undo_rule(q, families[f], (enum wg_quick_rule_kind)k);
	if (q->set_src_valid_mark) {
		wg_quick_trace(q, "sysctl -q net.ipv4.conf.all.src_valid_mark=0");
		(void)write_sysctl(src_valid_mark, '0');
		q->set_src_valid_mark = false;
	}
}

/* Deletes rules like r until none is left. */
static void delete_all(struct wg_quick *q, const struct wg_nl_rule_spec *r, const char *what)
{
	for (int i = 0; i < RULE_DELETE_MAX; i++) {
		if (wg_netlink_rule_del(q->nl, r))
			return;
		wg_quick_trace(q, "ip %s rule delete %s", ipv(r->family), what);
	}
}

void wg_quick_delete_rules(struct wg_quick *q, uint32_t table)
{
	static const sa_family_t families[WG_QUICK_FAMILIES] = {AF_INET, AF_INET6};
	char what[32];

	snprintf(what, sizeof(what), "table %u", table);
	for (int f = 0; f < WG_QUICK_FAMILIES; f++) {
		struct wg_nl_rule_spec by_table = {
			.family = (uint8_t)families[f], .table = table, .suppress_prefixlen = -1};
		struct wg_nl_rule_spec suppress =
			wg_netlink_rule_suppress_main((uint8_t)families[f]);

		delete_all(q, &by_table, what);
		delete_all(q, &suppress, "table main suppress_prefixlength 0");
	}
}
