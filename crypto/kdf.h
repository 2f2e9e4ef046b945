/* SPDX-License-Identifier: GPL-2.0-only */
/* The Noise KDF (HKDF with HMAC-BLAKE2s) with 1, 2 or 3 outputs of 32 bytes. */
#ifndef CAKEWG_CRYPTO_KDF_H
#define CAKEWG_CRYPTO_KDF_H

#include <stddef.h>
#include <stdint.h>

enum { CW_KDF_OUT_LEN = 32 };

/*
 * prk = HMAC(ck, data); t1 = HMAC(prk, 0x1); t2 = HMAC(prk, t1 || 0x2); t3 = HMAC(prk, t2 || 0x3).
 * t2 and t3 may be NULL (KDF1, KDF2). Any output may alias ck. Intermediates are wiped.
 */
void cw_kdf(uint8_t *t1, uint8_t *t2, uint8_t *t3, const uint8_t *data, size_t data_len,
	    const uint8_t ck[CW_KDF_OUT_LEN]);

#endif
