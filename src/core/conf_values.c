/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The value types of the key table (conf_keys.h): one parser and one printer each,
 * shared by the wg-quick file, the UAPI and `cakewg set`.
 */
#include "src/core/conf_values.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

#define COMMENT_CHAR '#'

void *wg_conf_field(const struct wg_conf_key *k, const struct wg_conf_target *t)
{
	return (char *)(k->section == WG_CONF_PEER ? (void *)t->peer : (void *)t->conf) + k->offset;
}

static uint32_t *flags_of(const struct wg_conf_key *k, const struct wg_conf_target *t)
{
	return k->section == WG_CONF_PEER ? &t->peer->flags : &t->conf->flags;
}

static void mark(const struct wg_conf_key *k, const struct wg_conf_target *t)
{
	*flags_of(k, t) |= k->has;
}

/* The key's flag is set (or it has none). */
static bool present(const struct wg_conf_key *k, const struct wg_conf_target *t)
{
	return !k->has || (*flags_of(k, t) & k->has);
}

/* The UAPI (a `set=1` request, a `get=1` reply) says keys in hex and numbers in decimal. */
static bool uapi(enum wg_conf_surface s)
{
	return s == WG_CONF_SET || s == WG_CONF_GET;
}

/* Zero means unset on this surface. */
static bool omit_zero(const struct wg_conf_key *k, enum wg_conf_surface s)
{
	return (k->flags & WG_CONF_KEY_ZERO_UNSET) && s != WG_CONF_SET;
}

int wg_conf_fail(struct wg_conf_result *r, int err, const char *at, size_t len)
{
	r->err = err;
	r->at = at;
	r->at_len = len;
	return err;
}

/* One line: "Name = value" in a file, "name=value" on the UAPI. */
void wg_conf_put(struct wg_devconf_buf *out, const struct wg_conf_key *k, enum wg_conf_surface s,
		 const char *value)
{
	wg_devconf_buf_printf(out, s == WG_CONF_FILE ? "%s = %s\n" : "%s=%s\n",
			      wg_conf_key_name(k, s), value);
}

static bool is(const char *word, const char *s, size_t n)
{
	return strlen(word) == n && !memcmp(word, s, n);
}

/* True when s can be written as a file value: one line, no comment where one would cut it. */
bool wg_conf_file_writable(const char *s, bool hash_ok)
{
	return !strchr(s, '\n') && (hash_ok || !strchr(s, COMMENT_CHAR));
}

/* --- keys: hex on the UAPI, base64 elsewhere --- */

static int key_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		     enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	uint8_t *key = wg_conf_field(k, t);
	bool ok = uapi(s) ? wg_encoding_key_from_hex(key, v, n)
			  : wg_encoding_key_from_base64(key, v, n);

	if (!ok)
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	/* get says "none" as the zero key (key_print), as wg reads it */
	if (s == WG_CONF_GET && !(k->flags & (WG_CONF_KEY_REQUIRED | WG_CONF_KEY_ZERO_UNSET)) &&
	    cw_is_zero(key, WG_ENCODING_KEY_LEN))
		*flags_of(k, t) &= ~k->has;
	else
		mark(k, t);
	return WG_CONF_OK;
}

static int key_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		     enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	static const uint8_t zero[WG_ENCODING_KEY_LEN];
	const uint8_t *key = wg_conf_field(k, t);
	char text[WG_ENCODING_KEY_B64_SIZE + WG_ENCODING_KEY_HEX_SIZE];

	if (!present(k, t)) {
		if (k->flags & WG_CONF_KEY_REQUIRED && s != WG_CONF_GET)
			return -EINVAL;
		/* get says "no preshared key" as the zero key */
		if (s != WG_CONF_GET || (k->flags & WG_CONF_KEY_ZERO_UNSET))
			return 0;
		key = zero;
	}
	if (omit_zero(k, s) && cw_is_zero(key, WG_ENCODING_KEY_LEN))
		return 0;
	if (s == WG_CONF_FILE)
		wg_encoding_key_to_base64(text, key);
	else
		wg_encoding_key_to_hex(text, key);
	wg_conf_put(out, k, s, text);
	cw_memzero(text, sizeof(text));
	return 0;
}

const struct wg_conf_type wg_conf_type_key = {"key", key_parse, key_print, NULL};

/* --- a UDP port --- */

static int port_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	(void)s;
	if (!wg_ipaddr_port_parse(wg_conf_field(k, t), v, n))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	mark(k, t);
	return WG_CONF_OK;
}

static int port_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const uint16_t *port = wg_conf_field(k, t);
	char text[8];

	if (!present(k, t) || (omit_zero(k, s) && !*port))
		return 0;
	snprintf(text, sizeof(text), "%u", *port);
	wg_conf_put(out, k, s, text);
	return 0;
}

const struct wg_conf_type wg_conf_type_port = {"port", port_parse, port_print, NULL};

/* --- numbers wg also says in words: decimal on the UAPI; "off" for 0 elsewhere, and
 * 0x... where hex is allowed (a fwmark), as wg reads them --- */

static int number_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r,
			uint64_t max, bool hex, uint64_t *num)
{
	bool ok = uapi(s) ? wg_encoding_parse_uint(num, v, n, 10, max)
			  : wg_devconf_parse_number(num, v, n, max, hex);

	if (!ok)
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	mark(k, t);
	return WG_CONF_OK;
}

static int fwmark_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	uint64_t num;
	int ret = number_parse(k, t, s, v, n, r, UINT32_MAX, true, &num);

	if (!ret)
		*(uint32_t *)wg_conf_field(k, t) = (uint32_t)num;
	return ret;
}

static int fwmark_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const uint32_t *mark_field = wg_conf_field(k, t);
	char text[16];

	if (!present(k, t) || (omit_zero(k, s) && !*mark_field))
		return 0;
	snprintf(text, sizeof(text), s == WG_CONF_FILE ? "0x%x" : "%u", *mark_field);
	wg_conf_put(out, k, s, text);
	return 0;
}

const struct wg_conf_type wg_conf_type_fwmark = {"fwmark", fwmark_parse, fwmark_print, NULL};

/* --- persistent keepalive: seconds, or "off" outside the UAPI --- */

static int keepalive_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			   enum wg_conf_surface s, const char *v, size_t n,
			   struct wg_conf_result *r)
{
	uint64_t num;
	int ret = number_parse(k, t, s, v, n, r, UINT16_MAX, false, &num);

	if (!ret)
		*(uint16_t *)wg_conf_field(k, t) = (uint16_t)num;
	return ret;
}

/* A file says "off" for zero; get always says the number, flag or not. */
static int keepalive_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			   enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const uint16_t *secs = wg_conf_field(k, t);
	char text[8];

	if (s != WG_CONF_GET && !present(k, t))
		return 0;
	if (s == WG_CONF_FILE && !*secs)
		snprintf(text, sizeof(text), "off");
	else
		snprintf(text, sizeof(text), "%u", *secs);
	wg_conf_put(out, k, s, text);
	return 0;
}

const struct wg_conf_type wg_conf_type_keepalive = {"keepalive", keepalive_parse, keepalive_print,
						    NULL};

/* --- an endpoint: a literal address on the UAPI (and on `cakewg set`, once resolved);
 * in a file a host name is kept for the edge to resolve --- */

static int endpoint_parse_file(const struct wg_conf_key *k, const struct wg_conf_target *t,
			       const char *v, size_t n, struct wg_conf_result *r)
{
	struct wg_devconf_peer *peer = t->peer;
	const char *host, *port;
	size_t hl, pl;

	switch (wg_ipaddr_endpoint_split(v, n, &host, &hl, &port, &pl)) {
	case WG_IPADDR_ENDPOINT_SPLIT_NO_BRACE:
		return wg_conf_fail(r, WG_CONF_E_ENDPOINT_BRACE, v, n);
	case WG_IPADDR_ENDPOINT_SPLIT_NO_PORT:
		return wg_conf_fail(r, WG_CONF_E_ENDPOINT_NO_PORT, v, n);
	case WG_IPADDR_ENDPOINT_SPLIT_OK:
		break;
	}
	if (!wg_ipaddr_port_parse(&peer->endpoint_port, port, pl))
		return wg_conf_fail(r, WG_CONF_E_ENDPOINT_PORT, v, n);
	memset(peer->endpoint_host, 0, sizeof(peer->endpoint_host));
	peer->flags &= ~(WG_DEVCONF_PEER_HAS_ENDPOINT | WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
	if (wg_ipaddr_endpoint_from_host(wg_conf_field(k, t), host, hl, peer->endpoint_port)) {
		mark(k, t);
		return WG_CONF_OK;
	}
	if (!wg_ipaddr_is_host_name(host, hl) && !wg_ipaddr_is_zoned_v6_name(host, hl))
		return wg_conf_fail(r, WG_CONF_E_ENDPOINT_HOST, v, n);
	memcpy(peer->endpoint_host, host, hl);
	peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
	return WG_CONF_OK;
}

/* A get reply: a literal address, else a name (or a named IPv6 zone) kept as text, since
 * resolving it is I/O. */
static int endpoint_parse_get(const struct wg_conf_key *k, const struct wg_conf_target *t,
			      const char *v, size_t n, struct wg_conf_result *r)
{
	struct wg_devconf_peer *peer = t->peer;
	const char *host, *port;
	size_t hl, pl;

	peer->flags &=
		~(uint32_t)(WG_DEVCONF_PEER_HAS_ENDPOINT | WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
	peer->endpoint_host[0] = '\0';
	peer->endpoint_port = 0;
	if (!wg_ipaddr_endpoint_parse(wg_conf_field(k, t), v, n)) {
		mark(k, t);
		return WG_CONF_OK;
	}
	if (wg_ipaddr_endpoint_split(v, n, &host, &hl, &port, &pl) !=
		    WG_IPADDR_ENDPOINT_SPLIT_OK ||
	    !wg_ipaddr_port_parse(&peer->endpoint_port, port, pl) ||
	    (!wg_ipaddr_is_host_name(host, hl) && !wg_ipaddr_is_zoned_v6_name(host, hl)) ||
	    hl >= sizeof(peer->endpoint_host))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	memcpy(peer->endpoint_host, host, hl);
	peer->endpoint_host[hl] = '\0';
	peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
	return WG_CONF_OK;
}

static int endpoint_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			  enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	if (s == WG_CONF_FILE)
		return endpoint_parse_file(k, t, v, n, r);
	if (s == WG_CONF_GET)
		return endpoint_parse_get(k, t, v, n, r);
	if (wg_ipaddr_endpoint_parse(wg_conf_field(k, t), v, n))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	mark(k, t);
	return WG_CONF_OK;
}

static int endpoint_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			  enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const struct wg_devconf_peer *peer = t->peer;
	const union wg_ipaddr_sockaddr *ep = wg_conf_field(k, t);
	char text[WG_IPADDR_ENDPOINT_STRLEN];
	size_t n;

	if (present(k, t)) {
		if (!wg_ipaddr_endpoint_is_set(ep)) {
			/* HAS_ENDPOINT without an address family: a broken devconf */
			if (s == WG_CONF_SET)
				return -EINVAL;
			if (s == WG_CONF_GET)
				return 0;
		}
		wg_ipaddr_endpoint_format_as(
			text, ep, s == WG_CONF_FILE ? t->addr_text : WG_IPADDR_TEXT_RFC5952);
		wg_conf_put(out, k, s, text);
		return 0;
	}
	if (!(peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST) || s == WG_CONF_GET)
		return 0;
	/* A name: a file keeps it, a request needs it resolved first. */
	if (s == WG_CONF_SET)
		return -EDESTADDRREQ;
	n = strnlen(peer->endpoint_host, sizeof(peer->endpoint_host));
	if (n == sizeof(peer->endpoint_host) ||
	    (!wg_ipaddr_is_host_name(peer->endpoint_host, n) &&
	     !wg_ipaddr_is_zoned_v6_name(peer->endpoint_host, n)))
		return -EINVAL;
	wg_devconf_buf_printf(out,
			      strchr(peer->endpoint_host, ':') ? "%s = [%s]:%u\n" : "%s = %s:%u\n",
			      k->file, peer->endpoint_host, peer->endpoint_port);
	return 0;
}

const struct wg_conf_type wg_conf_type_endpoint = {"endpoint", endpoint_parse, endpoint_print,
						   NULL};

/* --- cakewg's endpoint_host=: the name an endpoint was resolved from, carried beside
 * the address so that the daemon can resolve it again (src/core/reresolve.h) --- */

static int endpoint_host_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			       enum wg_conf_surface s, const char *v, size_t n,
			       struct wg_conf_result *r)
{
	struct wg_devconf_peer *peer = t->peer;

	(void)s;
	if (wg_devconf_parse_endpoint_host(peer->endpoint_host, &peer->endpoint_port, v, n))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	mark(k, t);
	return WG_CONF_OK;
}

static int endpoint_host_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			       enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	char text[WG_DEVCONF_ENDPOINT_HOST_STRLEN];

	if (!(t->peer->flags & k->has))
		return 0;
	wg_devconf_format_endpoint_host(text, t->peer->endpoint_host, t->peer->endpoint_port);
	wg_conf_put(out, k, s, text);
	return 0;
}

const struct wg_conf_type wg_conf_type_endpoint_host = {"endpoint_host", endpoint_host_parse,
							endpoint_host_print, NULL};

/* --- tc-cake option strings: checked on the UAPI and `cakewg set`, kept as written in a
 * file (wg-quick checks them before `up` acts) --- */

int wg_conf_cake_check(const char *options, struct cake_parse_err *err)
{
	struct cake_options opts;

	memset(&opts, 0, sizeof(opts));
	return cake_options_parse(options, &opts, err) ? -EINVAL : 0;
}

static int cake_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	struct cake_parse_err err;
	char *copy = NULL;

	if (wg_devconf_set_string(&copy, v, n))
		return wg_conf_fail(r, WG_CONF_E_NOMEM, v, n);
	if (s != WG_CONF_FILE && !(k->off_word && is(k->off_word, v, n)) &&
	    wg_conf_cake_check(copy, &err)) {
		free(copy);
		snprintf(r->detail, sizeof(r->detail), "%s", err.msg);
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	}
	free(*(char **)wg_conf_field(k, t));
	*(char **)wg_conf_field(k, t) = copy;
	return WG_CONF_OK;
}

static int cake_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const char *str = *(char *const *)wg_conf_field(k, t);

	if (!str)
		return 0;
	/* a request line ends at '\n'; a file line also at a comment */
	if (s == WG_CONF_FILE ? !wg_conf_file_writable(str, false) : !!strpbrk(str, "\r\n"))
		return -EINVAL;
	wg_conf_put(out, k, s, str);
	return 0;
}

const struct wg_conf_type wg_conf_type_cake = {"cake", cake_parse, cake_print, NULL};

/* --- the underlay limit: auto, off or a size, the same words everywhere --- */

static int underlay_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			  enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	(void)s;
	if (wg_devconf_parse_underlay_limit(wg_conf_field(k, t), v, n))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	mark(k, t);
	return WG_CONF_OK;
}

/* auto is the default: a file says it only when it said so (the flag). */
static int underlay_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			  enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const uint32_t *limit = wg_conf_field(k, t);
	char text[WG_DEVCONF_UNDERLAY_LIMIT_STRLEN];

	if (!present(k, t))
		return 0;
	if (!wg_devconf_underlay_limit_valid(*limit))
		return -EINVAL;
	wg_conf_put(out, k, s, wg_devconf_underlay_limit_format(text, *limit));
	return 0;
}

static void underlay_range(char buf[static WG_CONF_RANGE_SIZE])
{
	snprintf(buf, WG_CONF_RANGE_SIZE, "%u-%u", WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES,
		 WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES);
}

const struct wg_conf_type wg_conf_type_underlay_limit = {"underlay_limit", underlay_parse,
							 underlay_print, underlay_range};

/* --- one IP address, or "off" (family 0): the same words everywhere --- */

static int ipaddr_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	struct wg_ipaddr *a = wg_conf_field(k, t);

	(void)s;
	if (is("off", v, n))
		memset(a, 0, sizeof(*a));
	else if (!wg_ipaddr_parse(a, v, n))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	mark(k, t);
	return WG_CONF_OK;
}

static int ipaddr_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const struct wg_ipaddr *a = wg_conf_field(k, t);
	char text[WG_IPADDR_STRLEN];

	if (!present(k, t))
		return 0;
	if (a->family)
		wg_ipaddr_format(text, a);
	wg_conf_put(out, k, s, a->family ? text : "off");
	return 0;
}

const struct wg_conf_type wg_conf_type_ipaddr = {"ipaddr", ipaddr_parse, ipaddr_print, NULL};

/* --- UAPI words: "true" sets the flag; on `cakewg set` the word alone does --- */

static int true_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	if (s != WG_CONF_ARG && !is("true", v, n))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	mark(k, t);
	return WG_CONF_OK;
}

static int true_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	if (!(*flags_of(k, t) & k->has))
		return 0;
	wg_conf_put(out, k, s, "true");
	return k->flags & WG_CONF_KEY_ENDS_RECORD ? WG_CONF_PRINT_END : 0;
}

const struct wg_conf_type wg_conf_type_true = {"true", true_parse, true_print, NULL};

/* replace_allowed_ips=true: lines apply in order, so it forgets what came before. */
static int replace_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			 enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	int ret = true_parse(k, t, s, v, n, r);

	if (!ret)
		wg_devconf_peer_clear_allowedips(t->peer);
	return ret;
}

const struct wg_conf_type wg_conf_type_replace = {"replace", replace_parse, true_print, NULL};

/* --- protocol_version: only 1 is taken; get says the peer's (1 when unknown) --- */

/* A request must say 1; a reply's number is kept, anything else skipped (as wg does). */
static int version_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			 enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	uint64_t version;

	if (s == WG_CONF_GET) {
		if (wg_encoding_parse_uint(&version, v, n, 10, UINT32_MAX))
			*(uint32_t *)wg_conf_field(k, t) = (uint32_t)version;
		return WG_CONF_OK;
	}
	if (!is("1", v, n))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	return WG_CONF_OK;
}

static int version_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			 enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const uint32_t *version = wg_conf_field(k, t);

	wg_devconf_buf_printf(out, "%s=%u\n", wg_conf_key_name(k, s),
			      *version ? *version : WG_DEVCONF_PROTOCOL_VERSION);
	return 0;
}

const struct wg_conf_type wg_conf_type_protocol_version = {"protocol_version", version_parse,
							   version_print, NULL};

/* --- runtime counters, reported by get only: decimal, up to max --- */

static int decimal_parse(uint64_t *x, uint64_t max, const char *v, size_t n,
			 struct wg_conf_result *r)
{
	return wg_encoding_parse_uint(x, v, n, 10, max) ? WG_CONF_OK
							 : wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
}

static int counter_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			 enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	(void)s;
	return decimal_parse(wg_conf_field(k, t), UINT64_MAX, v, n, r);
}

static int counter_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			 enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	wg_devconf_buf_printf(out, "%s=%llu\n", wg_conf_key_name(k, s),
			      (unsigned long long)*(const uint64_t *)wg_conf_field(k, t));
	return 0;
}

const struct wg_conf_type wg_conf_type_counter = {"counter", counter_parse, counter_print, NULL};

/* Never negative on the wire; an int64_t in the devconf. */
static int time_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	uint64_t x;
	int ret = decimal_parse(&x, INT64_MAX, v, n, r);

	(void)s;
	if (!ret)
		*(int64_t *)wg_conf_field(k, t) = (int64_t)x;
	return ret;
}

static int time_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	wg_devconf_buf_printf(out, "%s=%lld\n", wg_conf_key_name(k, s),
			      (long long)*(const int64_t *)wg_conf_field(k, t));
	return 0;
}

const struct wg_conf_type wg_conf_type_time = {"time", time_parse, time_print, NULL};
