/* SPDX-License-Identifier: GPL-2.0-only */
#include "crypto/aead_sodium.h"

#include <string.h>

int cw_aead_sodium_key_init(struct cw_aead_sodium_key *k, const uint8_t key[CW_AEAD_KEY_LEN])
{
	memmove(k->key, key, sizeof(k->key));
	return 0;
}

void cw_aead_sodium_key_wipe(struct cw_aead_sodium_key *k)
{
	cw_memzero(k, sizeof(*k));
}

bool cw_aead_sodium_key_seal_nonce(struct cw_aead_sodium_key *k, uint8_t *dst, const uint8_t *src,
				   size_t len, const uint8_t *ad, size_t ad_len,
				   const uint8_t nonce[CW_AEAD_NONCE_LEN])
{
	cw_aead_encrypt_nonce(dst, src, len, ad, ad_len, nonce, k->key);
	return true;
}

bool cw_aead_sodium_key_open_nonce(struct cw_aead_sodium_key *k, uint8_t *dst, const uint8_t *src,
				   size_t src_len, const uint8_t *ad, size_t ad_len,
				   const uint8_t nonce[CW_AEAD_NONCE_LEN])
{
	return cw_aead_decrypt_nonce(dst, src, src_len, ad, ad_len, nonce, k->key);
}
