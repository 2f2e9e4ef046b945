/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The UAPI text protocol: request reader, `set=1` parser and `get=1` serializer, after
 * wireguard-go's device/uapi.go (IpcHandle, IpcSetOperation, IpcGetOperation).
 */
#include "src/core/uapi.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"
#include "qdisc/cake_parse.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

struct set_key {
	const char *name;
	int (*parse)(struct wg_uapi_set *s, const char *v, size_t n);
};

static bool is(const char *word, const char *s, size_t n)
{
	return strlen(word) == n && !memcmp(word, s, n);
}

__attribute__((format(printf, 3, 4))) static int set_fail(struct wg_uapi_set *s, int err,
							  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	wg_devconf_free(s->conf);
	s->conf = NULL;
	s->peer = NULL;
	s->err = err;
	return err;
}

/* Up to 40 printable bytes of a key name, for messages. */
static const char *printable(char out[48], const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 40; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
	return out;
}

static int parse_private_key(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!wg_encoding_key_from_hex(s->conf->private_key, v, n))
		return set_fail(s, -EINVAL, "failed to set private_key: not 64 hex digits");
	s->conf->flags |= WG_DEVCONF_HAS_PRIVATE_KEY;
	return 0;
}

static int parse_listen_port(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!wg_ipaddr_port_parse(&s->conf->listen_port, v, n))
		return set_fail(s, -EINVAL, "failed to parse listen_port");
	s->conf->flags |= WG_DEVCONF_HAS_LISTEN_PORT;
	return 0;
}

static int parse_fwmark(struct wg_uapi_set *s, const char *v, size_t n)
{
	uint64_t mark;

	if (!wg_encoding_parse_uint(&mark, v, n, 10, UINT32_MAX))
		return set_fail(s, -EINVAL, "invalid fwmark");
	s->conf->fwmark = (uint32_t)mark;
	s->conf->flags |= WG_DEVCONF_HAS_FWMARK;
	return 0;
}

static int parse_replace_peers(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!is("true", v, n))
		return set_fail(s, -EINVAL, "failed to set replace_peers, invalid value");
	s->conf->flags |= WG_DEVCONF_REPLACE_PEERS;
	return 0;
}

static int parse_remove(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!is("true", v, n))
		return set_fail(s, -EINVAL, "failed to set remove, invalid value");
	s->peer->flags |= WG_DEVCONF_PEER_REMOVE_ME;
	return 0;
}

static int parse_update_only(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!is("true", v, n))
		return set_fail(s, -EINVAL, "failed to set update only, invalid value");
	s->peer->flags |= WG_DEVCONF_PEER_UPDATE_ONLY;
	return 0;
}

static int parse_preshared_key(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!wg_encoding_key_from_hex(s->peer->preshared_key, v, n))
		return set_fail(s, -EINVAL, "failed to set preshared key: not 64 hex digits");
	s->peer->flags |= WG_DEVCONF_PEER_HAS_PRESHARED_KEY;
	return 0;
}

static int parse_endpoint(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (wg_ipaddr_endpoint_parse(&s->peer->endpoint, v, n))
		return set_fail(s, -EINVAL, "failed to set endpoint");
	s->peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
	return 0;
}

static int parse_keepalive(struct wg_uapi_set *s, const char *v, size_t n)
{
	uint64_t secs;

	if (!wg_encoding_parse_uint(&secs, v, n, 10, UINT16_MAX))
		return set_fail(s, -EINVAL, "failed to set persistent keepalive interval");
	s->peer->persistent_keepalive_secs = (uint16_t)secs;
	s->peer->flags |= WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE;
	return 0;
}

/* Lines are applied in order, so replacing forgets what this record added before. */
static int parse_replace_allowed_ips(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!is("true", v, n))
		return set_fail(s, -EINVAL, "failed to replace allowedips, invalid value");
	wg_devconf_peer_clear_allowedips(s->peer);
	s->peer->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
	return 0;
}

static int parse_allowed_ip(struct wg_uapi_set *s, const char *v, size_t n)
{
	struct wg_ipaddr_prefix pfx;
	uint32_t flags = 0;

	if (n && v[0] == '-') {
		flags = WG_DEVCONF_AIP_REMOVE_ME;
		v++;
		n--;
	}
	if (wg_ipaddr_prefix_parse(&pfx, v, n, WG_IPADDR_PREFIX_CIDR_REQUIRED) !=
	    WG_IPADDR_PREFIX_OK)
		return set_fail(s, -EINVAL, "failed to set allowed ip");
	if (wg_devconf_peer_add_allowedip(s->peer, &pfx, flags))
		return set_fail(s, -ENOMEM, "out of memory");
	return 0;
}

static int parse_protocol_version(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (!is("1", v, n))
		return set_fail(s, -EINVAL, "invalid protocol version");
	return 0;
}

/* cakewg extension: `cake=` and `cake_ingress=` carry a tc-cake option string, checked
 * here so that a bad word fails the whole request before anything is applied. */
static int parse_cake_string(struct wg_uapi_set *s, char **slot, const char *v, size_t n)
{
	struct cake_options opts;
	struct cake_parse_err err;
	char *copy = NULL;

	if (wg_devconf_set_string(&copy, v, n))
		return set_fail(s, -ENOMEM, "out of memory");
	memset(&opts, 0, sizeof(opts));
	if (cake_options_parse(copy, &opts, &err)) {
		free(copy);
		return set_fail(s, -EINVAL, "%s", err.msg);
	}
	free(*slot);
	*slot = copy;
	return 0;
}

static int parse_cake(struct wg_uapi_set *s, const char *v, size_t n)
{
	return parse_cake_string(s, &s->conf->cake, v, n);
}

static int parse_cake_ingress(struct wg_uapi_set *s, const char *v, size_t n)
{
	if (is(WG_DEVCONF_CAKE_INGRESS_OFF, v, n))
		return wg_devconf_set_string(&s->conf->cake_ingress, v, n)
			       ? set_fail(s, -ENOMEM, "out of memory")
			       : 0;
	return parse_cake_string(s, &s->conf->cake_ingress, v, n);
}

/* cakewg extension: `underlay_limit=auto|off|<size>` (devconf.h's words). */
static int parse_underlay_limit(struct wg_uapi_set *s, const char *v, size_t n)
{
	char word[48];

	if (wg_devconf_parse_underlay_limit(&s->conf->underlay_limit, v, n))
		return set_fail(s, -EINVAL,
				"failed to set underlay_limit: `%s' is neither auto, off nor %u-%u "
				"bytes",
				printable(word, v, n), WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES,
				WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES);
	s->conf->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
	return 0;
}

static const struct set_key device_keys[] = {
	{"private_key", parse_private_key},
	{"listen_port", parse_listen_port},
	{"fwmark", parse_fwmark},
	{"replace_peers", parse_replace_peers},
	{"cake", parse_cake},
	{"cake_ingress", parse_cake_ingress},
	{"underlay_limit", parse_underlay_limit},
};

static const struct set_key peer_keys[] = {
	{"update_only", parse_update_only},
	{"remove", parse_remove},
	{"preshared_key", parse_preshared_key},
	{"endpoint", parse_endpoint},
	{"persistent_keepalive_interval", parse_keepalive},
	{"replace_allowed_ips", parse_replace_allowed_ips},
	{"allowed_ip", parse_allowed_ip},
	{"protocol_version", parse_protocol_version},
};

static int open_peer(struct wg_uapi_set *s, const char *v, size_t n)
{
	s->peer = wg_devconf_add_peer(s->conf);
	if (!s->peer)
		return set_fail(s, -ENOMEM, "out of memory or too many peers");
	if (!wg_encoding_key_from_hex(s->peer->public_key, v, n))
		return set_fail(s, -EINVAL, "failed to get peer by public key: not 64 hex digits");
	s->peer->flags |= WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	return 0;
}

int wg_uapi_set_init(struct wg_uapi_set *s)
{
	memset(s, 0, sizeof(*s));
	s->conf = wg_devconf_new();
	if (!s->conf)
		return set_fail(s, -ENOMEM, "out of memory");
	return 0;
}

int wg_uapi_set_line(struct wg_uapi_set *s, const char *line, size_t len)
{
	const char *eq = len ? memchr(line, '=', len) : NULL;
	const struct set_key *keys = s->peer ? peer_keys : device_keys;
	size_t nkeys = s->peer ? WG_ARRAY_SIZE(peer_keys) : WG_ARRAY_SIZE(device_keys);
	size_t klen, vlen;
	char name[48];

	if (s->err)
		return s->err;
	if (!s->conf)
		return -EINVAL;
	if (!eq)
		return set_fail(s, -EPROTO, "failed to parse line: no '='");
	klen = (size_t)(eq - line);
	vlen = len - klen - 1;
	if (is("public_key", line, klen))
		return open_peer(s, eq + 1, vlen);
	for (size_t i = 0; i < nkeys; i++) {
		if (is(keys[i].name, line, klen))
			return keys[i].parse(s, eq + 1, vlen);
	}
	return set_fail(s, -EINVAL, "invalid UAPI %s key: `%s'", s->peer ? "peer" : "device",
			printable(name, line, klen));
}

int wg_uapi_set_finish(struct wg_uapi_set *s, struct wg_devconf **out)
{
	*out = NULL;
	if (s->err)
		return s->err;
	if (!s->conf)
		return -EINVAL;
	*out = s->conf;
	s->conf = NULL;
	s->peer = NULL;
	return 0;
}

void wg_uapi_set_deinit(struct wg_uapi_set *s)
{
	wg_devconf_free(s->conf);
	s->conf = NULL;
	s->peer = NULL;
}

int wg_uapi_set_parse(const char *text, size_t len, struct wg_devconf **out)
{
	struct wg_uapi_set s;
	size_t pos = 0;
	int ret = wg_uapi_set_init(&s);

	*out = NULL;
	while (!ret && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;

		ret = wg_uapi_set_line(&s, text + pos, n);
		pos += n + 1;
	}
	if (!ret)
		ret = wg_uapi_set_finish(&s, out);
	wg_uapi_set_deinit(&s);
	return ret;
}

void wg_uapi_key_write(struct wg_devconf_buf *out, const char *name,
		       const uint8_t key[static WG_ENCODING_KEY_LEN])
{
	char hex[WG_ENCODING_KEY_HEX_SIZE];

	wg_encoding_key_to_hex(hex, key);
	wg_devconf_buf_printf(out, "%s=%s\n", name, hex);
	cw_memzero(hex, sizeof(hex));
}

static void put_peer(struct wg_devconf_buf *out, const struct wg_devconf_peer *peer)
{
	static const uint8_t zero[WG_ENCODING_KEY_LEN];
	char text[WG_IPADDR_ENDPOINT_STRLEN];

	wg_uapi_key_write(out, "public_key", peer->public_key);
	wg_uapi_key_write(out, "preshared_key",
			  peer->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY ? peer->preshared_key
									  : zero);
	wg_devconf_buf_printf(out, "protocol_version=%u\n",
			      peer->protocol_version ? peer->protocol_version
						     : WG_DEVCONF_PROTOCOL_VERSION);
	if ((peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) &&
	    wg_ipaddr_endpoint_is_set(&peer->endpoint)) {
		wg_ipaddr_endpoint_format(text, &peer->endpoint);
		wg_devconf_buf_printf(out, "endpoint=%s\n", text);
	}
	wg_devconf_buf_printf(out, "last_handshake_time_sec=%lld\n",
			      (long long)peer->last_handshake_sec);
	wg_devconf_buf_printf(out, "last_handshake_time_nsec=%lld\n",
			      (long long)peer->last_handshake_nsec);
	wg_devconf_buf_printf(out, "tx_bytes=%llu\n", (unsigned long long)peer->tx_bytes);
	wg_devconf_buf_printf(out, "rx_bytes=%llu\n", (unsigned long long)peer->rx_bytes);
	wg_devconf_buf_printf(out, "persistent_keepalive_interval=%u\n",
			      peer->persistent_keepalive_secs);
	for (size_t i = 0; i < peer->n_allowedips; i++) {
		if (peer->allowedips[i].flags & WG_DEVCONF_AIP_REMOVE_ME)
			continue;
		wg_ipaddr_prefix_format(text, &peer->allowedips[i].prefix);
		wg_devconf_buf_printf(out, "allowed_ip=%s\n", text);
	}
}

int wg_uapi_get_write(const struct wg_devconf *snap, struct wg_devconf_buf *out)
{
	if ((snap->flags & WG_DEVCONF_HAS_PRIVATE_KEY) &&
	    !cw_is_zero(snap->private_key, sizeof(snap->private_key)))
		wg_uapi_key_write(out, "private_key", snap->private_key);
	if ((snap->flags & WG_DEVCONF_HAS_LISTEN_PORT) && snap->listen_port)
		wg_devconf_buf_printf(out, "listen_port=%u\n", snap->listen_port);
	if ((snap->flags & WG_DEVCONF_HAS_FWMARK) && snap->fwmark)
		wg_devconf_buf_printf(out, "fwmark=%u\n", snap->fwmark);
	for (size_t i = 0; i < snap->n_peers; i++)
		put_peer(out, snap->peers[i]);
	return wg_uapi_errno_write(out, 0);
}

int wg_uapi_errno_write(struct wg_devconf_buf *out, int err)
{
	wg_devconf_buf_printf(out, "errno=%d\n\n", err);
	return out->failed ? -ENOMEM : 0;
}

void wg_uapi_reader_init(struct wg_uapi_reader *r, size_t max_request_bytes)
{
	memset(r, 0, sizeof(*r));
	r->state = WG_UAPI_READ_OP;
	r->max_request_bytes = max_request_bytes ? max_request_bytes : WG_UAPI_REQUEST_MAX_BYTES;
}

static enum wg_uapi_event close_with(struct wg_uapi_reader *r, int err, const char *why)
{
	wg_uapi_set_deinit(&r->set);
	if (why)
		snprintf(r->set.msg, sizeof(r->set.msg), "%s", why);
	cw_memzero(r->line, sizeof(r->line));
	r->line_len = 0;
	r->err = err;
	r->state = WG_UAPI_READ_CLOSED;
	return WG_UAPI_CLOSE;
}

/* The request's first line: "get=1" and "set=1", and cakewg's "cakewg_get=1". */
static enum wg_uapi_event op_line(struct wg_uapi_reader *r, const char *line, size_t n)
{
	if (is("get=1", line, n) || is("cakewg_get=1", line, n)) {
		r->ext_get = line[0] == 'c';
		r->state = WG_UAPI_READ_GET_END;
		return WG_UAPI_NEED_MORE;
	}
	if (!is("set=1", line, n))
		return close_with(r, 0, "invalid UAPI operation");
	if (wg_uapi_set_init(&r->set))
		return close_with(r, -ENOMEM, "out of memory");
	r->state = WG_UAPI_READ_SET;
	return WG_UAPI_NEED_MORE;
}

static enum wg_uapi_event set_done(struct wg_uapi_reader *r)
{
	bool ok = r->state == WG_UAPI_READ_SET;

	r->state = WG_UAPI_READ_OP;
	/* A request the caller never took is replaced. */
	wg_devconf_free(r->done);
	r->done = NULL;
	r->err = ok ? wg_uapi_set_finish(&r->set, &r->done) : r->set.err;
	wg_uapi_set_deinit(&r->set);
	return r->err ? WG_UAPI_FAILED : WG_UAPI_SET;
}

static enum wg_uapi_event handle_line(struct wg_uapi_reader *r, const char *line, size_t n)
{
	switch (r->state) {
	case WG_UAPI_READ_OP:
		return op_line(r, line, n);
	case WG_UAPI_READ_GET_END:
		if (n)
			return close_with(r, -EINVAL, "trailing character in UAPI get");
		r->state = WG_UAPI_READ_OP;
		return r->ext_get ? WG_UAPI_EXT_GET : WG_UAPI_GET;
	case WG_UAPI_READ_SET:
		if (!n)
			return set_done(r);
		if (wg_uapi_set_line(&r->set, line, n))
			r->state = WG_UAPI_READ_DISCARD;
		return WG_UAPI_NEED_MORE;
	case WG_UAPI_READ_DISCARD:
		return n ? WG_UAPI_NEED_MORE : set_done(r);
	case WG_UAPI_READ_CLOSED:
		break;
	}
	return WG_UAPI_CLOSE;
}

/* Runs the buffered line and forgets it: it may have held a key. */
static enum wg_uapi_event flush_line(struct wg_uapi_reader *r)
{
	enum wg_uapi_event ev;

	if (r->state == WG_UAPI_READ_OP)
		r->request_bytes = r->line_len + 1;
	ev = handle_line(r, r->line, r->line_len);
	cw_memzero(r->line, r->line_len);
	r->line_len = 0;
	return ev;
}

enum wg_uapi_event wg_uapi_reader_feed(struct wg_uapi_reader *r, const char *data, size_t len,
				       size_t *used)
{
	size_t pos = 0;

	*used = 0;
	while (r->state != WG_UAPI_READ_CLOSED && pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - data - pos) : len - pos;
		enum wg_uapi_event ev;

		if (n > sizeof(r->line) - 1 - r->line_len)
			return close_with(r, -EMSGSIZE, "UAPI line too long");
		if (r->state != WG_UAPI_READ_OP &&
		    (r->request_bytes += n + (nl != NULL)) > r->max_request_bytes)
			return close_with(r, -EMSGSIZE, "UAPI request too large");
		memcpy(r->line + r->line_len, data + pos, n);
		r->line_len += n;
		pos += n + (nl != NULL);
		*used = pos;
		if (!nl)
			break;
		ev = flush_line(r);
		if (ev != WG_UAPI_NEED_MORE)
			return ev;
	}
	return r->state == WG_UAPI_READ_CLOSED ? WG_UAPI_CLOSE : WG_UAPI_NEED_MORE;
}

enum wg_uapi_event wg_uapi_reader_eof(struct wg_uapi_reader *r)
{
	enum wg_uapi_event ev = WG_UAPI_NEED_MORE;

	if (r->state == WG_UAPI_READ_CLOSED)
		return WG_UAPI_CLOSE;
	if (r->line_len)
		ev = flush_line(r);
	if (ev != WG_UAPI_NEED_MORE)
		return ev;
	if (r->state == WG_UAPI_READ_SET || r->state == WG_UAPI_READ_DISCARD)
		return set_done(r);
	return close_with(r, 0, NULL);
}

struct wg_devconf *wg_uapi_reader_take(struct wg_uapi_reader *r)
{
	struct wg_devconf *conf = r->done;

	r->done = NULL;
	return conf;
}

int wg_uapi_reader_error(const struct wg_uapi_reader *r)
{
	return r->err;
}

const char *wg_uapi_reader_message(const struct wg_uapi_reader *r)
{
	return r->set.msg;
}

void wg_uapi_reader_deinit(struct wg_uapi_reader *r)
{
	wg_uapi_set_deinit(&r->set);
	wg_devconf_free(r->done);
	cw_memzero(r, sizeof(*r));
	r->state = WG_UAPI_READ_CLOSED;
}
