/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ChaCha20-Poly1305 (RFC 8439, IETF: 96-bit nonce = 4 zero bytes || LE64 counter)
 * and XChaCha20-Poly1305 (24-byte nonce), over libsodium, one call per message with the key
 * as bytes (the handshake, cookies). The data path's keyed form, over the backend chosen at
 * build time, is crypto/aead_key.h. In place is allowed (dst == src); otherwise dst and src
 * must not overlap.
 *
 * Decryption checks the tag before it writes anything: on failure dst receives zeros,
 * never plaintext (libsodium's *_decrypt_detached). libsodium only picks its SIMD
 * ChaCha20 and Poly1305 code in sodium_init(); without it the portable code runs.
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
	CW_AEAD_NONCE_LEN = 12,
	CW_XAEAD_NONCE_LEN = 24,
};

/*
 * Declares the keyed functions of backend NAME over its struct cw_aead_NAME_key, all of one
 * signature whatever the backend; crypto/aead_key.h gives their contracts and maps its
 * generic names to the chosen backend's.
 */
#define CW_AEAD_DECLARE_BACKEND(name)                                                            \
	CW_MUST_CHECK int cw_aead_##name##_key_init(struct cw_aead_##name##_key *k,              \
						    const uint8_t key[CW_AEAD_KEY_LEN]);         \
	void cw_aead_##name##_key_wipe(struct cw_aead_##name##_key *k);                          \
	CW_MUST_CHECK bool cw_aead_##name##_key_seal_nonce(                                      \
		struct cw_aead_##name##_key *k, uint8_t *dst, const uint8_t *src, size_t len,    \
		const uint8_t *ad, size_t ad_len, const uint8_t nonce[CW_AEAD_NONCE_LEN]);       \
	CW_MUST_CHECK bool cw_aead_##name##_key_open_nonce(                                      \
		struct cw_aead_##name##_key *k, uint8_t *dst, const uint8_t *src, size_t src_len, \
		const uint8_t *ad, size_t ad_len, const uint8_t nonce[CW_AEAD_NONCE_LEN])

/* WireGuard's nonce for counter: 4 zero bytes, then the counter as LE64. */
void cw_aead_counter_nonce(uint8_t nonce[CW_AEAD_NONCE_LEN], uint64_t counter);

/* dst receives len bytes of ciphertext followed by the 16-byte tag. */
void cw_aead_encrypt(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad, size_t ad_len,
		     uint64_t counter, const uint8_t key[CW_AEAD_KEY_LEN]);
/* src_len includes the tag; dst receives src_len - 16 bytes. False when src_len < 16 (dst
 * untouched) or authentication fails (dst zeroed: no plaintext is released). */
CW_MUST_CHECK bool cw_aead_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				   const uint8_t *ad, size_t ad_len, uint64_t counter,
				   const uint8_t key[CW_AEAD_KEY_LEN]);

/* The same with an arbitrary 96-bit RFC 8439 nonce (cw_aead_* build theirs from counter). */
void cw_aead_encrypt_nonce(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			   size_t ad_len, const uint8_t nonce[CW_AEAD_NONCE_LEN],
			   const uint8_t key[CW_AEAD_KEY_LEN]);
CW_MUST_CHECK bool cw_aead_decrypt_nonce(uint8_t *dst, const uint8_t *src, size_t src_len,
					 const uint8_t *ad, size_t ad_len,
					 const uint8_t nonce[CW_AEAD_NONCE_LEN],
					 const uint8_t key[CW_AEAD_KEY_LEN]);

void cw_xaead_encrypt(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
		      size_t ad_len, const uint8_t nonce[CW_XAEAD_NONCE_LEN],
		      const uint8_t key[CW_AEAD_KEY_LEN]);
CW_MUST_CHECK bool cw_xaead_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
				    const uint8_t *ad, size_t ad_len,
				    const uint8_t nonce[CW_XAEAD_NONCE_LEN],
				    const uint8_t key[CW_AEAD_KEY_LEN]);

#endif
