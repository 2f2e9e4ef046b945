/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TAI64N labels as WireGuard writes them into an initiation. The format is D. J.
 * Bernstein's (https://cr.yp.to/libtai/tai64.html): 8 big-endian bytes of TAI64 label,
 * 2^62 being the second that began 1970 TAI, then 4 big-endian bytes of nanoseconds.
 * Unix time maps to a label with the fixed offset 2^62 + 10 (wireguard-go
 * tai64n/tai64n.go: base = 0x400000000000000a; Linux noise.c tai64n_now).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "crypto/tai64n.h"
#include "tests/support/det_rng.h"

static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
	size_t n = strlen(hex) / 2, i;
	unsigned int byte;

	cr_assert(strlen(hex) % 2 == 0 && n <= cap, "malformed vector");
	for (i = 0; i < n; i++) {
		cr_assert(sscanf(hex + 2 * i, "%2x", &byte) == 1, "malformed vector");
		out[i] = (uint8_t)byte;
	}
	return n;
}

static const struct {
	uint64_t sec;
	uint32_t nsec;
	const char *label;
} encodings[] = {
	/* Unix epoch: 1970-01-01 00:00:10 TAI, label 2^62 + 10. */
	{0, 0, "400000000000000a00000000"},
	{1, 999999999, "400000000000000b3b9ac9ff"},
	/* cr.yp.to's example label 400000002a2b2c2d, under WireGuard's fixed offset. */
	{0x2a2b2c2dULL - 10, 0x01020304, "400000002a2b2c2d01020304"},
	/* Carry out of the low 32 bits of the label. */
	{0xfffffff6ULL, 0, "400000010000000000000000"},
	/* 2^24 ns: the granularity Linux and wireguard-go whiten timestamps to. */
	{1700000000, 1u << 24, "400000006553f10a01000000"}, /* 1700000000 = 0x6553f100 */
};

Test(tai64n, encode_table)
{
	uint8_t want[CW_TAI64N_LEN], got[CW_TAI64N_LEN];
	size_t i;

	for (i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
		cr_assert_eq(unhex(want, sizeof(want), encodings[i].label), CW_TAI64N_LEN);
		memset(got, 0xee, sizeof(got));
		cw_tai64n_encode(got, encodings[i].sec, encodings[i].nsec);
		cr_assert_arr_eq(got, want, CW_TAI64N_LEN, "case %zu", i);
	}
}

static const struct {
	uint64_t a_sec;
	uint32_t a_nsec;
	uint64_t b_sec;
	uint32_t b_nsec;
	bool a_after_b;
} orderings[] = {
	{100, 0, 100, 0, false},
	{100, 1, 100, 0, true},
	{100, 0, 100, 1, false},
	{101, 0, 100, 999999999, true},
	{100, 999999999, 101, 0, false},
	{255, 0, 256, 0, false},
	{256, 0, 255, 0, true},
	{0, 0x01000000, 0, 0x00ffffff, true},
	{0x100000000ULL, 0, 0xffffffffULL, 999999999, true},
	{1700000000, 1u << 24, 1700000000, 0, true},
};

Test(tai64n, after_table)
{
	uint8_t a[CW_TAI64N_LEN], b[CW_TAI64N_LEN];
	size_t i;

	for (i = 0; i < sizeof(orderings) / sizeof(orderings[0]); i++) {
		cw_tai64n_encode(a, orderings[i].a_sec, orderings[i].a_nsec);
		cw_tai64n_encode(b, orderings[i].b_sec, orderings[i].b_nsec);
		cr_assert_eq(cw_tai64n_after(a, b), orderings[i].a_after_b, "case %zu", i);
	}
}

/* after() is the strict order of (seconds, nanoseconds), checked on random pairs. */
Test(tai64n, after_matches_numeric_order)
{
	struct det_rng r = {.state = 64};
	uint8_t a[CW_TAI64N_LEN], b[CW_TAI64N_LEN];
	uint64_t as, bs;
	uint32_t an, bn;
	bool want;
	int i;

	for (i = 0; i < 10000; i++) {
		/* Narrow ranges so equal seconds and equal labels both occur. */
		as = det_rng_next(&r) % 4;
		bs = det_rng_next(&r) % 4;
		an = (uint32_t)(det_rng_next(&r) % 3) << (8 * (i % 4));
		bn = (uint32_t)(det_rng_next(&r) % 3) << (8 * (i % 4));
		cw_tai64n_encode(a, as, an);
		cw_tai64n_encode(b, bs, bn);
		want = as > bs || (as == bs && an > bn);
		cr_assert_eq(cw_tai64n_after(a, b), want, "%llu.%u vs %llu.%u",
			     (unsigned long long)as, an, (unsigned long long)bs, bn);
		cr_assert_not(cw_tai64n_after(a, b) && cw_tai64n_after(b, a));
	}
}

/* A replayed initiation carries an identical label: never "after". */
Test(tai64n, equal_is_not_after)
{
	uint8_t a[CW_TAI64N_LEN], b[CW_TAI64N_LEN];

	cw_tai64n_encode(a, 1700000000, 123456789);
	memcpy(b, a, sizeof(a));
	cr_assert_not(cw_tai64n_after(a, b));
	cr_assert_not(cw_tai64n_after(b, a));
}
