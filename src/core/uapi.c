/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The UAPI text protocol: request reader, `set=1` parser and `get=1` serializer, after
 * wireguard-go's device/uapi.go (IpcHandle, IpcSetOperation, IpcGetOperation).
 */
#include "src/core/uapi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/conf_keys.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

static bool is(const char *word, const char *s, size_t n)
{
	return strlen(word) == n && !memcmp(word, s, n);
}

/* Drops the request and keeps why (msg never holds a key). */
static int set_fail(struct wg_uapi_set *s, int err, const char *msg)
{
	snprintf(s->msg, sizeof(s->msg), "%s", msg);
	wg_devconf_free(s->conf);
	s->conf = NULL;
	s->peer = NULL;
	s->err = err;
	return err;
}

/* Up to 40 printable bytes of a key name or value, for messages. */
static const char *printable(char out[48], const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 40; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
	return out;
}

/* One key=value line, by the key table (src/core/conf_keys.h). */
static int set_key(struct wg_uapi_set *s, const struct wg_conf_key *k, const char *v, size_t n)
{
	struct wg_conf_result r = {0};
	char shown[48], msg[WG_UAPI_MSG_SIZE];

	if (k->flags & WG_CONF_KEY_STARTS_PEER) {
		s->peer = wg_devconf_add_peer(s->conf);
		if (!s->peer)
			return set_fail(s, -ENOMEM, "out of memory or too many peers");
	}
	if (!wg_conf_key_parse(k, &(struct wg_conf_target){.conf = s->conf, .peer = s->peer}, WG_CONF_SET, v, n,
			       &r))
		return 0;
	if (r.err == WG_CONF_E_NOMEM)
		return set_fail(s, -ENOMEM, "out of memory");
	/* a secret is never copied, not even to quote it */
	wg_conf_key_message(k, WG_CONF_SET, r.err, &r,
			    k->flags & WG_CONF_KEY_SECRET ? "" : printable(shown, r.at, r.at_len),
			    msg, sizeof(msg));
	return set_fail(s, -EINVAL, msg);
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
	enum wg_conf_section sec = s->peer ? WG_CONF_PEER : WG_CONF_INTERFACE;
	const struct wg_conf_key *k;
	size_t klen;
	char name[48], msg[WG_UAPI_MSG_SIZE];

	if (s->err)
		return s->err;
	if (!s->conf)
		return -EINVAL;
	if (!eq)
		return set_fail(s, -EPROTO, "failed to parse line: no '='");
	klen = (size_t)(eq - line);
	k = wg_conf_key_find(WG_CONF_SET, sec, line, klen, 0);
	if (k)
		return set_key(s, k, eq + 1, len - klen - 1);
	snprintf(msg, sizeof(msg), "invalid UAPI %s key: `%s'", s->peer ? "peer" : "device",
		 printable(name, line, klen));
	return set_fail(s, -EINVAL, msg);
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

int wg_uapi_get_write(const struct wg_devconf *snap, struct wg_devconf_buf *out)
{
	struct wg_conf_target t = {.conf = (struct wg_devconf *)snap};

	(void)wg_conf_section_write(&t, WG_CONF_GET, WG_CONF_INTERFACE, 0, 0, out);
	for (size_t i = 0; i < snap->n_peers; i++) {
		t.peer = snap->peers[i];
		(void)wg_conf_section_write(&t, WG_CONF_GET, WG_CONF_PEER, 0, 0, out);
	}
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
