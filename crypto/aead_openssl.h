/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The OpenSSL libcrypto backend of the keyed AEAD (crypto/aead_key.h), compiled whenever
 * libcrypto is found (CAKEWG_HAVE_OPENSSL). A key is two EVP_CIPHER_CTX, one per direction,
 * given the key once by cw_aead_openssl_key_init: a call then only sets the nonce, which
 * costs far less than a context per call. Contracts are those of crypto/aead_key.h; use
 * these names directly only to pick this backend (tests).
 */
#ifndef CAKEWG_CRYPTO_AEAD_OPENSSL_H
#define CAKEWG_CRYPTO_AEAD_OPENSSL_H

#include "crypto/aead.h"

struct evp_cipher_ctx_st; /* OpenSSL's EVP_CIPHER_CTX, kept out of our headers */

struct cw_aead_openssl_key {
	struct evp_cipher_ctx_st *enc;
	struct evp_cipher_ctx_st *dec;
};

CW_MUST_CHECK int cw_aead_openssl_key_init(struct cw_aead_openssl_key *k,
					   const uint8_t key[CW_AEAD_KEY_LEN]);
void cw_aead_openssl_key_wipe(struct cw_aead_openssl_key *k);
CW_MUST_CHECK bool cw_aead_openssl_key_seal_nonce(struct cw_aead_openssl_key *k, uint8_t *dst,
						  const uint8_t *src, size_t len,
						  const uint8_t *ad, size_t ad_len,
						  const uint8_t nonce[CW_AEAD_NONCE_LEN]);
CW_MUST_CHECK bool cw_aead_openssl_key_open_nonce(struct cw_aead_openssl_key *k, uint8_t *dst,
						  const uint8_t *src, size_t src_len,
						  const uint8_t *ad, size_t ad_len,
						  const uint8_t nonce[CW_AEAD_NONCE_LEN]);

#endif
