/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The client side of the UAPI: parsers for what a daemon answers, and the pure text
 * helpers `cakewg show` formats them with.
 *
 *  - The `get=1` reply, read as wireguard-tools' userspace_get_device (ipc-uapi.h)
 *    reads it, into a struct wg_devconf with the runtime fields (handshake time,
 *    transfer counters, protocol version) filled in.
 *  - The reply to cakewg's extension request `cakewg_get=1`: the CAKE option strings,
 *    the `tc -s qdisc` text lines and the `tc -j` JSON objects of the egress and
 *    ingress instances, the counters of src/core/counters.h (the device's and each
 *    peer's), and the underlay's byte limit (its size, the drain rate it was learnt
 *    from, its setting).
 *
 * Both replies are "key=value" lines, each ending in '\n', closed by "errno=N" and a
 * blank line; nothing after the blank line is read. As wireguard-tools does, a key the
 * parser does not know is skipped, and a known key with a malformed value, a line
 * without '=', a line with a NUL, or text that stops before the blank line is a
 * protocol error (-EPROTO). The errno line may carry either sign (wireguard-go sends
 * negative values); a non-zero one is the parser's result, negated.
 */
#ifndef CAKEWG_SRC_CORE_UAPI_REPLY_H
#define CAKEWG_SRC_CORE_UAPI_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/compiler.h"
#include "src/core/counters.h"
#include "src/core/devconf.h"
#include "src/core/encoding.h"

enum wg_uapi_reply_limits {
	/* Nesting depth accepted in a cake_*_json object (tc's output nests 3 deep). */
	WG_UAPI_REPLY_JSON_MAX_DEPTH = 32,
	/* Room for any text the fmt helpers below write, colours included. */
	WG_UAPI_REPLY_FMT_SIZE = 256,
	WG_UAPI_REPLY_SECS_PER_MINUTE = 60,
	WG_UAPI_REPLY_SECS_PER_HOUR = 60 * WG_UAPI_REPLY_SECS_PER_MINUTE,
	WG_UAPI_REPLY_SECS_PER_DAY = 24 * WG_UAPI_REPLY_SECS_PER_HOUR,
	WG_UAPI_REPLY_SECS_PER_YEAR = 365 * WG_UAPI_REPLY_SECS_PER_DAY,
};

/*
 * Parses a `get=1` reply of len bytes. On success returns 0 and hands over *out:
 * private_key (WG_DEVCONF_HAS_PRIVATE_KEY), listen_port and fwmark (their HAS_ flags)
 * from the lines before the first public_key; per peer the public key, the preshared
 * key (HAS_PRESHARED_KEY only when non-zero, as wg), the endpoint (HAS_ENDPOINT for a
 * literal address; HAS_ENDPOINT_HOST with endpoint_host/endpoint_port for a name or a
 * named IPv6 zone, which the caller may resolve), persistent keepalive, allowed IPs in
 * order, last handshake time, rx/tx bytes and protocol version. Otherwise *out is NULL
 * and the result is -EPROTO, -ENOMEM, or the daemon's non-zero errno as a negative value.
 */
int wg_uapi_reply_get_parse(const char *text, size_t len, struct wg_devconf **out);

/* One CAKE instance as the extension reply describes it. */
struct wg_uapi_reply_cake_qdisc {
	char *options;			 /* cake_<dir>=: tc option text; NULL when absent */
	struct wg_devconf_strlist stats; /* cake_<dir>_stats=: `tc -s` lines, in order */
	char *json;			 /* cake_<dir>_json=: one JSON object; NULL when absent */
};

struct wg_uapi_reply_cake_peer {
	uint8_t public_key[WG_ENCODING_KEY_LEN];
	struct wg_peer_counters counters; /* the rows of WG_PEER_COUNTERS the reply carried */
	/* endpoint_host=: the name the daemon resolves the endpoint from ("": none) */
	char endpoint_host[WG_DEVCONF_HOST_SIZE];
	uint16_t endpoint_port;
};

struct wg_uapi_reply_cake {
	struct wg_uapi_reply_cake_qdisc egress, ingress;
	/* The underlay sockets' byte limit: underlay_limit= (bytes now), underlay_drain_rate=
	 * (bytes per second; 0: not measured yet), underlay_limit_setting= (auto, off or
	 * bytes, read as wg_devconf_parse_underlay_limit reads them). */
	bool has_underlay_limit, has_underlay_drain_rate, has_underlay_limit_setting;
	uint32_t underlay_limit;
	uint64_t underlay_drain_rate;
	/* WG_DEVCONF_UNDERLAY_LIMIT_AUTO, _OFF or bytes */
	uint32_t underlay_limit_setting;
	/* autorate_probe=: the AutorateProbe setting, when the daemon has one */
	bool has_autorate_probe;
	struct wg_ipaddr autorate_probe;
	struct wg_device_counters counters; /* the rows of WG_DEVICE_COUNTERS it carried */
	struct wg_uapi_reply_cake_peer *peers; /* in reply order, one per public_key line */
	size_t n_peers, cap_peers;
	/* After a successful parse: the peers by key, equal keys in reply order, so that
	 * finding each of n peers costs O(n log n), not O(n^2). NULL: search peers. */
	const struct wg_uapi_reply_cake_peer **by_key;
};

/*
 * Parses the reply to `cakewg_get=1` into *out (which is initialised here; free it
 * with wg_uapi_reply_cake_free() whatever the result). Device keys (cake_egress,
 * cake_egress_stats, cake_egress_json, the cake_ingress* trio,
 * underlay_limit, underlay_drain_rate, underlay_limit_setting, the device counters of
 * src/core/counters.h) may come anywhere; a repeated one replaces the earlier value,
 * except _stats lines, which accumulate. A peer's counters belong to the peer opened by
 * the last public_key line and are skipped before the first. Option and stats text must
 * be printable (tabs allowed), a JSON value a well-formed JSON object.
 * Returns 0, -EPROTO, -ENOMEM or the daemon's non-zero errno, negative.
 */
int wg_uapi_reply_cake_parse(const char *text, size_t len, struct wg_uapi_reply_cake *out);

void wg_uapi_reply_cake_free(struct wg_uapi_reply_cake *cake);

/* The last record for this public key, or NULL. Keys are public: a binary search. */
const struct wg_uapi_reply_cake_peer *
wg_uapi_reply_cake_find_peer(const struct wg_uapi_reply_cake *cake,
			     const uint8_t public_key[static WG_ENCODING_KEY_LEN]);

/* Each peer of conf that the reply gives an endpoint_host= is written with that name
 * for its endpoint, as a file says it (HAS_ENDPOINT_HOST, not the address), so that
 * showconf and SaveConfig keep the name the daemon resolves. */
void wg_uapi_reply_cake_names(const struct wg_uapi_reply_cake *cake, struct wg_devconf *conf);

/* True when the len bytes are exactly one JSON object (RFC 8259), whitespace around
 * it allowed, nested at most WG_UAPI_REPLY_JSON_MAX_DEPTH deep. */
WG_MUST_CHECK bool wg_uapi_reply_json_object_valid(const char *s, size_t len);

/*
 * Text for `show`, as wireguard-tools' show.c writes it. With colour, unit words are
 * wrapped in the terminal's cyan and reset sequences. Each writes a NUL-terminated
 * string of at most size bytes and returns buf.
 *
 * duration: "1 year, 2 days, 1 minute, 3 seconds" (zero parts left out; "" for 0).
 * ago: "<duration> ago", "Now" when then == now, or wg's clock warning when then
 * lies in the future.
 * every: "every <duration>".
 * bytes: "512 B", "1.50 KiB", "1.23 MiB", "4.00 GiB", "2.00 TiB" (two decimals,
 * 1024-based, B below 1 KiB).
 */
const char *wg_uapi_reply_fmt_duration(char *buf, size_t size, uint64_t secs, bool color);
const char *wg_uapi_reply_fmt_ago(char *buf, size_t size, int64_t then_sec, int64_t now_sec,
				  bool color);
const char *wg_uapi_reply_fmt_every(char *buf, size_t size, uint64_t secs, bool color);
const char *wg_uapi_reply_fmt_bytes(char *buf, size_t size, uint64_t bytes, bool color);

/* Appends s as a JSON string, quotes included, escaping as RFC 8259 requires. */
void wg_uapi_reply_json_string(struct wg_devconf_buf *out, const char *s, size_t len);

#endif
