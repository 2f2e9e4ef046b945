/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/tcp_wire.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* The options the walk returns from the n bytes at src, copied to an exact-size heap
 * buffer so that a read past the end is an ASan error: kinds[] and sizes[], their count. */
static size_t walk(const uint8_t *src, uint32_t n, uint8_t *kinds, uint32_t *sizes, size_t max)
{
	uint8_t *buf = malloc(n ? n : 1);
	struct cake_tcpopt_walk w;
	const uint8_t *opt;
	uint32_t size;
	size_t count = 0;

	cr_assert_not_null(buf);
	memcpy(buf, src, n);
	w = cake_tcpopt_walk_init(buf, n);
	while ((opt = cake_tcpopt_next(&w, &size))) {
		cr_assert(opt >= buf && opt + size <= buf + n, "option outside the bytes given");
		cr_assert_geq(size, CAKE_TCPOLEN_MIN);
		cr_assert_eq(size, opt[1]);
		cr_assert_lt(count, max);
		kinds[count] = opt[0];
		sizes[count++] = size;
	}
	free(buf);
	return count;
}

Test(tcp_wire, linux_layouts)
{
	/* NOP NOP TS, NOP NOP SACK with one block, MSS */
	static const uint8_t o[] = {1, 1,  8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1,
				    5, 10, 0, 0,  0, 3, 0, 0, 0, 4, 2, 4, 5, 180};
	uint8_t k[4];
	uint32_t s[4];

	cr_assert_eq(walk(o, sizeof(o), k, s, 4), 3);
	cr_assert_eq(k[0], CAKE_TCPOPT_TIMESTAMP);
	cr_assert_eq(s[0], CAKE_TCPOLEN_TIMESTAMP);
	cr_assert_eq(k[1], CAKE_TCPOPT_SACK);
	cr_assert_eq(s[1], CAKE_TCPOLEN_SACK_BASE + CAKE_TCPOLEN_SACK_BLOCK);
	cr_assert_eq(k[2], 2);
	cr_assert_eq(s[2], 4);
}

Test(tcp_wire, empty_and_only_nops)
{
	static const uint8_t nops[] = {1, 1, 1, 1};
	uint8_t k[1];
	uint32_t s[1];

	cr_assert_eq(walk(nops, 0, k, s, 1), 0);
	cr_assert_eq(walk(nops, sizeof(nops), k, s, 1), 0);
}

Test(tcp_wire, eol_ends_the_walk)
{
	static const uint8_t o[] = {2, 4, 5, 180, 0, 0, 2, 4, 5, 180, 0, 0};
	uint8_t k[2];
	uint32_t s[2];

	cr_assert_eq(walk(o, sizeof(o), k, s, 2), 1);
	cr_assert_eq(k[0], 2);
}

Test(tcp_wire, truncated_option_ends_the_walk)
{
	/* MSS, then a kind byte with no length byte (also after NOPs) */
	static const uint8_t o[] = {2, 4, 5, 180, 1, 1, 1, 8};
	uint8_t k[2];
	uint32_t s[2];

	cr_assert_eq(walk(o, sizeof(o), k, s, 2), 1);
	cr_assert_eq(walk(o + 7, 1, k, s, 2), 0);
}

Test(tcp_wire, zero_or_too_short_length_ends_the_walk)
{
	static const uint8_t zero[] = {2, 4, 5, 180, 8, 0, 2, 4, 5, 180};
	static const uint8_t one[] = {8, 1, 2, 4, 5, 180, 0, 0};
	uint8_t k[3];
	uint32_t s[3];

	cr_assert_eq(walk(zero, sizeof(zero), k, s, 3), 1);
	cr_assert_eq(walk(one, sizeof(one), k, s, 3), 0);
}

Test(tcp_wire, option_past_the_end_ends_the_walk)
{
	/* a timestamp option with 6 of its 10 bytes there */
	static const uint8_t o[] = {1, 1, 8, 10, 0, 0, 0, 1};
	/* ... and one that fits exactly */
	static const uint8_t fit[] = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
	uint8_t k[2];
	uint32_t s[2];

	cr_assert_eq(walk(o, sizeof(o), k, s, 2), 0);
	cr_assert_eq(walk(fit, sizeof(fit), k, s, 2), 1);
	cr_assert_eq(s[0], CAKE_TCPOLEN_TIMESTAMP);
}

Test(tcp_wire, every_short_shape_stays_within_the_bytes)
{
	static const uint8_t vals[] = {0, 1, 2, 3, 4, 8, 10, 255};
	enum { N = 5, V = sizeof(vals) };
	uint8_t o[N], k[N];
	uint32_t s[N];

	for (uint32_t code = 0; code < V * V * V * V * V; code++) {
		uint32_t c = code;

		for (int i = 0; i < N; i++, c /= V)
			o[i] = vals[c % V];
		for (uint32_t n = 0; n <= N; n++)
			walk(o, n, k, s, N);
	}
}
