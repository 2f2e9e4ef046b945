/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtnetlink through libmnl: what `ip link`, `ip address`, `ip route` and `ip rule`
 * do for wg-quick, done in-process.
 *
 * Every request is built completely in a stack buffer first, then sent with NLM_F_ACK;
 * the answer is the kernel's own errno (0 or -errno). Each user opens its own handle
 * (struct wg_nl); there is no global state. Requests are synchronous: they are meant for
 * configuration (up/down), not for the datapath. Link events come through a separate,
 * nonblocking handle (struct wg_nl_events) whose fd the event loop watches.
 *
 * Defaults follow iproute2 so that the resulting kernel state is the one wg-quick would
 * leave: addresses carry no flags and universe scope (host scope for 127/8), routes are
 * RTPROT_BOOT unicast with link scope (IPv4) or universe scope (IPv6), rules are added
 * without a priority unless one is given, so the kernel picks one below the lowest
 * non-zero priority already present (the numbers `ip rule add` prints as 32765, 32764).
 */
#ifndef CAKEWG_SRC_EDGE_NETLINK_H
#define CAKEWG_SRC_EDGE_NETLINK_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/compiler.h"

enum wg_nl_table {
	WG_NL_TABLE_MAIN = 254,		    /* RT_TABLE_MAIN */
	WG_NL_TABLE_LOCAL = 255,	    /* RT_TABLE_LOCAL */
	WG_NL_TABLE_WG_QUICK_FIRST = 51820, /* wg-quick's first fwmark table */
};

struct wg_nl;
struct wg_nl_events;

/* An address with a prefix length: 192.0.2.1/24, 2001:db8::/32. */
struct wg_nl_prefix {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t len;	/* prefix bits: 0..32 or 0..128 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
		uint8_t bytes[16];
	} addr;
};

struct wg_nl_link {
	uint32_t ifindex;
	uint32_t mtu;
	uint32_t flags; /* IFF_* */
	uint32_t txqlen;
	char name[IFNAMSIZ];
};

enum wg_nl_addr_flags {
	WG_NL_ADDR_NODAD = 1 << 0, /* IFA_F_NODAD; `ip address add` does not set it */
};

/*
 * A route through a device, as
 * `ip route add DST dev IF [table T] [metric M] [proto P] [mtu N]`.
 */
struct wg_nl_route_spec {
	struct wg_nl_prefix dst;
	uint32_t ifindex;
	uint32_t table;	  /* 0 means main */
	uint32_t metric;  /* 0: none given (IPv6 then defaults to 1024) */
	uint32_t mtu;	  /* 0: none (RTAX_MTU); add only */
	uint8_t protocol; /* 0: RTPROT_BOOT as ip(8); ignored by delete when 0 */
};

/*
 * A routing rule. The two wg-quick needs are built by wg_netlink_rule_not_fwmark() and
 * wg_netlink_rule_suppress_main(). For delete, fields left at "absent" match any rule.
 */
struct wg_nl_rule_spec {
	uint8_t family;	   /* AF_INET or AF_INET6 */
	bool invert;	   /* `not` */
	bool has_fwmark;   /* `fwmark MARK` */
	bool has_priority; /* `pref N`; absent: the kernel picks */
	uint32_t fwmark;
	uint32_t priority;
	uint32_t table;		    /* `table T` (0: absent) */
	int32_t suppress_prefixlen; /* `suppress_prefixlength N`; -1: absent */
};

/* `ip rule add not fwmark T table T` */
struct wg_nl_rule_spec wg_netlink_rule_not_fwmark(uint8_t family, uint32_t table);
/* `ip rule add table main suppress_prefixlength 0` */
struct wg_nl_rule_spec wg_netlink_rule_suppress_main(uint8_t family);

/* What `ip route get ADDR [mark M]` tells: output device and MTU. */
struct wg_nl_route_info {
	uint8_t type; /* RTN_UNICAST, RTN_LOCAL (the address is ours), ... */
	uint32_t oif;
	uint32_t mtu;	     /* RTAX_MTU of the route, else the output link's MTU */
	bool mtu_from_route; /* true when the route itself carried an MTU */
	/* RTA_PREFSRC and RTA_GATEWAY, zero-padded; all zero when absent */
	uint8_t src[16], gateway[16];
};

int wg_netlink_open(struct wg_nl **out);
void wg_netlink_close(struct wg_nl *nl);

/* Links. -ENODEV when there is no such link. */
int wg_netlink_link_get(struct wg_nl *nl, const char *name, struct wg_nl_link *out);
int wg_netlink_link_get_index(struct wg_nl *nl, uint32_t ifindex, struct wg_nl_link *out);
int wg_netlink_link_set_up(struct wg_nl *nl, uint32_t ifindex, bool up);
int wg_netlink_link_set_mtu(struct wg_nl *nl, uint32_t ifindex, uint32_t mtu);
int wg_netlink_link_set_txqlen(struct wg_nl *nl, uint32_t ifindex, uint32_t txqlen);
int wg_netlink_link_delete(struct wg_nl *nl, const char *name);

/* Addresses: `ip address add|del ADDR/LEN dev IF`. Add is NLM_F_CREATE|NLM_F_EXCL. */
int wg_netlink_addr_add(struct wg_nl *nl, uint32_t ifindex, const struct wg_nl_prefix *p,
			unsigned int flags);
int wg_netlink_addr_del(struct wg_nl *nl, uint32_t ifindex, const struct wg_nl_prefix *p);

/* Routes: add is NLM_F_CREATE|NLM_F_EXCL (-EEXIST if present). */
int wg_netlink_route_add(struct wg_nl *nl, const struct wg_nl_route_spec *r);
int wg_netlink_route_del(struct wg_nl *nl, const struct wg_nl_route_spec *r);

/*
 * Route lookup for one destination address (dst->len is ignored). fwmark 0 means no mark.
 * -ENETUNREACH (or the kernel's other answer) when there is no route.
 */
int wg_netlink_route_get(struct wg_nl *nl, const struct wg_nl_prefix *dst, uint32_t fwmark,
			 struct wg_nl_route_info *out);

/* Rules: add is NLM_F_CREATE|NLM_F_EXCL; delete removes the first rule matching. */
int wg_netlink_rule_add(struct wg_nl *nl, const struct wg_nl_rule_spec *r);
int wg_netlink_rule_del(struct wg_nl *nl, const struct wg_nl_rule_spec *r);

/*
 * Whether routing table `table` is used: it holds a route of either family or a rule of
 * either family looks it up. wg-quick only looks at routes; counting rules too avoids
 * picking a table that another tool's rules already point at.
 */
int wg_netlink_table_in_use(struct wg_nl *nl, uint32_t table, bool *in_use);
/* The first unused table from `first` upwards (wg-quick: 51820, +1 until unused). */
int wg_netlink_table_pick(struct wg_nl *nl, uint32_t first, uint32_t *table);

/* The namespace's state, as plain arrays, so that `down` and tests can compare. */
struct wg_nl_addr_entry {
	uint32_t ifindex;
	struct wg_nl_prefix p;
	uint8_t scope;
	uint32_t flags; /* IFA_F_* except the ones that change by themselves */
};

struct wg_nl_route_entry {
	uint8_t family, dst_len, protocol, scope, type;
	uint32_t table, oif, priority, mtu;
	uint8_t dst[16], gateway[16], prefsrc[16];
};

struct wg_nl_rule_entry {
	uint8_t family, action, src_len, dst_len;
	bool invert;
	uint32_t priority, table, fwmark, fwmask;
	int32_t suppress_prefixlen; /* -1: absent */
	uint8_t src[16], dst[16];
	char iifname[IFNAMSIZ], oifname[IFNAMSIZ];
};

struct wg_nl_snapshot {
	struct wg_nl_addr_entry *addrs;
	struct wg_nl_route_entry *routes;
	struct wg_nl_rule_entry *rules;
	size_t n_addrs, n_routes, n_rules;
};

/* The addresses of one link, both families, in the kernel's order (the primary first):
 * *out (free() it) holds *n of them. */
int wg_netlink_addr_dump(struct wg_nl *nl, uint32_t ifindex, struct wg_nl_addr_entry **out,
			 size_t *n);
/* Dumps every address, route (all tables) and rule of both families. Sorted. */
int wg_netlink_snapshot(struct wg_nl *nl, struct wg_nl_snapshot *out);
void wg_netlink_snapshot_free(struct wg_nl_snapshot *s);
/* Same entries in both (the dumps are sorted, so order does not matter). */
bool wg_netlink_snapshot_equal(const struct wg_nl_snapshot *a,
			       const struct wg_nl_snapshot *b) WG_MUST_CHECK;
/* Lookups in a snapshot, for tests and for `down`. */
bool wg_netlink_snapshot_has_addr(const struct wg_nl_snapshot *s, uint32_t ifindex,
				  const struct wg_nl_prefix *p) WG_MUST_CHECK;
bool wg_netlink_snapshot_has_route(const struct wg_nl_snapshot *s,
				   const struct wg_nl_route_spec *r) WG_MUST_CHECK;
size_t wg_netlink_snapshot_count_rules(const struct wg_nl_snapshot *s,
				       const struct wg_nl_rule_spec *r);

/* Link events (RTMGRP_LINK) on a nonblocking socket the loop can watch. */
enum wg_nl_link_event_kind {
	WG_NL_LINK_CHANGED, /* RTM_NEWLINK: created, renamed, up/down, MTU */
	WG_NL_LINK_DELETED, /* RTM_DELLINK: ifindex is gone */
};

struct wg_nl_link_event {
	enum wg_nl_link_event_kind kind;
	uint32_t ifindex;
	uint32_t flags; /* IFF_* */
	uint32_t mtu;	/* 0 when not reported */
	char name[IFNAMSIZ];
};

/* An address or route event (the network under the tunnel changed, maybe). */
struct wg_nl_net_event {
	uint16_t type;	  /* RTM_NEWADDR, RTM_DELADDR, RTM_NEWROUTE or RTM_DELROUTE */
	uint8_t family;	  /* AF_INET or AF_INET6 */
	uint32_t ifindex; /* the address's link, the route's RTA_OIF; 0 when none */
};

int wg_netlink_events_open(struct wg_nl_events **out);
void wg_netlink_events_close(struct wg_nl_events *ev);
int wg_netlink_events_fd(const struct wg_nl_events *ev);
/*
 * Parses link messages in buf (what one recv returned) and calls cb once per event.
 * Other message types are skipped. Returns the number of events or -EINVAL for a
 * malformed buffer (events before the bad message were delivered).
 */
int wg_netlink_events_parse(const void *buf, size_t len,
			    void (*cb)(void *ctx, const struct wg_nl_link_event *e), void *ctx);
/*
 * Reads until the socket is empty (or a batch of datagrams was read: the fd then stays
 * readable) and parses everything. Returns the number of events,
 * or -ENOBUFS when the kernel dropped events (the socket overflowed), or -EINVAL when a
 * malformed message arrived: in both cases the caller must re-check the links it cares
 * about, since a deletion may have been lost. Messages not sent by the kernel are ignored.
 */
int wg_netlink_events_read(struct wg_nl_events *ev,
			   void (*cb)(void *ctx, const struct wg_nl_link_event *e), void *ctx);
/*
 * From now on, also reads the address and route groups (IPv4 and IPv6): each such
 * message goes to cb, called from wg_netlink_events_read(). Returns 0 or -errno.
 */
int wg_netlink_events_watch_net(struct wg_nl_events *ev,
				void (*cb)(void *ctx, const struct wg_nl_net_event *e), void *ctx);
/* The parser behind it, as wg_netlink_events_parse for links: cloned routes (cache
 * entries) and other types are skipped. Returns the number of events or -EINVAL. */
int wg_netlink_net_events_parse(const void *buf, size_t len,
				void (*cb)(void *ctx, const struct wg_nl_net_event *e), void *ctx);

#endif
