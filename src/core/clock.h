/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Time as the core sees it: every entry point takes `now_ns`, a monotonic clock in
 * nanoseconds. Wall time is needed only for the TAI64N timestamp of an initiation and
 * is passed in as struct wg_walltime. Only src/edge reads real clocks.
 */
#ifndef CAKEWG_SRC_CORE_CLOCK_H
#define CAKEWG_SRC_CORE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define WG_NSEC_PER_SEC 1000000000ULL
#define WG_NSEC_PER_MSEC 1000000ULL

struct wg_walltime {
	uint64_t sec;
	uint32_t nsec;
};

/* True once something born at birthdate_ns has lived lifetime_ns (keys, cookies, rates). */
static inline bool wg_clock_has_expired(uint64_t birthdate_ns, uint64_t lifetime_ns,
					uint64_t now_ns)
{
	return now_ns >= birthdate_ns + lifetime_ns;
}

#endif
