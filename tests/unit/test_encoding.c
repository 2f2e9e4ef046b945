/* SPDX-License-Identifier: GPL-2.0-only */
/* Base64/hex: RFC 4648 vectors, a naive reference model, key forms and bad input. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "src/core/encoding.h"
#include "tests/support/det_rng.h"

/* RFC 4648, section 10 ("Test Vectors"). */
static const struct {
	const char *plain, *b64, *b16;
} rfc4648[] = {
	{"", "", ""},
	{"f", "Zg==", "66"},
	{"fo", "Zm8=", "666F"},
	{"foo", "Zm9v", "666F6F"},
	{"foob", "Zm9vYg==", "666F6F62"},
	{"fooba", "Zm9vYmE=", "666F6F6261"},
	{"foobar", "Zm9vYmFy", "666F6F626172"},
};

/* The obvious table-driven encoder, as a reference for the constant-time one. */
static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t naive_b64(char *out, const uint8_t *in, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t n = len - i < 3 ? len - i : 3;

		if (n > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (n > 2)
			v |= in[i + 2];
		out[o++] = alphabet[v >> 18];
		out[o++] = alphabet[(v >> 12) & 63];
		out[o++] = n > 1 ? alphabet[(v >> 6) & 63] : '=';
		out[o++] = n > 2 ? alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

Test(encoding, rfc4648_base64)
{
	for (size_t i = 0; i < sizeof(rfc4648) / sizeof(rfc4648[0]); i++) {
		const char *p = rfc4648[i].plain, *e = rfc4648[i].b64;
		uint8_t dec[16];
		char enc[16];
		size_t n = 99;

		cr_assert_eq(wg_encoding_base64_encode(enc, sizeof(enc), &n, (const uint8_t *)p,
						       strlen(p)),
			     0);
		cr_assert_str_eq(enc, e, "vector %zu", i);
		cr_assert_eq(n, strlen(e));
		cr_assert_eq(wg_encoding_base64_decode(dec, sizeof(dec), &n, e, strlen(e)), 0,
			     "vector %zu", i);
		cr_assert_eq(n, strlen(p));
		cr_assert_eq(memcmp(dec, p, n), 0);
	}
}

Test(encoding, rfc4648_base16)
{
	for (size_t i = 0; i < sizeof(rfc4648) / sizeof(rfc4648[0]); i++) {
		const char *p = rfc4648[i].plain, *e = rfc4648[i].b16;
		uint8_t dec[16];
		char enc[16];

		cr_assert_eq(
			wg_encoding_hex_encode(enc, sizeof(enc), (const uint8_t *)p, strlen(p)), 0);
		/* The RFC writes uppercase; the UAPI wants lowercase. */
		cr_assert_eq(strcasecmp(enc, e), 0, "vector %zu: %s", i, enc);
		for (const char *c = enc; *c; c++)
			cr_assert(!(*c >= 'A' && *c <= 'F'));
		cr_assert_eq(wg_encoding_hex_decode(dec, sizeof(dec), e, strlen(e)), 0);
		cr_assert_eq(memcmp(dec, p, strlen(p)), 0);
	}
}

/* Every length 0..40 of random bytes, and every byte value in every position. */
Test(encoding, base64_matches_naive_model)
{
	struct det_rng r = {.state = 4648};
	uint8_t in[64], dec[64];
	char want[100], got[100];

	for (size_t len = 0; len <= 40; len++) {
		for (int round = 0; round < 50; round++) {
			size_t n, m;

			det_rng_fill(&r, in, len);
			if (len >= 3)
				in[round % 3] = (uint8_t)(round * 37);
			n = naive_b64(want, in, len);
			cr_assert_eq(wg_encoding_base64_len(len), n);
			cr_assert_eq(wg_encoding_base64_encode(got, sizeof(got), &m, in, len), 0);
			cr_assert_str_eq(got, want);
			cr_assert_eq(wg_encoding_base64_decode(dec, sizeof(dec), &m, want, n), 0);
			cr_assert_eq(m, len);
			cr_assert_eq(memcmp(dec, in, len), 0);
		}
	}
	for (unsigned int b = 0; b < 256; b++) {
		for (size_t pos = 0; pos < 3; pos++) {
			uint8_t one[3] = {0};
			size_t m;

			one[pos] = (uint8_t)b;
			naive_b64(want, one, 3);
			cr_assert_eq(wg_encoding_base64_encode(got, sizeof(got), &m, one, 3), 0);
			cr_assert_str_eq(got, want);
		}
	}
}

Test(encoding, hex_every_byte)
{
	for (unsigned int b = 0; b < 256; b++) {
		uint8_t in = (uint8_t)b, out;
		char want[3], got[3], upper[3];

		snprintf(want, sizeof(want), "%02x", b);
		snprintf(upper, sizeof(upper), "%02X", b);
		cr_assert_eq(wg_encoding_hex_encode(got, sizeof(got), &in, 1), 0);
		cr_assert_str_eq(got, want);
		cr_assert_eq(wg_encoding_hex_decode(&out, 1, upper, 2), 0);
		cr_assert_eq(out, b);
	}
}

Test(encoding, buffer_too_small)
{
	uint8_t in[6] = "foobar", out[4];
	char enc[8];
	size_t n;

	/* 8 characters need 9 bytes with the NUL. */
	cr_assert_eq(wg_encoding_base64_encode(enc, sizeof(enc), &n, in, 6), -ENOSPC);
	cr_assert_eq(wg_encoding_base64_decode(out, sizeof(out), &n, "Zm9vYmFy", 8), -ENOSPC);
	cr_assert_eq(wg_encoding_hex_encode(enc, 4, in, 2), -ENOSPC);
	cr_assert_eq(wg_encoding_hex_decode(out, 2, "666f6f", 6), -ENOSPC);
}

/* Not canonical base64: each must be refused. */
static const char *const bad_b64[] = {
	"Zg=",				/* not a multiple of 4 */
	"Zg",	"Zh==",			/* leftover bits set */
	"Zm9=",				/* leftover bits set */
	"Z===",				/* three '=' */
	"====", "Zm9v====", "Zg==Zm9v", /* padding in the middle */
	"Zm-v",				/* URL-safe alphabet */
	"Zm_v", "Zm9 ",	    "Zm9\n",	"Zm\x80v", "Zm:v", "Zm@v", "Zm[v", "Zm`v", "Zm{v",
};

Test(encoding, base64_rejects)
{
	for (size_t i = 0; i < sizeof(bad_b64) / sizeof(bad_b64[0]); i++) {
		uint8_t out[16];
		size_t n;

		memset(out, 0xaa, sizeof(out));
		cr_assert_eq(wg_encoding_base64_decode(out, sizeof(out), &n, bad_b64[i],
						       strlen(bad_b64[i])),
			     -EINVAL, "accepted `%s'", bad_b64[i]);
	}
	/* An embedded NUL is just another bad character. */
	cr_assert_eq(wg_encoding_base64_decode((uint8_t[4]){0}, 4, &(size_t){0}, "Zm\0v", 4),
		     -EINVAL);
}

Test(encoding, hex_rejects)
{
	static const char *const bad[] = {"6",	  "666", "6g", "g6", " 6", "6 ",
					  "0x66", "6:",	 "6/", "6@", "6G", "6`"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t out[4] = {1, 2, 3, 4};

		cr_assert_eq(wg_encoding_hex_decode(out, sizeof(out), bad[i], strlen(bad[i])),
			     -EINVAL, "accepted `%s'", bad[i]);
	}
}

/* The example private key of wg(8). */
#define WG8_KEY "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk="

Test(encoding, key_base64_and_hex)
{
	uint8_t key[WG_ENCODING_KEY_LEN], again[WG_ENCODING_KEY_LEN];
	char b64[WG_ENCODING_KEY_B64_SIZE], hex[WG_ENCODING_KEY_HEX_SIZE], ref[64];

	cr_assert_eq(WG_ENCODING_KEY_B64_LEN, 44);
	cr_assert_eq(WG_ENCODING_KEY_HEX_LEN, 64);
	cr_assert(wg_encoding_key_from_base64(key, WG8_KEY, strlen(WG8_KEY)));
	naive_b64(ref, key, sizeof(key));
	cr_assert_str_eq(ref, WG8_KEY);
	wg_encoding_key_to_base64(b64, key);
	cr_assert_str_eq(b64, WG8_KEY);

	wg_encoding_key_to_hex(hex, key);
	cr_assert_eq(strlen(hex), 64);
	for (size_t i = 0; i < sizeof(key); i++) {
		char two[3];

		snprintf(two, sizeof(two), "%02x", key[i]);
		cr_assert_eq(memcmp(&hex[2 * i], two, 2), 0);
	}
	cr_assert(wg_encoding_key_from_hex(again, hex, 64));
	cr_assert_eq(memcmp(again, key, sizeof(key)), 0);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i])
			return false;
	}
	return true;
}

Test(encoding, key_rejects_and_wipes)
{
	static const char *const bad[] = {
		"yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk",	 /* 43: no '=' */
		"yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk==", /* 45 */
		"yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmkA",	 /* 44 without '=' */
		"yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBml=",	 /* leftover bits set */
		"yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBm==",	 /* 31 bytes */
		"yAnz5TF-lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=",	 /* URL-safe '-' */
		"yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3f mk=",	 /* a space */
		"",
	};
	uint8_t key[WG_ENCODING_KEY_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(key, 0xaa, sizeof(key));
		cr_assert_not(wg_encoding_key_from_base64(key, bad[i], strlen(bad[i])), "%s",
			      bad[i]);
		cr_assert(all_zero(key, sizeof(key)), "not wiped after `%s'", bad[i]);
	}
	/* Hex: 63, 65 digits, a non-hex digit. */
	{
		char hex[80];

		memset(hex, 'a', sizeof(hex));
		for (size_t len = 62; len <= 66; len++) {
			memset(key, 0xaa, sizeof(key));
			cr_assert_eq(wg_encoding_key_from_hex(key, hex, len), len == 64);
		}
		hex[10] = 'x';
		memset(key, 0xaa, sizeof(key));
		cr_assert_not(wg_encoding_key_from_hex(key, hex, 64));
		cr_assert(all_zero(key, sizeof(key)));
	}
}

typedef bool key_decoder(uint8_t *key, const char *text, size_t len);

/*
 * Decodes len characters of text (byte c at pos, which may be a NUL) and asserts that
 * they were taken exactly when want says, and left the key zeroed when refused.
 * Returns want.
 */
static bool expect_key(key_decoder *decode, uint8_t key[static WG_ENCODING_KEY_LEN],
		       const char *text, size_t len, bool want, unsigned int c, size_t pos)
{
	memset(key, 0xaa, WG_ENCODING_KEY_LEN);
	cr_assert_eq(decode(key, text, len), want, "byte %#x at %zu", c, pos);
	if (!want)
		cr_assert(all_zero(key, WG_ENCODING_KEY_LEN), "not wiped: byte %#x at %zu", c, pos);
	return want;
}

/*
 * The strictness of a key's base64, byte by byte: every byte value in each of the 44
 * positions of a key. Taken only as a digit of the alphabet in 0..42, with the last
 * digit's two leftover bits zero, and as '=' at 43; an accepted string is the one the
 * naive encoder gives for the key it decodes to.
 */
Test(encoding, key_base64_every_byte_in_every_position)
{
	for (size_t pos = 0; pos < WG_ENCODING_KEY_B64_LEN; pos++) {
		for (unsigned int c = 0; c < 256; c++) {
			char b64[WG_ENCODING_KEY_B64_SIZE] = WG8_KEY, ref[64];
			const char *digit = c ? strchr(alphabet, (int)c) : NULL;
			uint8_t key[WG_ENCODING_KEY_LEN];
			bool want;

			b64[pos] = (char)c;
			if (pos == WG_ENCODING_KEY_B64_LEN - 1)
				want = c == '=';
			else if (pos == WG_ENCODING_KEY_B64_LEN - 2)
				want = digit && ((digit - alphabet) & 3) == 0;
			else
				want = digit != NULL;
			if (!expect_key(wg_encoding_key_from_base64, key, b64,
					WG_ENCODING_KEY_B64_LEN, want, c, pos))
				continue;
			naive_b64(ref, key, sizeof(key));
			cr_assert_eq(memcmp(ref, b64, WG_ENCODING_KEY_B64_LEN), 0);
		}
	}
}

/* Only 44 characters make a base64 key and only 64 a hex key, whatever they hold. */
Test(encoding, key_lengths)
{
	char b64[128], hex[128];
	uint8_t key[WG_ENCODING_KEY_LEN];

	memset(hex, 'A', sizeof(hex));
	for (size_t len = 0; len < sizeof(b64); len++) {
		/* Digits only, and digits with one '=' at the end (canonical when len % 4 = 0). */
		memset(b64, 'A', sizeof(b64));
		cr_assert_not(wg_encoding_key_from_base64(key, b64, len), "%zu", len);
		if (len)
			b64[len - 1] = '=';
		cr_assert_eq(wg_encoding_key_from_base64(key, b64, len),
			     len == WG_ENCODING_KEY_B64_LEN, "%zu", len);
		cr_assert_eq(wg_encoding_key_from_hex(key, hex, len),
			     len == WG_ENCODING_KEY_HEX_LEN, "%zu", len);
	}
}

/*
 * Hex keys, byte by byte: every byte value in each of the 64 positions is taken exactly
 * when it is a hex digit of either case, and means the same in both cases.
 */
Test(encoding, key_hex_every_byte_in_every_position)
{
	static const char base[] =
		"0123456789abcdefABCDEF0123456789abcdef0123456789ABCDEF0123456789";

	for (size_t pos = 0; pos < WG_ENCODING_KEY_HEX_LEN; pos++) {
		for (unsigned int c = 0; c < 256; c++) {
			char hex[WG_ENCODING_KEY_HEX_SIZE], want_hex[WG_ENCODING_KEY_HEX_SIZE];
			uint8_t key[WG_ENCODING_KEY_LEN];
			bool want =
				(c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');

			memcpy(hex, base, sizeof(hex));
			hex[pos] = (char)c;
			if (!expect_key(wg_encoding_key_from_hex, key, hex, WG_ENCODING_KEY_HEX_LEN,
					want, c, pos))
				continue;
			wg_encoding_key_to_hex(want_hex, key);
			cr_assert_eq(strcasecmp(want_hex, hex), 0, "%s", hex);
		}
	}
}

Test(encoding, parse_uint)
{
	static const struct {
		const char *s;
		unsigned int base;
		uint64_t max;
		bool ok;
		uint64_t v;
	} t[] = {
		{"0", 10, 65535, true, 0},
		{"65535", 10, 65535, true, 65535},
		{"65536", 10, 65535, false, 0},
		{"007", 10, 65535, true, 7},
		{"", 10, 65535, false, 0},
		{"+1", 10, 65535, false, 0},
		{"-1", 10, 65535, false, 0},
		{" 1", 10, 65535, false, 0},
		{"1 ", 10, 65535, false, 0},
		{"1a", 10, 65535, false, 0},
		{"0x10", 10, 65535, false, 0},
		{"0x10", 16, 65535, true, 16},
		{"0xFFff", 16, 65535, true, 65535},
		{"0x", 16, 65535, false, 0},
		{"0X10", 16, 65535, false, 0},
		{"10", 16, 65535, false, 0},
		{"0xffffffff", 16, UINT32_MAX, true, UINT32_MAX},
		{"0x100000000", 16, UINT32_MAX, false, 0},
		{"4294967295", 10, UINT32_MAX, true, UINT32_MAX},
		{"4294967296", 10, UINT32_MAX, false, 0},
		{"18446744073709551615", 10, UINT64_MAX, true, UINT64_MAX},
		{"18446744073709551616", 10, UINT64_MAX, false, 0},
		{"99999999999999999999999", 10, UINT64_MAX, false, 0},
		{"5", 10, 0, false, 0},
		{"0", 10, 0, true, 0},
		{"1", 8, 7, false, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 12345;
		bool ok = wg_encoding_parse_uint(&v, t[i].s, strlen(t[i].s), t[i].base, t[i].max);

		cr_assert_eq(ok, t[i].ok, "`%s' base %u", t[i].s, t[i].base);
		if (ok)
			cr_assert_eq(v, t[i].v, "`%s'", t[i].s);
	}
}
