/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtnetlink against the real kernel, each test in a network namespace of its own
 * (criterion forks per test, so the namespace dies with the test process). Every change
 * is verified through the module's own dump, and the dump is checked against the
 * kernel's view where it matters (priorities the kernel assigns to rules).
 */
#define _GNU_SOURCE /* unshare() */
#include "src/edge/netlink.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "src/edge/tun.h"

static struct wg_nl *nl;

/*
 * New links of the namespace get no IPv6 link-local address: the kernel would add it
 * (and its local route) asynchronously, after DAD, which makes "before" and "after"
 * snapshots race. IN6_ADDR_GEN_MODE_NONE.
 */
static void no_link_local(void)
{
	static const char path[] = "/proc/sys/net/ipv6/conf/default/addr_gen_mode";
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s: %s", path, strerror(errno));
	cr_assert_gt(fputs("1\n", f), 0);
	cr_assert_eq(fclose(f), 0);
}

/* Skips unless root; otherwise moves this test process into a fresh namespace, lo up. */
static void enter_netns(void)
{
	struct wg_nl_link lo;

	if (geteuid() != 0)
		cr_skip_test("needs root for unshare(CLONE_NEWNET)");
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %s", strerror(errno));
	no_link_local();
	cr_assert_eq(wg_netlink_open(&nl), 0);
	cr_assert_eq(wg_netlink_link_get(nl, "lo", &lo), 0);
	cr_assert_eq(wg_netlink_link_set_up(nl, lo.ifindex, true), 0);
}

static void leave_netns(void)
{
	wg_netlink_close(nl);
	nl = NULL;
}

TestSuite(netlink, .init = enter_netns, .fini = leave_netns);

static struct wg_nl_prefix pfx(const char *s)
{
	struct wg_nl_prefix p = {0};
	char addr[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);

	cr_assert_lt(n, sizeof(addr));
	memcpy(addr, s, n);
	addr[n] = '\0';
	p.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	cr_assert_eq(inet_pton(p.family, addr, p.addr.bytes), 1, "bad test address %s", s);
	p.len = slash ? (uint8_t)atoi(slash + 1) : (p.family == AF_INET ? 32 : 128);
	return p;
}

/* A TUN device, up, with the given MTU; returns its index. */
static uint32_t tun_up(struct wg_tun *tun, uint32_t mtu)
{
	struct wg_nl_link l;

	cr_assert_eq(wg_tun_open(tun, "cwtest%d", 0), 0);
	cr_assert_eq(wg_netlink_link_get(nl, tun->name, &l), 0);
	cr_assert_eq(wg_netlink_link_set_mtu(nl, l.ifindex, mtu), 0);
	cr_assert_eq(wg_netlink_link_set_up(nl, l.ifindex, true), 0);
	return l.ifindex;
}

static void snap(struct wg_nl_snapshot *s)
{
	cr_assert_eq(wg_netlink_snapshot(nl, s), 0);
}

static bool contains(const void *items, size_t n, size_t size, const void *item)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!memcmp((const uint8_t *)items + i * size, item, size))
			return true;
	return false;
}

/* Logs the entries only one side has, so that a failing comparison says why. */
static void log_diff(const struct wg_nl_snapshot *a, const struct wg_nl_snapshot *b)
{
	char buf[INET6_ADDRSTRLEN];
	size_t i;

	for (i = 0; i < a->n_addrs; i++)
		if (!contains(b->addrs, b->n_addrs, sizeof(*b->addrs), &a->addrs[i]))
			cr_log_warn("addr only before: if %u %s/%u flags %#x", a->addrs[i].ifindex,
				    inet_ntop(a->addrs[i].p.family, a->addrs[i].p.addr.bytes, buf,
					      sizeof(buf)),
				    a->addrs[i].p.len, a->addrs[i].flags);
	for (i = 0; i < b->n_addrs; i++)
		if (!contains(a->addrs, a->n_addrs, sizeof(*a->addrs), &b->addrs[i]))
			cr_log_warn("addr only after: if %u %s/%u flags %#x", b->addrs[i].ifindex,
				    inet_ntop(b->addrs[i].p.family, b->addrs[i].p.addr.bytes, buf,
					      sizeof(buf)),
				    b->addrs[i].p.len, b->addrs[i].flags);
	for (i = 0; i < a->n_routes; i++)
		if (!contains(b->routes, b->n_routes, sizeof(*b->routes), &a->routes[i]))
			cr_log_warn(
				"route only before: table %u %s/%u", a->routes[i].table,
				inet_ntop(a->routes[i].family, a->routes[i].dst, buf, sizeof(buf)),
				a->routes[i].dst_len);
	for (i = 0; i < b->n_routes; i++)
		if (!contains(a->routes, a->n_routes, sizeof(*a->routes), &b->routes[i]))
			cr_log_warn(
				"route only after: table %u %s/%u", b->routes[i].table,
				inet_ntop(b->routes[i].family, b->routes[i].dst, buf, sizeof(buf)),
				b->routes[i].dst_len);
	cr_log_warn("rules: %zu before, %zu after", a->n_rules, b->n_rules);
}

/* Compares, logging the difference; frees both. */
static bool same_state(struct wg_nl_snapshot *before, struct wg_nl_snapshot *after)
{
	bool same = wg_netlink_snapshot_equal(before, after);

	if (!same)
		log_diff(before, after);
	wg_netlink_snapshot_free(before);
	wg_netlink_snapshot_free(after);
	return same;
}

Test(netlink, link_lookup)
{
	struct wg_nl_link l, by_index;

	cr_assert_eq(wg_netlink_link_get(nl, "lo", &l), 0);
	cr_assert_eq(l.ifindex, 1);
	cr_assert_str_eq(l.name, "lo");
	cr_assert(l.flags & IFF_UP);
	cr_assert_eq(wg_netlink_link_get_index(nl, 1, &by_index), 0);
	cr_assert_str_eq(by_index.name, "lo");
	cr_assert_eq(by_index.mtu, l.mtu);
	cr_assert_eq(wg_netlink_link_get(nl, "nosuchlink0", &l), -ENODEV);
	cr_assert_eq(wg_netlink_link_get_index(nl, 999, &l), -ENODEV);
	cr_assert_eq(wg_netlink_link_get(nl, "", &l), -EINVAL);
	cr_assert_eq(wg_netlink_link_get(nl, "a-name-far-too-long-for-ifnamsiz", &l), -EINVAL);
	cr_assert_eq(wg_netlink_link_get_index(nl, 0, &l), -EINVAL);
}

Test(netlink, link_mtu_txqlen_up_down)
{
	struct wg_tun tun;
	struct wg_nl_link l;
	uint32_t ifindex = tun_up(&tun, 1420);

	cr_assert_eq(wg_netlink_link_get_index(nl, ifindex, &l), 0);
	cr_assert_eq(l.mtu, 1420);
	cr_assert(l.flags & IFF_UP);
	cr_assert_eq(wg_netlink_link_set_txqlen(nl, ifindex, 4321), 0);
	cr_assert_eq(wg_netlink_link_set_up(nl, ifindex, false), 0);
	cr_assert_eq(wg_netlink_link_get_index(nl, ifindex, &l), 0);
	cr_assert_eq(l.txqlen, 4321);
	cr_assert_not(l.flags & IFF_UP);
	/* The kernel's answer comes back as -errno: below the minimum MTU of 68. */
	cr_assert_eq(wg_netlink_link_set_mtu(nl, ifindex, 20), -EINVAL);
	cr_assert_eq(wg_netlink_link_set_mtu(nl, 9999, 1280), -ENODEV);
	wg_tun_close(&tun);
}

static const char *const addr_cases[] = {
	"10.0.0.1/24",
	"192.0.2.7/32",
	"fd00:1::1/64",
	"2001:db8::5/128",
};

Test(netlink, addr_add_del)
{
	struct wg_tun tun;
	struct wg_nl_snapshot before, s;
	uint32_t ifindex = tun_up(&tun, 1420);
	size_t i;

	snap(&before);
	for (i = 0; i < WG_ARRAY_SIZE(addr_cases); i++) {
		struct wg_nl_prefix p = pfx(addr_cases[i]);

		cr_assert_eq(wg_netlink_addr_add(nl, ifindex, &p, 0), 0, "%s", addr_cases[i]);
		cr_assert_eq(wg_netlink_addr_add(nl, ifindex, &p, 0), -EEXIST, "%s", addr_cases[i]);
	}
	snap(&s);
	for (i = 0; i < WG_ARRAY_SIZE(addr_cases); i++) {
		struct wg_nl_prefix p = pfx(addr_cases[i]);

		cr_assert(wg_netlink_snapshot_has_addr(&s, ifindex, &p), "%s", addr_cases[i]);
		p.len--;
		cr_assert_not(wg_netlink_snapshot_has_addr(&s, ifindex, &p), "%s", addr_cases[i]);
	}
	cr_assert_not(wg_netlink_snapshot_equal(&before, &s));
	wg_netlink_snapshot_free(&s);
	for (i = 0; i < WG_ARRAY_SIZE(addr_cases); i++) {
		struct wg_nl_prefix p = pfx(addr_cases[i]);

		cr_assert_eq(wg_netlink_addr_del(nl, ifindex, &p), 0, "%s", addr_cases[i]);
		cr_assert_eq(wg_netlink_addr_del(nl, ifindex, &p), -EADDRNOTAVAIL, "%s",
			     addr_cases[i]);
	}
	snap(&s);
	cr_assert(same_state(&before, &s), "state differs after deleting");
	wg_tun_close(&tun);
}

Test(netlink, addr_bad_input)
{
	struct wg_nl_prefix p = pfx("10.0.0.1/24");
	struct wg_nl_prefix bad_len = pfx("10.0.0.1/24"), bad_fam = pfx("10.0.0.1/24");

	bad_len.len = 33;
	bad_fam.family = AF_UNIX;
	cr_assert_eq(wg_netlink_addr_add(nl, 1, &bad_len, 0), -EINVAL);
	cr_assert_eq(wg_netlink_addr_add(nl, 1, &bad_fam, 0), -EINVAL);
	cr_assert_eq(wg_netlink_addr_add(nl, 0, &p, 0), -EINVAL);
	cr_assert_eq(wg_netlink_addr_add(nl, 1, &p, 0x100), -EINVAL);
	cr_assert_eq(wg_netlink_addr_add(nl, 4242, &p, 0), -ENODEV);
}

struct route_case {
	const char *dst;
	uint32_t table, metric;
};

static const struct route_case route_cases[] = {
	{"10.20.0.0/16", 0, 0}, {"0.0.0.0/0", 51820, 0}, {"10.30.1.0/24", 51820, 7},
	{"::/0", 51820, 0},	{"fd00:20::/48", 0, 0},	 {"fd00:30::/64", 100, 55},
};

static struct wg_nl_route_spec route_of(const struct route_case *c, uint32_t ifindex)
{
	return (struct wg_nl_route_spec){
		.dst = pfx(c->dst), .ifindex = ifindex, .table = c->table, .metric = c->metric};
}

Test(netlink, route_add_del_tables)
{
	struct wg_tun tun;
	struct wg_nl_snapshot before, s;
	uint32_t ifindex = tun_up(&tun, 1420);
	size_t i;

	snap(&before);
	for (i = 0; i < WG_ARRAY_SIZE(route_cases); i++) {
		struct wg_nl_route_spec r = route_of(&route_cases[i], ifindex);

		cr_assert_eq(wg_netlink_route_add(nl, &r), 0, "%s", route_cases[i].dst);
		cr_assert_eq(wg_netlink_route_add(nl, &r), -EEXIST, "%s", route_cases[i].dst);
	}
	snap(&s);
	for (i = 0; i < WG_ARRAY_SIZE(route_cases); i++) {
		struct wg_nl_route_spec r = route_of(&route_cases[i], ifindex);

		r.protocol = RTPROT_BOOT;
		cr_assert(wg_netlink_snapshot_has_route(&s, &r), "%s", route_cases[i].dst);
		r.table = r.table == 100 ? 101 : 100;
		cr_assert_not(wg_netlink_snapshot_has_route(&s, &r), "%s", route_cases[i].dst);
	}
	wg_netlink_snapshot_free(&s);
	{
		/* An explicit protocol is kept, and delete matches on it when given. */
		struct wg_nl_route_spec r = {
			.dst = pfx("10.40.0.0/16"), .ifindex = ifindex, .protocol = RTPROT_STATIC};

		cr_assert_eq(wg_netlink_route_add(nl, &r), 0);
		snap(&s);
		cr_assert(wg_netlink_snapshot_has_route(&s, &r));
		wg_netlink_snapshot_free(&s);
		r.protocol = RTPROT_BOOT;
		cr_assert_eq(wg_netlink_route_del(nl, &r), -ESRCH);
		r.protocol = 0;
		cr_assert_eq(wg_netlink_route_del(nl, &r), 0);
	}
	for (i = 0; i < WG_ARRAY_SIZE(route_cases); i++) {
		struct wg_nl_route_spec r = route_of(&route_cases[i], ifindex);

		cr_assert_eq(wg_netlink_route_del(nl, &r), 0, "%s", route_cases[i].dst);
		cr_assert_eq(wg_netlink_route_del(nl, &r), -ESRCH, "%s", route_cases[i].dst);
	}
	snap(&s);
	cr_assert(same_state(&before, &s), "routes left behind");
	wg_tun_close(&tun);
}

static const struct wg_nl_rule_entry *find_rule(const struct wg_nl_snapshot *s,
						const struct wg_nl_rule_spec *r)
{
	size_t i;

	for (i = 0; i < s->n_rules; i++) {
		const struct wg_nl_rule_entry *e = &s->rules[i];

		if (e->family == r->family && e->table == r->table && e->invert == r->invert &&
		    e->suppress_prefixlen == r->suppress_prefixlen &&
		    (!r->has_fwmark || e->fwmark == r->fwmark))
			return e;
	}
	return NULL;
}

static void check_wg_quick_rules(uint8_t family, uint32_t table)
{
	struct wg_nl_rule_spec not_mark = wg_netlink_rule_not_fwmark(family, table);
	struct wg_nl_rule_spec sup = wg_netlink_rule_suppress_main(family);
	struct wg_nl_snapshot before, s;
	const struct wg_nl_rule_entry *a, *b;

	snap(&before);
	cr_assert_eq(wg_netlink_rule_add(nl, &not_mark), 0);
	cr_assert_eq(wg_netlink_rule_add(nl, &sup), 0);
	snap(&s);
	a = find_rule(&s, &not_mark);
	b = find_rule(&s, &sup);
	cr_assert(a && b, "rules missing from the dump (family %d)", family);
	cr_assert(a->invert && a->fwmark == table && a->action == FR_ACT_TO_TBL);
	/* No pref given: the kernel numbers them below main's 32766, newest first. */
	cr_assert_eq(a->priority, 32765);
	cr_assert_eq(b->priority, 32764);
	cr_assert_eq(wg_netlink_snapshot_count_rules(
			     &s, &(struct wg_nl_rule_spec){.family = family,
							   .table = table,
							   .suppress_prefixlen = -1}),
		     1);
	wg_netlink_snapshot_free(&s);
	/* wg-quick's `ip rule delete table T` finds the inverted fwmark rule by table alone. */
	cr_assert_eq(wg_netlink_rule_del(nl, &(struct wg_nl_rule_spec){.family = family,
								       .table = table,
								       .suppress_prefixlen = -1}),
		     0);
	cr_assert_eq(wg_netlink_rule_del(nl, &not_mark), -ENOENT);
	cr_assert_eq(wg_netlink_rule_del(nl, &sup), 0);
	cr_assert_eq(wg_netlink_rule_del(nl, &sup), -ENOENT);
	snap(&s);
	cr_assert(same_state(&before, &s), "rules left behind");
}

Test(netlink, wg_quick_rules_v4)
{
	check_wg_quick_rules(AF_INET, 51820);
}

Test(netlink, wg_quick_rules_v6)
{
	check_wg_quick_rules(AF_INET6, 51821);
}

Test(netlink, rule_explicit_priority_and_bad_input)
{
	struct wg_nl_rule_spec r = wg_netlink_rule_not_fwmark(AF_INET, 70000);
	struct wg_nl_rule_spec bad = r;
	struct wg_nl_snapshot s;
	const struct wg_nl_rule_entry *e;

	r.has_priority = true;
	r.priority = 1234;
	cr_assert_eq(wg_netlink_rule_add(nl, &r), 0);
	cr_assert_eq(wg_netlink_rule_add(nl, &r), -EEXIST);
	snap(&s);
	e = find_rule(&s, &r);
	cr_assert(e && e->priority == 1234 && e->table == 70000);
	wg_netlink_snapshot_free(&s);
	bad.family = AF_UNSPEC;
	cr_assert_eq(wg_netlink_rule_add(nl, &bad), -EINVAL);
	bad = r;
	bad.table = 0;
	cr_assert_eq(wg_netlink_rule_add(nl, &bad), -EINVAL);
}

Test(netlink, table_pick_like_wg_quick)
{
	struct wg_tun tun;
	uint32_t ifindex = tun_up(&tun, 1420), t;
	struct wg_nl_route_spec r = {.dst = pfx("::/0"), .ifindex = ifindex, .table = 51820};
	struct wg_nl_rule_spec rule = wg_netlink_rule_not_fwmark(AF_INET, 51821);
	bool used;

	cr_assert_eq(wg_netlink_table_pick(nl, WG_NL_TABLE_WG_QUICK_FIRST, &t), 0);
	cr_assert_eq(t, 51820);
	cr_assert_eq(wg_netlink_route_add(nl, &r), 0); /* an IPv6 route marks it used too */
	cr_assert_eq(wg_netlink_table_in_use(nl, 51820, &used), 0);
	cr_assert(used);
	cr_assert_eq(wg_netlink_table_pick(nl, WG_NL_TABLE_WG_QUICK_FIRST, &t), 0);
	cr_assert_eq(t, 51821);
	cr_assert_eq(wg_netlink_rule_add(nl, &rule), 0);
	cr_assert_eq(wg_netlink_table_pick(nl, WG_NL_TABLE_WG_QUICK_FIRST, &t), 0);
	cr_assert_eq(t, 51822);
	cr_assert_eq(wg_netlink_table_in_use(nl, 51822, &used), 0);
	cr_assert_not(used);
	wg_tun_close(&tun);
}

Test(netlink, route_get_mtu)
{
	struct wg_tun tun;
	uint32_t ifindex = tun_up(&tun, 1400);
	struct wg_nl_prefix a4 = pfx("10.9.0.1/24"), a6 = pfx("fd00:9::1/64");
	struct wg_nl_route_spec small = {
		.dst = pfx("10.77.0.0/16"), .ifindex = ifindex, .mtu = 1280};
	struct wg_nl_route_spec marked = {
		.dst = pfx("0.0.0.0/0"), .ifindex = ifindex, .table = 51820, .mtu = 1300};
	struct wg_nl_rule_spec rule = {.family = AF_INET,
				       .has_fwmark = true,
				       .fwmark = 5,
				       .table = 51820,
				       .suppress_prefixlen = -1};
	struct wg_nl_route_info info;
	struct wg_nl_prefix dst;

	cr_assert_eq(wg_netlink_addr_add(nl, ifindex, &a4, 0), 0);
	cr_assert_eq(wg_netlink_addr_add(nl, ifindex, &a6, WG_NL_ADDR_NODAD), 0);
	cr_assert_eq(wg_netlink_route_add(nl, &small), 0);
	dst = pfx("10.9.0.2");
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 0, &info), 0);
	cr_assert_eq(info.oif, ifindex);
	cr_assert_eq(info.mtu, 1400); /* the link's */
	cr_assert_not(info.mtu_from_route);
	cr_assert_eq(info.type, RTN_UNICAST);
	dst = pfx("10.77.3.4");
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 0, &info), 0);
	cr_assert_eq(info.mtu, 1280);
	cr_assert(info.mtu_from_route);
	dst = pfx("fd00:9::2");
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 0, &info), 0);
	cr_assert_eq(info.oif, ifindex);
	cr_assert_eq(info.mtu, 1400);
	/* A mark reaches another table through a rule: the fwmark is part of the lookup. */
	dst = pfx("198.51.100.1");
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 0, &info), -ENETUNREACH);
	cr_assert_eq(wg_netlink_route_add(nl, &marked), 0);
	cr_assert_eq(wg_netlink_rule_add(nl, &rule), 0);
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 5, &info), 0);
	cr_assert_eq(info.mtu, 1300);
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 6, &info), -ENETUNREACH);
	dst.family = AF_UNIX;
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 0, &info), -EINVAL);
	wg_tun_close(&tun);
}

struct seen {
	unsigned int n, deleted;
	uint32_t deleted_ifindex;
	uint32_t last_changed_mtu;
};

static void on_event(void *ctx, const struct wg_nl_link_event *e)
{
	struct seen *s = ctx;

	s->n++;
	if (e->kind == WG_NL_LINK_DELETED) {
		s->deleted++;
		s->deleted_ifindex = e->ifindex;
	} else {
		s->last_changed_mtu = e->mtu;
	}
}

Test(netlink, link_delete_event)
{
	struct wg_nl_events *ev;
	struct wg_tun tun;
	struct wg_nl_link l;
	struct seen seen = {0};
	int one = 1;

	cr_assert_eq(wg_netlink_events_open(&ev), 0);
	cr_assert_eq(wg_netlink_events_read(ev, on_event, &seen), 0, "nothing happened yet");
	cr_assert_eq(wg_tun_open(&tun, "cwpersist0", 0), 0);
	cr_assert_eq(ioctl(tun.fd, TUNSETPERSIST, one), 0);
	cr_assert_eq(wg_netlink_link_get(nl, "cwpersist0", &l), 0);
	cr_assert_eq(wg_netlink_link_set_mtu(nl, l.ifindex, 1333), 0);
	wg_tun_close(&tun);
	cr_assert_eq(wg_netlink_link_get(nl, "cwpersist0", &l), 0, "persistent link vanished");
	cr_assert_gt(wg_netlink_events_read(ev, on_event, &seen), 0);
	cr_assert_eq(seen.deleted, 0);
	cr_assert_eq(seen.last_changed_mtu, 1333);
	cr_assert_eq(wg_netlink_link_delete(nl, "cwpersist0"), 0);
	cr_assert_eq(wg_netlink_link_delete(nl, "cwpersist0"), -ENODEV);
	cr_assert_gt(wg_netlink_events_read(ev, on_event, &seen), 0);
	cr_assert_eq(seen.deleted, 1);
	cr_assert_eq(seen.deleted_ifindex, l.ifindex);
	/* A plain TUN link goes away with its fd. */
	cr_assert_eq(wg_tun_open(&tun, "cwplain0", 0), 0);
	cr_assert_eq(wg_netlink_link_get(nl, "cwplain0", &l), 0);
	wg_tun_close(&tun);
	cr_assert_gt(wg_netlink_events_read(ev, on_event, &seen), 0);
	cr_assert_eq(seen.deleted, 2);
	cr_assert_eq(seen.deleted_ifindex, l.ifindex);
	wg_netlink_events_close(ev);
}

/* The parser on crafted bytes: no kernel needed. */
static size_t build_link_msg(void *buf, uint16_t type, int ifindex, bool with_attrs)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	if (with_attrs) {
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "wg7");
		mnl_attr_put_u32(nlh, IFLA_MTU, 1420);
	}
	return nlh->nlmsg_len;
}

Test(netlink_parse, link_events)
{
	union {
		struct nlmsghdr h;
		uint8_t b[1024];
	} buf;
	struct seen seen = {0};
	size_t len = build_link_msg(buf.b, RTM_DELLINK, 7, true);

	len += build_link_msg(buf.b + len, RTM_NEWLINK, 8, true);
	len += build_link_msg(buf.b + len, RTM_NEWADDR, 9, false); /* skipped */
	cr_assert_eq(wg_netlink_events_parse(buf.b, len, on_event, &seen), 2);
	cr_assert_eq(seen.deleted, 1);
	cr_assert_eq(seen.deleted_ifindex, 7);
	cr_assert_eq(seen.last_changed_mtu, 1420);
}

Test(netlink_parse, malformed)
{
	union {
		struct nlmsghdr h;
		uint8_t b[1024];
	} buf;
	struct seen seen = {0};
	size_t len = build_link_msg(buf.b, RTM_DELLINK, 7, true);
	struct nlattr *attr =
		(struct nlattr *)(buf.b + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg)));

	/* Truncated: the message claims more than there is. */
	cr_assert_eq(wg_netlink_events_parse(buf.b, len - 4, on_event, &seen), -EINVAL);
	cr_assert_eq(seen.n, 0);
	/* Garbage after a good message (a length near 4 GiB must not wrap the walk). */
	memset(buf.b + len, 0xff, sizeof(struct nlmsghdr));
	cr_assert_eq(wg_netlink_events_parse(buf.b, len + sizeof(struct nlmsghdr), on_event, &seen),
		     -EINVAL);
	cr_assert_eq(seen.n, 1, "the good message before the garbage is delivered");
	/* Too short for its ifinfomsg. */
	build_link_msg(buf.b, RTM_DELLINK, 7, false);
	buf.h.nlmsg_len = NLMSG_HDRLEN + 4;
	cr_assert_eq(wg_netlink_events_parse(buf.b, NLMSG_HDRLEN + 4, on_event, &seen), -EINVAL);
	/* A zero ifindex is no link. */
	len = build_link_msg(buf.b, RTM_DELLINK, 0, false);
	cr_assert_eq(wg_netlink_events_parse(buf.b, len, on_event, &seen), -EINVAL);
	/* An MTU attribute of the wrong size is ignored, not read past. */
	len = build_link_msg(buf.b, RTM_NEWLINK, 3, true);
	attr = (struct nlattr *)((uint8_t *)attr + NLA_ALIGN(attr->nla_len));
	attr->nla_len = NLA_HDRLEN + 2;
	seen.last_changed_mtu = 99;
	cr_assert_eq(wg_netlink_events_parse(buf.b, len, on_event, &seen), 1);
	cr_assert_eq(seen.last_changed_mtu, 0);
	cr_assert_eq(seen.n, 2, "no event from the malformed messages");
}

/* Address and route events on crafted bytes: kinds, links, cloned routes skipped. */
struct net_seen {
	int n;
	struct wg_nl_net_event last;
};

static void on_net(void *ctx, const struct wg_nl_net_event *e)
{
	struct net_seen *s = ctx;

	s->n++;
	s->last = *e;
}

static size_t build_addr_msg(void *buf, uint16_t type, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;

	nlh->nlmsg_type = type;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET6;
	ifa->ifa_index = (uint32_t)ifindex;
	return nlh->nlmsg_len;
}

static size_t build_route_msg(void *buf, uint16_t type, int oif, unsigned int flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = type;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_flags = flags;
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)oif);
	return nlh->nlmsg_len;
}

Test(netlink_parse, net_events)
{
	union {
		struct nlmsghdr h;
		uint8_t b[1024];
	} buf;
	struct net_seen seen = {0};
	size_t len = build_addr_msg(buf.b, RTM_DELADDR, 4);

	len += build_link_msg(buf.b + len, RTM_NEWLINK, 8, true); /* not ours: skipped */
	len += build_route_msg(buf.b + len, RTM_NEWROUTE, 0, RTM_F_CLONED); /* a cache entry */
	len += build_route_msg(buf.b + len, RTM_DELROUTE, 6, 0);
	cr_assert_eq(wg_netlink_net_events_parse(buf.b, len, on_net, &seen), 2);
	cr_assert_eq(seen.n, 2);
	cr_assert_eq(seen.last.type, RTM_DELROUTE);
	cr_assert_eq(seen.last.family, AF_INET);
	cr_assert_eq(seen.last.ifindex, 6);
	len = build_addr_msg(buf.b, RTM_NEWADDR, 4);
	cr_assert_eq(wg_netlink_net_events_parse(buf.b, len, on_net, &seen), 1);
	cr_assert_eq(seen.last.type, RTM_NEWADDR);
	cr_assert_eq(seen.last.family, AF_INET6);
	cr_assert_eq(seen.last.ifindex, 4);
	len = build_route_msg(buf.b, RTM_NEWROUTE, 0, 0);
	cr_assert_eq(wg_netlink_net_events_parse(buf.b, len, on_net, &seen), 1);
	cr_assert_eq(seen.last.ifindex, 0, "no RTA_OIF: no link");
	/* Truncated, and too short for its header. */
	cr_assert_eq(wg_netlink_net_events_parse(buf.b, len - 4, on_net, &seen), -EINVAL);
	build_addr_msg(buf.b, RTM_NEWADDR, 4);
	buf.h.nlmsg_len = NLMSG_HDRLEN + 2;
	cr_assert_eq(wg_netlink_net_events_parse(buf.b, NLMSG_HDRLEN + 4, on_net, &seen), -EINVAL);
}

/* A route lookup names the source and the gateway, which tell one path from another. */
Test(netlink, route_get_reports_source_and_gateway)
{
	struct wg_nl_route_info info;
	struct wg_nl_prefix dst = {.family = AF_INET, .len = 32};
	struct wg_tun tun;
	struct wg_nl_link l;
	struct wg_nl_prefix a = {.family = AF_INET, .len = 24};
	uint8_t src[16] = {192, 0, 2, 1}, gw[16] = {192, 0, 2, 254};

	cr_assert_eq(wg_tun_open(&tun, "cwroute0", 0), 0);
	cr_assert_eq(wg_netlink_link_get(nl, "cwroute0", &l), 0);
	cr_assert_eq(wg_netlink_link_set_up(nl, l.ifindex, true), 0);
	inet_pton(AF_INET, "192.0.2.1", &a.addr.v4);
	cr_assert_eq(wg_netlink_addr_add(nl, l.ifindex, &a, 0), 0);
	/* this namespace is the process's: ip(8) adds the route with a gateway in it */
	cr_assert_eq(system("ip route add 198.51.100.0/24 via 192.0.2.254 dev cwroute0"), 0);
	inet_pton(AF_INET, "198.51.100.7", &dst.addr.v4);
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 0, &info), 0);
	cr_assert_eq(info.oif, l.ifindex);
	cr_assert_eq(memcmp(info.src, src, sizeof(src)), 0);
	cr_assert_eq(memcmp(info.gateway, gw, sizeof(gw)), 0);
	inet_pton(AF_INET, "192.0.2.9", &dst.addr.v4);
	cr_assert_eq(wg_netlink_route_get(nl, &dst, 0, &info), 0);
	cr_assert_eq(info.gateway[0], 0, "on link: no gateway");
	wg_tun_close(&tun);
}
