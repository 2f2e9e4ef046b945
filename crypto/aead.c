/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AEAD wrappers over libsodium's detached IETF ChaCha20-Poly1305 and
 * XChaCha20-Poly1305. The tag sits right after the ciphertext, as on the wire.
 */
#include "crypto/aead.h"

#include <sodium.h>

_Static_assert(CW_AEAD_KEY_LEN == crypto_aead_chacha20poly1305_IETF_KEYBYTES, "key length");
_Static_assert(CW_AEAD_TAG_LEN == crypto_aead_chacha20poly1305_IETF_ABYTES, "tag length");
_Static_assert(CW_AEAD_NONCE_LEN == crypto_aead_chacha20poly1305_IETF_NPUBBYTES, "nonce length");
_Static_assert(CW_XAEAD_NONCE_LEN == crypto_aead_xchacha20poly1305_IETF_NPUBBYTES, "xnonce");
_Static_assert(CW_AEAD_KEY_LEN == crypto_aead_xchacha20poly1305_IETF_KEYBYTES, "xkey length");
_Static_assert(CW_AEAD_TAG_LEN == crypto_aead_xchacha20poly1305_IETF_ABYTES, "xtag length");

enum { NONCE_ZERO_PREFIX_LEN = CW_AEAD_NONCE_LEN - sizeof(uint64_t) };

/* WireGuard's nonce: 32 zero bits, then the counter as a little-endian 64-bit integer. */
void cw_aead_counter_nonce(uint8_t nonce[CW_AEAD_NONCE_LEN], uint64_t counter)
{
	int i;

	for (i = 0; i < NONCE_ZERO_PREFIX_LEN; i++)
		nonce[i] = 0;
	for (i = 0; i < (int)sizeof(counter); i++)
		nonce[NONCE_ZERO_PREFIX_LEN + i] = (uint8_t)(counter >> (8 * i));
}

void cw_aead_encrypt_nonce(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			   size_t ad_len, const uint8_t nonce[CW_AEAD_NONCE_LEN],
			   const uint8_t key[CW_AEAD_KEY_LEN])
{
	crypto_aead_chacha20poly1305_ietf_encrypt_detached(dst, dst + len, NULL, src, len, ad,
							   ad_len, NULL, nonce, key);
}

bool cw_aead_decrypt_nonce(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			   size_t ad_len, const uint8_t nonce[CW_AEAD_NONCE_LEN],
			   const uint8_t key[CW_AEAD_KEY_LEN])
{
	size_t len;

	if (src_len < CW_AEAD_TAG_LEN)
		return false;
	len = src_len - CW_AEAD_TAG_LEN;
	return crypto_aead_chacha20poly1305_ietf_decrypt_detached(dst, NULL, src, len, src + len,
								  ad, ad_len, nonce, key) == 0;
}

void cw_aead_encrypt(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len,
		     uint64_t counter, const uint8_t key[CW_AEAD_KEY_LEN])
{
	uint8_t nonce[CW_AEAD_NONCE_LEN];

	cw_aead_counter_nonce(nonce, counter);
	cw_aead_encrypt_nonce(dst, src, len, ad, ad_len, nonce, key);
}

bool cw_aead_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
		     size_t ad_len, uint64_t counter, const uint8_t key[CW_AEAD_KEY_LEN])
{
	uint8_t nonce[CW_AEAD_NONCE_LEN];

	cw_aead_counter_nonce(nonce, counter);
	return cw_aead_decrypt_nonce(dst, src, src_len, ad, ad_len, nonce, key);
}

void cw_xaead_encrypt(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		      size_t ad_len, const uint8_t nonce[CW_XAEAD_NONCE_LEN],
		      const uint8_t key[CW_AEAD_KEY_LEN])
{
	crypto_aead_xchacha20poly1305_ietf_encrypt_detached(dst, dst + len, NULL, src, len, ad,
							    ad_len, NULL, nonce, key);
}

bool cw_xaead_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
		      size_t ad_len, const uint8_t nonce[CW_XAEAD_NONCE_LEN],
		      const uint8_t key[CW_AEAD_KEY_LEN])
{
	size_t len;

	if (src_len < CW_AEAD_TAG_LEN)
		return false;
	len = src_len - CW_AEAD_TAG_LEN;
	return crypto_aead_xchacha20poly1305_ietf_decrypt_detached(dst, NULL, src, len, src + len,
								   ad, ad_len, nonce, key) == 0;
}
