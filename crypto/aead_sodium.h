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

CW_MUST_CHECK int cw_aead_sodium_key_init(struct cw_aead_sodium_key *k,
					  const uint8_t key[CW_AEAD_KEY_LEN]);
void cw_aead_sodium_key_wipe(struct cw_aead_sodium_key *k);
CW_MUST_CHECK bool cw_aead_sodium_key_seal_nonce(struct cw_aead_sodium_key *k, uint8_t *dst,
						 const uint8_t *src, size_t len,
						 const uint8_t *ad, size_t ad_len,
						 const uint8_t nonce[CW_AEAD_NONCE_LEN]);
CW_MUST_CHECK bool cw_aead_sodium_key_open_nonce(struct cw_aead_sodium_key *k, uint8_t *dst,
						 const uint8_t *src, size_t src_len,
						 const uint8_t *ad, size_t ad_len,
						 const uint8_t nonce[CW_AEAD_NONCE_LEN]);

#endif
