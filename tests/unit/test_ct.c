/* SPDX-License-Identifier: GPL-2.0-only */
/* Constant-time comparison, zero test and wiping: every byte and bit position counts. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "crypto/ct.h"

enum { LEN = 64 };

static void pattern(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + 1);
}

Test(ct, equal_table)
{
	static const struct {
		size_t len;
		long diff_at; /* -1: none */
		bool equal;
	} cases[] = {
		{0, -1, true},	 {1, -1, true},	   {LEN, -1, true},	  {1, 0, false},
		{LEN, 0, false}, {LEN, 31, false}, {LEN, LEN - 1, false}, {16, 15, false},
	};
	uint8_t a[LEN], b[LEN];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pattern(a, LEN);
		pattern(b, LEN);
		if (cases[i].diff_at >= 0)
			b[cases[i].diff_at] ^= 0x10;
		cr_assert_eq(cw_ct_equal(a, b, cases[i].len), cases[i].equal, "case %zu", i);
	}
}

/* A difference outside the compared length does not count. */
Test(ct, equal_ignores_bytes_past_len)
{
	uint8_t a[LEN], b[LEN];

	pattern(a, LEN);
	pattern(b, LEN);
	b[LEN - 1] ^= 1;
	cr_assert(cw_ct_equal(a, b, LEN - 1));
	cr_assert_not(cw_ct_equal(a, b, LEN));
}

Test(ct, equal_every_bit)
{
	uint8_t a[LEN], b[LEN];
	size_t i;
	int bit;

	pattern(a, LEN);
	for (i = 0; i < LEN; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(b, a, LEN);
			b[i] ^= (uint8_t)(1u << bit);
			cr_assert_not(cw_ct_equal(a, b, LEN), "byte %zu bit %d", i, bit);
			cr_assert_not(cw_ct_equal(b, a, LEN), "byte %zu bit %d", i, bit);
		}
	}
}

Test(ct, is_zero_every_bit)
{
	uint8_t z[LEN];
	size_t i;
	int bit;

	memset(z, 0, sizeof(z));
	cr_assert(cw_is_zero(z, LEN));
	cr_assert(cw_is_zero(z, 0));
	for (i = 0; i < LEN; i++) {
		for (bit = 0; bit < 8; bit++) {
			/*
			 * A fresh buffer each time. Setting z[i] and zeroing it again after
			 * the calls, in this nested loop, is miscompiled by GCC 12.2 at -O1
			 * and -O2 (dead-store elimination drops the zeroing store).
			 */
			memset(z, 0, sizeof(z));
			z[i] = (uint8_t)(1u << bit);
			cr_assert_not(cw_is_zero(z, LEN), "byte %zu bit %d", i, bit);
			cr_assert(cw_is_zero(z, i), "prefix before byte %zu", i);
			cr_assert_not(cw_is_zero(z, i + 1), "prefix through byte %zu", i);
		}
	}
}

Test(ct, memzero_exact_range)
{
	static const struct {
		size_t off, len;
	} cases[] = {{0, 0}, {0, 1}, {0, LEN}, {5, 17}, {LEN - 1, 1}, {16, 32}};
	uint8_t buf[LEN], ref[LEN];
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0xa5, LEN);
		memset(ref, 0xa5, LEN);
		cw_memzero(buf + cases[i].off, cases[i].len);
		for (j = 0; j < cases[i].len; j++)
			ref[cases[i].off + j] = 0;
		cr_assert_arr_eq(buf, ref, LEN, "case %zu", i);
	}
}
