/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Noise KDF as WireGuard instantiates it: HKDF (RFC 5869) with HMAC-BLAKE2s,
 * an empty "info" and 32-byte outputs. The chaining key is the HKDF salt and the
 * DH result (or other input) the keying material.
 */
#include "crypto/kdf.h"

#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/ct.h"

void cw_kdf(uint8_t *t1, uint8_t *t2, uint8_t *t3, const uint8_t *data, size_t data_len,
	    const uint8_t ck[CW_KDF_OUT_LEN])
{
	uint8_t prk[CW_BLAKE2S_HASH_LEN];
	/* t_i || i: the previous output followed by the one-byte counter. */
	uint8_t t[CW_KDF_OUT_LEN + 1];
	uint8_t *outs[3] = {t1, t2, t3};
	int i, last = t3 ? 3 : t2 ? 2 : 1;

	/* Every input is read here, so any output may alias ck or data. */
	cw_blake2s_hmac(prk, data, data_len, ck, CW_KDF_OUT_LEN);

	t[0] = 1;
	cw_blake2s_hmac(t, t, 1, prk, sizeof(prk));
	for (i = 1;; i++) {
		if (outs[i - 1])
			memcpy(outs[i - 1], t, CW_KDF_OUT_LEN);
		if (i == last)
			break;
		t[CW_KDF_OUT_LEN] = (uint8_t)(i + 1);
		cw_blake2s_hmac(t, t, sizeof(t), prk, sizeof(prk));
	}

	cw_memzero(prk, sizeof(prk));
	cw_memzero(t, sizeof(t));
}
