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
#include "src/core/conf_keys.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

#define COMMENT_CHAR '#'

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

static void trim(const char **s, size_t *n)
{
	while (*n && wg_conf_is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && wg_conf_is_space((*s)[*n - 1]))
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

/* How a key's value is cut from the line. */
enum value_kind {
	VALUE_STRIPPED, /* wg(8): every whitespace character removed, must not be empty */
	VALUE_TRIMMED,	/* wg-quick: comment removed, trimmed at both ends */
	VALUE_RAW,	/* wg-quick hooks: the raw rest of the line, comment kept, trimmed */
};

static enum value_kind kind_of(const struct wg_conf_key *k)
{
	if (k->flags & WG_CONF_KEY_RAW)
		return VALUE_RAW;
	return k->flags & WG_CONF_KEY_QUICK ? VALUE_TRIMMED : VALUE_STRIPPED;
}

/* The table's key for the line, or NULL: wg(8) keys are named with spaces removed. */
static const struct wg_conf_key *find_key(const struct wg_wgconf *ctx, enum wg_conf_section sec,
					  const struct line *l)
{
	unsigned int skip = ctx->flags & WG_WGCONF_WG_ONLY ? WG_CONF_KEY_QUICK : 0;
	const struct wg_conf_key *k;
	const char *tk = l->raw;
	size_t tn = l->raw_eq;

	trim(&tk, &tn);
	k = wg_conf_key_find(WG_CONF_FILE, sec, l->stripped, l->eq, skip);
	if (k && kind_of(k) == VALUE_STRIPPED)
		return k;
	k = wg_conf_key_find(WG_CONF_FILE, sec, tk, tn, skip);
	return k && kind_of(k) != VALUE_STRIPPED ? k : NULL;
}

static void warn_cb(void *arg, const struct wg_conf_key *k, int code, const char *at, size_t len)
{
	struct wg_wgconf *ctx = arg;
	struct wg_conf_result r = {.at = at, .at_len = len};
	char msg[WG_CONF_MSG_SIZE];

	wg_conf_key_message(k, WG_CONF_FILE, code, &r, quote(ctx, at, len), msg, sizeof(msg));
	warn(ctx, "%s", msg);
}

static int run_key(struct wg_wgconf *ctx, const struct wg_conf_key *k, const struct line *l)
{
	struct wg_conf_target t = {.conf = ctx->conf, .peer = ctx->peer};
	struct wg_conf_result r = {.warn = warn_cb, .warn_arg = ctx};
	char msg[WG_CONF_MSG_SIZE];
	const char *v;
	size_t n;

	if (kind_of(k) == VALUE_STRIPPED) {
		v = l->stripped + l->eq + 1;
		n = l->slen - l->eq - 1;
		if (!n)
			return fail(ctx, -EINVAL, "Key has no value: `%s'", k->file);
	} else {
		v = l->raw + l->raw_eq + 1;
		n = (kind_of(k) == VALUE_RAW ? l->len : l->clen) - l->raw_eq - 1;
		trim(&v, &n);
	}
	if (!wg_conf_key_parse(k, &t, WG_CONF_FILE, v, n, &r))
		return 0;
	if (r.err == WG_CONF_E_NOMEM)
		return nomem(ctx);
	/* a secret is never copied, not even to quote it */
	wg_conf_key_message(k, WG_CONF_FILE, r.err, &r,
			    k->flags & WG_CONF_KEY_SECRET ? "" : quote(ctx, r.at, r.at_len), msg,
			    sizeof(msg));
	return fail(ctx, -EINVAL, "%s", msg);
}

static int key_line(struct wg_wgconf *ctx, const struct line *l)
{
	const struct wg_conf_key *k;

	if (l->eq == l->slen)
		return fail(ctx, -EINVAL, "Line unrecognized: `%s'",
			    quote(ctx, l->stripped, l->slen));
	if (ctx->section == WG_WGCONF_SECTION_NONE)
		return fail(ctx, -EINVAL, "Key outside of an [Interface] or [Peer] section: `%s'",
			    quote(ctx, l->stripped, l->eq));
	k = find_key(ctx, ctx->section == WG_WGCONF_SECTION_PEER ? WG_CONF_PEER : WG_CONF_INTERFACE,
		     l);
	if (!k)
		return fail(ctx, -EINVAL, "Unknown key in [%s] section: `%s'",
			    ctx->section == WG_WGCONF_SECTION_PEER ? "Peer" : "Interface",
			    quote(ctx, l->stripped, l->eq));
	return run_key(ctx, k, l);
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
		if (wg_conf_is_space(raw[i]))
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
