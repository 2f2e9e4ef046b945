/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration model of one interface, shaped like wireguard-tools' struct
 * wgdevice/wgpeer/wgallowedip: what a wg-quick file says, what a UAPI `set=1` request
 * asks for, and what a UAPI `get=1` reports.
 *
 * Presence flags separate "absent" from "zero". A devconf that came from a `set=1`
 * request (or from a file, which means setconf) is applied in this order:
 *   1. private key, listen port, fwmark when their HAS_ flag is set (an all-zero
 *      private key removes it); REPLACE_PEERS removes every peer first;
 *   2. each peer record in order (the same public key may appear more than once):
 *      REMOVE_ME removes the peer, if it exists, and nothing else of the record applies;
 *      UPDATE_ONLY skips the record when no such peer exists; otherwise the peer is
 *      created if needed, then preshared key, endpoint and keepalive are set when
 *      flagged (an all-zero preshared key removes it), REPLACE_ALLOWEDIPS removes all of
 *      the peer's allowed IPs, and the allowed IPs are added (or, with
 *      WG_DEVCONF_AIP_REMOVE_ME, removed) in order, host bits masked off.
 * Private keys are stored as given; whoever derives a public key clamps.
 *
 * The wg-quick part (addresses, DNS, MTU, table, hooks, SaveConfig, the CAKE option
 * strings) is kept as data for the edge; the core never acts on it.
 *
 * Memory: a devconf owns everything it points to. Keys live in fixed arrays inside the
 * structs and are wiped by wg_devconf_free(); peers are allocated one by one so that
 * growing the peer table never leaves copies of a preshared key behind.
 */
#ifndef CAKEWG_SRC_CORE_DEVCONF_H
#define CAKEWG_SRC_CORE_DEVCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/bql.h"
#include "src/core/compiler.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

enum wg_devconf_flags {
	WG_DEVCONF_REPLACE_PEERS = 1U << 0,
	WG_DEVCONF_HAS_PRIVATE_KEY = 1U << 1,
	WG_DEVCONF_HAS_LISTEN_PORT = 1U << 2,
	WG_DEVCONF_HAS_FWMARK = 1U << 3,
	/* cakewg: underlay_limit holds a setting (UnderlayLimit, underlay_limit=) */
	WG_DEVCONF_HAS_UNDERLAY_LIMIT = 1U << 4,
	/* cakewg: autorate_probe holds a setting (AutorateProbe, autorate_probe=) */
	WG_DEVCONF_HAS_AUTORATE_PROBE = 1U << 5,
};

enum wg_devconf_peer_flags {
	WG_DEVCONF_PEER_REMOVE_ME = 1U << 0,
	WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS = 1U << 1,
	WG_DEVCONF_PEER_HAS_PUBLIC_KEY = 1U << 2,
	WG_DEVCONF_PEER_HAS_PRESHARED_KEY = 1U << 3,
	WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE = 1U << 4,
	/* endpoint holds a literal address */
	WG_DEVCONF_PEER_HAS_ENDPOINT = 1U << 5,
	/* endpoint_host/endpoint_port hold a name for the edge to resolve */
	WG_DEVCONF_PEER_HAS_ENDPOINT_HOST = 1U << 6,
	/* UAPI update_only=true: do not create the peer */
	WG_DEVCONF_PEER_UPDATE_ONLY = 1U << 7,
};

/* CakeIngress / cake_ingress= value that turns ingress shaping off. */
#define WG_DEVCONF_CAKE_INGRESS_OFF "none"

/*
 * UnderlayLimit / underlay_limit=: how many bytes the underlay sockets may hold below
 * CAKE (src/core/bql.h). AUTO ("auto", the default) learns it from the drain rate, OFF
 * ("off") takes away the backpressure, anything else is a fixed limit in bytes within
 * [MIN, MAX], the range the byte queue limit itself keeps to.
 */
enum wg_devconf_underlay_limits {
	WG_DEVCONF_UNDERLAY_LIMIT_AUTO = 0,
	WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES = WG_BQL_MIN_BYTES,
	WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES = WG_BQL_MAX_BYTES,
	/* "auto", "off" or a uint32_t in decimal, and the NUL */
	WG_DEVCONF_UNDERLAY_LIMIT_STRLEN = 16,
};
#define WG_DEVCONF_UNDERLAY_LIMIT_OFF UINT32_MAX

enum wg_devconf_allowedip_flags {
	WG_DEVCONF_AIP_REMOVE_ME = 1U << 0, /* "-prefix": remove instead of add */
};

enum wg_devconf_limits {
	WG_DEVCONF_HOST_SIZE = WG_IPADDR_HOST_NAME_MAX + 1,
	/* wg-quick MTU bounds: RFC 791's minimum, and the largest IP packet. */
	WG_DEVCONF_MTU_MIN_BYTES = 68,
	WG_DEVCONF_MTU_MAX_BYTES = 65535,
	/* The WireGuard protocol version this code speaks (UAPI protocol_version). */
	WG_DEVCONF_PROTOCOL_VERSION = 1,
};

/* wg-quick's Table: unset and "auto" both mean the main table with policy routing. */
enum wg_devconf_table_mode {
	WG_DEVCONF_TABLE_UNSET,
	WG_DEVCONF_TABLE_AUTO,
	WG_DEVCONF_TABLE_OFF,
	WG_DEVCONF_TABLE_ID, /* table_id; "main", "local", "default" are 254, 255, 253 */
};

enum wg_devconf_table_ids {
	WG_DEVCONF_TABLE_DEFAULT = 253,
	WG_DEVCONF_TABLE_MAIN = 254,
	WG_DEVCONF_TABLE_LOCAL = 255,
};

struct wg_devconf_allowedip {
	struct wg_ipaddr_prefix prefix;
	uint32_t flags;
};

/* A growable list of owned, NUL-terminated strings. */
struct wg_devconf_strlist {
	char **v;
	size_t n, cap;
};

struct wg_devconf_peer {
	uint32_t flags;
	uint8_t public_key[WG_ENCODING_KEY_LEN];
	uint8_t preshared_key[WG_ENCODING_KEY_LEN];
	union wg_ipaddr_sockaddr endpoint;
	char endpoint_host[WG_DEVCONF_HOST_SIZE];
	uint16_t endpoint_port;
	uint16_t persistent_keepalive_secs;

	struct wg_devconf_allowedip *allowedips;
	size_t n_allowedips, cap_allowedips;

	/* Runtime state, reported by `get` only. */
	int64_t last_handshake_sec;
	int64_t last_handshake_nsec;
	uint64_t rx_bytes, tx_bytes;
	uint32_t protocol_version; /* 0 is reported as WG_DEVCONF_PROTOCOL_VERSION */

	/* Line of the [Peer] header when parsed from a file (for messages), else 0. */
	unsigned int source_line;
};

struct wg_devconf {
	uint32_t flags;
	uint8_t private_key[WG_ENCODING_KEY_LEN];
	uint16_t listen_port;
	uint32_t fwmark;

	struct wg_devconf_peer **peers;
	size_t n_peers, cap_peers;

	/* wg-quick only */
	struct wg_ipaddr_prefix *addresses; /* host bits kept, as for `ip address add` */
	size_t n_addresses, cap_addresses;
	struct wg_ipaddr *dns;
	size_t n_dns, cap_dns;
	struct wg_devconf_strlist dns_search;
	uint32_t mtu; /* 0: automatic */
	enum wg_devconf_table_mode table_mode;
	uint32_t table_id;
	struct wg_devconf_strlist pre_up, post_up, pre_down, post_down;
	bool save_config;
	bool kill_switch; /* KillSwitch: `cakewg up`'s rules, src/core/fwrules.h */
	bool kill_switch_allow_lan; /* KillSwitchAllowLAN: the kill switch lets the LAN pass */
	/* tc-cake option strings as written (NULL when the key is absent) */
	char *cake;
	char *cake_ingress; /* WG_DEVCONF_CAKE_INGRESS_OFF removes the ingress instance */
	/* WG_DEVCONF_UNDERLAY_LIMIT_AUTO, _OFF or bytes; set when HAS_UNDERLAY_LIMIT */
	uint32_t underlay_limit;
	/* autorate's probe address (family 0: off, the peers' single hosts are used);
	 * set when HAS_AUTORATE_PROBE */
	struct wg_ipaddr autorate_probe;
};

/* An empty configuration (no flags), or NULL when out of memory. */
struct wg_devconf *wg_devconf_new(void);

/* Frees conf and everything it owns, wiping every key first. NULL is fine. */
void wg_devconf_free(struct wg_devconf *conf);

/* Appends a zeroed peer; NULL when out of memory or at MAX_PEERS (messages.h). */
struct wg_devconf_peer *wg_devconf_add_peer(struct wg_devconf *conf);

/* The first peer with this public key (constant-time compare of each), or NULL. */
struct wg_devconf_peer *wg_devconf_find_peer(const struct wg_devconf *conf,
					     const uint8_t public_key[static WG_ENCODING_KEY_LEN]);

/* Appends an allowed IP (flags: WG_DEVCONF_AIP_*). Returns 0 or -ENOMEM. */
int wg_devconf_peer_add_allowedip(struct wg_devconf_peer *peer,
				  const struct wg_ipaddr_prefix *prefix, uint32_t flags);

/* Forgets the allowed IPs collected so far (keeps the memory). */
void wg_devconf_peer_clear_allowedips(struct wg_devconf_peer *peer);

int wg_devconf_add_address(struct wg_devconf *conf, const struct wg_ipaddr_prefix *prefix);
int wg_devconf_add_dns(struct wg_devconf *conf, const struct wg_ipaddr *server);

/* Appends a copy of len bytes of s. Returns 0 or -ENOMEM. */
int wg_devconf_strlist_add(struct wg_devconf_strlist *list, const char *s, size_t len);
void wg_devconf_strlist_free(struct wg_devconf_strlist *list);

/* Replaces *slot by a copy of len bytes of s. Returns 0 or -ENOMEM (slot unchanged). */
int wg_devconf_set_string(char **slot, const char *s, size_t len);

/* The name of a well-known routing table ("main" for 254, ...), or NULL. */
const char *wg_devconf_table_name(uint32_t id);

/* True when name (len bytes, any case) is "default", "main" or "local"; sets *id. */
WG_MUST_CHECK bool wg_devconf_table_from_name(uint32_t *id, const char *name, size_t len);

/*
 * wg's words for two values, the same in a wg-quick file and on `wg set`'s command line
 * (wireguard-tools config.c): a fwmark is "off" (any case) or a number up to 0xffffffff,
 * decimal or "0x" and hex digits; a persistent keepalive is "off" or 0-65535 seconds.
 * "off" is 0. False for anything else, the output untouched.
 */
WG_MUST_CHECK bool wg_devconf_parse_fwmark(uint32_t *mark, const char *s, size_t len);
WG_MUST_CHECK bool wg_devconf_parse_keepalive(uint16_t *secs, const char *s, size_t len);
/* Both: "off" (0) or a number up to max, decimal, or "0x" and hex digits when hex. */
WG_MUST_CHECK bool wg_devconf_parse_number(uint64_t *out, const char *s, size_t len, uint64_t max,
					   bool hex);

/*
 * cakewg's UnderlayLimit words, the same in a file, a UAPI request and on `cakewg set`:
 * "auto" (WG_DEVCONF_UNDERLAY_LIMIT_AUTO), "off" (WG_DEVCONF_UNDERLAY_LIMIT_OFF), both in
 * any case, or a size as tc reads one (qdisc/cake_parse.h's cake_parse_size, iproute2's
 * get_size): a number, then nothing or b (bytes), k/kb, m/mb, g/gb (1024-based) or
 * kbit/mbit/gbit (the same over 8); "32kb" is 32768 bytes, a fraction of a byte is
 * dropped. A size must lie in [WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES, _MAX_BYTES]: outside
 * it (0 included) the result is -ERANGE; anything else that is not one of these words
 * (empty, a sign, spaces, a NUL, trailing text) is -EINVAL. *out is set only on 0.
 */
WG_MUST_CHECK int wg_devconf_parse_underlay_limit(uint32_t *out, const char *s, size_t len);

/* Whether a setting is one the parser can return: AUTO, OFF or a size in range. */
WG_MUST_CHECK bool wg_devconf_underlay_limit_valid(uint32_t setting);

/* A setting as the parser reads it back: "auto", "off" or the bytes in decimal. Returns
 * buf. */
const char *wg_devconf_underlay_limit_format(char buf[static WG_DEVCONF_UNDERLAY_LIMIT_STRLEN],
					     uint32_t setting);

/*
 * cakewg's endpoint_host= value: "name:port", or "[name]:port" for an IPv6 literal with
 * a named zone, the name as wg-quick's Endpoint takes one (wg_ipaddr_is_host_name or
 * wg_ipaddr_is_zoned_v6_name). Parse: 0, or -EINVAL with host and port untouched.
 * Format: the text with a NUL into buf, as the parser reads it back.
 */
enum { WG_DEVCONF_ENDPOINT_HOST_STRLEN = WG_DEVCONF_HOST_SIZE + 2 + 1 + 5 };
WG_MUST_CHECK int wg_devconf_parse_endpoint_host(char host[static WG_DEVCONF_HOST_SIZE],
						 uint16_t *port, const char *s, size_t len);
void wg_devconf_format_endpoint_host(char buf[static WG_DEVCONF_ENDPOINT_HOST_STRLEN],
				     const char *host, uint16_t port);

/* A growable text buffer for the writers; wipe it when it held a key. */
struct wg_devconf_buf {
	char *data; /* NUL-terminated when non-NULL */
	size_t len, cap;
	bool failed; /* an append ran out of memory; data is incomplete */
};

__attribute__((format(printf, 2, 3))) void wg_devconf_buf_printf(struct wg_devconf_buf *buf,
								 const char *fmt, ...);
/* Appends len bytes of s verbatim. */
void wg_devconf_buf_append(struct wg_devconf_buf *buf, const char *s, size_t len);
/* Wipes and frees the contents; buf is empty afterwards. */
void wg_devconf_buf_wipe(struct wg_devconf_buf *buf);

#endif
