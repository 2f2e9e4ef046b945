/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A retry schedule for something that may fail for a while and then work (a socket the
 * edge cannot open yet: EMFILE, ENOBUFS, a device not up): after the first failure the
 * next attempt is due WG_BACKOFF_MIN_NS later, the wait doubling at each failure in a
 * row up to WG_BACKOFF_MAX_NS; a success starts over. The caller logs the first failure
 * of a run and the recovery that ends it, and nothing between, so a lasting failure
 * neither spins nor floods the log.
 *
 * Pure: the caller passes the time.
 */
#ifndef CAKEWG_SRC_CORE_BACKOFF_H
#define CAKEWG_SRC_CORE_BACKOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/clock.h"

#define WG_BACKOFF_MIN_NS (1 * WG_NSEC_PER_SEC)
#define WG_BACKOFF_MAX_NS (60 * WG_NSEC_PER_SEC)

struct wg_backoff {
	uint64_t next_ns;  /* the next attempt is due then (while failing) */
	uint64_t delay_ns; /* the last wait; 0: not failing */
};

/* True when an attempt may be made now: not failing, or the wait is over. */
bool wg_backoff_due(const struct wg_backoff *b, uint64_t now_ns);
/* An attempt failed at now_ns. True for the first failure of a run: log it. */
bool wg_backoff_failed(struct wg_backoff *b, uint64_t now_ns);
/* An attempt succeeded. True when it ends a run of failures: log the recovery. */
bool wg_backoff_succeeded(struct wg_backoff *b);

#endif
