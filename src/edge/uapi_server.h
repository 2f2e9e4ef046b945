/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cross-platform UAPI server: a unix stream socket at /var/run/wireguard/<ifname>.sock
 * (mode 0600 in a 0755 directory, as wireguard-go) speaking the wireguard-tools protocol,
 * so stock `wg show`, `wg set`, `wg setconf` and `wg syncconf` drive cakewg. Connections
 * are nonblocking libev watchers; requests are parsed by src/core/uapi.c, handed to a
 * callback (src/edge/control.c, which takes them to the device) and answered when it
 * replies: one request at a time per connection, pipelined ones wait.
 */
#ifndef CAKEWG_SRC_EDGE_UAPI_SERVER_H
#define CAKEWG_SRC_EDGE_UAPI_SERVER_H

#include <ev.h>
#include <limits.h>

#include "src/core/devconf.h"
#include "src/core/uapi.h"

#define WG_UAPI_SOCKET_DIR "/var/run/wireguard"

struct conn;

/*
 * A complete request is handed to request(): ev is WG_UAPI_GET, WG_UAPI_EXT_GET or
 * WG_UAPI_SET (then conf is the parsed request, the handler's to free; NULL when out of
 * memory). The connection reads nothing more until the request is answered with the
 * wg_uapi_server_reply_*() of its kind, at once or later from the server's loop.
 */
struct wg_uapi_handlers {
	void *ctx;
	void (*request)(void *ctx, struct conn *conn, enum wg_uapi_event ev,
			struct wg_devconf *conf);
};

struct wg_uapi_server {
	struct ev_loop *loop;
	ev_io listen_w;
	int fd;
	char path[PATH_MAX];
	struct wg_uapi_handlers handlers;
	struct conn *conns;
	unsigned int n_conns;
	unsigned long long requests, errors;
};

/* Creates the socket for ifname (failing with -EADDRINUSE when a live daemon holds it)
 * and starts accepting. */
int wg_uapi_server_start(struct wg_uapi_server *srv, struct ev_loop *loop, const char *ifname,
			 const struct wg_uapi_handlers *handlers);
/* Stops accepting, closes the connections and removes the socket file. */
void wg_uapi_server_stop(struct wg_uapi_server *srv);

/* Answers a `get`: snap (taken; NULL when out of memory) in the reply's text. */
void wg_uapi_server_reply_get(struct conn *conn, struct wg_devconf *snap);
/* Answers a `set`: ret is 0 or the negative errno of the reply. */
void wg_uapi_server_reply_set(struct conn *conn, int ret);
/* Answers a `cakewg_get=1`: text's lines (taken and wiped) when ret is 0. */
void wg_uapi_server_reply_ext_get(struct conn *conn, struct wg_devconf_buf *text, int ret);

/* The socket path for ifname; -ENAMETOOLONG when it does not fit. */
int wg_uapi_socket_path(char *out, size_t size, const char *ifname);

#endif
