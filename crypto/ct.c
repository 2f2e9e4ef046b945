/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Constant-time helpers over libsodium. None of sodium_memzero, sodium_memcmp and
 * sodium_is_zero depends on sodium_init(): they pick no implementation at run time
 * and touch no global state (libsodium 1.0.18, sodium/utils.c).
 */
#include "crypto/ct.h"

#include <sodium.h>

void cw_memzero(void *p, size_t len)
{
	sodium_memzero(p, len);
}

bool cw_ct_equal(const void *a, const void *b, size_t len)
{
	return sodium_memcmp(a, b, len) == 0;
}

bool cw_is_zero(const void *p, size_t len)
{
	return sodium_is_zero(p, len) == 1;
}
