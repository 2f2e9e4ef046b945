/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CAKE's Diffserv plans: which tin each DSCP goes to, the tins' priority-threshold
 * rates and DRR weights, and the order in which tc prints them. The tables are the
 * kernel's (net/sched/sch_cake.c); a tin with a higher index has higher priority while
 * it stays under its threshold rate.
 */
#ifndef CAKEWG_QDISC_DIFFSERV_H
#define CAKEWG_QDISC_DIFFSERV_H

#include <stdint.h>

#include "qdisc/cake_options.h"

enum cake_diffserv_constants {
	CAKE_DSCP_COUNT = 64,
	CAKE_DIFFSERV_MAX_TINS = 8,
	/* diffserv3/diffserv4 weights are shifts of this quantum ... */
	CAKE_DS_BASE_QUANTUM = 1024,
	/* ... precedence/diffserv8 start here and shrink by 7/8 per tin ... */
	CAKE_DS8_BASE_QUANTUM = 256,
	/* ... and besteffort's single tin uses this. */
	CAKE_BESTEFFORT_QUANTUM = 65535,
};

/* Number of tins of a mode (1, 3, 4 or 8); 0 for an unknown mode. */
unsigned int cake_diffserv_tin_count(enum cake_diffserv_mode mode);

/* The DSCP -> tin table of a mode (64 entries), or NULL for an unknown mode. */
const uint8_t *cake_diffserv_table(enum cake_diffserv_mode mode);

/* Print order: tin shown in column i (diffserv3/4 show Bulk first). NULL if unknown. */
const uint8_t *cake_diffserv_order(enum cake_diffserv_mode mode);

/* The threshold rate of a tin for a shaper rate (0 stays 0: unlimited). */
uint64_t cake_diffserv_tin_rate(enum cake_diffserv_mode mode, unsigned int tin,
				uint64_t rate_bytes_per_sec);

/* The DRR weight of a tin (tin_quantum), used when the shaper is unlimited. */
uint16_t cake_diffserv_tin_quantum(enum cake_diffserv_mode mode, unsigned int tin);

/* The column name tc prints for a tin, or NULL if tin is out of range. */
const char *cake_diffserv_tin_name(enum cake_diffserv_mode mode, unsigned int tin);

/* The tin of a DSCP under a mode; 0 for an unknown mode. */
unsigned int cake_diffserv_tin_of(enum cake_diffserv_mode mode, uint8_t dscp);

#endif
