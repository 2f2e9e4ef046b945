/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Autorate in the device: the glue between the datapath and the pure controller
 * (qdisc/autorate.h) and signal extractor (qdisc/tcpts.h).
 *
 * The device owns one extractor (dev->tcpts, present while any CAKE instance has
 * `autorate MIN MAX`) and each such instance one controller (eg->autorate). Inner
 * packets are shown to the extractor where they leave the egress CAKE (OUT, in
 * wg_device_tx_flush, before encryption) and where they arrive decrypted (IN, before
 * the ingress CAKE or the TUN write); with autorate off both hooks are one untaken
 * branch. Every CAKE_AUTORATE_TICK_NS, through wg_device_next_deadline() and
 * wg_device_run_timers(), the tick takes both directions' signals once and feeds each
 * controller with what its shaper let out since the last tick; a new rate goes to
 * the instance with cake_configure(rate only), which keeps the queues. While a loaded
 * controller has no delay sample (UDP-only traffic), the tick asks the edge for a
 * sparse ICMP echo through the tunnel (ops->send_probe), whose reply the extractor
 * times like any other RTT sample.
 */
#ifndef CAKEWG_SRC_CORE_DEVICE_AUTORATE_H
#define CAKEWG_SRC_CORE_DEVICE_AUTORATE_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/autorate.h"
#include "qdisc/cake_options.h"
#include "qdisc/cake_stats.h"
#include "qdisc/tcpts.h"

struct wg_device;
struct wg_egress;
struct wg_pkt;

enum {
	WG_AUTORATE_FLOWS = 1024,	/* TCP flows the extractor follows at once */
	WG_AUTORATE_LOG_STEP_SHIFT = 3, /* log moves of more than 1/8 */
};
/* A logged rise waits this long after the last line (a cut is logged at once). */
#define WG_AUTORATE_LOG_INTERVAL_NS (1000ULL * 1000 * 1000)
/* At most one active probe per this period (4 per second). */
#define WG_AUTORATE_PROBE_INTERVAL_NS (250ULL * 1000 * 1000)

/* One CAKE instance's controller and what its tick needs. */
struct wg_autorate {
	struct cake_autorate ctl;
	uint64_t rate;	     /* the rate in force on the instance, bytes/s */
	uint64_t shaped_at_tick; /* cake_shaped_bytes() of the instance at the last tick */
	uint64_t logged_rate, logged_ns; /* the last rate a log line named */
};

/* The rate the instance runs at now: cake_options_merge_at()'s rate_now. */
uint64_t wg_autorate_rate_now(const struct wg_egress *eg);
/*
 * Options merged for an instance (wg_egress_prepare), before cake_configure():
 * *prepared gets the controller they ask for (a new one, the one in force, or NULL)
 * and cake_opts the options to configure, at the controller's rate. Returns 0 or
 * -ENOMEM / -EINVAL (then nothing changed; err says why).
 */
int wg_autorate_prepare(const struct wg_egress *eg, const struct cake_options *merged,
			struct cake_options *cake_opts, struct wg_autorate **prepared, char *err,
			size_t err_len, uint64_t now_ns);
/* After the instance took the options: installs prepared (freeing what it replaces). */
void wg_autorate_commit(struct wg_egress *eg, struct wg_autorate *prepared);
/* Frees a controller prepared for a change that no instance took (not the one in force). */
void wg_autorate_abandon(struct wg_autorate *prepared);

/* Creates or frees dev->tcpts as the instances need it. -ENOMEM drops every controller. */
int wg_device_autorate_attach(struct wg_device *dev, uint64_t now_ns);

/*
 * The per-packet hook, once per (super-)packet; call only when dev->tcpts is set. at_ns
 * is when the packet passed: now_ns as it leaves the egress CAKE, its arrival
 * (wg_pkt_arrival_ns) coming in. Every CAKE_AUTORATE_EARLY_CHECK_NS of now_ns it asks each controller whether its delay samples call
 * for an early tick (cake_autorate_early); if so the tick is due at once
 * (wg_device_autorate_next), and the loop runs it with the timers.
 */
void wg_device_autorate_packet(struct wg_device *dev, enum cake_tcpts_dir dir,
			       const struct wg_pkt *pkt, uint32_t wire_len, uint64_t at_ns,
			       uint64_t now_ns);

/* The next tick (UINT64_MAX without autorate) and the tick itself (a no-op before it). */
uint64_t wg_device_autorate_next(const struct wg_device *dev);
void wg_device_autorate_tick(struct wg_device *dev, uint64_t now_ns);

/* The path under the tunnel changed: every controller forgets its delay baselines
 * (cake_autorate_path_reset) and the extractor its flows' (a new one, freshly keyed). */
void wg_device_autorate_path_reset(struct wg_device *dev, uint64_t now_ns);

/* Fills st->has_autorate, ->autorate and ->autorate_age_ns for the instance. */
void wg_autorate_fill_stats(const struct wg_egress *eg, struct cake_stats *st, uint64_t now_ns);

#endif
