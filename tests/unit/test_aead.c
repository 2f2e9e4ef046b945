/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ChaCha20-Poly1305 and XChaCha20-Poly1305 against published vectors. Every vector is
 * also opened with each byte of its key, nonce (or counter), AD, ciphertext and tag
 * flipped in turn: each must fail and leave no plaintext behind.
 *
 * Suite "aead" runs after sodium_init() (libsodium's SIMD code, as in production);
 * suite "aead_portable" does not, so libsodium's portable code is checked too
 * (criterion runs every test in its own process).
 *
 * Suite "aead_key" runs the keyed data-path API (crypto/aead_key.h) of EVERY compiled
 * backend through the RFC 8439 vectors, and crosses them: what one seals, each other
 * opens, for lengths from 0 to 65535, with one key for many messages as in a session.
 */
#include <criterion/criterion.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/aead.h"
#include "crypto/aead_key.h"

enum { BUF_LEN = 512 };

enum nonce_kind {
	NONCE_96,      /* cw_aead_*_nonce: any RFC 8439 nonce */
	NONCE_COUNTER, /* cw_aead_*: 4 zero bytes || LE64 counter */
	NONCE_192,     /* cw_xaead_* */
};

struct vec {
	enum nonce_kind kind;
	const char *key, *nonce, *ad, *pt, *ct, *tag;
	uint64_t counter;
};

struct aead_case {
	enum nonce_kind kind;
	uint64_t counter;
	uint8_t key[CW_AEAD_KEY_LEN];
	uint8_t nonce[CW_XAEAD_NONCE_LEN];
	uint8_t ad[64];
	uint8_t pt[BUF_LEN];
	uint8_t sealed[BUF_LEN]; /* ciphertext || tag */
	size_t nonce_len, ad_len, len;
};

/*
 * RFC 8439 §2.8.2. Its nonce is the "32-bit fixed-common part" 07000000 followed by
 * the IV 4041424344454647: not WireGuard's layout, so it goes through the _nonce API.
 */
static const struct vec rfc8439_2_8_2 = {
	.kind = NONCE_96,
	.key = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
	.nonce = "070000004041424344454647",
	.ad = "50515253c0c1c2c3c4c5c6c7",
	.pt = "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
	      "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
	      "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
	      "637265656e20776f756c642062652069742e",
	.ct = "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
	      "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
	      "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
	      "3ff4def08e4b7a9de576d26586cec64b6116",
	.tag = "1ae10b594f09e26a7e902ecbd0600691",
};

/*
 * RFC 8439 Appendix A.5. Its nonce 00000000 0102030405060708 is exactly WireGuard's
 * layout for counter 0x0807060504030201, so it exercises the counter API.
 */
#define RFC8439_A5_NONCE "000000000102030405060708"
static const struct vec rfc8439_a5 = {
	.kind = NONCE_COUNTER,
	.counter = 0x0807060504030201ULL,
	.key = "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
	.ad = "f33388860000000000004e91",
	.pt = "496e7465726e65742d4472616674732061726520647261667420646f63756d65"
	      "6e74732076616c696420666f722061206d6178696d756d206f6620736978206d"
	      "6f6e74687320616e64206d617920626520757064617465642c207265706c6163"
	      "65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65"
	      "6e747320617420616e792074696d652e20497420697320696e617070726f7072"
	      "6961746520746f2075736520496e7465726e65742d4472616674732061732072"
	      "65666572656e6365206d6174657269616c206f7220746f206369746520746865"
	      "6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67"
	      "726573732e2fe2809d",
	.ct = "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
	      "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
	      "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
	      "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
	      "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
	      "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
	      "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
	      "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
	      "a6ad5cb4022b02709b",
	.tag = "eead9d67890cbb22392336fea1851f38",
};

/* draft-irtf-cfrg-xchacha-03 Appendix A.3.1 (AEAD_XCHACHA20_POLY1305). */
static const struct vec xchacha_a3_1 = {
	.kind = NONCE_192,
	.key = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
	.nonce = "404142434445464748494a4b4c4d4e4f5051525354555657",
	.ad = "50515253c0c1c2c3c4c5c6c7",
	.pt = "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
	      "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
	      "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
	      "637265656e20776f756c642062652069742e",
	.ct = "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
	      "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
	      "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
	      "21f9664c97637da9768812f615c68b13b52e",
	.tag = "c0875924c1c7987947deafd8780acf49",
};

static void sodium_ready(void)
{
	cr_assert(sodium_init() >= 0, "sodium_init failed");
}

TestSuite(aead, .init = sodium_ready);
TestSuite(aead_portable);

static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
	size_t n = strlen(hex) / 2, i;
	unsigned int byte;

	cr_assert(strlen(hex) % 2 == 0 && n <= cap, "malformed vector");
	for (i = 0; i < n; i++) {
		cr_assert(sscanf(hex + 2 * i, "%2x", &byte) == 1, "malformed vector");
		out[i] = (uint8_t)byte;
	}
	return n;
}

static void load(struct aead_case *c, const struct vec *v)
{
	size_t ct_len;

	memset(c, 0, sizeof(*c));
	c->kind = v->kind;
	c->counter = v->counter;
	cr_assert(unhex(c->key, sizeof(c->key), v->key) == CW_AEAD_KEY_LEN);
	if (v->nonce)
		c->nonce_len = unhex(c->nonce, sizeof(c->nonce), v->nonce);
	c->ad_len = unhex(c->ad, sizeof(c->ad), v->ad);
	c->len = unhex(c->pt, sizeof(c->pt), v->pt);
	ct_len = unhex(c->sealed, sizeof(c->sealed), v->ct);
	cr_assert(ct_len == c->len);
	cr_assert(unhex(c->sealed + ct_len, sizeof(c->sealed) - ct_len, v->tag) == CW_AEAD_TAG_LEN);
}

static void seal(const struct aead_case *c, uint8_t *dst, const uint8_t *src)
{
	switch (c->kind) {
	case NONCE_96:
		cw_aead_encrypt_nonce(dst, src, c->len, c->ad, c->ad_len, c->nonce, c->key);
		break;
	case NONCE_COUNTER:
		cw_aead_encrypt(dst, src, c->len, c->ad, c->ad_len, c->counter, c->key);
		break;
	case NONCE_192:
		cw_xaead_encrypt(dst, src, c->len, c->ad, c->ad_len, c->nonce, c->key);
		break;
	}
}

static bool open_sealed(const struct aead_case *c, uint8_t *dst, const uint8_t *src, size_t len)
{
	switch (c->kind) {
	case NONCE_96:
		return cw_aead_decrypt_nonce(dst, src, len, c->ad, c->ad_len, c->nonce, c->key);
	case NONCE_COUNTER:
		return cw_aead_decrypt(dst, src, len, c->ad, c->ad_len, c->counter, c->key);
	case NONCE_192:
		return cw_xaead_decrypt(dst, src, len, c->ad, c->ad_len, c->nonce, c->key);
	}
	return false;
}

static void check_seal(const struct vec *v)
{
	struct aead_case c;
	uint8_t out[BUF_LEN];

	load(&c, v);
	seal(&c, out, c.pt);
	cr_assert_arr_eq(out, c.sealed, c.len + CW_AEAD_TAG_LEN);
}

static void check_open(const struct vec *v)
{
	struct aead_case c;
	uint8_t out[BUF_LEN];

	load(&c, v);
	memset(out, 0xaa, sizeof(out));
	cr_assert(open_sealed(&c, out, c.sealed, c.len + CW_AEAD_TAG_LEN));
	cr_assert_arr_eq(out, c.pt, c.len);
	/* Exactly len bytes written: nothing spills past the plaintext. */
	cr_assert_eq(out[c.len], 0xaa);
}

/* A failed open must report false and leave zeros, never plaintext, in dst. */
static void expect_rejected(const struct aead_case *c, const char *what, size_t i)
{
	uint8_t out[BUF_LEN];
	uint8_t zero[BUF_LEN] = {0};

	memset(out, 0xaa, sizeof(out));
	cr_assert_not(open_sealed(c, out, c->sealed, c->len + CW_AEAD_TAG_LEN),
		      "opened with %s byte %zu flipped", what, i);
	cr_assert_arr_eq(out, zero, c->len, "dst not wiped after %s byte %zu flipped", what, i);
}

static void flip_field(const struct aead_case *orig, size_t offset, size_t len, const char *what)
{
	struct aead_case c;
	size_t i;

	for (i = 0; i < len; i++) {
		c = *orig;
		((uint8_t *)&c)[offset + i] ^= 0xff;
		expect_rejected(&c, what, i);
	}
}

static void check_flips(const struct vec *v)
{
	struct aead_case c;
	size_t i;

	load(&c, v);
	flip_field(&c, offsetof(struct aead_case, key), CW_AEAD_KEY_LEN, "key");
	flip_field(&c, offsetof(struct aead_case, nonce), c.nonce_len, "nonce");
	flip_field(&c, offsetof(struct aead_case, ad), c.ad_len, "ad");
	flip_field(&c, offsetof(struct aead_case, sealed), c.len, "ciphertext");
	flip_field(&c, offsetof(struct aead_case, sealed) + c.len, CW_AEAD_TAG_LEN, "tag");
	if (c.kind == NONCE_COUNTER) {
		for (i = 0; i < sizeof(c.counter); i++) {
			struct aead_case d = c;

			d.counter ^= (uint64_t)0xff << (8 * i);
			expect_rejected(&d, "counter", i);
		}
	}
}

/* Seal and open in one buffer, as the datapath does. */
static void check_in_place(const struct vec *v)
{
	struct aead_case c;
	uint8_t buf[BUF_LEN];

	load(&c, v);
	memcpy(buf, c.pt, c.len);
	seal(&c, buf, buf);
	cr_assert_arr_eq(buf, c.sealed, c.len + CW_AEAD_TAG_LEN);
	cr_assert(open_sealed(&c, buf, buf, c.len + CW_AEAD_TAG_LEN));
	cr_assert_arr_eq(buf, c.pt, c.len);
}

Test(aead, rfc8439_2_8_2_seal)
{
	check_seal(&rfc8439_2_8_2);
}

Test(aead, rfc8439_2_8_2_open)
{
	check_open(&rfc8439_2_8_2);
}

Test(aead, rfc8439_2_8_2_flips)
{
	check_flips(&rfc8439_2_8_2);
}

Test(aead, rfc8439_a5_seal)
{
	check_seal(&rfc8439_a5);
}

Test(aead, rfc8439_a5_open)
{
	check_open(&rfc8439_a5);
}

Test(aead, rfc8439_a5_flips)
{
	check_flips(&rfc8439_a5);
}

Test(aead, rfc8439_a5_in_place)
{
	check_in_place(&rfc8439_a5);
}

Test(aead, xchacha_a3_1_seal)
{
	check_seal(&xchacha_a3_1);
}

Test(aead, xchacha_a3_1_open)
{
	check_open(&xchacha_a3_1);
}

Test(aead, xchacha_a3_1_flips)
{
	check_flips(&xchacha_a3_1);
}

Test(aead, xchacha_a3_1_in_place)
{
	check_in_place(&xchacha_a3_1);
}

/* The counter API is the nonce API with 4 zero bytes || LE64(counter), nothing else. */
Test(aead, counter_nonce_layout)
{
	static const uint64_t counters[] = {0, 1, 0xff, 0x100, 0x0807060504030201ULL, UINT64_MAX};
	struct aead_case c;
	uint8_t nonce[CW_AEAD_NONCE_LEN] = {0};
	uint8_t a[BUF_LEN], b[BUF_LEN];
	size_t i, j;

	load(&c, &rfc8439_a5);
	unhex(nonce, sizeof(nonce), RFC8439_A5_NONCE);
	cr_assert(cw_aead_decrypt_nonce(a, c.sealed, c.len + CW_AEAD_TAG_LEN, c.ad, c.ad_len, nonce,
					c.key));
	cr_assert_arr_eq(a, c.pt, c.len);

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		for (j = 0; j < 8; j++)
			nonce[4 + j] = (uint8_t)(counters[i] >> (8 * j));
		cw_aead_encrypt(a, c.pt, c.len, c.ad, c.ad_len, counters[i], c.key);
		cw_aead_encrypt_nonce(b, c.pt, c.len, c.ad, c.ad_len, nonce, c.key);
		cr_assert_arr_eq(a, b, c.len + CW_AEAD_TAG_LEN, "counter %zu", i);
	}
}

/* Inputs shorter than a tag are refused before anything is written. */
Test(aead, shorter_than_tag)
{
	struct aead_case c;
	uint8_t out[BUF_LEN], before[BUF_LEN];
	size_t len;

	load(&c, &rfc8439_a5);
	memset(before, 0x5a, sizeof(before));
	for (len = 0; len < CW_AEAD_TAG_LEN; len++) {
		memcpy(out, before, sizeof(out));
		cr_assert_not(
			cw_aead_decrypt(out, c.sealed, len, c.ad, c.ad_len, c.counter, c.key));
		cr_assert_not(cw_aead_decrypt_nonce(out, c.sealed, len, NULL, 0, c.nonce, c.key));
		cr_assert_not(cw_xaead_decrypt(out, c.sealed, len, NULL, 0, c.nonce, c.key));
		cr_assert_arr_eq(out, before, sizeof(out), "dst written for len %zu", len);
	}
}

/* A keepalive: empty plaintext, no AD, the tag alone authenticates. */
Test(aead, empty_plaintext)
{
	struct aead_case c;
	uint8_t tag[CW_AEAD_TAG_LEN], other[CW_AEAD_TAG_LEN];
	size_t i;

	load(&c, &rfc8439_a5);
	cw_aead_encrypt(tag, NULL, 0, NULL, 0, 7, c.key);
	cr_assert(cw_aead_decrypt(NULL, tag, sizeof(tag), NULL, 0, 7, c.key));
	cr_assert_not(cw_aead_decrypt(NULL, tag, sizeof(tag), NULL, 0, 8, c.key));
	cw_aead_encrypt(other, NULL, 0, NULL, 0, 8, c.key);
	cr_assert_arr_neq(tag, other, sizeof(tag), "tag does not depend on the counter");
	for (i = 0; i < sizeof(tag); i++) {
		tag[i] ^= 0xff;
		cr_assert_not(cw_aead_decrypt(NULL, tag, sizeof(tag), NULL, 0, 7, c.key));
		tag[i] ^= 0xff;
	}
}

/* In place, a forgery leaves zeros where the ciphertext was: nothing to leak or reuse. */
Test(aead, forged_in_place_is_wiped)
{
	struct aead_case c;
	uint8_t buf[BUF_LEN], zero[BUF_LEN] = {0};

	load(&c, &rfc8439_a5);
	memcpy(buf, c.sealed, c.len + CW_AEAD_TAG_LEN);
	buf[c.len] ^= 1;
	cr_assert_not(cw_aead_decrypt(buf, buf, c.len + CW_AEAD_TAG_LEN, c.ad, c.ad_len, c.counter,
				      c.key));
	cr_assert_arr_eq(buf, zero, c.len);
}

Test(aead_portable, rfc8439_a5_open_and_flips)
{
	check_open(&rfc8439_a5);
	check_flips(&rfc8439_a5);
}

Test(aead_portable, rfc8439_2_8_2_seal)
{
	check_seal(&rfc8439_2_8_2);
}

Test(aead_portable, xchacha_a3_1_seal_and_open)
{
	check_seal(&xchacha_a3_1);
	check_open(&xchacha_a3_1);
	check_in_place(&xchacha_a3_1);
}

/* --- The keyed API of every compiled backend --- */

union any_key {
	struct cw_aead_sodium_key sodium;
#ifdef CAKEWG_HAVE_OPENSSL
	struct cw_aead_openssl_key openssl;
#endif
};

struct backend {
	const char *name;
	int (*init)(union any_key *k, const uint8_t *key);
	void (*wipe)(union any_key *k);
	bool (*seal)(union any_key *k, uint8_t *dst, const uint8_t *src, size_t len,
		     const uint8_t *ad, size_t ad_len, const uint8_t *nonce);
	bool (*open)(union any_key *k, uint8_t *dst, const uint8_t *src, size_t src_len,
		     const uint8_t *ad, size_t ad_len, const uint8_t *nonce);
};

#define BACKEND(member)                                                                    \
	static int key_##member##_init(union any_key *k, const uint8_t *key)                     \
	{                                                                                  \
		return cw_aead_##member##_key_init(&k->member, key);                       \
	}                                                                                  \
	static void key_##member##_wipe(union any_key *k)                                        \
	{                                                                                  \
		cw_aead_##member##_key_wipe(&k->member);                                   \
	}                                                                                  \
	static bool key_##member##_seal(union any_key *k, uint8_t *dst, const uint8_t *src,      \
				  size_t len, const uint8_t *ad, size_t ad_len,            \
				  const uint8_t *nonce)                                    \
	{                                                                                  \
		return cw_aead_##member##_key_seal_nonce(&k->member, dst, src, len, ad,    \
							 ad_len, nonce);                   \
	}                                                                                  \
	static bool key_##member##_open(union any_key *k, uint8_t *dst, const uint8_t *src,      \
				  size_t src_len, const uint8_t *ad, size_t ad_len,        \
				  const uint8_t *nonce)                                    \
	{                                                                                  \
		return cw_aead_##member##_key_open_nonce(&k->member, dst, src, src_len, ad, \
							 ad_len, nonce);                   \
	}

BACKEND(sodium)
#ifdef CAKEWG_HAVE_OPENSSL
BACKEND(openssl)
#endif

#define BACKEND_ROW(member)                                                                \
	{                                                                                  \
		#member, key_##member##_init, key_##member##_wipe, key_##member##_seal, key_##member##_open        \
	}

static const struct backend backends[] = {
	BACKEND_ROW(sodium),
#ifdef CAKEWG_HAVE_OPENSSL
	BACKEND_ROW(openssl),
#endif
};
enum { N_BACKENDS = sizeof(backends) / sizeof(backends[0]) };

TestSuite(aead_key, .init = sodium_ready);

/* The vector's 96-bit nonce (the counter's, for a counter vector). */
static void vector_nonce(const struct aead_case *c, uint8_t nonce[CW_AEAD_NONCE_LEN])
{
	if (c->kind == NONCE_COUNTER)
		cw_aead_counter_nonce(nonce, c->counter);
	else
		memcpy(nonce, c->nonce, CW_AEAD_NONCE_LEN);
}

static void check_keyed_vector(const struct backend *b, const struct vec *v)
{
	uint8_t nonce[CW_AEAD_NONCE_LEN], out[BUF_LEN], zero[BUF_LEN] = {0};
	size_t sealed_len, i;
	struct aead_case c;
	union any_key k;

	load(&c, v);
	vector_nonce(&c, nonce);
	sealed_len = c.len + CW_AEAD_TAG_LEN;
	memset(&k, 0, sizeof(k)); /* the union is larger than some backends' keys */
	cr_assert_eq(b->init(&k, c.key), 0, "%s: init", b->name);
	/* Twice: the second call on the context must not see the first's state. */
	for (i = 0; i < 2; i++) {
		memset(out, 0xaa, sizeof(out));
		cr_assert(b->seal(&k, out, c.pt, c.len, c.ad, c.ad_len, nonce));
		cr_assert_arr_eq(out, c.sealed, sealed_len, "%s: seal %zu", b->name, i);
		cr_assert_eq(out[sealed_len], 0xaa, "%s: seal wrote past the tag", b->name);
		memset(out, 0xaa, sizeof(out));
		cr_assert(b->open(&k, out, c.sealed, sealed_len, c.ad, c.ad_len, nonce),
			  "%s: open %zu", b->name, i);
		cr_assert_arr_eq(out, c.pt, c.len, "%s: open %zu", b->name, i);
		cr_assert_eq(out[c.len], 0xaa, "%s: open wrote past the plaintext", b->name);
	}
	/* In place. */
	memcpy(out, c.pt, c.len);
	cr_assert(b->seal(&k, out, out, c.len, c.ad, c.ad_len, nonce));
	cr_assert_arr_eq(out, c.sealed, sealed_len, "%s: seal in place", b->name);
	cr_assert(b->open(&k, out, out, sealed_len, c.ad, c.ad_len, nonce));
	cr_assert_arr_eq(out, c.pt, c.len, "%s: open in place", b->name);
	/* Every byte of ciphertext and tag flipped, in place: false, and zeros left. */
	for (i = 0; i < sealed_len; i++) {
		memcpy(out, c.sealed, sealed_len);
		out[i] ^= 0x80;
		cr_assert_not(b->open(&k, out, out, sealed_len, c.ad, c.ad_len, nonce),
			      "%s: opened with byte %zu flipped", b->name, i);
		cr_assert_arr_eq(out, zero, c.len, "%s: plaintext left, byte %zu", b->name, i);
	}
	/* A flipped AD byte and a flipped nonce byte, into another buffer. */
	c.ad[0] ^= 1;
	memset(out, 0xaa, sizeof(out));
	cr_assert_not(b->open(&k, out, c.sealed, sealed_len, c.ad, c.ad_len, nonce));
	cr_assert_arr_eq(out, zero, c.len, "%s: plaintext left after a bad AD", b->name);
	c.ad[0] ^= 1;
	nonce[CW_AEAD_NONCE_LEN - 1] ^= 1;
	cr_assert_not(b->open(&k, out, c.sealed, sealed_len, c.ad, c.ad_len, nonce));
	nonce[CW_AEAD_NONCE_LEN - 1] ^= 1;
	/* Shorter than a tag: refused, nothing written. */
	for (i = 0; i < CW_AEAD_TAG_LEN; i++) {
		memset(out, 0x5a, sizeof(out));
		cr_assert_not(b->open(&k, out, c.sealed, i, NULL, 0, nonce));
		cr_assert_eq(out[0], 0x5a, "%s: written for length %zu", b->name, i);
	}
	b->wipe(&k);
	cr_assert_arr_eq((const uint8_t *)&k, zero, sizeof(k), "%s: wipe left bytes", b->name);
}

Test(aead_key, rfc8439_vectors_on_every_backend)
{
	for (size_t i = 0; i < N_BACKENDS; i++) {
		check_keyed_vector(&backends[i], &rfc8439_2_8_2);
		check_keyed_vector(&backends[i], &rfc8439_a5);
	}
}

/* A keepalive: no plaintext, no AD; the tag alone, and a NULL plaintext pointer. */
Test(aead_key, empty_plaintext_on_every_backend)
{
	uint8_t key[CW_AEAD_KEY_LEN], nonce[CW_AEAD_NONCE_LEN], tag[N_BACKENDS][CW_AEAD_TAG_LEN];
	union any_key k;

	randombytes_buf(key, sizeof(key));
	cw_aead_counter_nonce(nonce, 7);
	for (size_t i = 0; i < N_BACKENDS; i++) {
		const struct backend *b = &backends[i];

		cr_assert_eq(b->init(&k, key), 0);
		cr_assert(b->seal(&k, tag[i], NULL, 0, NULL, 0, nonce));
		cr_assert(b->open(&k, NULL, tag[i], CW_AEAD_TAG_LEN, NULL, 0, nonce), "%s", b->name);
		tag[i][3] ^= 1;
		cr_assert_not(b->open(&k, NULL, tag[i], CW_AEAD_TAG_LEN, NULL, 0, nonce));
		tag[i][3] ^= 1;
		cr_assert_arr_eq(tag[i], tag[0], CW_AEAD_TAG_LEN, "%s: tag differs", b->name);
		b->wipe(&k);
	}
}

/* Lengths that matter to ChaCha20 (64-byte blocks) and Poly1305 (16-byte blocks), every
 * length up to past an MTU, then a sweep to the largest message. */
static size_t cross_len(size_t i)
{
	enum { DENSE = 1600, STEP = 251 };

	if (i < DENSE)
		return i;
	i = DENSE + (i - DENSE) * STEP;
	return i < 65535 ? i : 65535;
}

Test(aead_key, backends_cross_check)
{
	enum { MAX = 65535 + CW_AEAD_TAG_LEN, AD_MAX = 40 };
	uint8_t key[CW_AEAD_KEY_LEN], nonce[CW_AEAD_NONCE_LEN], ad[AD_MAX];
	uint8_t *pt = malloc(MAX), *sealed[N_BACKENDS], *out = malloc(MAX);
	union any_key k[N_BACKENDS];
	size_t i, a, b, len = 0;

	cr_assert(pt && out);
	randombytes_buf(key, sizeof(key));
	randombytes_buf(ad, sizeof(ad));
	for (a = 0; a < N_BACKENDS; a++) {
		cr_assert((sealed[a] = malloc(MAX)));
		cr_assert_eq(backends[a].init(&k[a], key), 0);
	}
	for (i = 0; len < 65535; i++) {
		size_t ad_len = i % (AD_MAX + 1);

		len = cross_len(i);
		randombytes_buf(pt, len);
		cw_aead_counter_nonce(nonce, i * 0x0101010101ULL);
		for (a = 0; a < N_BACKENDS; a++) {
			/* Odd rounds seal in place. */
			if (i & 1) {
				memcpy(sealed[a], pt, len);
				cr_assert(backends[a].seal(&k[a], sealed[a], sealed[a], len, ad,
							   ad_len, nonce));
			} else {
				cr_assert(backends[a].seal(&k[a], sealed[a], pt, len, ad, ad_len,
							   nonce));
			}
			cr_assert_arr_eq(sealed[a], sealed[0], len + CW_AEAD_TAG_LEN,
					 "%s and %s differ at length %zu", backends[a].name,
					 backends[0].name, len);
		}
		for (a = 0; a < N_BACKENDS; a++) {
			for (b = 0; b < N_BACKENDS; b++) {
				memcpy(out, sealed[a], len + CW_AEAD_TAG_LEN);
				cr_assert(backends[b].open(&k[b], out, out, len + CW_AEAD_TAG_LEN,
							   ad, ad_len, nonce),
					  "%s could not open %s's length %zu", backends[b].name,
					  backends[a].name, len);
				cr_assert_arr_eq(out, pt, len, "length %zu", len);
			}
		}
	}
	for (a = 0; a < N_BACKENDS; a++) {
		backends[a].wipe(&k[a]);
		free(sealed[a]);
	}
	free(pt);
	free(out);
}

/* The generic names: the build's backend, and the counter forms are the nonce forms. */
Test(aead_key, generic_names_are_the_chosen_backend)
{
	struct aead_case c;
	struct cw_aead_key k;
	uint8_t a[BUF_LEN], b[BUF_LEN];

#ifdef CAKEWG_AEAD_OPENSSL
	cr_assert_str_eq(CW_AEAD_BACKEND_NAME, "openssl");
#else
	cr_assert_str_eq(CW_AEAD_BACKEND_NAME, "libsodium");
#endif
	load(&c, &rfc8439_a5);
	cr_assert_eq(cw_aead_key_init(&k, c.key), 0);
	cr_assert(cw_aead_key_seal(&k, a, c.pt, c.len, c.ad, c.ad_len, c.counter));
	cr_assert_arr_eq(a, c.sealed, c.len + CW_AEAD_TAG_LEN);
	cw_aead_encrypt(b, c.pt, c.len, c.ad, c.ad_len, c.counter, c.key);
	cr_assert_arr_eq(a, b, c.len + CW_AEAD_TAG_LEN);
	cr_assert(cw_aead_key_open(&k, b, a, c.len + CW_AEAD_TAG_LEN, c.ad, c.ad_len, c.counter));
	cr_assert_arr_eq(b, c.pt, c.len);
	cr_assert_not(cw_aead_key_open(&k, b, a, c.len + CW_AEAD_TAG_LEN, c.ad, c.ad_len,
				       c.counter + 1));
	cw_aead_key_wipe(&k);
	cw_aead_key_wipe(&k); /* a wiped key is a zeroed one: wiping it again is harmless */
}
