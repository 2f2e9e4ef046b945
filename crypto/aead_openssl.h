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

CW_AEAD_DECLARE_BACKEND(openssl);

#endif
