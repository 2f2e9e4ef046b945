/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration of a device in bounded steps, so that a `set` or `get` of any size never
 * holds the datapath for long (doc/architecture.md §6a has the threads around it).
 *
 * A `set` is a change set: built once from a parsed request, off the datapath (the
 * X25519 static-static precomputation and the peer objects of the peers it may create
 * are the expensive part), then applied on the datapath in steps of a bounded amount of
 * work:
 *
 *   wg_device_change_prepare(c, conf, identity)   anywhere: touches no device
 *   wg_device_change_check(dev, c, now)           optional: the checks that depend on the
 *                                                 device (the CAKE options of both
 *                                                 instances), changing nothing
 *   wg_device_change_begin(dev, c, now)           the check unless done, then the CAKE
 *                                                 options applied: a refusal leaves the
 *                                                 device as it was, and after the check
 *                                                 only a lack of memory can fail it
 *   wg_device_change_step(dev, c, budget, now)    until it returns 0 (or -errno)
 *   wg_device_change_deinit(c)                    frees what was not used
 *
 * Between begin and the last step the datapath runs on with part of the change in
 * force (peers appear one by one, as the kernel adds them); whoever drives the steps
 * holds every other configuration request back, so a `get` sees the device before or
 * after a `set`, never in between. A step fails only when memory runs out.
 *
 * A `get` is a snapshot taken the same way, wg_device_snapshot_step() after
 * wg_device_snapshot_init(): the peer list cannot change while it runs, because only
 * configuration changes it and configuration is held back.
 *
 * Budgets count work units (WG_DEVICE_CONF_UNITS_*), not time: the core reads no clock.
 * The edge runs steps until its time slice is used.
 */
#ifndef CAKEWG_SRC_CORE_DEVICE_CONF_H
#define CAKEWG_SRC_CORE_DEVICE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/devconf.h"
#include "src/core/device_cake.h"
#include "src/core/noise.h"

struct wg_device;
struct wg_peer;

enum wg_device_conf_units {
	/* an allowed IP, a peer record's other fields, a peer removed or copied */
	WG_DEVICE_CONF_UNITS_ITEM = 1,
	/* an X25519 precomputation on the datapath (a private key change): ~16 items */
	WG_DEVICE_CONF_UNITS_X25519 = 16,
	/* a step returned this: call it again */
	WG_DEVICE_CONF_MORE = 1,
};

enum wg_device_change_stage {
	WG_CHANGE_CAKE,	       /* begin: CAKE options */
	WG_CHANGE_PRIVATE_KEY, /* the identity, then every existing peer's precomputation */
	WG_CHANGE_REKEY_PEERS,
	WG_CHANGE_DEVICE,      /* listen port, fwmark */
	WG_CHANGE_REPLACE,     /* replace_peers: every peer removed */
	WG_CHANGE_PEERS,       /* the peer records, in order */
	WG_CHANGE_DONE,
};

struct wg_device_change {
	const struct wg_devconf *conf; /* borrowed: outlives the change set */
	struct wg_peer **fresh;	       /* per record: a peer built by prepare, or NULL */
	/* the identity after the change: fresh peers were precomputed with it */
	struct wg_noise_identity identity;
	bool identity_changes;	       /* conf sets a private key different from before */
	bool identity_applied;	       /* the device has taken `identity` */
	bool stale_fresh;	       /* the device had another identity: precompute again */
	enum wg_device_change_stage stage;
	size_t next;		       /* the next peer record */
	size_t removals;	       /* records that remove a peer (prepare counts them) */
	struct wg_peer *next_peer;     /* REKEY_PEERS: the next existing peer */
	struct wg_device_cake_change cake; /* checked, until begin applies it */
	bool checked;		       /* cake holds the check of the device as it is */
};

/*
 * Builds the change set for conf, as the device would apply it when its identity is
 * current (the identity the device had after the previous change). Does no I/O and
 * touches no device, so it may run on any thread. 0 or -ENOMEM.
 */
int wg_device_change_prepare(struct wg_device_change *c, const struct wg_devconf *conf,
			     const struct wg_noise_identity *current);
/* On the datapath: checks the CAKE options of both instances against them (a new
 * instance's defaults for an ingress one not created yet), logs and returns what
 * refuses them (-errno), else 0; the device does not change. Nothing else may change
 * the instances before begin. */
int wg_device_change_check(struct wg_device *dev, struct wg_device_change *c, uint64_t now_ns);
/* On the datapath: the check unless done, then the CAKE options applied. 0, or -errno
 * with nothing changed (after a check: -ENOMEM only, the egress perhaps changed). */
int wg_device_change_begin(struct wg_device *dev, struct wg_device_change *c, uint64_t now_ns);
/* On the datapath: applies up to about budget units. WG_DEVICE_CONF_MORE, 0 when the
 * whole change is applied, or -ENOMEM. */
int wg_device_change_step(struct wg_device *dev, struct wg_device_change *c, unsigned int budget,
			  uint64_t now_ns);
/* Frees the peers the change did not use and wipes its keys. Call it after prepare
 * whatever it returned. */
void wg_device_change_deinit(struct wg_device_change *c);

struct wg_device_snapshot {
	struct wg_devconf *conf;       /* the result, handed over by the last step */
	const struct wg_peer *next;    /* the next peer to copy */
};

/* Starts a snapshot with the device's own fields. 0 or -ENOMEM. */
int wg_device_snapshot_init(const struct wg_device *dev, struct wg_device_snapshot *s);
/* Copies up to about budget units of peers. WG_DEVICE_CONF_MORE, 0 when complete (then
 * s->conf is the caller's), or -ENOMEM (nothing kept). */
int wg_device_snapshot_step(const struct wg_device *dev, struct wg_device_snapshot *s,
			    unsigned int budget);
/* Frees an unfinished snapshot (NULL conf is fine). */
void wg_device_snapshot_deinit(struct wg_device_snapshot *s);

#endif
