/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers for the scheduler modules of qdisc/ (cake, cobalt, shaper, diffserv).
 * qdisc/ includes nothing from src/, so it carries its own copies of the few macros
 * it needs.
 */
#ifndef CAKEWG_QDISC_CAKE_COMPILER_H
#define CAKEWG_QDISC_CAKE_COMPILER_H

#define CAKE_MUST_CHECK	   __attribute__((warn_unused_result))
#define CAKE_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define cake_container_of(ptr, type, member)                                                       \
	((type *)(void *)((char *)(ptr) - __builtin_offsetof(type, member)))
#define cake_likely(x)	 __builtin_expect(!!(x), 1)
#define cake_unlikely(x) __builtin_expect(!!(x), 0)

#include <stdint.h>

/* a * b / c without the product wrapping, saturated at UINT64_MAX; c must not be 0. */
static inline uint64_t cake_mul_div_sat(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 r = (unsigned __int128)a * b / c;

	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

#endif
