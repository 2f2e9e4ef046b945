/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ChaCha20-Poly1305 (RFC 8439, IETF: 96-bit nonce = 4 zero bytes || LE64 counter)
 * and XChaCha20-Poly1305 (24-byte nonce), over libsodium. In place is allowed (dst == src).
 */
#ifndef CAKEWG_CRYPTO_AEAD_H
#define CAKEWG_CRYPTO_AEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/ct.h"

enum cw_aead_lengths {
	CW_AEAD_KEY_LEN = 32,
	CW_AEAD_TAG_LEN = 16,
	CW_XAEAD_NONCE_LEN = 24,
};

/* dst receives len bytes of ciphertext followed by the 16-byte tag. */
void cw_aead_encrypt(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len,
		     uint64_t counter, const uint8_t key[CW_AEAD_KEY_LEN]);
/* src_len includes the tag; dst receives src_len - 16 bytes. False (dst untouched semantics
 * not guaranteed) when src_len < 16 or authentication fails. */
CW_MUST_CHECK bool cw_aead_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				   const uint8_t *ad, size_t ad_len, uint64_t counter,
				   const uint8_t key[CW_AEAD_KEY_LEN]);

void cw_xaead_encrypt(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		      size_t ad_len, const uint8_t nonce[CW_XAEAD_NONCE_LEN],
		      const uint8_t key[CW_AEAD_KEY_LEN]);
CW_MUST_CHECK bool cw_xaead_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				    const uint8_t *ad, size_t ad_len,
				    const uint8_t nonce[CW_XAEAD_NONCE_LEN],
				    const uint8_t key[CW_AEAD_KEY_LEN]);

#endif
