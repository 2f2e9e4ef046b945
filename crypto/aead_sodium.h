/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libsodium backend of the keyed AEAD (crypto/aead_key.h): the key is kept as bytes and
 * every call goes through the stateless cw_aead_*_nonce of crypto/aead.h. Contracts are
 * those of crypto/aead_key.h; use these names directly only to pick this backend (tests).
 */
#ifndef CAKEWG_CRYPTO_AEAD_SODIUM_H
#define CAKEWG_CRYPTO_AEAD_SODIUM_H

#include "crypto/aead.h"

struct cw_aead_sodium_key {
	uint8_t key[CW_AEAD_KEY_LEN];
};

CW_AEAD_DECLARE_BACKEND(sodium);

#endif
