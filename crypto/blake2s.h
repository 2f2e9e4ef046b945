/* SPDX-License-Identifier: GPL-2.0-only */
/* BLAKE2s (RFC 7693), keyed BLAKE2s and HMAC-BLAKE2s. libsodium has only BLAKE2b. */
#ifndef CAKEWG_CRYPTO_BLAKE2S_H
#define CAKEWG_CRYPTO_BLAKE2S_H

#include <stddef.h>
#include <stdint.h>

enum cw_blake2s_lengths {
	CW_BLAKE2S_BLOCK_LEN = 64,
	CW_BLAKE2S_HASH_LEN = 32, /* maximum and WireGuard's HASH output */
	CW_BLAKE2S_KEY_LEN = 32,  /* maximum key length */
};

struct cw_blake2s {
	uint32_t h[8];
	uint32_t t[2];
	uint8_t buf[CW_BLAKE2S_BLOCK_LEN];
	size_t buflen;
	size_t outlen;
};

/* outlen 1..32; keylen 0..32 (key may be NULL when keylen is 0). Any other length is a
 * caller bug that would overflow a buffer: it abort()s. */
void cw_blake2s_init(struct cw_blake2s *s, size_t outlen, const uint8_t *key, size_t keylen);
void cw_blake2s_update(struct cw_blake2s *s, const uint8_t *in, size_t inlen);
/* Writes s->outlen bytes and wipes the state. */
void cw_blake2s_final(struct cw_blake2s *s, uint8_t *out);

/* One-shot hash or keyed MAC. */
void cw_blake2s(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen, const uint8_t *key,
		size_t keylen);

/* HMAC (RFC 2104) over BLAKE2s-256, block 64 bytes: out is 32 bytes. */
void cw_blake2s_hmac(uint8_t out[CW_BLAKE2S_HASH_LEN], const uint8_t *in, size_t inlen,
		     const uint8_t *key, size_t keylen);

#endif
