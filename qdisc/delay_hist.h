/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small log-linear histogram of delays in microseconds, for low quantiles of many
 * samples without keeping them: 1 ms wide buckets up to 32 ms (where the controller's
 * decisions are made), then 8 buckets per doubling up to about 34 s. Adding a sample
 * is a shift and a count-leading-zeros; reading a quantile walks the buckets once.
 */
#ifndef CAKEWG_QDISC_DELAY_HIST_H
#define CAKEWG_QDISC_DELAY_HIST_H

#include <stdint.h>

enum cake_dhist_layout {
	CAKE_DHIST_LINEAR_SHIFT = 10, /* linear buckets are 1024 us wide */
	CAKE_DHIST_LINEAR = 32,	      /* ... and cover 0 .. 32767 us */
	CAKE_DHIST_SUB_SHIFT = 3,     /* 8 buckets per doubling above that */
	CAKE_DHIST_OCTAVES = 10,      /* 32 ms .. 32 s; larger values share the last one */
	CAKE_DHIST_BUCKETS =
		CAKE_DHIST_LINEAR + (CAKE_DHIST_OCTAVES << CAKE_DHIST_SUB_SHIFT),
};

struct cake_dhist {
	uint32_t count;
	uint32_t min_us;
	uint32_t n[CAKE_DHIST_BUCKETS];
};

void cake_dhist_reset(struct cake_dhist *h);
void cake_dhist_add(struct cake_dhist *h, uint32_t us);
/*
 * The q-th quantile, q in 1/256 (64 = the 25th percentile): the middle of the bucket
 * that holds it, never below the smallest sample. 0 when the histogram is empty.
 */
uint32_t cake_dhist_quantile(const struct cake_dhist *h, uint32_t q256);

#endif
