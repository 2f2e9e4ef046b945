/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * UAPI replies as a client reads them: `get=1` after wireguard-tools' ipc-uapi.h
 * (userspace_get_device), cakewg's `cakewg_get=1` extension, and the text helpers of
 * `show` after wireguard-tools' show.c (pretty_time, ago, every, bytes).
 */
#include "src/core/uapi_reply.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/conf_keys.h"
#include "src/core/messages.h"

#define FG_CYAN "\x1b[36m"
#define FG_RED	"\x1b[31m"
#define RESET	"\x1b[0m"

/* Called for each key=value line but errno; returns 0 or a negative errno. */
typedef int (*line_fn)(void *ctx, const char *key, size_t klen, const char *v, size_t vlen);

static bool is(const char *word, const char *s, size_t n)
{
	return strlen(word) == n && !memcmp(word, s, n);
}

/* wg's NUM(): decimal digits only, no sign, at most max. */
static bool num(uint64_t *out, const char *v, size_t n, uint64_t max)
{
	return wg_encoding_parse_uint(out, v, n, 10, max);
}

/* "errno=N" with N of either sign, as an int; the result is -|N|. */
static bool parse_errno(int *err, const char *v, size_t n)
{
	uint64_t mag;
	bool neg = n && v[0] == '-';

	if (!num(&mag, v + neg, n - neg, INT_MAX))
		return false;
	*err = -(int)mag;
	return true;
}

/*
 * Walks the lines of a reply up to its blank line. Every line must end in '\n', hold
 * an '=' and no NUL. Returns the errno line's value (0 or negative) once the blank
 * line arrives after one, -EPROTO for anything cut short or malformed, or fn's error.
 */
static int walk_reply(const char *text, size_t len, line_fn fn, void *ctx)
{
	const char *p = text, *end = text + len;
	bool have_errno = false;
	int remote = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq;
		size_t n, klen;
		int ret;

		if (!nl)
			return -EPROTO;
		n = (size_t)(nl - p);
		if (!n)
			return have_errno ? remote : -EPROTO;
		eq = memchr(p, '=', n);
		if (!eq || memchr(p, '\0', n))
			return -EPROTO;
		klen = (size_t)(eq - p);
		if (is("errno", p, klen)) {
			if (!parse_errno(&remote, eq + 1, n - klen - 1))
				return -EPROTO;
			have_errno = true;
		} else {
			ret = fn(ctx, p, klen, eq + 1, n - klen - 1);
			if (ret)
				return ret;
		}
		p = nl + 1;
	}
	return -EPROTO;
}

/* ---- get=1 ---- */

/*
 * One line, read by the key table (src/core/conf_keys.h) as the GET surface. As wg does,
 * unknown keys are skipped, and so are device keys inside a peer and peer keys before
 * the first one; public_key opens a peer.
 */
static int get_line(void *ctx, const char *key, size_t klen, const char *v, size_t vlen)
{
	struct wg_conf_target *t = ctx;
	const struct wg_conf_key *k = wg_conf_key_find(
		WG_CONF_GET, t->peer ? WG_CONF_PEER : WG_CONF_INTERFACE, key, klen, 0);
	struct wg_conf_result r = {0};

	if (!k)
		return 0;
	if (k->flags & WG_CONF_KEY_STARTS_PEER) {
		t->peer = wg_devconf_add_peer(t->conf);
		if (!t->peer)
			return -ENOMEM;
	}
	switch (wg_conf_key_parse(k, t, WG_CONF_GET, v, vlen, &r)) {
	case WG_CONF_OK:
		return 0;
	case WG_CONF_E_NOMEM:
		return -ENOMEM;
	default:
		return -EPROTO;
	}
}

int wg_uapi_reply_get_parse(const char *text, size_t len, struct wg_devconf **out)
{
	struct wg_conf_target t = {.conf = wg_devconf_new()};
	int ret;

	*out = NULL;
	if (!t.conf)
		return -ENOMEM;
	ret = walk_reply(text, len, get_line, &t);
	if (ret) {
		wg_devconf_free(t.conf);
		return ret;
	}
	*out = t.conf;
	return 0;
}

/* ---- cakewg_get=1 ---- */

struct cake_ctx {
	struct wg_uapi_reply_cake *cake;
	bool in_peer; /* the last entry of cake->peers is open */
};

/* Option and stats text goes to a terminal: printable ASCII and tabs only. */
static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((s[i] < 0x20 || s[i] > 0x7e) && s[i] != '\t')
			return false;
	}
	return true;
}

/* cake_<dir>, cake_<dir>_stats, cake_<dir>_json. Returns 1 when key is none of them. */
static int qdisc_line(struct wg_uapi_reply_cake_qdisc *q, const char *suffix, size_t slen,
		      const char *v, size_t n)
{
	if (!slen) {
		if (!printable(v, n))
			return -EPROTO;
		return wg_devconf_set_string(&q->options, v, n);
	}
	if (is("_stats", suffix, slen)) {
		if (!printable(v, n))
			return -EPROTO;
		return wg_devconf_strlist_add(&q->stats, v, n);
	}
	if (is("_json", suffix, slen)) {
		if (!wg_uapi_reply_json_object_valid(v, n))
			return -EPROTO;
		return wg_devconf_set_string(&q->json, v, n);
	}
	return 1;
}

static int cake_open_peer(struct cake_ctx *c, const char *v, size_t n)
{
	struct wg_uapi_reply_cake *cake = c->cake;
	struct wg_uapi_reply_cake_peer *peer;

	if (cake->n_peers >= cake->cap_peers) {
		size_t cap = cake->cap_peers ? cake->cap_peers * 2 : 8;
		void *p;

		if (cap > MAX_PEERS)
			return -ENOMEM;
		p = realloc(cake->peers, cap * sizeof(*cake->peers));
		if (!p)
			return -ENOMEM;
		cake->peers = p;
		cake->cap_peers = cap;
	}
	peer = &cake->peers[cake->n_peers];
	memset(peer, 0, sizeof(*peer));
	if (!wg_encoding_key_from_hex(peer->public_key, v, n))
		return -EPROTO;
	cake->n_peers++;
	c->in_peer = true;
	return 0;
}

/* A counter of scope (src/core/counters.h) into has/v. Returns 1 when key is none. */
static int counter_line(enum wg_counter_scope scope, uint64_t *has, uint64_t *v, const char *key,
			size_t klen, const char *val, size_t n)
{
	int id = wg_counters_find(scope, key, klen);

	if (id < 0)
		return 1;
	if (!num(&v[id], val, n, UINT64_MAX))
		return -EPROTO;
	*has |= UINT64_C(1) << id;
	return 0;
}

/* A peer's counter, for the peer opened last (skipped before the first). */
static int cake_peer_counter(struct cake_ctx *c, const char *key, size_t klen, const char *v,
			     size_t n)
{
	struct wg_peer_counters *pc;
	int ret;

	if (!c->in_peer)
		return 0;
	pc = &c->cake->peers[c->cake->n_peers - 1].counters;
	ret = counter_line(WG_COUNTER_SCOPE_PEER, &pc->has, pc->v, key, klen, v, n);
	return ret > 0 ? 0 : ret; /* unknown keys are skipped */
}

/* A peer's endpoint_host=, for the peer opened last (none before the first). */
static int cake_peer_endpoint_host(struct cake_ctx *c, const char *v, size_t n)
{
	struct wg_uapi_reply_cake_peer *peer;

	if (!c->in_peer)
		return -EPROTO;
	peer = &c->cake->peers[c->cake->n_peers - 1];
	return wg_devconf_parse_endpoint_host(peer->endpoint_host, &peer->endpoint_port, v, n)
		       ? -EPROTO
		       : 0;
}

/* The device counters and the underlay's byte limit lines. Returns 1 when key is none
 * of them. */
static int underlay_line(struct wg_uapi_reply_cake *cake, const char *key, size_t klen,
			 const char *v, size_t n)
{
	uint64_t x;
	int ret = counter_line(WG_COUNTER_SCOPE_DEVICE, &cake->counters.has, cake->counters.v, key,
			       klen, v, n);

	if (ret <= 0)
		return ret;
	if (is("underlay_limit", key, klen)) {
		if (!num(&x, v, n, UINT32_MAX))
			return -EPROTO;
		cake->underlay_limit = (uint32_t)x;
		cake->has_underlay_limit = true;
	} else if (is("underlay_drain_rate", key, klen)) {
		if (!num(&cake->underlay_drain_rate, v, n, UINT64_MAX))
			return -EPROTO;
		cake->has_underlay_drain_rate = true;
	} else if (is("underlay_limit_setting", key, klen)) {
		if (wg_devconf_parse_underlay_limit(&cake->underlay_limit_setting, v, n))
			return -EPROTO;
		cake->has_underlay_limit_setting = true;
	} else if (is("autorate_probe", key, klen)) {
		if (!wg_ipaddr_parse(&cake->autorate_probe, v, n))
			return -EPROTO;
		cake->has_autorate_probe = true;
	} else {
		return 1;
	}
	return 0;
}

static int cake_line(void *ctx, const char *key, size_t klen, const char *v, size_t vlen)
{
	static const char egress[] = "cake_egress", ingress[] = "cake_ingress";
	struct cake_ctx *c = ctx;
	int ret = 1;

	if (klen >= sizeof(egress) - 1 && !memcmp(key, egress, sizeof(egress) - 1))
		ret = qdisc_line(&c->cake->egress, key + sizeof(egress) - 1,
				 klen - (sizeof(egress) - 1), v, vlen);
	else if (klen >= sizeof(ingress) - 1 && !memcmp(key, ingress, sizeof(ingress) - 1))
		ret = qdisc_line(&c->cake->ingress, key + sizeof(ingress) - 1,
				 klen - (sizeof(ingress) - 1), v, vlen);
	if (ret <= 0)
		return ret;
	ret = underlay_line(c->cake, key, klen, v, vlen);
	if (ret <= 0)
		return ret;
	if (is("public_key", key, klen))
		return cake_open_peer(c, v, vlen);
	if (is("endpoint_host", key, klen))
		return cake_peer_endpoint_host(c, v, vlen);
	return cake_peer_counter(c, key, klen, v, vlen);
}

/* By key, then by place in the reply (the array's order). */
static int by_key_cmp(const void *a, const void *b)
{
	const struct wg_uapi_reply_cake_peer *pa = *(const struct wg_uapi_reply_cake_peer *const *)a;
	const struct wg_uapi_reply_cake_peer *pb = *(const struct wg_uapi_reply_cake_peer *const *)b;
	int c = memcmp(pa->public_key, pb->public_key, WG_ENCODING_KEY_LEN);

	return c ? c : (pa > pb) - (pa < pb);
}

/* The index behind find_peer; without memory for it, find_peer searches the array. */
static void index_peers(struct wg_uapi_reply_cake *cake)
{
	if (!cake->n_peers)
		return;
	cake->by_key = malloc(cake->n_peers * sizeof(*cake->by_key));
	if (!cake->by_key)
		return;
	for (size_t i = 0; i < cake->n_peers; i++)
		cake->by_key[i] = &cake->peers[i];
	qsort(cake->by_key, cake->n_peers, sizeof(*cake->by_key), by_key_cmp);
}

int wg_uapi_reply_cake_parse(const char *text, size_t len, struct wg_uapi_reply_cake *out)
{
	struct cake_ctx c = {.cake = out};
	int ret;

	memset(out, 0, sizeof(*out));
	ret = walk_reply(text, len, cake_line, &c);
	if (!ret)
		index_peers(out);
	return ret;
}

static void qdisc_free(struct wg_uapi_reply_cake_qdisc *q)
{
	free(q->options);
	free(q->json);
	wg_devconf_strlist_free(&q->stats);
	memset(q, 0, sizeof(*q));
}

void wg_uapi_reply_cake_free(struct wg_uapi_reply_cake *cake)
{
	qdisc_free(&cake->egress);
	qdisc_free(&cake->ingress);
	free(cake->peers);
	free(cake->by_key);
	memset(cake, 0, sizeof(*cake));
}

void wg_uapi_reply_cake_names(const struct wg_uapi_reply_cake *cake, struct wg_devconf *conf)
{
	for (size_t i = 0; i < conf->n_peers; i++) {
		struct wg_devconf_peer *peer = conf->peers[i];
		const struct wg_uapi_reply_cake_peer *cp =
			wg_uapi_reply_cake_find_peer(cake, peer->public_key);

		if (!cp || !cp->endpoint_host[0])
			continue;
		memcpy(peer->endpoint_host, cp->endpoint_host, sizeof(peer->endpoint_host));
		peer->endpoint_port = cp->endpoint_port;
		peer->flags &= ~(uint32_t)WG_DEVCONF_PEER_HAS_ENDPOINT;
		peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
	}
}

const struct wg_uapi_reply_cake_peer *
wg_uapi_reply_cake_find_peer(const struct wg_uapi_reply_cake *cake,
			     const uint8_t public_key[static WG_ENCODING_KEY_LEN])
{
	const struct wg_uapi_reply_cake_peer *found = NULL;
	size_t lo = 0, hi = cake->n_peers;

	if (!cake->by_key) {
		for (size_t i = 0; i < cake->n_peers; i++) {
			if (!memcmp(cake->peers[i].public_key, public_key, WG_ENCODING_KEY_LEN))
				found = &cake->peers[i];
		}
		return found;
	}
	/* The first entry with a greater key; the one before it is the last equal one. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(cake->by_key[mid]->public_key, public_key, WG_ENCODING_KEY_LEN) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && !memcmp(cake->by_key[lo - 1]->public_key, public_key, WG_ENCODING_KEY_LEN))
		found = cake->by_key[lo - 1];
	return found;
}

/* ---- JSON (RFC 8259) syntax check ---- */

static const char *json_value(const char *p, const char *end, unsigned int depth);

static const char *json_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p is just past the opening quote; returns the byte after the closing one. */
static const char *json_string(const char *p, const char *end)
{
	while (p < end) {
		unsigned char c = (unsigned char)*p++;

		if (c == '"')
			return p;
		if (c < 0x20)
			return NULL;
		if (c != '\\')
			continue;
		if (p == end)
			return NULL;
		c = (unsigned char)*p++;
		if (c == 'u') {
			for (int i = 0; i < 4; i++, p++) {
				if (p == end || !is_hex(*p))
					return NULL;
			}
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return NULL;
		}
	}
	return NULL;
}

static const char *json_digits(const char *p, const char *end)
{
	const char *start = p;

	while (p < end && is_digit(*p))
		p++;
	return p == start ? NULL : p;
}

static const char *json_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = json_digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = json_digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		p = json_digits(p, end);
	}
	return p;
}

static const char *json_literal(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && !memcmp(p, word, n) ? p + n : NULL;
}

/* An object or an array after its opening byte, members separated by ','. */
static const char *json_container(const char *p, const char *end, unsigned int depth, bool object)
{
	const char close = object ? '}' : ']';

	if (depth >= WG_UAPI_REPLY_JSON_MAX_DEPTH)
		return NULL;
	p = json_ws(p, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (object) {
			if (p == end || *p != '"' || !(p = json_string(p + 1, end)))
				return NULL;
			p = json_ws(p, end);
			if (p == end || *p != ':')
				return NULL;
			p++;
		}
		p = json_value(p, end, depth + 1);
		if (!p)
			return NULL;
		p = json_ws(p, end);
		if (p < end && *p == close)
			return p + 1;
		if (p == end || *p != ',')
			return NULL;
		p = json_ws(p + 1, end);
	}
}

static const char *json_value(const char *p, const char *end, unsigned int depth)
{
	p = json_ws(p, end);
	if (p == end)
		return NULL;
	switch (*p) {
	case '{':
		return json_container(p + 1, end, depth, true);
	case '[':
		return json_container(p + 1, end, depth, false);
	case '"':
		return json_string(p + 1, end);
	case 't':
		return json_literal(p, end, "true");
	case 'f':
		return json_literal(p, end, "false");
	case 'n':
		return json_literal(p, end, "null");
	default:
		return json_number(p, end);
	}
}

bool wg_uapi_reply_json_object_valid(const char *s, size_t len)
{
	const char *end = s + len, *p = json_ws(s, end);

	if (p == end || *p != '{')
		return false;
	p = json_value(p, end, 0);
	return p && json_ws(p, end) == end;
}

void wg_uapi_reply_json_string(struct wg_devconf_buf *out, const char *s, size_t len)
{
	wg_devconf_buf_append(out, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			wg_devconf_buf_printf(out, "\\%c", c);
		else if (c == '\n')
			wg_devconf_buf_append(out, "\\n", 2);
		else if (c == '\t')
			wg_devconf_buf_append(out, "\\t", 2);
		else if (c < 0x20 || c == 0x7f)
			wg_devconf_buf_printf(out, "\\u%04x", c);
		else
			wg_devconf_buf_append(out, s + i, 1);
	}
	wg_devconf_buf_append(out, "\"", 1);
}

/* ---- show's text ---- */

/* snprintf that appends at *off and never runs past size. */
__attribute__((format(printf, 4, 5))) static void append(char *buf, size_t size, size_t *off,
							 const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, size - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = WG_MIN(size - 1, *off + (size_t)n);
}

static void duration_at(char *buf, size_t size, size_t *off, uint64_t left, bool color)
{
	static const struct {
		const char *unit;
		uint64_t secs;
	} parts[] = {
		{"year", WG_UAPI_REPLY_SECS_PER_YEAR},
		{"day", WG_UAPI_REPLY_SECS_PER_DAY},
		{"hour", WG_UAPI_REPLY_SECS_PER_HOUR},
		{"minute", WG_UAPI_REPLY_SECS_PER_MINUTE},
		{"second", 1},
	};
	size_t start = *off;

	for (size_t i = 0; i < WG_ARRAY_SIZE(parts); i++) {
		uint64_t n = left / parts[i].secs;

		left %= parts[i].secs;
		if (!n)
			continue;
		append(buf, size, off, "%s%llu %s%s%s%s", *off > start ? ", " : "",
		       (unsigned long long)n, color ? FG_CYAN : "", parts[i].unit,
		       n == 1 ? "" : "s", color ? RESET : "");
	}
}

const char *wg_uapi_reply_fmt_duration(char *buf, size_t size, uint64_t secs, bool color)
{
	size_t off = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	duration_at(buf, size, &off, secs, color);
	return buf;
}

const char *wg_uapi_reply_fmt_ago(char *buf, size_t size, int64_t then_sec, int64_t now_sec,
				  bool color)
{
	size_t off = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	if (now_sec == then_sec) {
		append(buf, size, &off, "Now");
	} else if (now_sec < then_sec) {
		append(buf, size, &off,
		       "(%sSystem clock wound backward; connection problems may ensue.%s)",
		       color ? FG_RED : "", color ? RESET : "");
	} else {
		duration_at(buf, size, &off, (uint64_t)now_sec - (uint64_t)then_sec, color);
		append(buf, size, &off, " ago");
	}
	return buf;
}

const char *wg_uapi_reply_fmt_every(char *buf, size_t size, uint64_t secs, bool color)
{
	size_t off = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	append(buf, size, &off, "every ");
	duration_at(buf, size, &off, secs, color);
	return buf;
}

const char *wg_uapi_reply_fmt_bytes(char *buf, size_t size, uint64_t bytes, bool color)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	const char *on = color ? FG_CYAN : "", *off = color ? RESET : "";
	double v = (double)bytes;
	size_t i;

	if (!size)
		return buf;
	if (bytes < 1024) {
		snprintf(buf, size, "%u %sB%s", (unsigned int)bytes, on, off);
		return buf;
	}
	/* Up to GiB the divisions happen in exact powers of two, as in wg; TiB last. */
	for (i = 0; i < WG_ARRAY_SIZE(units) - 1; i++) {
		if (bytes < (UINT64_C(1024) << (10 * (i + 1))))
			break;
	}
	v /= (double)(UINT64_C(1024) << (10 * i));
	snprintf(buf, size, "%.2f %s%s%s", v, on, units[i], off);
	return buf;
}
