/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BLAKE2s as specified in RFC 7693 (sequential mode, no salt or personalization),
 * and HMAC-BLAKE2s as RFC 2104 builds it over a 64-byte block: the construction
 * WireGuard uses for its KDF.
 *
 * The last block must be compressed with the finalization flag set, so update
 * always keeps between 1 and 64 bytes buffered once any input has arrived, and
 * compresses a block only when more input follows it.
 */
#include "crypto/blake2s.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"

enum {
	ROUNDS = 10,
	/* Parameter block word 0: digest length, key length << 8, fanout 1, depth 1. */
	PARAM_FANOUT_DEPTH = 0x01010000,
	HMAC_IPAD = 0x36,
	HMAC_OPAD = 0x5c,
};

/* RFC 7693 §2.6: the SHA-256 initial hash values. */
static const uint32_t iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* RFC 7693 §2.7: message word schedule per round. */
static const uint8_t sigma[ROUNDS][16] = {
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

static inline uint32_t ror32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* RFC 7693 §3.1, with the rotation constants of BLAKE2s (16, 12, 8, 7). */
#define G(r, i, a, b, c, d)                                                                        \
	do {                                                                                       \
		a += b + m[sigma[r][2 * (i)]];                                                     \
		d = ror32(d ^ a, 16);                                                              \
		c += d;                                                                            \
		b = ror32(b ^ c, 12);                                                              \
		a += b + m[sigma[r][2 * (i) + 1]];                                                 \
		d = ror32(d ^ a, 8);                                                               \
		c += d;                                                                            \
		b = ror32(b ^ c, 7);                                                               \
	} while (0)

#define ROUND(r)                                                                                   \
	do {                                                                                       \
		G(r, 0, v[0], v[4], v[8], v[12]);                                                  \
		G(r, 1, v[1], v[5], v[9], v[13]);                                                  \
		G(r, 2, v[2], v[6], v[10], v[14]);                                                 \
		G(r, 3, v[3], v[7], v[11], v[15]);                                                 \
		G(r, 4, v[0], v[5], v[10], v[15]);                                                 \
		G(r, 5, v[1], v[6], v[11], v[12]);                                                 \
		G(r, 6, v[2], v[7], v[8], v[13]);                                                  \
		G(r, 7, v[3], v[4], v[9], v[14]);                                                  \
	} while (0)

/*
 * RFC 7693 §3.2 over nblocks consecutive blocks, each advancing the byte counter by
 * inc (64 for full blocks, the count of real bytes for the final one).
 */
static void compress(struct cw_blake2s *s, const uint8_t *block, size_t nblocks, uint32_t inc,
		     bool last)
{
	uint32_t m[16], v[16];
	int i;

	for (; nblocks; nblocks--, block += CW_BLAKE2S_BLOCK_LEN) {
		s->t[0] += inc;
		s->t[1] += s->t[0] < inc;
		for (i = 0; i < 16; i++)
			m[i] = load_le32(block + 4 * i);
		memcpy(v, s->h, sizeof(s->h));
		memcpy(v + 8, iv, sizeof(iv));
		v[12] ^= s->t[0];
		v[13] ^= s->t[1];
		if (last)
			v[14] = ~v[14];
		ROUND(0);
		ROUND(1);
		ROUND(2);
		ROUND(3);
		ROUND(4);
		ROUND(5);
		ROUND(6);
		ROUND(7);
		ROUND(8);
		ROUND(9);
		for (i = 0; i < 8; i++)
			s->h[i] ^= v[i] ^ v[i + 8];
	}
	cw_memzero(m, sizeof(m));
	cw_memzero(v, sizeof(v));
}

#undef ROUND
#undef G

void cw_blake2s_init(struct cw_blake2s *s, size_t outlen, const uint8_t *key, size_t keylen)
{
	/* Out-of-range lengths are caller bugs that would overflow buffers: stop here. */
	if (!outlen || outlen > CW_BLAKE2S_HASH_LEN || keylen > CW_BLAKE2S_KEY_LEN ||
	    (keylen && !key))
		abort();

	memset(s, 0, sizeof(*s));
	memcpy(s->h, iv, sizeof(iv));
	s->h[0] ^= PARAM_FANOUT_DEPTH | (uint32_t)keylen << 8 | (uint32_t)outlen;
	s->outlen = outlen;
	if (keylen) {
		/* RFC 7693 §3.3: the key, zero-padded, is the first block. */
		memcpy(s->buf, key, keylen);
		s->buflen = CW_BLAKE2S_BLOCK_LEN;
	}
}

void cw_blake2s_update(struct cw_blake2s *s, const uint8_t *in, size_t inlen)
{
	size_t fill = CW_BLAKE2S_BLOCK_LEN - s->buflen;
	size_t nblocks;

	if (!inlen)
		return;
	if (s->buflen && inlen > fill) {
		/* Complete the buffered block: more input follows it, so it is not the last. */
		memcpy(s->buf + s->buflen, in, fill);
		compress(s, s->buf, 1, CW_BLAKE2S_BLOCK_LEN, false);
		s->buflen = 0;
		in += fill;
		inlen -= fill;
	}
	if (inlen > CW_BLAKE2S_BLOCK_LEN) {
		/* Whole blocks straight from the input, keeping at least one byte back. */
		nblocks = (inlen - 1) / CW_BLAKE2S_BLOCK_LEN;
		compress(s, in, nblocks, CW_BLAKE2S_BLOCK_LEN, false);
		in += nblocks * CW_BLAKE2S_BLOCK_LEN;
		inlen -= nblocks * CW_BLAKE2S_BLOCK_LEN;
	}
	memcpy(s->buf + s->buflen, in, inlen);
	s->buflen += inlen;
}

void cw_blake2s_final(struct cw_blake2s *s, uint8_t *out)
{
	uint8_t full[CW_BLAKE2S_HASH_LEN];
	int i;

	memset(s->buf + s->buflen, 0, CW_BLAKE2S_BLOCK_LEN - s->buflen);
	compress(s, s->buf, 1, (uint32_t)s->buflen, true);
	for (i = 0; i < 8; i++)
		store_le32(full + 4 * i, s->h[i]);
	memcpy(out, full, s->outlen);
	cw_memzero(full, sizeof(full));
	cw_memzero(s, sizeof(*s));
}

void cw_blake2s(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen, const uint8_t *key,
		size_t keylen)
{
	struct cw_blake2s s;

	cw_blake2s_init(&s, outlen, key, keylen);
	cw_blake2s_update(&s, in, inlen);
	cw_blake2s_final(&s, out);
}

static void xor_pad(uint8_t block[CW_BLAKE2S_BLOCK_LEN], uint8_t pad)
{
	int i;

	for (i = 0; i < CW_BLAKE2S_BLOCK_LEN; i++)
		block[i] ^= pad;
}

/*
 * HMAC(K, m) = H((K' ^ opad) || H((K' ^ ipad) || m)), K' being K zero-padded to one
 * block, or H(K) zero-padded when K is longer than a block. out may alias in or key:
 * both are consumed before out is written.
 */
void cw_blake2s_hmac(uint8_t out[CW_BLAKE2S_HASH_LEN], const uint8_t *in, size_t inlen,
		     const uint8_t *key, size_t keylen)
{
	uint8_t kblock[CW_BLAKE2S_BLOCK_LEN] = {0};
	uint8_t inner[CW_BLAKE2S_HASH_LEN];
	struct cw_blake2s s;

	if (keylen > CW_BLAKE2S_BLOCK_LEN)
		cw_blake2s(kblock, CW_BLAKE2S_HASH_LEN, key, keylen, NULL, 0);
	else if (keylen)
		memcpy(kblock, key, keylen);

	xor_pad(kblock, HMAC_IPAD);
	cw_blake2s_init(&s, CW_BLAKE2S_HASH_LEN, NULL, 0);
	cw_blake2s_update(&s, kblock, CW_BLAKE2S_BLOCK_LEN);
	cw_blake2s_update(&s, in, inlen);
	cw_blake2s_final(&s, inner);

	xor_pad(kblock, HMAC_IPAD ^ HMAC_OPAD);
	cw_blake2s_init(&s, CW_BLAKE2S_HASH_LEN, NULL, 0);
	cw_blake2s_update(&s, kblock, CW_BLAKE2S_BLOCK_LEN);
	cw_blake2s_update(&s, inner, CW_BLAKE2S_HASH_LEN);
	cw_blake2s_final(&s, out);

	cw_memzero(kblock, sizeof(kblock));
	cw_memzero(inner, sizeof(inner));
}
