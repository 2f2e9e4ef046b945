/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * X25519 (RFC 7748) over libsodium, rejecting all-zero shared secrets. Outputs are zeroed
 * on failure and may alias the inputs. libsodium picks its faster (AVX) code only in
 * sodium_init(); without it the portable code gives the same results.
 */
#ifndef CAKEWG_CRYPTO_X25519_H
#define CAKEWG_CRYPTO_X25519_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto/ct.h"

enum { CW_X25519_KEY_LEN = 32 };

/* Clamps a private key in place (RFC 7748 decodeScalar25519). */
void cw_x25519_clamp(uint8_t priv[CW_X25519_KEY_LEN]);
/* pub = priv * basepoint. False if priv is all zero (an unset key). */
CW_MUST_CHECK bool cw_x25519_public(uint8_t pub[CW_X25519_KEY_LEN],
				    const uint8_t priv[CW_X25519_KEY_LEN]);
/* out = scalar * point. False when the result is all zero (low-order point). */
CW_MUST_CHECK bool cw_x25519(uint8_t out[CW_X25519_KEY_LEN], const uint8_t scalar[CW_X25519_KEY_LEN],
			     const uint8_t point[CW_X25519_KEY_LEN]);

#endif
