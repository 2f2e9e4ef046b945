/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's Diffserv tables (net/sched/sch_cake.c), written out by codepoint.
 * Row r of each table holds DSCP 8r .. 8r+7.
 */
#include "qdisc/diffserv.h"

#include <stddef.h>

#include "qdisc/cake_compiler.h"

/* precedence: the class selector, DSCP >> 3. */
static const uint8_t precedence_table[CAKE_DSCP_COUNT] = {
	0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2,
	3, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 4,
	5, 5, 5, 5, 5, 5, 5, 5,
	6, 6, 6, 6, 6, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 7,
};

/*
 * diffserv8: 0 background (LE=1), 1 high throughput (CS1, AF1x, TOS2=2),
 * 2 best effort (everything else), 3 video (CS3, AF3x, AF4x), 4 low-latency
 * transactions (TOS4=4, AF2x), 5 interactive (CS2), 6 minimum latency (CS4, CS5, VA,
 * EF), 7 network control (CS6, CS7).
 */
static const uint8_t diffserv8_table[CAKE_DSCP_COUNT] = {
	2, 0, 1, 2, 4, 2, 2, 2,
	1, 2, 1, 2, 1, 2, 1, 2,
	5, 2, 4, 2, 4, 2, 4, 2,
	3, 2, 3, 2, 3, 2, 3, 2,
	6, 2, 3, 2, 3, 2, 3, 2,
	6, 2, 2, 2, 6, 2, 6, 2,
	7, 2, 2, 2, 2, 2, 2, 2,
	7, 2, 2, 2, 2, 2, 2, 2,
};

/*
 * diffserv4: 0 best effort, 1 bulk (LE=1, CS1), 2 video (TOS4=4, CS2, AF2x, CS3, AF3x,
 * AF4x), 3 voice (CS4, CS5, VA, EF, CS6, CS7).
 */
static const uint8_t diffserv4_table[CAKE_DSCP_COUNT] = {
	0, 1, 0, 0, 2, 0, 0, 0,
	1, 0, 0, 0, 0, 0, 0, 0,
	2, 0, 2, 0, 2, 0, 2, 0,
	2, 0, 2, 0, 2, 0, 2, 0,
	3, 0, 2, 0, 2, 0, 2, 0,
	3, 0, 0, 0, 3, 0, 3, 0,
	3, 0, 0, 0, 0, 0, 0, 0,
	3, 0, 0, 0, 0, 0, 0, 0,
};

/* diffserv3: 0 best effort, 1 bulk (LE=1, CS1), 2 voice (TOS4=4, VA, EF, CS6, CS7). */
static const uint8_t diffserv3_table[CAKE_DSCP_COUNT] = {
	0, 1, 0, 0, 2, 0, 0, 0,
	1, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 2, 0, 2, 0,
	2, 0, 0, 0, 0, 0, 0, 0,
	2, 0, 0, 0, 0, 0, 0, 0,
};

static const uint8_t besteffort_table[CAKE_DSCP_COUNT] = { 0 };

static const uint8_t normal_order[CAKE_DIFFSERV_MAX_TINS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static const uint8_t bulk_order[CAKE_DIFFSERV_MAX_TINS] = { 1, 0, 2, 3, 4, 5, 6, 7 };

/* Threshold rates of diffserv3/diffserv4 as right shifts of the shaper rate. */
static const uint8_t ds3_rate_shift[] = { 0, 4, 2 };
static const uint8_t ds4_rate_shift[] = { 0, 4, 1, 2 };

static const char *const ds3_names[] = { "Best Effort", "Bulk", "Voice" };
static const char *const ds4_names[] = { "Best Effort", "Bulk", "Video", "Voice" };
static const char *const tin_names[] = { "Tin 0", "Tin 1", "Tin 2", "Tin 3",
					 "Tin 4", "Tin 5", "Tin 6", "Tin 7" };

unsigned int cake_diffserv_tin_count(enum cake_diffserv_mode mode)
{
	switch (mode) {
	case CAKE_DIFFSERV_BESTEFFORT:
		return 1;
	case CAKE_DIFFSERV_DIFFSERV3:
		return 3;
	case CAKE_DIFFSERV_DIFFSERV4:
		return 4;
	case CAKE_DIFFSERV_DIFFSERV8:
	case CAKE_DIFFSERV_PRECEDENCE:
		return 8;
	}
	return 0;
}

const uint8_t *cake_diffserv_table(enum cake_diffserv_mode mode)
{
	switch (mode) {
	case CAKE_DIFFSERV_BESTEFFORT:
		return besteffort_table;
	case CAKE_DIFFSERV_DIFFSERV3:
		return diffserv3_table;
	case CAKE_DIFFSERV_DIFFSERV4:
		return diffserv4_table;
	case CAKE_DIFFSERV_DIFFSERV8:
		return diffserv8_table;
	case CAKE_DIFFSERV_PRECEDENCE:
		return precedence_table;
	}
	return NULL;
}

const uint8_t *cake_diffserv_order(enum cake_diffserv_mode mode)
{
	switch (mode) {
	case CAKE_DIFFSERV_DIFFSERV3:
	case CAKE_DIFFSERV_DIFFSERV4:
		return bulk_order;
	case CAKE_DIFFSERV_BESTEFFORT:
	case CAKE_DIFFSERV_DIFFSERV8:
	case CAKE_DIFFSERV_PRECEDENCE:
		return normal_order;
	}
	return NULL;
}

/* precedence and diffserv8: each tin gets 7/8 of the previous one, truncated. */
static uint64_t seven_eighths_pow(uint64_t v, unsigned int n)
{
	while (n--)
		v = (v * 7) >> 3;
	return v;
}

uint64_t cake_diffserv_tin_rate(enum cake_diffserv_mode mode, unsigned int tin,
				uint64_t rate_bytes_per_sec)
{
	if (tin >= cake_diffserv_tin_count(mode))
		return 0;
	switch (mode) {
	case CAKE_DIFFSERV_DIFFSERV3:
		return rate_bytes_per_sec >> ds3_rate_shift[tin];
	case CAKE_DIFFSERV_DIFFSERV4:
		return rate_bytes_per_sec >> ds4_rate_shift[tin];
	case CAKE_DIFFSERV_DIFFSERV8:
	case CAKE_DIFFSERV_PRECEDENCE:
		return seven_eighths_pow(rate_bytes_per_sec, tin);
	case CAKE_DIFFSERV_BESTEFFORT:
		break;
	}
	return rate_bytes_per_sec;
}

uint16_t cake_diffserv_tin_quantum(enum cake_diffserv_mode mode, unsigned int tin)
{
	uint64_t q = 0;

	if (tin >= cake_diffserv_tin_count(mode))
		return 0;
	switch (mode) {
	case CAKE_DIFFSERV_DIFFSERV3:
		q = CAKE_DS_BASE_QUANTUM >> ds3_rate_shift[tin];
		break;
	case CAKE_DIFFSERV_DIFFSERV4:
		q = CAKE_DS_BASE_QUANTUM >> ds4_rate_shift[tin];
		break;
	case CAKE_DIFFSERV_DIFFSERV8:
	case CAKE_DIFFSERV_PRECEDENCE:
		q = seven_eighths_pow(CAKE_DS8_BASE_QUANTUM, tin);
		break;
	case CAKE_DIFFSERV_BESTEFFORT:
		q = CAKE_BESTEFFORT_QUANTUM;
		break;
	}
	return q ? (uint16_t)q : 1;
}

const char *cake_diffserv_tin_name(enum cake_diffserv_mode mode, unsigned int tin)
{
	if (tin >= cake_diffserv_tin_count(mode))
		return NULL;
	if (mode == CAKE_DIFFSERV_DIFFSERV3)
		return ds3_names[tin];
	if (mode == CAKE_DIFFSERV_DIFFSERV4)
		return ds4_names[tin];
	return tin_names[tin];
}

unsigned int cake_diffserv_tin_of(enum cake_diffserv_mode mode, uint8_t dscp)
{
	const uint8_t *table = cake_diffserv_table(mode);

	if (!table)
		return 0;
	return table[dscp & (CAKE_DSCP_COUNT - 1)];
}
