/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every counter of the `cakewg_get=1` reply, declared once: its identifier, its UAPI
 * key, its key in `cakewg show --json`, where and how `cakewg show` prints it, its unit
 * and its scope (the device, or one peer). The producer (the daemon fills the values,
 * wg_counters_write writes them), the reply parser (src/core/uapi_reply.c) and both
 * printers of `cakewg show` (tools/cakewg/show_print.c, show_json.c) iterate over these
 * tables; none of them names a counter it does not treat specially.
 *
 * A row is X(ID, key, json, unit, section, role, label, before, after):
 *   ID       WG_COUNTER_<ID> (a peer's: WG_PEER_COUNTER_<ID>), the index of its value
 *   key      the UAPI key, "key=<decimal>"
 *   json     its key in show --json's "cake" object (a peer's: in its cake record),
 *            NULL when left out; the value is a number, null when the daemon did not
 *            send it
 *   unit     WG_COUNTER_UNIT_<unit>: EVENTS (times something happened), PACKETS, NS
 *            (nanoseconds, shown in milliseconds)
 *   section  WG_COUNTER_SECTION_<section>: the block of `cakewg show` that prints it
 *            (NONE: only the reply and the JSON carry it)
 *   role     WG_COUNTER_ROLE_<role>, how the value joins its line of text:
 *            ITEM    a value of the line; items are joined by ", "
 *            ATTACH  right after the item above it, when that item was printed
 *            DETAIL  in parentheses after the item above it, when that item was printed;
 *                    details are joined by ", "
 *   label    for an ITEM: opens a new line, "  <label>: " (NULL: stays on the line of
 *            the item above); the line is printed when one of its items is
 *   before, after   the text around the value
 * A counter the daemon did not send is left out of the text; a peer's counter is also
 * left out when it is zero, as wg leaves out a peer's zero transfer. WG_COUNTER_HIDDEN
 * writes a row that only the reply and the parser know.
 *
 * Adding a counter is one row here plus the line that fills its value (the daemon's
 * modules: wg_underlay_report, wg_tun_gro_report; the device: src/core/device_stats.c).
 * The order of the rows is the order of the reply and of the JSON keys.
 */
#ifndef CAKEWG_SRC_CORE_COUNTERS_H
#define CAKEWG_SRC_CORE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/devconf.h"

#define WG_COUNTER_HIDDEN(X, id, key, unit) X(id, key, NULL, unit, NONE, NONE, NULL, NULL, NULL)

/* The device's counters: the modules of the daemon (underlay, TUN), the CAKE instances
 * and the drops by reason of struct wg_device_stats. */
#define WG_DEVICE_COUNTERS(X)                                                                      \
	/* datagrams the underlay sockets sent, and the UDP GSO sends that carried them */         \
	X(UNDERLAY_SENT, "underlay_sent", "underlay_sent", PACKETS, DATAPATH, ITEM, "underlay",    \
	  "", " datagrams sent")                                                                   \
	X(UNDERLAY_TRAINS, "underlay_trains", "underlay_trains", EVENTS, DATAPATH, ATTACH, NULL,   \
	  " in ", " trains")                                                                       \
	/* trains the kernel refused (GSO is then off for that socket) */                          \
	WG_COUNTER_HIDDEN(X, UNDERLAY_TRAINS_REFUSED, "underlay_trains_refused", EVENTS)           \
	WG_COUNTER_HIDDEN(X, UNDERLAY_SEND_ERRORS, "underlay_send_errors", PACKETS)                \
	/* sends that found the socket full (EAGAIN) */                                            \
	WG_COUNTER_HIDDEN(X, UNDERLAY_SEND_BLOCKED, "underlay_send_blocked", EVENTS)               \
	/* datagrams received, and of those how many arrived coalesced (UDP GRO) */                \
	X(UNDERLAY_RECEIVED, "underlay_received", "underlay_received", PACKETS, DATAPATH, ITEM,    \
	  NULL, "", " received")                                                                   \
	X(UNDERLAY_RX_TRAINS, "underlay_rx_trains", "underlay_rx_trains", PACKETS, DATAPATH,       \
	  DETAIL, NULL, "", " coalesced")                                                          \
	WG_COUNTER_HIDDEN(X, UNDERLAY_TRUNCATED, "underlay_truncated", PACKETS)                    \
	/* received datagrams longer than the MTU-sized buffers (a peer with a larger MTU) */     \
	WG_COUNTER_HIDDEN(X, UNDERLAY_RX_LARGE, "underlay_rx_large", PACKETS)                      \
	/* writes to the TUN device, the segments that joined another's write, and the ingress     \
	 * releases held to a gulp's end */                                                        \
	X(TUN_WRITES, "tun_writes", "tun_writes", EVENTS, DATAPATH, ITEM, "tun writes", "", "")    \
	X(TUN_GRO_COALESCED, "tun_gro_coalesced", "tun_gro_coalesced", PACKETS, DATAPATH, DETAIL,  \
	  NULL, "", " segments joined")                                                            \
	X(INGRESS_GULPS, "ingress_gulps", "ingress_gulps", EVENTS, DATAPATH, DETAIL, NULL, "",     \
	  " ingress gulps")                                                                        \
	WG_COUNTER_HIDDEN(X, TUN_GSO_WRITES, "tun_gso_writes", EVENTS)                             \
	WG_COUNTER_HIDDEN(X, TUN_WRITE_ERRORS, "tun_write_errors", EVENTS)                         \
	/* egress dequeues over CAKE_SHAPER_MAX_LAG_NS late, and the shaper time they forgave */   \
	X(SHAPER_LATE, "shaper_late", "shaper_late", EVENTS, DATAPATH, ITEM, "shaper late", "",    \
	  " times")                                                                                \
	X(SHAPER_LATE_NS, "shaper_late_ns", "shaper_late_ns", NS, DATAPATH, ATTACH, NULL, ", ",    \
	  " ms forgiven")                                                                          \
	/* control messages (handshake, cookie reply, keepalive) that found the socket full and    \
	 * waited ahead of data, and those lost (their queue full, or a rebind) */                 \
	X(UNDERLAY_CTL_QUEUED, "underlay_ctl_queued", "underlay_ctl_queued", PACKETS, DATAPATH,    \
	  ITEM, "control messages", "", " waited for the socket")                                  \
	X(UNDERLAY_CTL_DROPPED, "underlay_ctl_dropped", "underlay_ctl_dropped", PACKETS, DATAPATH, \
	  ATTACH, NULL, ", ", " dropped")                                                          \
	/* ICMP and ICMPv6 unreachable errors sent for packets no peer holds                       \
	 * (src/core/device_icmp.h) */                                                             \
	X(TX_ICMP_UNREACH, "tx_icmp_unreach", "tx_icmp_unreach", PACKETS, DATAPATH, ITEM,          \
	  "icmp unreachable", "", " sent")                                                         \
	/* the socket held its byte limit and CAKE waited; of those stalls, the ones that ended    \
	 * with the socket empty; learnt limits grown back; ENOBUFS from a qdisc below */          \
	X(BACKPRESSURE_STALLS, "backpressure_stalls", "backpressure_stalls", EVENTS, BACKPRESSURE, \
	  ITEM, "backpressure stalls", "", "")                                                     \
	X(UNDERLAY_STARVED, "underlay_starved", "underlay_starved", EVENTS, BACKPRESSURE, DETAIL,  \
	  NULL, "", " starved")                                                                    \
	X(UNDERLAY_REGROWN, "underlay_regrown", "underlay_regrown", EVENTS, BACKPRESSURE, DETAIL,  \
	  NULL, "", " regrown")                                                                    \
	X(UNDERLAY_OVERFLOWS, "underlay_overflows", "underlay_overflows", EVENTS, BACKPRESSURE,    \
	  DETAIL, NULL, "", " overflows")                                                          \
	/* network changes the daemon acted on, one per burst (src/core/netchange.h) */            \
	WG_COUNTER_HIDDEN(X, NETWORK_CHANGES, "network_changes", EVENTS)                           \
	/* drops and refusals by reason: struct wg_device_stats (src/core/device.h) */             \
	WG_COUNTER_HIDDEN(X, RX_MALFORMED, "rx_malformed", PACKETS)                                \
	WG_COUNTER_HIDDEN(X, RX_INVALID_MAC, "rx_invalid_mac", PACKETS)                            \
	WG_COUNTER_HIDDEN(X, RX_RATELIMITED, "rx_ratelimited", PACKETS)                            \
	WG_COUNTER_HIDDEN(X, RX_HANDSHAKE_BAD, "rx_handshake_bad", PACKETS)                        \
	WG_COUNTER_HIDDEN(X, RX_COOKIE_BAD, "rx_cookie_bad", PACKETS)                              \
	WG_COUNTER_HIDDEN(X, RX_NO_KEYPAIR, "rx_no_keypair", PACKETS)                              \
	WG_COUNTER_HIDDEN(X, RX_AUTH_FAILED, "rx_auth_failed", PACKETS)                            \
	WG_COUNTER_HIDDEN(X, RX_REPLAYED, "rx_replayed", PACKETS)                                  \
	WG_COUNTER_HIDDEN(X, RX_BAD_SOURCE, "rx_bad_source", PACKETS)                              \
	WG_COUNTER_HIDDEN(X, RX_BAD_INNER, "rx_bad_inner", PACKETS)                                \
	WG_COUNTER_HIDDEN(X, RX_ECN_DROPS, "rx_ecn_drops", PACKETS)                                \
	WG_COUNTER_HIDDEN(X, TX_NO_PEER, "tx_no_peer", PACKETS)                                    \
	WG_COUNTER_HIDDEN(X, TX_NO_ENDPOINT, "tx_no_endpoint", PACKETS)                            \
	WG_COUNTER_HIDDEN(X, TX_ROUTING_LOOP, "tx_routing_loop", PACKETS)                          \
	WG_COUNTER_HIDDEN(X, TX_BAD_PACKET, "tx_bad_packet", PACKETS)                              \
	WG_COUNTER_HIDDEN(X, TX_NOMEM, "tx_nomem", PACKETS)                                        \
	WG_COUNTER_HIDDEN(X, COOKIE_REPLIES_SENT, "cookie_replies_sent", PACKETS)

/* A peer's counters, written after its public_key line. */
#define WG_PEER_COUNTERS(X)                                                                        \
	/* dropped by the egress queue (overflow, AQM) */                                          \
	X(EGRESS_DROPS, "egress_drops", "egress_drops", PACKETS, PEER, ITEM, "egress drops", "",   \
	  "")                                                                                      \
	/* packets waiting for a handshake now (a gauge) */                                        \
	WG_COUNTER_HIDDEN(X, STAGED, "staged", PACKETS)                                            \
	/* the staged queue was full, or the handshake gave up */                                  \
	X(STAGED_DROPS, "staged_drops", "staged_drops", PACKETS, PEER, ITEM, "staged drops", "",   \
	  "")                                                                                      \
	/* the peer's endpoint moved */                                                            \
	X(ROAMS, "roams", "roams", EVENTS, PEER, ITEM, "roams", "", "")                            \
	WG_COUNTER_HIDDEN(X, HANDSHAKES_COMPLETED, "handshakes_completed", EVENTS)                 \
	/* lookups of the endpoint's host name (endpoint_host=), the failed ones, and the          \
	 * answers that moved the endpoint (src/core/reresolve.h) */                               \
	WG_COUNTER_HIDDEN(X, RESOLVE_LOOKUPS, "resolve_lookups", EVENTS)                           \
	X(RESOLVE_FAILURES, "resolve_failures", "resolve_failures", EVENTS, PEER, ITEM,            \
	  "name lookups failed", "", "")                                                           \
	WG_COUNTER_HIDDEN(X, RESOLVE_CHANGES, "resolve_changes", EVENTS)

#define WG_COUNTER_ENUM_(id, ...)      WG_COUNTER_##id,
#define WG_PEER_COUNTER_ENUM_(id, ...) WG_PEER_COUNTER_##id,
enum wg_device_counter { WG_DEVICE_COUNTERS(WG_COUNTER_ENUM_) WG_DEVICE_COUNTERS_N };
enum wg_peer_counter { WG_PEER_COUNTERS(WG_PEER_COUNTER_ENUM_) WG_PEER_COUNTERS_N };
#undef WG_COUNTER_ENUM_
#undef WG_PEER_COUNTER_ENUM_

enum wg_counter_scope {
	WG_COUNTER_SCOPE_DEVICE,
	WG_COUNTER_SCOPE_PEER,
};

enum wg_counter_unit {
	WG_COUNTER_UNIT_EVENTS,
	WG_COUNTER_UNIT_PACKETS,
	WG_COUNTER_UNIT_NS,
};

enum wg_counter_section {
	WG_COUNTER_SECTION_NONE,
	WG_COUNTER_SECTION_BACKPRESSURE, /* the lines above "underlay limit" */
	WG_COUNTER_SECTION_DATAPATH,	 /* the lines below it, before the CAKE instances */
	WG_COUNTER_SECTION_PEER,	 /* a peer's lines, after its own */
};

enum wg_counter_role {
	WG_COUNTER_ROLE_NONE,
	WG_COUNTER_ROLE_ITEM,
	WG_COUNTER_ROLE_ATTACH,
	WG_COUNTER_ROLE_DETAIL,
};

/* One row of a table, as the header comment describes it. */
struct wg_counter_def {
	const char *key;
	const char *json;
	enum wg_counter_unit unit;
	enum wg_counter_section section;
	enum wg_counter_role role;
	const char *label, *before, *after;
};

/* A value for each counter of a scope: v[id], there when bit id of has is set. */
struct wg_device_counters {
	uint64_t has;
	uint64_t v[WG_DEVICE_COUNTERS_N];
};

struct wg_peer_counters {
	uint64_t has;
	uint64_t v[WG_PEER_COUNTERS_N];
};

_Static_assert(WG_DEVICE_COUNTERS_N <= 64 && WG_PEER_COUNTERS_N <= 64,
	       "a counter's presence is one bit of a uint64_t");

static inline void wg_device_counters_set(struct wg_device_counters *c, enum wg_device_counter id,
					  uint64_t x)
{
	c->v[id] = x;
	c->has |= UINT64_C(1) << id;
}

static inline bool wg_device_counters_has(const struct wg_device_counters *c,
					  enum wg_device_counter id)
{
	return c->has & (UINT64_C(1) << id);
}

static inline void wg_peer_counters_set(struct wg_peer_counters *c, enum wg_peer_counter id,
					uint64_t x)
{
	c->v[id] = x;
	c->has |= UINT64_C(1) << id;
}

static inline bool wg_peer_counters_has(const struct wg_peer_counters *c, enum wg_peer_counter id)
{
	return c->has & (UINT64_C(1) << id);
}

/* The rows of scope, indexed by its counter ids; *n is how many. */
const struct wg_counter_def *wg_counters_table(enum wg_counter_scope scope, unsigned int *n);

/* The id of scope's counter whose UAPI key is the klen bytes at key, or -1. */
int wg_counters_find(enum wg_counter_scope scope, const char *key, size_t klen);

/* Appends "key=value\n" for every counter of scope that has a value (bit id of has,
 * value v[id]), in table order. */
void wg_counters_write(struct wg_devconf_buf *out, enum wg_counter_scope scope, uint64_t has,
		       const uint64_t *v);

#endif
