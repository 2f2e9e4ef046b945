/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cross-platform UAPI server: a unix stream socket at /var/run/wireguard/<ifname>.sock
 * (mode 0600 in a 0755 directory, as wireguard-go) speaking the wireguard-tools protocol,
 * so stock `wg show`, `wg set`, `wg setconf` and `wg syncconf` drive cakewg. Connections
 * are nonblocking libev watchers; requests are parsed by src/core/uapi.c and answered
 * through the callbacks, which the daemon wires to its device.
 */
#ifndef CAKEWG_SRC_EDGE_UAPI_SERVER_H
#define CAKEWG_SRC_EDGE_UAPI_SERVER_H

#include <ev.h>
#include <limits.h>

#include "src/core/devconf.h"

#define WG_UAPI_SOCKET_DIR "/var/run/wireguard"

struct wg_uapi_handlers {
	void *ctx;
	/* A snapshot of the device for `get`, or NULL when out of memory. */
	struct wg_devconf *(*get)(void *ctx);
	/* Applies a parsed `set`; returns 0 or a negative errno for the reply. */
	int (*set)(void *ctx, const struct wg_devconf *conf);
	/* cakewg's extension `cakewg_get=1`: appends its key=value lines; 0 or -errno. */
	int (*ext_get)(void *ctx, struct wg_devconf_buf *out);
};

struct conn;

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

/* The socket path for ifname; -ENAMETOOLONG when it does not fit. */
int wg_uapi_socket_path(char *out, size_t size, const char *ifname);

#endif
