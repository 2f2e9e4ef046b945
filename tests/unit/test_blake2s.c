/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BLAKE2s and HMAC-BLAKE2s: published vectors (RFC 7693, the BLAKE2 reference KAT,
 * wireguard-go's KDF vectors), byte-flip loops, streaming against one-shot, and
 * HMAC against a direct transcription of RFC 2104.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/ct.h"
#include "tests/support/det_rng.h"

enum { MSG_MAX = 1024 };

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

/* The BLAKE2 KAT convention: message and key are the byte sequences 00 01 02 ... */
static void counting(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)i;
}

/* RFC 7693 Appendix B: BLAKE2s-256("abc"). */
static const char rfc7693_abc[] =
	"508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982";

Test(blake2s, rfc7693_appendix_b_abc)
{
	uint8_t want[32], got[32];

	unhex(want, sizeof(want), rfc7693_abc);
	cw_blake2s(got, 32, (const uint8_t *)"abc", 3, NULL, 0);
	cr_assert_arr_eq(got, want, 32);
}

Test(blake2s, rfc7693_appendix_b_flips)
{
	uint8_t want[32], got[32], msg[3] = {'a', 'b', 'c'};
	size_t i;

	unhex(want, sizeof(want), rfc7693_abc);
	for (i = 0; i < sizeof(msg); i++) {
		msg[i] ^= 0xff;
		cw_blake2s(got, 32, msg, sizeof(msg), NULL, 0);
		cr_assert_arr_neq(got, want, 32, "message byte %zu flipped", i);
		msg[i] ^= 0xff;
	}
	cw_blake2s(got, 32, msg, sizeof(msg), NULL, 0);
	for (i = 0; i < sizeof(want); i++) {
		want[i] ^= 0xff;
		cr_assert_not(cw_ct_equal(got, want, 32), "expected byte %zu flipped", i);
		want[i] ^= 0xff;
	}
}

/* RFC 7693 Appendix E: deterministic input generator (a Fibonacci sequence). */
static void selftest_seq(uint8_t *out, size_t len, uint32_t seed)
{
	uint32_t a = 0xdead4bad * seed, b = 1, t;
	size_t i;

	for (i = 0; i < len; i++) {
		t = a + b;
		a = b;
		b = t;
		out[i] = (uint8_t)(t >> 24);
	}
}

/*
 * RFC 7693 Appendix E self-test: BLAKE2s-256 over the concatenated unkeyed and keyed
 * hashes of lengths 0..1024 at outlens 16, 20, 28 and 32; the result is printed there.
 */
Test(blake2s, rfc7693_appendix_e_selftest)
{
	static const size_t md_len[] = {16, 20, 28, 32};
	static const size_t in_len[] = {0, 3, 64, 65, 255, 1024};
	uint8_t want[32], got[32], in[1024], md[32], key[32];
	struct cw_blake2s grand;
	size_t i, j;

	unhex(want, sizeof(want),
	      "6a411f08ce25adcdfb02aba641451cec53c598b24f4fc787fbdc88797f4c1dfe");
	cw_blake2s_init(&grand, 32, NULL, 0);
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 6; j++) {
			selftest_seq(in, in_len[j], (uint32_t)in_len[j]);
			cw_blake2s(md, md_len[i], in, in_len[j], NULL, 0);
			cw_blake2s_update(&grand, md, md_len[i]);

			selftest_seq(key, md_len[i], (uint32_t)md_len[i]);
			cw_blake2s(md, md_len[i], in, in_len[j], key, md_len[i]);
			cw_blake2s_update(&grand, md, md_len[i]);
		}
	}
	cw_blake2s_final(&grand, got);
	cr_assert_arr_eq(got, want, 32);
}

struct kat {
	size_t len;
	const char *hash;
};

/*
 * BLAKE2 reference KAT (github.com/BLAKE2/BLAKE2, testvectors/blake2-kat.h, table
 * blake2s_kat): unkeyed BLAKE2s-256 of 00 01 .. len-1, around the block boundaries.
 */
static const struct kat kat_unkeyed[] = {
	{0, "69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9"},
	{1, "e34d74dbaf4ff4c6abd871cc220451d2ea2648846c7757fbaac82fe51ad64bea"},
	{63, "e57cb79487dd57902432b250733813bd96a84efce59f650fac26e6696aefafc3"},
	{64, "56f34e8b96557e90c1f24b52d0c89d51086acf1b00f634cf1dde9233b8eaaa3e"},
	{65, "1b53ee94aaf34e4b159d48de352c7f0661d0a40edff95a0b1639b4090e974472"},
	{255, "f03f5789d3336b80d002d59fdf918bdb775b00956ed5528e86aa994acb38fe2d"},
};

/*
 * BLAKE2 reference KAT (testvectors/blake2s-kat.txt): BLAKE2s-256 keyed with
 * 00 01 .. 1f over 00 01 .. len-1.
 */
static const struct kat kat_keyed[] = {
	{0, "48a8997da407876b3d79c0d92325ad3b89cbb754d86ab71aee047ad345fd2c49"},
	{1, "40d15fee7c328830166ac3f918650f807e7e01e177258cdc0a39b11f598066f1"},
	{2, "6bb71300644cd3991b26ccd4d274acd1adeab8b1d7914546c1198bbe9fc9d803"},
	{3, "1d220dbe2ee134661fdf6d9e74b41704710556f2f6e5a091b227697445dbea6b"},
	{31, "b6156f72d380ee9ea6acd190464f2307a5c179ef01fd71f99f2d0f7a57360aea"},
	{32, "c03bc642b20959cbe133a0303e0c1abff3e31ec8e1a328ec8565c36decff5265"},
	{63, "c65382513f07460da39833cb666c5ed82e61b9e998f4b0c4287cee56c3cc9bcd"},
	{64, "8975b0577fd35566d750b362b0897a26c399136df07bababbde6203ff2954ed4"},
	{65, "21fe0ceb0052be7fb0f004187cacd7de67fa6eb0938d927677f2398c132317a8"},
	{127, "ddbfea75cc467882eb3483ce5e2e756a4f4701b76b445519e89f22d60fa86e06"},
	{128, "0c311f38c35a4fb90d651c289d486856cd1413df9b0677f53ece2cd9e477c60a"},
	{129, "46a73a8dd3e70f59d3942c01df599def783c9da82fd83222cd662b53dce7dbdf"},
	{255, "3fb735061abc519dfe979e54c1ee5bfad0a9d858b3315bad34bde999efd724dd"},
};

Test(blake2s, reference_kat_unkeyed)
{
	uint8_t msg[256], want[32], got[32];
	size_t i;

	counting(msg, sizeof(msg));
	for (i = 0; i < sizeof(kat_unkeyed) / sizeof(kat_unkeyed[0]); i++) {
		unhex(want, sizeof(want), kat_unkeyed[i].hash);
		cw_blake2s(got, 32, msg, kat_unkeyed[i].len, NULL, 0);
		cr_assert_arr_eq(got, want, 32, "len %zu", kat_unkeyed[i].len);
	}
}

Test(blake2s, reference_kat_keyed)
{
	uint8_t msg[256], key[32], want[32], got[32];
	size_t i;

	counting(msg, sizeof(msg));
	counting(key, sizeof(key));
	for (i = 0; i < sizeof(kat_keyed) / sizeof(kat_keyed[0]); i++) {
		unhex(want, sizeof(want), kat_keyed[i].hash);
		cw_blake2s(got, 32, msg, kat_keyed[i].len, key, sizeof(key));
		cr_assert_arr_eq(got, want, 32, "len %zu", kat_keyed[i].len);
	}
}

/* Every byte of key and message matters, at a length that spans two blocks. */
Test(blake2s, reference_kat_keyed_flips)
{
	const struct kat *v = &kat_keyed[8];
	uint8_t msg[256], key[32], want[32], got[32];
	size_t i;

	cr_assert_eq(v->len, 65);
	counting(msg, sizeof(msg));
	counting(key, sizeof(key));
	unhex(want, sizeof(want), v->hash);
	for (i = 0; i < sizeof(key); i++) {
		key[i] ^= 0xff;
		cw_blake2s(got, 32, msg, v->len, key, sizeof(key));
		cr_assert_arr_neq(got, want, 32, "key byte %zu flipped", i);
		key[i] ^= 0xff;
	}
	for (i = 0; i < v->len; i++) {
		msg[i] ^= 0xff;
		cw_blake2s(got, 32, msg, v->len, key, sizeof(key));
		cr_assert_arr_neq(got, want, 32, "message byte %zu flipped", i);
		msg[i] ^= 0xff;
	}
	cw_blake2s(got, 32, msg, v->len, key, sizeof(key));
	for (i = 0; i < sizeof(want); i++) {
		want[i] ^= 0xff;
		cr_assert_not(cw_ct_equal(got, want, 32), "expected byte %zu flipped", i);
		want[i] ^= 0xff;
	}
}

static void hash_in_chunks(uint8_t *out, size_t outlen, const uint8_t *msg, size_t len,
			   const uint8_t *key, size_t keylen, size_t chunk)
{
	struct cw_blake2s s;
	size_t off, n;

	cw_blake2s_init(&s, outlen, key, keylen);
	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		cw_blake2s_update(&s, msg + off, n);
		cw_blake2s_update(&s, NULL, 0);
	}
	cw_blake2s_final(&s, out);
}

Test(blake2s, streaming_equals_one_shot)
{
	static const size_t lens[] = {0, 1, 31, 63, 64, 65, 127, 128, 129, 200, 1000, MSG_MAX};
	static const size_t chunks[] = {1, 2, 3, 7, 13, 31, 63, 64, 65, 100, 129};
	static const size_t keylens[] = {0, 1, 16, 32};
	static const size_t outlens[] = {32, 16, 1};
	struct det_rng r = {.state = 7693};
	uint8_t msg[MSG_MAX], key[32], a[32], b[32];
	size_t l, c, k, o;

	det_rng_fill(&r, msg, sizeof(msg));
	det_rng_fill(&r, key, sizeof(key));
	for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (k = 0; k < sizeof(keylens) / sizeof(keylens[0]); k++)
			for (o = 0; o < sizeof(outlens) / sizeof(outlens[0]); o++) {
				cw_blake2s(a, outlens[o], msg, lens[l], key, keylens[k]);
				for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
					hash_in_chunks(b, outlens[o], msg, lens[l], key, keylens[k],
						       chunks[c]);
					cr_assert_arr_eq(a, b, outlens[o],
							 "len %zu key %zu out %zu chunk %zu",
							 lens[l], keylens[k], outlens[o],
							 chunks[c]);
				}
			}
}

/* The digest length is a parameter of the hash, not a truncation. */
Test(blake2s, outlen_is_not_truncation)
{
	uint8_t a[32], b[32];

	cw_blake2s(a, 32, (const uint8_t *)"abc", 3, NULL, 0);
	cw_blake2s(b, 16, (const uint8_t *)"abc", 3, NULL, 0);
	cr_assert_arr_neq(a, b, 16);
}

Test(blake2s, final_wipes_state)
{
	struct cw_blake2s s;
	uint8_t key[32], out[32];

	counting(key, sizeof(key));
	cw_blake2s_init(&s, 32, key, sizeof(key));
	cw_blake2s_update(&s, (const uint8_t *)"abc", 3);
	cw_blake2s_final(&s, out);
	cr_assert(cw_is_zero(&s, sizeof(s)));
}

/* RFC 2104 written out with the one-shot hash: H((K ^ opad) || H((K ^ ipad) || m)). */
static void hmac_model(uint8_t out[32], const uint8_t *msg, size_t len, const uint8_t *key,
		       size_t keylen)
{
	uint8_t k[64] = {0}, buf[64 + MSG_MAX], inner[32];
	size_t i;

	if (keylen > 64)
		cw_blake2s(k, 32, key, keylen, NULL, 0);
	else
		memcpy(k, key, keylen);
	for (i = 0; i < 64; i++)
		buf[i] = k[i] ^ 0x36;
	memcpy(buf + 64, msg, len);
	cw_blake2s(inner, 32, buf, 64 + len, NULL, 0);
	for (i = 0; i < 64; i++)
		buf[i] = k[i] ^ 0x5c;
	memcpy(buf + 64, inner, 32);
	cw_blake2s(out, 32, buf, 64 + 32, NULL, 0);
}

Test(blake2s, hmac_matches_rfc2104)
{
	static const size_t keylens[] = {0, 1, 32, 63, 64, 65, 100, 200};
	static const size_t lens[] = {0, 1, 32, 64, 65, 200, MSG_MAX};
	struct det_rng r = {.state = 2104};
	uint8_t msg[MSG_MAX], key[200], a[32], b[32];
	size_t k, l;

	det_rng_fill(&r, msg, sizeof(msg));
	det_rng_fill(&r, key, sizeof(key));
	for (k = 0; k < sizeof(keylens) / sizeof(keylens[0]); k++)
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			cw_blake2s_hmac(a, msg, lens[l], key, keylens[k]);
			hmac_model(b, msg, lens[l], key, keylens[k]);
			cr_assert_arr_eq(a, b, 32, "key %zu msg %zu", keylens[k], lens[l]);
		}
}

/* RFC 2104 §2: a key longer than the 64-byte block is replaced by its hash; one that fits is not.
 */
Test(blake2s, hmac_long_key_is_hashed)
{
	uint8_t key[65], hkey[32], a[32], b[32];

	counting(key, sizeof(key));
	cw_blake2s(hkey, 32, key, 65, NULL, 0);
	cw_blake2s_hmac(a, (const uint8_t *)"m", 1, key, 65);
	cw_blake2s_hmac(b, (const uint8_t *)"m", 1, hkey, 32);
	cr_assert_arr_eq(a, b, 32);

	cw_blake2s(hkey, 32, key, 64, NULL, 0);
	cw_blake2s_hmac(a, (const uint8_t *)"m", 1, key, 64);
	cw_blake2s_hmac(b, (const uint8_t *)"m", 1, hkey, 32);
	cr_assert_arr_neq(a, b, 32);
}

/*
 * wireguard-go device/kdf_test.go, first vector: key "test-key", input "test-input",
 * t0 = HMAC(HMAC(key, input), 0x01), t1 = HMAC(HMAC(key, input), t0 || 0x02).
 */
Test(blake2s, hmac_wireguard_go_kdf_chain)
{
	uint8_t prk[32], t[33], want0[32], want1[32];

	unhex(want0, sizeof(want0),
	      "6f0e5ad38daba1bea8a0d213688736f19763239305e0f58aba697f9ffc41c633");
	unhex(want1, sizeof(want1),
	      "df1194df20802a4fe594cde27e92991c8cae66c366e8106aaa937a55fa371e8a");
	cw_blake2s_hmac(prk, (const uint8_t *)"test-input", 10, (const uint8_t *)"test-key", 8);
	t[0] = 1;
	cw_blake2s_hmac(t, t, 1, prk, 32);
	cr_assert_arr_eq(t, want0, 32);
	t[32] = 2;
	cw_blake2s_hmac(t, t, 33, prk, 32);
	cr_assert_arr_eq(t, want1, 32);
}

Test(blake2s, hmac_flips)
{
	uint8_t key[32], msg[80], ref[32], got[32];
	size_t i;

	counting(key, sizeof(key));
	counting(msg, sizeof(msg));
	cw_blake2s_hmac(ref, msg, sizeof(msg), key, sizeof(key));
	for (i = 0; i < sizeof(key); i++) {
		key[i] ^= 0xff;
		cw_blake2s_hmac(got, msg, sizeof(msg), key, sizeof(key));
		cr_assert_arr_neq(got, ref, 32, "key byte %zu flipped", i);
		key[i] ^= 0xff;
	}
	for (i = 0; i < sizeof(msg); i++) {
		msg[i] ^= 0xff;
		cw_blake2s_hmac(got, msg, sizeof(msg), key, sizeof(key));
		cr_assert_arr_neq(got, ref, 32, "message byte %zu flipped", i);
		msg[i] ^= 0xff;
	}
}

/* The output may overwrite the key or the message it was computed from. */
Test(blake2s, hmac_output_aliases_inputs)
{
	uint8_t key[32], msg[32], ref[32];

	counting(key, sizeof(key));
	counting(msg, sizeof(msg));
	msg[0] = 0xee;
	cw_blake2s_hmac(ref, msg, sizeof(msg), key, sizeof(key));
	cw_blake2s_hmac(key, msg, sizeof(msg), key, sizeof(key));
	cr_assert_arr_eq(key, ref, 32);

	counting(key, sizeof(key));
	cw_blake2s_hmac(msg, msg, sizeof(msg), key, sizeof(key));
	cr_assert_arr_eq(msg, ref, 32);
}
