/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Injected randomness: the core never calls a global RNG. Production passes
 * libsodium's randombytes_buf (src/edge); tests pass a seeded generator.
 */
#ifndef CAKEWG_SRC_CORE_RNG_H
#define CAKEWG_SRC_CORE_RNG_H

#include <stddef.h>
#include <stdint.h>

struct wg_rng {
	void (*fill)(void *ctx, void *buf, size_t len);
	void *ctx;
};

static inline void wg_rng_fill(const struct wg_rng *rng, void *buf, size_t len)
{
	rng->fill(rng->ctx, buf, len);
}

static inline uint32_t wg_rng_u32(const struct wg_rng *rng)
{
	uint32_t v;
	rng->fill(rng->ctx, &v, sizeof(v));
	return v;
}

#endif
