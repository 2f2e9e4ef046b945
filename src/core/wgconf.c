/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wg-quick files: a line-push parser after wireguard-tools' config.c and wg-quick's
 * parse_options, and the matching writer.
 */
#include "src/core/wgconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crypto/ct.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

#define COMMENT_CHAR '#'

/* How a key's value is cut from the line. */
enum value_kind {
	VALUE_STRIPPED, /* wg(8): every whitespace character removed, must not be empty */
	VALUE_TRIMMED,	/* wg-quick: comment removed, trimmed at both ends */
	VALUE_RAW,	/* wg-quick hooks: the raw rest of the line, comment kept, trimmed */
};

/* One line, cut up once. */
struct line {
	const char *raw;
	size_t len;
	size_t clen;	/* bytes before the comment */
	char *stripped; /* the part before the comment without whitespace (owned) */
	size_t slen;
	size_t eq;     /* index of '=' in stripped, or slen */
	size_t raw_eq; /* index of '=' in raw, or clen */
};

struct key_handler {
	const char *name;
	enum value_kind kind;
	int (*parse)(struct wg_wgconf *ctx, const char *v, size_t n);
};

/* wireguard-tools' char_is_space: \t \n \v \f \r and space. */
static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((*s)[*n - 1]))
		(*n)--;
}

static bool same_word(const char *a, const char *b, size_t n)
{
	return strlen(a) == n && !strncasecmp(a, b, n);
}

/* Copies text for a message: control bytes become '?', long text is cut. */
static const char *quote(struct wg_wgconf *ctx, const char *s, size_t n)
{
	size_t i, max = WG_WGCONF_QUOTE_MAX;

	for (i = 0; i < n && i < max; i++)
		ctx->quoted[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (n > max) {
		memcpy(&ctx->quoted[i], "...", 3);
		i += 3;
	}
	ctx->quoted[i] = '\0';
	return ctx->quoted;
}

static void drop_config(struct wg_wgconf *ctx)
{
	wg_devconf_free(ctx->conf);
	ctx->conf = NULL;
	ctx->peer = NULL;
}

__attribute__((format(printf, 3, 4))) static int fail(struct wg_wgconf *ctx, int err,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ctx->error, sizeof(ctx->error), "%s:%u: ", ctx->file, ctx->line);
	if (n < 0 || (size_t)n >= sizeof(ctx->error))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(ctx->error + n, sizeof(ctx->error) - (size_t)n, fmt, ap);
	va_end(ap);
	drop_config(ctx);
	ctx->err = err;
	return err;
}

static int nomem(struct wg_wgconf *ctx)
{
	return fail(ctx, -ENOMEM, "Out of memory");
}

__attribute__((format(printf, 2, 3))) static void warn(struct wg_wgconf *ctx, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ctx->warnings++)
		return;
	n = snprintf(ctx->warning, sizeof(ctx->warning), "%s:%u: Warning: ", ctx->file, ctx->line);
	if (n < 0 || (size_t)n >= sizeof(ctx->warning))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(ctx->warning + n, sizeof(ctx->warning) - (size_t)n, fmt, ap);
	va_end(ap);
}

static int parse_secret(struct wg_wgconf *ctx, uint8_t key[static WG_ENCODING_KEY_LEN],
			const char *v, size_t n)
{
	if (!wg_encoding_key_from_base64(key, v, n))
		return fail(
			ctx, -EINVAL,
			"Key is not the correct length or format: `<%zu characters, not shown>'",
			n);
	return 0;
}

static int parse_private_key(struct wg_wgconf *ctx, const char *v, size_t n)
{
	int ret = parse_secret(ctx, ctx->conf->private_key, v, n);

	if (!ret)
		ctx->conf->flags |= WG_DEVCONF_HAS_PRIVATE_KEY;
	return ret;
}

static int parse_listen_port(struct wg_wgconf *ctx, const char *v, size_t n)
{
	if (!wg_ipaddr_port_parse(&ctx->conf->listen_port, v, n))
		return fail(ctx, -EINVAL, "ListenPort is not a number in 0-65535: `%s'",
			    quote(ctx, v, n));
	ctx->conf->flags |= WG_DEVCONF_HAS_LISTEN_PORT;
	return 0;
}

static int parse_fwmark(struct wg_wgconf *ctx, const char *v, size_t n)
{
	if (!wg_devconf_parse_fwmark(&ctx->conf->fwmark, v, n))
		return fail(ctx, -EINVAL, "Fwmark is neither 0/off nor 0-0xffffffff: `%s'",
			    quote(ctx, v, n));
	ctx->conf->flags |= WG_DEVCONF_HAS_FWMARK;
	return 0;
}

static int parse_public_key(struct wg_wgconf *ctx, const char *v, size_t n)
{
	if (!wg_encoding_key_from_base64(ctx->peer->public_key, v, n))
		return fail(ctx, -EINVAL, "Key is not the correct length or format: `%s'",
			    quote(ctx, v, n));
	ctx->peer->flags |= WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	return 0;
}

static int parse_preshared_key(struct wg_wgconf *ctx, const char *v, size_t n)
{
	int ret = parse_secret(ctx, ctx->peer->preshared_key, v, n);

	if (!ret)
		ctx->peer->flags |= WG_DEVCONF_PEER_HAS_PRESHARED_KEY;
	return ret;
}

static int parse_keepalive(struct wg_wgconf *ctx, const char *v, size_t n)
{
	if (!wg_devconf_parse_keepalive(&ctx->peer->persistent_keepalive_secs, v, n))
		return fail(ctx, -EINVAL,
			    "Persistent keepalive interval is neither 0/off nor 1-65535: `%s'",
			    quote(ctx, v, n));
	ctx->peer->flags |= WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE;
	return 0;
}

static int parse_endpoint(struct wg_wgconf *ctx, const char *v, size_t n)
{
	struct wg_devconf_peer *peer = ctx->peer;
	const char *host, *port;
	size_t hl, pl;

	switch (wg_ipaddr_endpoint_split(v, n, &host, &hl, &port, &pl)) {
	case WG_IPADDR_ENDPOINT_SPLIT_NO_BRACE:
		return fail(ctx, -EINVAL, "Unable to find matching brace of endpoint: `%s'",
			    quote(ctx, v, n));
	case WG_IPADDR_ENDPOINT_SPLIT_NO_PORT:
		return fail(ctx, -EINVAL, "Unable to find port of endpoint: `%s'",
			    quote(ctx, v, n));
	case WG_IPADDR_ENDPOINT_SPLIT_OK:
		break;
	}
	if (!wg_ipaddr_port_parse(&peer->endpoint_port, port, pl))
		return fail(ctx, -EINVAL, "Endpoint port is not a number in 0-65535: `%s'",
			    quote(ctx, v, n));
	memset(peer->endpoint_host, 0, sizeof(peer->endpoint_host));
	peer->flags &= ~(WG_DEVCONF_PEER_HAS_ENDPOINT | WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
	if (wg_ipaddr_endpoint_from_host(&peer->endpoint, host, hl, peer->endpoint_port)) {
		peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
		return 0;
	}
	if (!wg_ipaddr_is_host_name(host, hl) && !wg_ipaddr_is_zoned_v6_name(host, hl))
		return fail(ctx, -EINVAL,
			    "Endpoint host is neither an IP address nor a host name: `%s'",
			    quote(ctx, v, n));
	memcpy(peer->endpoint_host, host, hl);
	peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
	return 0;
}

static int parse_allowedip(struct wg_wgconf *ctx, const char *e, size_t n)
{
	struct wg_devconf_peer *peer = ctx->peer;
	struct wg_ipaddr_prefix pfx;
	uint32_t flags = 0;
	const char *slash;

	/* A '+' or '-' makes the whole line incremental, as in wireguard-tools. */
	if (n && (e[0] == '+' || e[0] == '-')) {
		if (e[0] == '-')
			flags |= WG_DEVCONF_AIP_REMOVE_ME;
		peer->flags &= ~WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
		e++;
		n--;
	}
	switch (wg_ipaddr_prefix_parse(&pfx, e, n, WG_IPADDR_PREFIX_CIDR_OPTIONAL)) {
	case WG_IPADDR_PREFIX_BAD_ADDR:
		slash = n ? memchr(e, '/', n) : NULL;
		return fail(ctx, -EINVAL, "Unable to parse IP address: `%s'",
			    quote(ctx, e, slash ? (size_t)(slash - e) : n));
	case WG_IPADDR_PREFIX_BAD_CIDR:
		return fail(ctx, -EINVAL, "AllowedIP is not in the correct format: `%s'",
			    quote(ctx, e, n));
	case WG_IPADDR_PREFIX_OK:
		break;
	}
	if (wg_ipaddr_prefix_has_host_bits(&pfx))
		warn(ctx, "AllowedIP has nonzero host part: `%s'", quote(ctx, e, n));
	if (wg_devconf_peer_add_allowedip(peer, &pfx, flags))
		return nomem(ctx);
	return 0;
}

static int parse_allowedips(struct wg_wgconf *ctx, const char *v, size_t n)
{
	const char *end = v + n;

	ctx->peer->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
	for (;;) {
		const char *comma = memchr(v, ',', (size_t)(end - v));
		const char *stop = comma ? comma : end;
		int ret = parse_allowedip(ctx, v, (size_t)(stop - v));

		if (ret || !comma)
			return ret;
		v = comma + 1;
	}
}

/* Calls fn for each word of a wg-quick list (split at commas and whitespace). */
static int for_each_word(struct wg_wgconf *ctx, const char *v, size_t n,
			 int (*fn)(struct wg_wgconf *ctx, const char *w, size_t wn))
{
	size_t i = 0;

	while (i < n) {
		size_t start;
		int ret;

		while (i < n && (v[i] == ',' || is_space(v[i])))
			i++;
		start = i;
		while (i < n && v[i] != ',' && !is_space(v[i]))
			i++;
		if (i == start)
			break;
		ret = fn(ctx, v + start, i - start);
		if (ret)
			return ret;
	}
	return 0;
}

static int add_address(struct wg_wgconf *ctx, const char *w, size_t n)
{
	struct wg_ipaddr_prefix pfx;
	const char *slash = memchr(w, '/', n);

	switch (wg_ipaddr_prefix_parse(&pfx, w, n, WG_IPADDR_PREFIX_CIDR_OPTIONAL)) {
	case WG_IPADDR_PREFIX_BAD_ADDR:
		return fail(ctx, -EINVAL, "Unable to parse IP address: `%s'",
			    quote(ctx, w, slash ? (size_t)(slash - w) : n));
	case WG_IPADDR_PREFIX_BAD_CIDR:
		return fail(ctx, -EINVAL, "Address is not in the correct format: `%s'",
			    quote(ctx, w, n));
	case WG_IPADDR_PREFIX_OK:
		break;
	}
	return wg_devconf_add_address(ctx->conf, &pfx) ? nomem(ctx) : 0;
}

static int parse_address(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return for_each_word(ctx, v, n, add_address);
}

static int add_dns(struct wg_wgconf *ctx, const char *w, size_t n)
{
	bool addr_like = memchr(w, ':', n) != NULL;
	struct wg_ipaddr ip;

	/* wg-quick's test: ^[0-9.]+$ or anything with a ':' is a server. */
	if (!addr_like) {
		addr_like = true;
		for (size_t i = 0; i < n; i++)
			addr_like &= (w[i] >= '0' && w[i] <= '9') || w[i] == '.';
	}
	if (addr_like) {
		if (!wg_ipaddr_parse(&ip, w, n))
			return fail(ctx, -EINVAL, "Unable to parse DNS server address: `%s'",
				    quote(ctx, w, n));
		return wg_devconf_add_dns(ctx->conf, &ip) ? nomem(ctx) : 0;
	}
	if (!wg_ipaddr_is_host_name(w, n))
		return fail(ctx, -EINVAL, "DNS search domain is not a valid name: `%s'",
			    quote(ctx, w, n));
	return wg_devconf_strlist_add(&ctx->conf->dns_search, w, n) ? nomem(ctx) : 0;
}

static int parse_dns(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return for_each_word(ctx, v, n, add_dns);
}

static int parse_mtu(struct wg_wgconf *ctx, const char *v, size_t n)
{
	uint64_t mtu = 0;

	if (n && (!wg_encoding_parse_uint(&mtu, v, n, 10, WG_DEVCONF_MTU_MAX_BYTES) ||
		  mtu < WG_DEVCONF_MTU_MIN_BYTES))
		return fail(ctx, -EINVAL, "MTU is neither empty nor %u-%u: `%s'",
			    WG_DEVCONF_MTU_MIN_BYTES, WG_DEVCONF_MTU_MAX_BYTES, quote(ctx, v, n));
	ctx->conf->mtu = (uint32_t)mtu;
	return 0;
}

static int parse_table(struct wg_wgconf *ctx, const char *v, size_t n)
{
	struct wg_devconf *conf = ctx->conf;
	uint64_t id;

	conf->table_id = 0;
	if (!n) {
		conf->table_mode = WG_DEVCONF_TABLE_UNSET;
		return 0;
	}
	if (same_word("auto", v, n)) {
		conf->table_mode = WG_DEVCONF_TABLE_AUTO;
		return 0;
	}
	if (same_word("off", v, n)) {
		conf->table_mode = WG_DEVCONF_TABLE_OFF;
		return 0;
	}
	conf->table_mode = WG_DEVCONF_TABLE_ID;
	if (wg_devconf_table_from_name(&conf->table_id, v, n))
		return 0;
	if (!wg_encoding_parse_uint(&id, v, n, 10, UINT32_MAX) || !id)
		return fail(
			ctx, -EINVAL,
			"Table is neither auto, off, main, local, default nor 1-4294967295: `%s'",
			quote(ctx, v, n));
	conf->table_id = (uint32_t)id;
	return 0;
}

static int parse_save_config(struct wg_wgconf *ctx, const char *v, size_t n)
{
	if (same_word("true", v, n))
		ctx->conf->save_config = true;
	else if (same_word("false", v, n))
		ctx->conf->save_config = false;
	else
		return fail(ctx, -EINVAL, "`%s' is neither true nor false", quote(ctx, v, n));
	return 0;
}

static int add_hook(struct wg_wgconf *ctx, struct wg_devconf_strlist *list, const char *v, size_t n)
{
	/* An empty hook does nothing in wg-quick: do not keep it. */
	if (!n)
		return 0;
	return wg_devconf_strlist_add(list, v, n) ? nomem(ctx) : 0;
}

static int parse_pre_up(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return add_hook(ctx, &ctx->conf->pre_up, v, n);
}

static int parse_post_up(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return add_hook(ctx, &ctx->conf->post_up, v, n);
}

static int parse_pre_down(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return add_hook(ctx, &ctx->conf->pre_down, v, n);
}

static int parse_post_down(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return add_hook(ctx, &ctx->conf->post_down, v, n);
}

static int parse_cake(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return wg_devconf_set_string(&ctx->conf->cake, v, n) ? nomem(ctx) : 0;
}

static int parse_cake_ingress(struct wg_wgconf *ctx, const char *v, size_t n)
{
	return wg_devconf_set_string(&ctx->conf->cake_ingress, v, n) ? nomem(ctx) : 0;
}

static int parse_underlay_limit(struct wg_wgconf *ctx, const char *v, size_t n)
{
	if (wg_devconf_parse_underlay_limit(&ctx->conf->underlay_limit, v, n))
		return fail(ctx, -EINVAL,
			    "UnderlayLimit is neither auto, off nor %u-%u bytes: `%s'",
			    WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES,
			    WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES, quote(ctx, v, n));
	ctx->conf->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
	return 0;
}

static const struct key_handler interface_keys[] = {
	{"PrivateKey", VALUE_STRIPPED, parse_private_key},
	{"ListenPort", VALUE_STRIPPED, parse_listen_port},
	{"FwMark", VALUE_STRIPPED, parse_fwmark},
};

static const struct key_handler quick_keys[] = {
	{"Address", VALUE_TRIMMED, parse_address},
	{"DNS", VALUE_TRIMMED, parse_dns},
	{"MTU", VALUE_TRIMMED, parse_mtu},
	{"Table", VALUE_TRIMMED, parse_table},
	{"SaveConfig", VALUE_TRIMMED, parse_save_config},
	{"PreUp", VALUE_RAW, parse_pre_up},
	{"PostUp", VALUE_RAW, parse_post_up},
	{"PreDown", VALUE_RAW, parse_pre_down},
	{"PostDown", VALUE_RAW, parse_post_down},
	{"Cake", VALUE_TRIMMED, parse_cake},
	{"CakeIngress", VALUE_TRIMMED, parse_cake_ingress},
	{"UnderlayLimit", VALUE_TRIMMED, parse_underlay_limit},
};

static const struct key_handler peer_keys[] = {
	{"PublicKey", VALUE_STRIPPED, parse_public_key},
	{"PresharedKey", VALUE_STRIPPED, parse_preshared_key},
	{"AllowedIPs", VALUE_STRIPPED, parse_allowedips},
	{"Endpoint", VALUE_STRIPPED, parse_endpoint},
	{"PersistentKeepalive", VALUE_STRIPPED, parse_keepalive},
};

/* The handler for the line's key among n, or NULL. */
static const struct key_handler *find_key(const struct key_handler *keys, size_t n,
					  const struct line *l)
{
	const char *tk = l->raw;
	size_t tn = l->raw_eq;

	trim(&tk, &tn);
	for (size_t i = 0; i < n; i++) {
		bool stripped = keys[i].kind == VALUE_STRIPPED;

		if (same_word(keys[i].name, stripped ? l->stripped : tk, stripped ? l->eq : tn))
			return &keys[i];
	}
	return NULL;
}

static int run_handler(struct wg_wgconf *ctx, const struct key_handler *h, const struct line *l)
{
	const char *v;
	size_t n;

	if (h->kind == VALUE_STRIPPED) {
		v = l->stripped + l->eq + 1;
		n = l->slen - l->eq - 1;
		if (!n)
			return fail(ctx, -EINVAL, "Key has no value: `%s'", h->name);
		return h->parse(ctx, v, n);
	}
	v = l->raw + l->raw_eq + 1;
	n = (h->kind == VALUE_RAW ? l->len : l->clen) - l->raw_eq - 1;
	trim(&v, &n);
	return h->parse(ctx, v, n);
}

static int key_line(struct wg_wgconf *ctx, const struct line *l)
{
	const struct key_handler *h = NULL;

	if (l->eq == l->slen)
		return fail(ctx, -EINVAL, "Line unrecognized: `%s'",
			    quote(ctx, l->stripped, l->slen));
	switch (ctx->section) {
	case WG_WGCONF_SECTION_NONE:
		return fail(ctx, -EINVAL, "Key outside of an [Interface] or [Peer] section: `%s'",
			    quote(ctx, l->stripped, l->eq));
	case WG_WGCONF_SECTION_INTERFACE:
		if (!(ctx->flags & WG_WGCONF_WG_ONLY))
			h = find_key(quick_keys, WG_ARRAY_SIZE(quick_keys), l);
		if (!h)
			h = find_key(interface_keys, WG_ARRAY_SIZE(interface_keys), l);
		break;
	case WG_WGCONF_SECTION_PEER:
		h = find_key(peer_keys, WG_ARRAY_SIZE(peer_keys), l);
		break;
	}
	if (!h)
		return fail(ctx, -EINVAL, "Unknown key in [%s] section: `%s'",
			    ctx->section == WG_WGCONF_SECTION_PEER ? "Peer" : "Interface",
			    quote(ctx, l->stripped, l->eq));
	return run_handler(ctx, h, l);
}

static int section_line(struct wg_wgconf *ctx, const struct line *l)
{
	if (same_word("[Interface]", l->stripped, l->slen)) {
		ctx->section = WG_WGCONF_SECTION_INTERFACE;
		ctx->peer = NULL;
		return 0;
	}
	if (!same_word("[Peer]", l->stripped, l->slen))
		return fail(ctx, -EINVAL, "Line unrecognized: `%s'",
			    quote(ctx, l->stripped, l->slen));
	ctx->peer = wg_devconf_add_peer(ctx->conf);
	if (!ctx->peer)
		return fail(ctx, -ENOMEM, "Out of memory or too many peers");
	ctx->peer->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
	ctx->peer->source_line = ctx->line;
	ctx->section = WG_WGCONF_SECTION_PEER;
	return 0;
}

static int cut_line(struct line *l, const char *raw, size_t len)
{
	const char *hash = len ? memchr(raw, COMMENT_CHAR, len) : NULL;
	const char *eq;

	memset(l, 0, sizeof(*l));
	l->raw = raw;
	l->len = len;
	l->clen = hash ? (size_t)(hash - raw) : len;
	eq = l->clen ? memchr(raw, '=', l->clen) : NULL;
	l->raw_eq = eq ? (size_t)(eq - raw) : l->clen;
	l->stripped = malloc(l->clen + 1);
	if (!l->stripped)
		return -ENOMEM;
	l->eq = SIZE_MAX;
	for (size_t i = 0; i < l->clen; i++) {
		if (is_space(raw[i]))
			continue;
		if (raw[i] == '=' && l->eq == SIZE_MAX)
			l->eq = l->slen;
		l->stripped[l->slen++] = raw[i];
	}
	l->stripped[l->slen] = '\0';
	if (l->eq == SIZE_MAX)
		l->eq = l->slen;
	return 0;
}

int wg_wgconf_init(struct wg_wgconf *ctx, const char *file, unsigned int flags)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->file = file ? file : "-";
	ctx->flags = flags;
	ctx->conf = wg_devconf_new();
	if (!ctx->conf) {
		snprintf(ctx->error, sizeof(ctx->error), "%s: Out of memory", ctx->file);
		ctx->err = -ENOMEM;
		return -ENOMEM;
	}
	/* setconf: what the file does not set is reset (wireguard-tools config_read_init). */
	if (!(flags & WG_WGCONF_APPEND))
		ctx->conf->flags = WG_DEVCONF_REPLACE_PEERS | WG_DEVCONF_HAS_PRIVATE_KEY |
				   WG_DEVCONF_HAS_FWMARK | WG_DEVCONF_HAS_LISTEN_PORT;
	return 0;
}

int wg_wgconf_line(struct wg_wgconf *ctx, const char *raw, size_t len)
{
	struct line l;
	int ret;

	if (ctx->err)
		return ctx->err;
	if (!ctx->conf)
		return -EINVAL;
	ctx->line++;
	if (len && memchr(raw, '\0', len))
		return fail(ctx, -EINVAL, "Line contains a NUL byte");
	if (cut_line(&l, raw, len))
		return nomem(ctx);
	if (!l.slen)
		ret = 0;
	else if (l.stripped[0] == '[')
		ret = section_line(ctx, &l);
	else
		ret = key_line(ctx, &l);
	/* The line may have held a private key. */
	cw_memzero(l.stripped, l.slen);
	free(l.stripped);
	return ret;
}

static int by_public_key(const void *a, const void *b)
{
	const struct wg_devconf_peer *pa = *(const struct wg_devconf_peer *const *)a;
	const struct wg_devconf_peer *pb = *(const struct wg_devconf_peer *const *)b;
	/* Public keys from a local file: ordering them reveals nothing secret. */
	int c = memcmp(pa->public_key, pb->public_key, sizeof(pa->public_key));

	if (c)
		return c;
	return pa->source_line < pb->source_line ? -1 : pa->source_line > pb->source_line;
}

/* Reports the first (by line) [Peer] whose public key an earlier one already had. */
static int check_duplicates(struct wg_wgconf *ctx)
{
	struct wg_devconf *conf = ctx->conf;
	const struct wg_devconf_peer *dup = NULL, *first = NULL;
	struct wg_devconf_peer **sorted;
	char b64[WG_ENCODING_KEY_B64_SIZE];

	if (conf->n_peers < 2)
		return 0;
	sorted = malloc(conf->n_peers * sizeof(*sorted));
	if (!sorted)
		return nomem(ctx);
	memcpy(sorted, conf->peers, conf->n_peers * sizeof(*sorted));
	qsort(sorted, conf->n_peers, sizeof(*sorted), by_public_key);
	for (size_t i = 1; i < conf->n_peers; i++) {
		if (memcmp(sorted[i - 1]->public_key, sorted[i]->public_key, WG_ENCODING_KEY_LEN))
			continue;
		if (!dup || sorted[i]->source_line < dup->source_line) {
			size_t j = i - 1;

			while (j && !memcmp(sorted[j - 1]->public_key, sorted[i]->public_key,
					    WG_ENCODING_KEY_LEN))
				j--;
			dup = sorted[i];
			first = sorted[j];
		}
	}
	free(sorted);
	if (!dup)
		return 0;
	wg_encoding_key_to_base64(b64, dup->public_key);
	ctx->line = dup->source_line;
	return fail(ctx, -EINVAL, "Peer already defined at line %u: `%s'", first->source_line, b64);
}

int wg_wgconf_finish(struct wg_wgconf *ctx, struct wg_devconf **out)
{
	int ret;

	*out = NULL;
	if (ctx->err)
		return ctx->err;
	if (!ctx->conf)
		return -EINVAL;
	for (size_t i = 0; i < ctx->conf->n_peers; i++) {
		const struct wg_devconf_peer *peer = ctx->conf->peers[i];

		if (!(peer->flags & WG_DEVCONF_PEER_HAS_PUBLIC_KEY)) {
			ctx->line = peer->source_line;
			return fail(ctx, -EINVAL, "A peer is missing a public key");
		}
	}
	ret = check_duplicates(ctx);
	if (ret)
		return ret;
	*out = ctx->conf;
	ctx->conf = NULL;
	ctx->peer = NULL;
	return 0;
}

void wg_wgconf_deinit(struct wg_wgconf *ctx)
{
	drop_config(ctx);
}

int wg_wgconf_parse(const char *file, const char *text, size_t len, unsigned int flags,
		    struct wg_devconf **out, char *err, size_t err_size)
{
	struct wg_wgconf ctx;
	size_t pos = 0;
	int ret;

	*out = NULL;
	ret = wg_wgconf_init(&ctx, file, flags);
	while (!ret && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;

		ret = wg_wgconf_line(&ctx, text + pos, n);
		pos += n + 1;
	}
	if (!ret)
		ret = wg_wgconf_finish(&ctx, out);
	if (ret && err_size)
		snprintf(err, err_size, "%s", ctx.error);
	wg_wgconf_deinit(&ctx);
	return ret;
}
