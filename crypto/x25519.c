/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * X25519 over libsodium. crypto_scalarmult_curve25519 clamps the scalar and masks the
 * top bit of the u-coordinate itself (RFC 7748 §5), refuses a few low-order points and
 * returns -1 for an all-zero result; the zero check is repeated here so the contract
 * does not rest on one library version. On failure the output is zeroed.
 */
#include "crypto/x25519.h"

#include <string.h>

#include <sodium.h>

_Static_assert(CW_X25519_KEY_LEN == crypto_scalarmult_curve25519_BYTES, "point length");
_Static_assert(CW_X25519_KEY_LEN == crypto_scalarmult_curve25519_SCALARBYTES, "scalar length");

void cw_x25519_clamp(uint8_t priv[CW_X25519_KEY_LEN])
{
	/* RFC 7748 §5 decodeScalar25519: clear the cofactor bits, fix bit 254. */
	priv[0] &= 248;
	priv[31] &= 127;
	priv[31] |= 64;
}

bool cw_x25519_public(uint8_t pub[CW_X25519_KEY_LEN], const uint8_t priv[CW_X25519_KEY_LEN])
{
	uint8_t tmp[CW_X25519_KEY_LEN];
	bool ok;

	ok = !cw_is_zero(priv, CW_X25519_KEY_LEN) &&
	     crypto_scalarmult_curve25519_base(tmp, priv) == 0;
	if (ok)
		memcpy(pub, tmp, sizeof(tmp));
	else
		cw_memzero(pub, CW_X25519_KEY_LEN);
	cw_memzero(tmp, sizeof(tmp));
	return ok;
}

bool cw_x25519(uint8_t out[CW_X25519_KEY_LEN], const uint8_t scalar[CW_X25519_KEY_LEN],
	       const uint8_t point[CW_X25519_KEY_LEN])
{
	/* A temporary, so out may alias scalar or point. */
	uint8_t tmp[CW_X25519_KEY_LEN] = {0};
	bool ok;

	ok = crypto_scalarmult_curve25519(tmp, scalar, point) == 0 &&
	     !cw_is_zero(tmp, CW_X25519_KEY_LEN);
	if (ok)
		memcpy(out, tmp, sizeof(tmp));
	else
		cw_memzero(out, CW_X25519_KEY_LEN);
	cw_memzero(tmp, sizeof(tmp));
	return ok;
}
