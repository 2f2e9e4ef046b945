/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration off the datapath: a control thread owns the UAPI socket and its
 * connections (src/edge/uapi_server.c), parses each request there and builds a `set`'s
 * change set there (src/core/device_conf.h: the X25519 precomputation and the new peer
 * objects), then hands the request to the datapath's loop, which applies it, or copies
 * a `get`'s snapshot, in slices of at most WG_CONTROL_SLICE_NS between packet batches.
 * The control thread formats the reply.
 *
 * One request is with the datapath at a time; the others wait on the control thread in
 * arrival order. So a `get` sees the device before or after a `set`, never in between,
 * and a `set` is applied all or nothing as far as validation goes: what may refuse it
 * runs in its first slice, before the device changed: the CAKE options of both
 * instances are checked first (wg_device_change_check), then the underlay's part
 * (which puts back what it changed when a later step of it fails), then the CAKE
 * options are applied. Only a lack of memory part way can leave a `set` half done.
 * The reply is sent when the last slice is done.
 *
 * Threads and ownership (doc/architecture.md §6a):
 *   control thread: its own ev_loop, the UAPI server, the queue of waiting requests, the
 *                   change sets while they are prepared, and its copy of the device's
 *                   identity (updated from each applied set) that prepare needs, and
 *                   the arrays a finished request took from the device's retired
 *                   list (src/core/retired.h), which it frees, then trims the heap;
 *   datapath loop:  the device and the underlay; the request it was handed, until done;
 *   shared:         one posted and one finished request, under a mutex, each signalled
 *                   with an ev_async.
 */
#ifndef CAKEWG_SRC_EDGE_CONTROL_H
#define CAKEWG_SRC_EDGE_CONTROL_H

#include <ev.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/core/devconf.h"
#include "src/core/noise.h"
#include "src/edge/uapi_server.h"

enum wg_control_limits {
	/* The longest the datapath spends on configuration at a time. */
	WG_CONTROL_SLICE_NS = 500 * 1000,
	/* Work units (src/core/device_conf.h) per step; the clock is read between steps. */
	WG_CONTROL_STEP_UNITS = 32,
	/* The control thread's nice value (the datapath keeps the process's). */
	WG_CONTROL_NICE = 10,
};

/* What the daemon does on its loop for a request. */
struct wg_control_ops {
	void *ctx;
	/* The time now (the daemon's tick). */
	uint64_t (*now)(void *ctx);
	/* Before a `set` touches the device, after its CAKE options were checked: the
	 * underlay's part (listen port, fwmark, underlay limit). 0, or the negative errno
	 * that refuses the set, with what it changed put back. */
	int (*set_begin)(void *ctx, const struct wg_devconf *conf);
	/* After a `set`'s last slice, whatever its result. */
	void (*set_end)(void *ctx, int ret);
	/* cakewg_get=1's lines before the peers' (wg_device_ext_get_head); 0 or -errno. */
	int (*ext_get)(void *ctx, struct wg_devconf_buf *out);
};

struct wg_control_job;
struct wg_device;

struct wg_control {
	/* the control thread's */
	pthread_t thread;
	struct ev_loop *loop;
	struct wg_uapi_server uapi;
	ev_async done_w, stop_w;
	struct wg_control_job *queue_head, *queue_tail; /* waiting for their turn */
	struct wg_control_job *in_flight;		 /* with the datapath */
	struct wg_noise_identity identity; /* the device's, as of the last set applied */

	/* shared, under lock */
	pthread_mutex_t lock;
	struct wg_control_job *posted, *finished;

	/* the datapath's */
	struct ev_loop *dp_loop;
	struct wg_device *dev;
	struct wg_control_ops ops;
	ev_async post_w;
	ev_timer slice_w; /* the next slice, in the next loop iteration */
	struct wg_control_job *active;
	bool running;
};

/*
 * Opens the UAPI socket for ifname (-EADDRINUSE when a live daemon holds it); requests
 * will be applied to dev on dp_loop, the caller's loop. No thread runs yet, so the
 * process may still drop privileges (capabilities are per thread: src/edge/privdrop.h).
 * 0 or -errno (then nothing is left open).
 */
int wg_control_open(struct wg_control *ctl, struct ev_loop *dp_loop, struct wg_device *dev,
		    const char *ifname, const struct wg_control_ops *ops);
/* Starts the control thread of an opened ctl. 0 or -errno (then ctl is closed). */
int wg_control_run(struct wg_control *ctl);
/* Both at once. */
int wg_control_start(struct wg_control *ctl, struct ev_loop *dp_loop, struct wg_device *dev,
		     const char *ifname, const struct wg_control_ops *ops);
/* From the datapath's thread, its loop stopped: ends the control thread, closes the
 * socket and its connections, drops unanswered requests. */
void wg_control_stop(struct wg_control *ctl);

#endif
