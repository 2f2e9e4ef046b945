/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TAI64N external format (cr.yp.to/libtai/tai64.html): an 8-byte big-endian TAI64
 * label, then 4 big-endian bytes of nanoseconds. Like Linux and wireguard-go, unix
 * time maps to TAI with the fixed 10-second offset of 1970 and no leap-second table;
 * only ordering matters to WireGuard, and the peer compares labels it made itself.
 */
#include "crypto/tai64n.h"

#include <string.h>

/* 2^62 labels the second that began 1970 TAI; unix time 0 is 10 TAI seconds later. */
#define TAI64_UNIX_EPOCH (((uint64_t)1 << 62) + 10)

enum { TAI64_LABEL_LEN = 8 };

void cw_tai64n_encode(uint8_t out[CW_TAI64N_LEN], uint64_t unix_sec, uint32_t nsec)
{
	uint64_t label = TAI64_UNIX_EPOCH + unix_sec;
	int i;

	for (i = 0; i < TAI64_LABEL_LEN; i++)
		out[i] = (uint8_t)(label >> (8 * (TAI64_LABEL_LEN - 1 - i)));
	for (i = 0; i < CW_TAI64N_LEN - TAI64_LABEL_LEN; i++)
		out[TAI64_LABEL_LEN + i] =
			(uint8_t)(nsec >> (8 * (CW_TAI64N_LEN - TAI64_LABEL_LEN - 1 - i)));
}

bool cw_tai64n_after(const uint8_t a[CW_TAI64N_LEN], const uint8_t b[CW_TAI64N_LEN])
{
	/* Both fields are big-endian and fixed-width: byte order is numeric order. */
	return memcmp(a, b, CW_TAI64N_LEN) > 0;
}
