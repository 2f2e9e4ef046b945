/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SipHash-2-4 (Aumasson & Bernstein, "SipHash: a fast short-input PRF", 2012):
 * two compression rounds per 64-bit message word, four finalisation rounds,
 * 64-bit output. key->k[0] and key->k[1] are the two key halves as the paper's
 * k0 and k1, i.e. the little-endian readings of key bytes 0..7 and 8..15.
 */
#include "qdisc/siphash.h"

#include <string.h>

enum {
	SIP_C_ROUNDS = 2,
	SIP_D_ROUNDS = 4,
	SIP_WORD_BYTES = 8,
};

/* The initialisation constants: "somepseudorandomlygeneratedbytes". */
static const uint64_t sip_iv[4] = {
	0x736f6d6570736575ULL,
	0x646f72616e646f6dULL,
	0x6c7967656e657261ULL,
	0x7465646279746573ULL,
};

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static inline uint64_t rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = SIP_WORD_BYTES - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline void sipround(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static inline void compress(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	for (int i = 0; i < SIP_C_ROUNDS; i++)
		sipround(s);
	s->v0 ^= m;
}

uint64_t cake_siphash(const struct cake_siphash_key *key, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t full = len - len % SIP_WORD_BYTES;
	uint8_t tail[SIP_WORD_BYTES] = {0};
	struct sip_state s = {
		.v0 = sip_iv[0] ^ key->k[0],
		.v1 = sip_iv[1] ^ key->k[1],
		.v2 = sip_iv[2] ^ key->k[0],
		.v3 = sip_iv[3] ^ key->k[1],
	};

	for (size_t off = 0; off < full; off += SIP_WORD_BYTES)
		compress(&s, load_le64(p + off));

	/* Last block: the remaining bytes, zero padded, with len mod 256 on top. */
	if (len > full)
		memcpy(tail, p + full, len - full);
	tail[SIP_WORD_BYTES - 1] = (uint8_t)len;
	compress(&s, load_le64(tail));

	s.v2 ^= 0xff;
	for (int i = 0; i < SIP_D_ROUNDS; i++)
		sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
