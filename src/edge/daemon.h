/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cakewg daemon for one interface: the TUN device, the underlay UDP sockets, the UAPI
 * socket and the link-event watch, wired to a struct wg_device on one libev loop.
 *
 * Each wake-up drains up to WG_DAEMON_BATCH packets from its source, then, once per loop
 * iteration (an ev_prepare watcher), pushes the egress queue out until the underlay is
 * full, flushes the send batch and re-arms the two timers: the protocol's next deadline
 * and the shaper's next send time. When the underlay refuses packets, the loop waits for
 * writability instead: the queue stays in CAKE, where it is managed.
 */
#ifndef CAKEWG_SRC_EDGE_DAEMON_H
#define CAKEWG_SRC_EDGE_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "src/edge/privdrop.h"
#include "src/edge/seccomp.h"

struct wg_daemon_opts {
	const char *ifname;
	bool foreground;
	int ready_fd; /* written to once the UAPI socket is up (-1: none) */
	uint16_t listen_port; /* bound at start (0: any), before the drop */
	struct wg_privdrop_conf priv; /* whom the daemon runs as once all is open */
	enum wg_seccomp_mode seccomp;
};

/* Runs until SIGINT/SIGTERM or the interface is deleted. Returns a process exit code. */
int wg_daemon_run(const struct wg_daemon_opts *opts);

#endif
