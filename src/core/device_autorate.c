/* SPDX-License-Identifier: GPL-2.0-only */
/* Autorate in the device (see device_autorate.h). */
#include "src/core/device_autorate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"
#include "qdisc/cake_print.h"
#include "src/core/device.h"

/* A new controller starting at start (0: the middle of the range) into *out. */
/*
 * The controller of an instance. Its ingress rules (the senders' queue is before the
 * shaper, out of its reach) follow where the instance sits, not tc-cake's `ingress`
 * word, which only has CAKE charge its drops to the shaper: `CakeIngress = bandwidth
 * 20mbit autorate 2mbit 80mbit` shapes arrivals all the same.
 */
static int controller_new(const struct cake_options *o, bool ingress, uint64_t start,
			  uint64_t now_ns, struct wg_autorate **out, char *err, size_t err_len)
{
	struct cake_autorate_config cfg = {
		.min_rate = o->autorate_min,
		.max_rate = o->autorate_max,
		.start_rate = start,
		.target_us = o->autorate_target_us,
		.ingress = ingress,
	};
	struct wg_autorate *ar = calloc(1, sizeof(*ar));

	if (!ar) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	if (cake_autorate_init(&ar->ctl, &cfg, now_ns)) {
		free(ar);
		snprintf(err, err_len, "autorate needs 0 < MIN <= bandwidth <= MAX");
		return -EINVAL;
	}
	ar->rate = ar->ctl.rate;
	ar->logged_rate = ar->rate;
	ar->logged_ns = now_ns;
	*out = ar;
	return 0;
}

/* cake_parse.h's rule: a new range, target or start rate restarts the controller. */
static bool restarts(const struct cake_options *was, const struct cake_options *now)
{
	return !was->autorate || was->autorate_min != now->autorate_min ||
	       was->autorate_max != now->autorate_max ||
	       was->autorate_target_us != now->autorate_target_us ||
	       was->rate_bytes_per_sec != now->rate_bytes_per_sec;
}

uint64_t wg_autorate_rate_now(const struct wg_egress *eg)
{
	return eg->autorate ? eg->autorate->rate : eg->opts.rate_bytes_per_sec;
}

int wg_autorate_prepare(const struct wg_egress *eg, const struct cake_options *merged,
			struct cake_options *cake_opts, struct wg_autorate **prepared, char *err,
			size_t err_len, uint64_t now_ns)
{
	*cake_opts = *merged;
	*prepared = NULL;
	if (!merged->autorate)
		return 0; /* autorate off: merged holds the rate in force, or the one named */
	if (eg->autorate && !restarts(&eg->opts, merged)) {
		*prepared = eg->autorate;
	} else {
		int ret = controller_new(merged, eg->ingress, merged->rate_bytes_per_sec, now_ns,
					 prepared, err, err_len);

		if (ret)
			return ret;
	}
	cake_opts->rate_bytes_per_sec = (*prepared)->rate;
	cake_opts->present |= CAKE_OPT_RATE;
	return 0;
}

void wg_autorate_commit(struct wg_egress *eg, struct wg_autorate *prepared)
{
	if (eg->autorate != prepared) {
		free(eg->autorate);
		if (prepared) /* a new controller counts from now */
			prepared->shaped_at_tick = cake_shaped_bytes(eg->q);
	}
	eg->autorate = prepared;
}

void wg_autorate_abandon(struct wg_autorate *prepared)
{
	free(prepared);
}

/* The controller of the instance for direction d (OUT: egress, IN: ingress), or NULL. */
static struct wg_autorate *controller(const struct wg_device *dev, enum cake_tcpts_dir d)
{
	const struct wg_egress *eg = d == CAKE_TCPTS_OUT ? &dev->egress : dev->ingress;

	return eg ? eg->autorate : NULL;
}

static bool any_controller(const struct wg_device *dev)
{
	return controller(dev, CAKE_TCPTS_OUT) || controller(dev, CAKE_TCPTS_IN);
}

int wg_device_autorate_attach(struct wg_device *dev, uint64_t now_ns)
{
	struct cake_siphash_key key;

	if (!any_controller(dev)) {
		cake_tcpts_free(dev->tcpts);
		dev->tcpts = NULL;
		return 0;
	}
	if (dev->tcpts)
		return 0;
	wg_rng_fill(&dev->rng, &key, sizeof(key));
	dev->tcpts = cake_tcpts_new(WG_AUTORATE_FLOWS, &key);
	cw_memzero(&key, sizeof(key));
	if (!dev->tcpts) { /* the instances keep their rates, as after `autorate off` */
		struct wg_egress *eg[2] = { &dev->egress, dev->ingress };

		for (int i = 0; i < 2; i++) {
			if (!eg[i])
				continue;
			eg[i]->opts.rate_bytes_per_sec = wg_autorate_rate_now(eg[i]);
			eg[i]->opts.autorate = false;
			eg[i]->opts.autorate_min = eg[i]->opts.autorate_max = 0;
			wg_autorate_commit(eg[i], NULL);
		}
		return -ENOMEM;
	}
	dev->autorate_next_ns = now_ns + CAKE_AUTORATE_TICK_NS;
	return 0;
}

void wg_device_autorate_path_reset(struct wg_device *dev, uint64_t now_ns)
{
	if (!dev->tcpts)
		return;
	for (int d = 0; d < CAKE_TCPTS_DIRS; d++) {
		struct wg_autorate *ar = controller(dev, d);

		if (ar)
			cake_autorate_path_reset(&ar->ctl, now_ns);
	}
	cake_tcpts_free(dev->tcpts);
	dev->tcpts = NULL;
	(void)wg_device_autorate_attach(dev, now_ns); /* -ENOMEM: autorate off, rates kept */
	wg_device_log(dev, WG_LOG_INFO, "autorate: delay baselines restarted (path changed)");
}

void wg_device_autorate_packet(struct wg_device *dev, enum cake_tcpts_dir dir,
			       const struct wg_pkt *pkt, uint32_t wire_len, uint64_t at_ns,
			       uint64_t now_ns)
{
	cake_tcpts_packet(dev->tcpts, dir, pkt->cp.data, pkt->cp.len, wire_len, at_ns);
	if (now_ns < dev->autorate_early_ns)
		return;
	dev->autorate_early_ns = now_ns + CAKE_AUTORATE_EARLY_CHECK_NS;
	for (int d = 0; d < CAKE_TCPTS_DIRS; d++) {
		struct wg_autorate *ar = controller(dev, d);

		if (ar && cake_autorate_early(&ar->ctl, dev->tcpts, d, now_ns)) {
			dev->autorate_next_ns = now_ns; /* due: the loop's timers run it */
			return;
		}
	}
}

uint64_t wg_device_autorate_next(const struct wg_device *dev)
{
	return dev->tcpts ? dev->autorate_next_ns : UINT64_MAX;
}

/* `cake egress autorate: 40Mbit -> 8.2Mbit (bloat, delay 31ms)`, for moves of more than
 * 1/2^WG_AUTORATE_LOG_STEP_SHIFT since the last line: cuts at once, rises (probing,
 * settling) at most once per WG_AUTORATE_LOG_INTERVAL_NS. */
static void log_change(struct wg_device *dev, const char *name, struct wg_autorate *ar,
		       uint64_t now_ns)
{
	struct cake_autorate_status s;
	char from[CAKE_FMT_BYTES], to[CAKE_FMT_BYTES], delay[CAKE_FMT_BYTES];
	bool cut;

	uint64_t step = ar->logged_rate >> WG_AUTORATE_LOG_STEP_SHIFT;

	if (ar->rate + step >= ar->logged_rate && ar->rate <= ar->logged_rate + step)
		return; /* the sawtooth around a steady capacity: not news */
	cake_autorate_get(&ar->ctl, &s);
	cut = ar->rate < ar->logged_rate;
	if (!cut && now_ns - ar->logged_ns < WG_AUTORATE_LOG_INTERVAL_NS)
		return;
	wg_device_log(dev, WG_LOG_INFO, "cake %s autorate: %s -> %s (%s, delay %s%s)", name,
		      cake_fmt_rate(from, ar->logged_rate), cake_fmt_rate(to, ar->rate),
		      cake_autorate_reason_name(s.reason), cake_fmt_time(delay, s.delay_us),
		      s.delay_from_rtt ? " on the RTT" : "");
	ar->logged_rate = ar->rate;
	ar->logged_ns = now_ns;
}

/* One instance's tick; true when it is loaded but has no delay signal. */
static bool tick_instance(struct wg_device *dev, struct wg_egress *eg, const char *name,
			  const struct cake_signal *sig, uint64_t now_ns)
{
	struct wg_autorate *ar = eg->autorate;
	uint64_t shaped = cake_shaped_bytes(eg->q);
	struct cake_autorate_input in = {
		.sig = *sig,
		.shaped_bytes = shaped - ar->shaped_at_tick,
		.backlogged = cake_backlog_bytes(eg->q) > 0,
	};
	uint64_t rate = cake_autorate_tick(&ar->ctl, &in, now_ns);

	ar->shaped_at_tick = shaped;
	if (rate != ar->rate) {
		struct cake_options o = {.present = CAKE_OPT_RATE, .rate_bytes_per_sec = rate};

		/* Only the rate is named: queues, flows and COBALT state stay. */
		if (!cake_configure(eg->q, &o, now_ns))
			ar->rate = rate;
	}
	log_change(dev, name, ar, now_ns);
	return ar->ctl.action == CAKE_AUTORATE_HOLD_NO_SIGNAL;
}

struct probe_find {
	struct wg_ipaddr addr;
	bool found;
};

static int single_host(void *arg, const struct wg_allowedip *ip)
{
	struct probe_find *f = arg;
	unsigned int host = ip->family == AF_INET ? 32 : 128;

	if (f->found || ip->cidr != host)
		return 0;
	memset(&f->addr, 0, sizeof(f->addr));
	f->addr.family = (sa_family_t)ip->family;
	memcpy(f->addr.bytes, ip->addr, ip->family == AF_INET ? 4 : 16);
	f->found = true;
	return 0;
}

/* AutorateProbe, else the first single-host AllowedIP of a peer, else none. */
static bool probe_address(const struct wg_device *dev, struct wg_ipaddr *out)
{
	struct probe_find f = {.found = false};

	if (dev->autorate_probe.family) {
		*out = dev->autorate_probe;
		return true;
	}
	for (const struct wg_peer *p = dev->peers_head; p && !f.found; p = p->next)
		(void)wg_allowedips_walk_peer(&dev->allowedips, p, single_host, &f);
	if (f.found)
		*out = f.addr;
	return f.found;
}

static void maybe_probe(struct wg_device *dev, uint64_t now_ns)
{
	struct wg_ipaddr dst;

	if (!dev->ops.send_probe || now_ns < dev->autorate_probe_next_ns)
		return;
	dev->autorate_probe_next_ns = now_ns + WG_AUTORATE_PROBE_INTERVAL_NS;
	if (probe_address(dev, &dst)) {
		dev->autorate_probes++;
		dev->ops.send_probe(dev->ops.ctx, &dst);
	}
}

void wg_device_autorate_tick(struct wg_device *dev, uint64_t now_ns)
{
	struct cake_signal sig[CAKE_TCPTS_DIRS];
	bool blind = false;

	if (!dev->tcpts || now_ns < dev->autorate_next_ns)
		return;
	dev->autorate_next_ns = now_ns + CAKE_AUTORATE_TICK_NS;
	cake_tcpts_take(dev->tcpts, sig);
	if (dev->egress.autorate)
		blind |= tick_instance(dev, &dev->egress, "egress", &sig[CAKE_TCPTS_OUT], now_ns);
	if (dev->ingress && dev->ingress->autorate)
		blind |= tick_instance(dev, dev->ingress, "ingress", &sig[CAKE_TCPTS_IN], now_ns);
	if (blind)
		maybe_probe(dev, now_ns);
}

void wg_autorate_fill_stats(const struct wg_egress *eg, struct cake_stats *st, uint64_t now_ns)
{
	if (!eg->autorate) {
		st->has_autorate = false;
		return;
	}
	st->has_autorate = true;
	cake_autorate_get(&eg->autorate->ctl, &st->autorate);
	st->autorate.rate = eg->autorate->rate;
	st->autorate_age_ns =
		now_ns > st->autorate.last_change_ns ? now_ns - st->autorate.last_change_ns : 0;
}
