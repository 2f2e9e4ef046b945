/* SPDX-License-Identifier: GPL-2.0-only */
/* Constant-time comparison and secret wiping (libsodium underneath). */
#ifndef CAKEWG_CRYPTO_CT_H
#define CAKEWG_CRYPTO_CT_H

#include <stdbool.h>
#include <stddef.h>

#define CW_MUST_CHECK __attribute__((warn_unused_result))

/* Wipes len bytes at p in a way the compiler may not elide. */
void cw_memzero(void *p, size_t len);

/* True when a and b are equal; time depends only on len. */
CW_MUST_CHECK bool cw_ct_equal(const void *a, const void *b, size_t len);

/* True when all len bytes are zero; time depends only on len. */
CW_MUST_CHECK bool cw_is_zero(const void *p, size_t len);

#endif
