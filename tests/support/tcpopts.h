/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TCP options as Linux lays them out, for tests that build packets with pktbuild.h:
 * NOP NOP TIMESTAMP, and NOP NOP SACK with one block. to_put returns the bytes it
 * wrote (12: a multiple of 4, as pb_pkt.tcp_opts needs). Header-only.
 */
#ifndef CAKEWG_TESTS_SUPPORT_TCPOPTS_H
#define CAKEWG_TESTS_SUPPORT_TCPOPTS_H

#include <stddef.h>
#include <stdint.h>

#include "tests/support/pktbuild.h"

enum to_values {
	TO_NOP = 1,
	TO_SACK = 5,
	TO_TS = 8,
	TO_LEN = 12,
};

/* NOP NOP kind 10 a b: TO_TS (a = TSval, b = TSecr) or TO_SACK (a block [a, b)). */
static inline size_t to_put(uint8_t *o, uint8_t kind, uint32_t a, uint32_t b)
{
	o[0] = o[1] = TO_NOP;
	o[2] = kind;
	o[3] = 10;
	pb_put32(o + 4, a);
	pb_put32(o + 8, b);
	return TO_LEN;
}

#endif
