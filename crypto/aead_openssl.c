/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ChaCha20-Poly1305 over OpenSSL's EVP interface. EVP takes int lengths: longer inputs are
 * refused (a WireGuard message is below 65536 bytes). EVP decrypts before it checks the tag
 * (EVP_DecryptFinal_ex, a constant-time compare): on any failure the plaintext it wrote is
 * wiped, so that nothing unauthenticated is released.
 */
#include "crypto/aead_openssl.h"

#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <string.h>

static bool ctx_new(EVP_CIPHER_CTX **ctx, const uint8_t key[CW_AEAD_KEY_LEN], int encrypt)
{
	*ctx = EVP_CIPHER_CTX_new();
	return *ctx &&
	       EVP_CipherInit_ex(*ctx, EVP_chacha20_poly1305(), NULL, key, NULL, encrypt) == 1 &&
	       EVP_CIPHER_CTX_get_key_length(*ctx) == CW_AEAD_KEY_LEN &&
	       EVP_CIPHER_CTX_get_iv_length(*ctx) == CW_AEAD_NONCE_LEN;
}

int cw_aead_openssl_key_init(struct cw_aead_openssl_key *k, const uint8_t key[CW_AEAD_KEY_LEN])
{
	k->enc = k->dec = NULL;
	if (!ctx_new(&k->enc, key, 1) || !ctx_new(&k->dec, key, 0)) {
		cw_aead_openssl_key_wipe(k);
		return -ENOMEM;
	}
	return 0;
}

void cw_aead_openssl_key_wipe(struct cw_aead_openssl_key *k)
{
	/* EVP_CIPHER_CTX_free cleanses the key schedule it frees. */
	EVP_CIPHER_CTX_free(k->enc);
	EVP_CIPHER_CTX_free(k->dec);
	cw_memzero(k, sizeof(*k));
}

/* Feeds the AD and then the text through ctx: every byte of text comes out at dst. */
static bool run(EVP_CIPHER_CTX *ctx, uint8_t *dst, const uint8_t *src, size_t len,
		const uint8_t *ad, size_t ad_len)
{
	int n;

	if (ad_len && EVP_CipherUpdate(ctx, NULL, &n, ad, (int)ad_len) != 1)
		return false;
	return !len || (EVP_CipherUpdate(ctx, dst, &n, src, (int)len) == 1 && n == (int)len);
}

bool cw_aead_openssl_key_seal_nonce(struct cw_aead_openssl_key *k, uint8_t *dst,
				    const uint8_t *src, size_t len, const uint8_t *ad,
				    size_t ad_len, const uint8_t nonce[CW_AEAD_NONCE_LEN])
{
	int n;

	if (len > INT_MAX || ad_len > INT_MAX)
		return false;
	return EVP_EncryptInit_ex(k->enc, NULL, NULL, NULL, nonce) == 1 &&
	       run(k->enc, dst, src, len, ad, ad_len) &&
	       EVP_EncryptFinal_ex(k->enc, dst + len, &n) == 1 &&
	       EVP_CIPHER_CTX_ctrl(k->enc, EVP_CTRL_AEAD_GET_TAG, CW_AEAD_TAG_LEN, dst + len) == 1;
}

bool cw_aead_openssl_key_open_nonce(struct cw_aead_openssl_key *k, uint8_t *dst,
				    const uint8_t *src, size_t src_len, const uint8_t *ad,
				    size_t ad_len, const uint8_t nonce[CW_AEAD_NONCE_LEN])
{
	uint8_t tag[CW_AEAD_TAG_LEN];
	size_t len;
	bool ok;
	int n;

	if (src_len < CW_AEAD_TAG_LEN || src_len - CW_AEAD_TAG_LEN > INT_MAX || ad_len > INT_MAX)
		return false;
	len = src_len - CW_AEAD_TAG_LEN;
	/* In place, the tag is past what decryption writes; a copy keeps src const. */
	memcpy(tag, src + len, sizeof(tag));
	ok = EVP_DecryptInit_ex(k->dec, NULL, NULL, NULL, nonce) == 1 &&
	     EVP_CIPHER_CTX_ctrl(k->dec, EVP_CTRL_AEAD_SET_TAG, CW_AEAD_TAG_LEN, tag) == 1 &&
	     run(k->dec, dst, src, len, ad, ad_len) &&
	     EVP_DecryptFinal_ex(k->dec, len ? dst + len : tag, &n) == 1;
	if (!ok && len)
		cw_memzero(dst, len);
	return ok;
}
