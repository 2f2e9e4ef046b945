/* SPDX-License-Identifier: GPL-2.0-only */
/* A deterministic RNG for tests (splitmix64), plugged into struct wg_rng. */
#ifndef CAKEWG_TESTS_SUPPORT_DET_RNG_H
#define CAKEWG_TESTS_SUPPORT_DET_RNG_H

#include <stdint.h>
#include <string.h>

#include "src/core/rng.h"

struct det_rng {
	uint64_t state;
};

static inline uint64_t det_rng_next(struct det_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void det_rng_fill(void *ctx, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		uint64_t v = det_rng_next(ctx);
		size_t n = len < sizeof(v) ? len : sizeof(v);
		memcpy(p, &v, n);
		p += n;
		len -= n;
	}
}

static inline struct wg_rng det_rng_as_wg(struct det_rng *r)
{
	return (struct wg_rng){ .fill = det_rng_fill, .ctx = r };
}

#endif
