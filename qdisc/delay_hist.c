/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bucket i < 32 holds [i, i + 1) x 1024 us. Above, a value v with its top bit at
 * position p (p >= 15) falls in octave p - 15 and in sub-bucket (v >> (p - 3)) & 7:
 * the three bits below the top one, so each bucket is 1/8 of its octave (12 % wide).
 */
#include "qdisc/delay_hist.h"

#include <string.h>

enum {
	LINEAR_TOP_BIT = 15, /* 32 << 10 = 1 << 15 */
	SUB_MASK = (1u << CAKE_DHIST_SUB_SHIFT) - 1,
};

void cake_dhist_reset(struct cake_dhist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_us = UINT32_MAX;
}

static uint32_t bucket_of(uint32_t us)
{
	uint32_t top, oct;

	if (us < (uint32_t)CAKE_DHIST_LINEAR << CAKE_DHIST_LINEAR_SHIFT)
		return us >> CAKE_DHIST_LINEAR_SHIFT;
	top = 31u - (uint32_t)__builtin_clz(us);
	oct = top - LINEAR_TOP_BIT;
	if (oct >= CAKE_DHIST_OCTAVES)
		return CAKE_DHIST_BUCKETS - 1;
	return CAKE_DHIST_LINEAR + (oct << CAKE_DHIST_SUB_SHIFT) +
	       ((us >> (top - CAKE_DHIST_SUB_SHIFT)) & SUB_MASK);
}

/* The middle of bucket b, in us. */
static uint32_t bucket_mid(uint32_t b)
{
	uint32_t oct, sub, lo, width;

	if (b < CAKE_DHIST_LINEAR)
		return (b << CAKE_DHIST_LINEAR_SHIFT) + (1u << (CAKE_DHIST_LINEAR_SHIFT - 1));
	oct = (b - CAKE_DHIST_LINEAR) >> CAKE_DHIST_SUB_SHIFT;
	sub = (b - CAKE_DHIST_LINEAR) & SUB_MASK;
	width = 1u << (LINEAR_TOP_BIT + oct - CAKE_DHIST_SUB_SHIFT);
	lo = (1u << (LINEAR_TOP_BIT + oct)) + sub * width;
	return lo + width / 2;
}

void cake_dhist_add(struct cake_dhist *h, uint32_t us)
{
	h->n[bucket_of(us)]++;
	h->count++;
	if (us < h->min_us)
		h->min_us = us;
}

uint32_t cake_dhist_quantile(const struct cake_dhist *h, uint32_t q256)
{
	uint64_t rank, seen = 0;
	uint32_t mid;

	if (!h->count)
		return 0;
	rank = ((uint64_t)h->count * q256) >> 8;
	for (uint32_t b = 0; b < CAKE_DHIST_BUCKETS; b++) {
		seen += h->n[b];
		if (seen > rank) {
			mid = bucket_mid(b);
			return mid > h->min_us ? mid : h->min_us;
		}
	}
	return h->min_us;
}
