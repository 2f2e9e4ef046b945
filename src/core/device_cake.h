/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CAKE options of a `set`, for both instances, all or nothing: checked against the
 * instances they will change (an ingress instance not created yet: a new one's
 * defaults; WG_DEVCONF_CAKE_INGRESS_OFF is always valid) before either changes, then
 * put in force by a commit that fails only when memory runs out.
 *
 *   wg_device_cake_check(dev, c, egress, ingress, ...)   changes nothing
 *   wg_device_cake_commit(dev, c, ...)  or  wg_device_cake_abandon(c)
 *
 * No other change of the instances may come between the two.
 */
#ifndef CAKEWG_SRC_CORE_DEVICE_CAKE_H
#define CAKEWG_SRC_CORE_DEVICE_CAKE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/egress.h"

struct wg_device;

struct wg_device_cake_change {
	const char *egress_opts, *ingress_opts;	 /* borrowed; NULL: not named */
	struct wg_egress_change egress, ingress; /* ingress: unused for `off` */
};

/* Parses and checks both strings (either may be NULL). 0, or -errno with the message
 * that refuses them in err (the egress string's first) and nothing to undo. */
int wg_device_cake_check(const struct wg_device *dev, struct wg_device_cake_change *c,
			 const char *egress, const char *ingress, char *err, size_t err_len,
			 uint64_t now_ns);
/* Applies a checked change: egress, then ingress. 0, or -ENOMEM with the reason in err
 * (the egress may then be changed already). c is spent either way. */
int wg_device_cake_commit(struct wg_device *dev, struct wg_device_cake_change *c, char *err,
			  size_t err_len, uint64_t now_ns);
/* Frees a checked change not committed. A zeroed c is fine. */
void wg_device_cake_abandon(struct wg_device_cake_change *c);

#endif
