/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/uapi_server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "crypto/ct.h"
#include "src/core/uapi.h"
#include "src/edge/log.h"

enum {
	MAX_CONNS = 64,
	READ_CHUNK = 4096,
};

struct conn {
	struct wg_uapi_server *srv;
	struct conn *next, *prev;
	ev_io io;
	int fd;
	struct wg_uapi_reader reader;
	struct wg_devconf_buf out; /* holds keys: wiped after sending */
	size_t out_sent;
	bool closing; /* close once out is sent */
	bool waiting; /* a request is with the handler: read nothing more */
	bool busy;    /* in conn_cb: a reply given at once must not process input */
	char pending[READ_CHUNK]; /* input after the waiting request (may hold keys) */
	size_t pending_len;
};

int wg_uapi_socket_path(char *out, size_t size, const char *ifname)
{
	int n = snprintf(out, size, "%s/%s.sock", WG_UAPI_SOCKET_DIR, ifname);

	return n < 0 || (size_t)n >= size || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path)
		       ? -ENAMETOOLONG
		       : 0;
}

static void conn_free(struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		c->srv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	ev_io_stop(c->srv->loop, &c->io);
	close(c->fd);
	wg_uapi_reader_deinit(&c->reader);
	wg_devconf_buf_wipe(&c->out);
	cw_memzero(c->pending, sizeof(c->pending));
	c->srv->n_conns--;
	free(c);
}

/* Writes what is pending; true when all of it went out. */
static bool flush_out(struct conn *c)
{
	while (c->out_sent < c->out.len) {
		ssize_t n = send(c->fd, c->out.data + c->out_sent, c->out.len - c->out_sent,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (n <= 0) {
			c->closing = true;
			c->out_sent = c->out.len;
			break;
		}
		c->out_sent += (size_t)n;
	}
	wg_devconf_buf_wipe(&c->out);
	c->out_sent = 0;
	return true;
}

static void process(struct conn *c, const char *buf, size_t len);

/* Writes what is pending, then watches for what comes next: input unless a request
 * waits or the connection closes, writability while output is left. */
static void conn_settle(struct conn *c)
{
	bool flushed = flush_out(c);
	int events = (flushed ? 0 : EV_WRITE) | (c->waiting || c->closing ? 0 : EV_READ);

	if (flushed && c->closing && !c->waiting) {
		conn_free(c);
		return;
	}
	ev_io_stop(c->srv->loop, &c->io);
	if (!events)
		return;
	ev_io_set(&c->io, c->fd, events);
	ev_io_start(c->srv->loop, &c->io);
}

/* A request was answered: go on with the input that came after it. */
static void resume(struct conn *c)
{
	char buf[READ_CHUNK];
	size_t n = c->pending_len;

	c->waiting = false;
	if (c->busy)
		return; /* answered at once: process() goes on with the rest itself */
	memcpy(buf, c->pending, n);
	cw_memzero(c->pending, n);
	c->pending_len = 0;
	c->busy = true;
	process(c, buf, n);
	c->busy = false;
	cw_memzero(buf, n);
	conn_settle(c);
}

void wg_uapi_server_reply_get(struct conn *c, struct wg_devconf *snap)
{
	int ret = snap ? wg_uapi_get_write(snap, &c->out) : -ENOMEM;

	wg_devconf_free(snap);
	if (ret) {
		wg_devconf_buf_wipe(&c->out);
		wg_uapi_errno_write(&c->out, ret);
	}
	resume(c);
}

void wg_uapi_server_reply_ext_get(struct conn *c, struct wg_devconf_buf *text, int ret)
{
	if (ret)
		wg_devconf_buf_wipe(&c->out);
	else if (text->len)
		wg_devconf_buf_append(&c->out, text->data, text->len);
	wg_devconf_buf_wipe(text);
	wg_uapi_errno_write(&c->out, ret);
	resume(c);
}

void wg_uapi_server_reply_set(struct conn *c, int ret)
{
	if (ret) {
		c->srv->errors++;
		wg_log_err("UAPI set failed: %s", strerror(-ret));
	}
	wg_uapi_errno_write(&c->out, ret);
	resume(c);
}

static void handle(struct conn *c, enum wg_uapi_event ev)
{
	struct wg_uapi_server *srv = c->srv;

	switch (ev) {
	case WG_UAPI_GET:
	case WG_UAPI_SET:
	case WG_UAPI_EXT_GET:
		srv->requests++;
		c->waiting = true;
		srv->handlers.request(srv->handlers.ctx, c, ev,
				      ev == WG_UAPI_SET ? wg_uapi_reader_take(&c->reader) : NULL);
		break;
	case WG_UAPI_FAILED:
		srv->errors++;
		wg_log_err("UAPI request refused: %s", wg_uapi_reader_message(&c->reader));
		wg_uapi_errno_write(&c->out, wg_uapi_reader_error(&c->reader));
		break;
	case WG_UAPI_CLOSE:
		if (wg_uapi_reader_error(&c->reader)) {
			srv->errors++;
			wg_uapi_errno_write(&c->out, wg_uapi_reader_error(&c->reader));
		}
		c->closing = true;
		break;
	case WG_UAPI_NEED_MORE:
		break;
	}
}

/* Feeds input to the parser until it needs more, a request waits for its answer (the
 * rest is kept) or the connection is to close. */
static void process(struct conn *c, const char *buf, size_t len)
{
	while (!c->waiting && (len || !c->closing)) {
		size_t used = 0;
		enum wg_uapi_event ev = wg_uapi_reader_feed(&c->reader, buf, len, &used);

		buf += used;
		len -= used;
		if (ev == WG_UAPI_NEED_MORE)
			break;
		handle(c, ev);
		if (c->closing)
			break;
	}
	if (c->waiting && !c->closing) {
		memmove(c->pending, buf, len);
		c->pending_len = len;
	}
}

static void conn_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct conn *c = w->data;
	char buf[READ_CHUNK];

	(void)loop;
	if ((revents & EV_WRITE) && !flush_out(c))
		return;
	if (revents & EV_READ && !c->closing && !c->waiting) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		c->busy = true;
		if (n <= 0) {
			handle(c, wg_uapi_reader_eof(&c->reader));
			c->closing = true;
		} else {
			process(c, buf, (size_t)n);
			cw_memzero(buf, (size_t)n); /* may hold private_key= */
		}
		c->busy = false;
	}
	conn_settle(c);
}

static void accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct wg_uapi_server *srv = w->data;
	struct conn *c;
	int fd;

	(void)revents;
	fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (srv->n_conns >= MAX_CONNS || !(c = calloc(1, sizeof(*c)))) {
		close(fd);
		return;
	}
	c->srv = srv;
	c->fd = fd;
	wg_uapi_reader_init(&c->reader, WG_UAPI_REQUEST_MAX_BYTES);
	srv->n_conns++;
	c->next = srv->conns;
	if (c->next)
		c->next->prev = c;
	srv->conns = c;
	ev_io_init(&c->io, conn_cb, fd, EV_READ);
	c->io.data = c;
	ev_io_start(loop, &c->io);
}

/* A socket file left by a daemon that died is removed; a live one is not touched. */
static int claim_path(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return -errno;
	memcpy(sun.sun_path, path, strnlen(path, sizeof(sun.sun_path) - 1));
	if (!connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
		ret = -EADDRINUSE;
	else if (errno == ECONNREFUSED)
		unlink(path);
	close(fd);
	return ret;
}

int wg_uapi_server_start(struct wg_uapi_server *srv, struct ev_loop *loop, const char *ifname,
			 const struct wg_uapi_handlers *handlers)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old_umask;
	int ret;

	memset(srv, 0, sizeof(*srv));
	srv->loop = loop;
	srv->handlers = *handlers;
	srv->fd = -1;
	ret = wg_uapi_socket_path(srv->path, sizeof(srv->path), ifname);
	if (ret)
		return ret;
	if (mkdir(WG_UAPI_SOCKET_DIR, 0755) && errno != EEXIST)
		return -errno;
	ret = claim_path(srv->path);
	if (ret)
		return ret;
	srv->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv->fd < 0)
		return -errno;
	memcpy(sun.sun_path, srv->path, strnlen(srv->path, sizeof(sun.sun_path) - 1));
	old_umask = umask(0077);
	ret = bind(srv->fd, (struct sockaddr *)&sun, sizeof(sun)) ? -errno : 0;
	umask(old_umask);
	if (!ret && listen(srv->fd, 16))
		ret = -errno;
	if (ret) {
		close(srv->fd);
		srv->fd = -1;
		return ret;
	}
	ev_io_init(&srv->listen_w, accept_cb, srv->fd, EV_READ);
	srv->listen_w.data = srv;
	ev_io_start(loop, &srv->listen_w);
	return 0;
}

void wg_uapi_server_stop(struct wg_uapi_server *srv)
{
	if (srv->fd < 0)
		return;
	while (srv->conns)
		conn_free(srv->conns);
	ev_io_stop(srv->loop, &srv->listen_w);
	close(srv->fd);
	srv->fd = -1;
	unlink(srv->path);
}
