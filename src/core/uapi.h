/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cross-platform WireGuard UAPI (https://www.wireguard.com/xplatform/), as
 * wireguard-go's device/uapi.go speaks it, in three pure parts:
 *
 *  - a request reader that cuts a byte stream into requests ("get=1" or "set=1", then
 *    key=value lines up to a blank line), with a bound on line length and on request
 *    size, so a garbage flood cannot grow memory;
 *  - a `set=1` parser producing a struct wg_devconf with the set semantics flags
 *    (devconf.h says how to apply one). A request is parsed completely before anything
 *    is applied: a malformed request yields an error and no configuration at all;
 *  - the `get=1` serializer, printing a devconf snapshot in wireguard-go's key order.
 *
 * Both walk the key table (src/core/conf_keys.h): it names the keys, parses their values
 * (hex keys, decimal numbers, literal endpoints on this surface) and prints them.
 *
 * Errors are negative errno values, as wireguard-go writes them in `errno=N`: -EPROTO
 * for a line without '=', -EINVAL for an unknown key or a bad value, -ENOMEM, and
 * -EMSGSIZE for a line or request over the limits. (Binding errors, -EADDRINUSE, come
 * from whoever applies the configuration.)
 *
 * Set-parser differences from wireguard-go, all refusals of what it cannot apply
 * without I/O: endpoint zones must be numeric (an interface index, not a name).
 */
#ifndef CAKEWG_SRC_CORE_UAPI_H
#define CAKEWG_SRC_CORE_UAPI_H

#include <stdbool.h>
#include <stddef.h>

#include "src/core/devconf.h"

enum wg_uapi_limits {
	/* The longest valid line is about 80 bytes; this leaves room for clients' whims. */
	WG_UAPI_LINE_MAX_BYTES = 1024,
	/* Default bound on one request: a few tens of thousands of peers. */
	WG_UAPI_REQUEST_MAX_BYTES = 16 << 20,
	WG_UAPI_MSG_SIZE = 160,
};

/* The `set=1` parser: one call per line (without its '\n'), blank line excluded. */
struct wg_uapi_set {
	struct wg_devconf *conf;      /* NULL after finish or an error */
	struct wg_devconf_peer *peer; /* the peer lines apply to; NULL: device lines */
	int err;		      /* the first error, sticky */
	char msg[WG_UAPI_MSG_SIZE];   /* why, for the log; never holds a key */
};

int wg_uapi_set_init(struct wg_uapi_set *s);
/* Returns 0 or a negative errno; after an error nothing is kept. */
int wg_uapi_set_line(struct wg_uapi_set *s, const char *line, size_t len);
/* Hands over the parsed configuration. Returns 0 or the (sticky) error. */
int wg_uapi_set_finish(struct wg_uapi_set *s, struct wg_devconf **out);
void wg_uapi_set_deinit(struct wg_uapi_set *s);

/* Parses a whole set request body (lines joined by '\n', without "set=1"). */
int wg_uapi_set_parse(const char *text, size_t len, struct wg_devconf **out);

/*
 * Appends the `get=1` answer for snap, "errno=0" and the blank line included:
 * private_key (when set and non-zero), listen_port and fwmark (when non-zero), then per
 * peer public_key, preshared_key (zero when none), protocol_version, endpoint (when
 * set), last_handshake_time_sec/_nsec, tx_bytes, rx_bytes,
 * persistent_keepalive_interval and one allowed_ip per prefix. Returns 0 or -ENOMEM.
 * The text holds keys: wipe it after sending.
 */
int wg_uapi_get_write(const struct wg_devconf *snap, struct wg_devconf_buf *out);

/* Appends "errno=N\n\n" (N as given: negative, as wireguard-go). Returns 0 or -ENOMEM. */
int wg_uapi_errno_write(struct wg_devconf_buf *out, int err);

enum wg_uapi_event {
	WG_UAPI_NEED_MORE, /* all input used, no request complete yet */
	WG_UAPI_GET,	   /* a complete `get=1` request: reply wg_uapi_get_write() */
	WG_UAPI_SET,	   /* a complete, valid `set=1`: wg_uapi_reader_take(), apply, reply */
	WG_UAPI_FAILED,	   /* a complete but invalid request: reply wg_uapi_reader_error() */
	WG_UAPI_CLOSE,	   /* close the connection, after replying the error if non-zero */
	WG_UAPI_EXT_GET,   /* cakewg's `cakewg_get=1`: CAKE options, statistics, counters */
};

enum wg_uapi_reader_state {
	WG_UAPI_READ_OP,      /* expecting "get=1" or "set=1" */
	WG_UAPI_READ_GET_END, /* expecting the blank line after "get=1" */
	WG_UAPI_READ_SET,     /* set lines */
	WG_UAPI_READ_DISCARD, /* a bad set request: skipping to its blank line */
	WG_UAPI_READ_CLOSED,
};

struct wg_uapi_reader {
	enum wg_uapi_reader_state state;
	struct wg_uapi_set set;
	struct wg_devconf *done; /* a parsed set request not yet taken */
	size_t max_request_bytes;
	size_t request_bytes;
	size_t line_len;
	int err;
	bool ext_get; /* the pending get is cakewg's extension */
	char line[WG_UAPI_LINE_MAX_BYTES];
};

/* max_request_bytes 0 means WG_UAPI_REQUEST_MAX_BYTES. */
void wg_uapi_reader_init(struct wg_uapi_reader *r, size_t max_request_bytes);

/*
 * Consumes input up to and including the line that completes a request, and says what
 * happened; *used is the byte count consumed. Call again with the rest of the input:
 * requests may be pipelined. After WG_UAPI_CLOSE every call returns it again.
 */
enum wg_uapi_event wg_uapi_reader_feed(struct wg_uapi_reader *r, const char *data, size_t len,
				       size_t *used);

/*
 * The peer closed its side. An unterminated last line counts as a line and a set
 * request without its blank line completes (wireguard-go applies it too). Returns
 * WG_UAPI_SET, WG_UAPI_FAILED or WG_UAPI_CLOSE.
 */
enum wg_uapi_event wg_uapi_reader_eof(struct wg_uapi_reader *r);

/* After WG_UAPI_SET: the configuration to apply (the caller frees it). */
struct wg_devconf *wg_uapi_reader_take(struct wg_uapi_reader *r);

/* After WG_UAPI_FAILED or WG_UAPI_CLOSE: the errno to reply (0: no reply). */
int wg_uapi_reader_error(const struct wg_uapi_reader *r);

/* Why the last request failed, for the log. */
const char *wg_uapi_reader_message(const struct wg_uapi_reader *r);

/* Frees and wipes everything. */
void wg_uapi_reader_deinit(struct wg_uapi_reader *r);

#endif
