/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading the system's clocks, for the edge: the core takes time as an argument. */
#ifndef CAKEWG_SRC_EDGE_MONOCLOCK_H
#define CAKEWG_SRC_EDGE_MONOCLOCK_H

#include <stdint.h>
#include <time.h>

#include "src/core/clock.h"

/* Clock id in ns (CLOCK_MONOTONIC, or a thread's CPU time). */
static inline uint64_t wg_clock_read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * WG_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The monotonic now_ns the core is given. */
static inline uint64_t wg_mono_ns(void)
{
	return wg_clock_read_ns(CLOCK_MONOTONIC);
}

#endif
