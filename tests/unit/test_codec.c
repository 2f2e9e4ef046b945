/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * crypto/codec.h: libsodium's base64 and hex held to the canonical forms. What these
 * tests pin down is what libsodium itself does at the edges (every byte value in every
 * position of a group, padding, trailing input, buffer sizes, errno), so that an upgrade
 * that changes it fails here instead of loosening what a key file may contain.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "crypto/codec.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The 6-bit value of a base64 digit, or -1: the obvious model. */
static int b64_digit(unsigned int c)
{
	const char *p = c ? strchr(alphabet, (int)c) : NULL;

	return p ? (int)(p - alphabet) : -1;
}

static int hex_digit(unsigned int c)
{
	if (c >= '0' && c <= '9')
		return (int)c - '0';
	if (c >= 'a' && c <= 'f')
		return (int)c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return (int)c - 'A' + 10;
	return -1;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i])
			return false;
	}
	return true;
}

/*
 * The model of one canonical group: one or two trailing '=', digits of the alphabet
 * before them, and zero bits after the last byte. Returns the byte count, or -1.
 */
static int model_group(const char in[4], uint8_t out[3])
{
	size_t pad = in[3] != '=' ? 0 : in[2] != '=' ? 1 : 2;
	size_t bytes = 3 - pad;
	uint32_t v = 0;

	for (size_t i = 0; i < 4; i++) {
		int d = i < 4 - pad ? b64_digit((unsigned char)in[i]) : 0;

		if (d < 0)
			return -1;
		v = v << 6 | (uint32_t)d;
	}
	if (v & (0xffffffU >> (bytes * 8)))
		return -1;
	for (size_t i = 0; i < bytes; i++)
		out[i] = (uint8_t)(v >> (16 - 8 * i));
	return (int)bytes;
}

/*
 * Every byte value at every position of a full group and of both padded groups, against
 * the model: accepted exactly when it is canonical, and then decoded as it decodes.
 */
Test(codec, base64_every_byte_in_every_position)
{
	static const char *const groups[] = {"Zm9v", "Zm8=", "Zg=="};

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		for (size_t pos = 0; pos < 4; pos++) {
			for (unsigned int c = 0; c < 256; c++) {
				char in[4];
				uint8_t out[3], want[3];
				size_t n = 99;
				int bytes;

				memcpy(in, groups[g], 4);
				in[pos] = (char)c;
				bytes = model_group(in, want);
				cr_assert_eq(cw_base64_decode(out, sizeof(out), &n, in, 4),
					     bytes < 0 ? -EINVAL : 0, "group %s, byte %#x at %zu",
					     groups[g], c, pos);
				if (bytes < 0)
					continue;
				cr_assert_eq(n, (size_t)bytes);
				cr_assert_eq(memcmp(out, want, n), 0);
			}
		}
	}
}

Test(codec, hex_every_byte_in_every_position)
{
	for (size_t pos = 0; pos < 2; pos++) {
		for (unsigned int c = 0; c < 256; c++) {
			char in[2] = {'a', '5'};
			uint8_t out = 0x77;
			int hi, lo;

			in[pos] = (char)c;
			hi = hex_digit((unsigned char)in[0]);
			lo = hex_digit((unsigned char)in[1]);
			if (hi < 0 || lo < 0) {
				cr_assert_eq(cw_hex_decode(&out, 1, in, 2), -EINVAL, "%#x at %zu",
					     c, pos);
				cr_assert_eq(out, 0);
				continue;
			}
			cr_assert_eq(cw_hex_decode(&out, 1, in, 2), 0, "%#x at %zu", c, pos);
			cr_assert_eq(out, hi << 4 | lo);
		}
	}
}

/* Nothing is skipped and nothing may follow the padding. */
Test(codec, base64_takes_the_whole_input)
{
	static const char *const bad[] = {
		"Zg== ",      "Zg==\n", " Zg==", "Zg==AAAA", "Zg==Zg==",
		"Zm9v\nZm9v", "Zm 9v",	"Zm9v=", "Zm9v====", "Zg=\n",
		"Zg\r\n",     "=Zg=",	"A===",	 "AA=A",     "\t\t\t\t",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t out[16];
		size_t n;

		cr_assert_eq(cw_base64_decode(out, sizeof(out), &n, bad[i], strlen(bad[i])),
			     -EINVAL, "accepted `%s'", bad[i]);
	}
}

Test(codec, hex_takes_the_whole_input)
{
	static const char *const bad[] = {"66 ", " 66", "66\n", "6 6", "0x", ":6", "66:"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t out[4];

		cr_assert_eq(cw_hex_decode(out, sizeof(out), bad[i], strlen(bad[i])), -EINVAL,
			     "accepted `%s'", bad[i]);
	}
}

Test(codec, empty_input)
{
	uint8_t out[1] = {9};
	char enc[1] = {'x'};
	size_t n = 99;

	cr_assert_eq(cw_base64_decode(out, 0, &n, "", 0), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(cw_hex_decode(out, 0, "", 0), 0);
	cr_assert_eq(cw_base64_encode(enc, 1, &n, out, 0), 0);
	cr_assert_eq(enc[0], '\0');
	cr_assert_eq(cw_hex_encode(enc, 1, out, 0), 0);
	cr_assert_eq(enc[0], '\0');
}

/* libsodium aborts on a short output buffer: the wrapper refuses first, at the byte. */
Test(codec, buffer_sizes_at_the_boundary)
{
	const uint8_t in[5] = "fooba";
	uint8_t out[5];
	char enc[16];
	size_t n;

	cr_assert_eq(cw_base64_encode(enc, 8, &n, in, 5), -ENOSPC);
	cr_assert_eq(cw_base64_encode(enc, 9, &n, in, 5), 0);
	cr_assert_str_eq(enc, "Zm9vYmE=");
	cr_assert_eq(cw_hex_encode(enc, 10, in, 5), -ENOSPC);
	cr_assert_eq(cw_hex_encode(enc, 11, in, 5), 0);
	cr_assert_str_eq(enc, "666f6f6261");
	cr_assert_eq(cw_base64_decode(out, 4, &n, "Zm9vYmE=", 8), -ENOSPC);
	cr_assert_eq(cw_base64_decode(out, 5, &n, "Zm9vYmE=", 8), 0);
	cr_assert_eq(cw_hex_decode(out, 4, "666f6f6261", 10), -ENOSPC);
	cr_assert_eq(cw_hex_decode(out, 5, "666f6f6261", 10), 0);
	/* Lengths whose encoding does not fit in a size_t. */
	cr_assert_eq(cw_base64_len(SIZE_MAX), 0);
	cr_assert_eq(cw_base64_encode(enc, SIZE_MAX, &n, in, SIZE_MAX), -ENOSPC);
	cr_assert_eq(cw_hex_encode(enc, SIZE_MAX, in, SIZE_MAX / 2), -ENOSPC);
}

/* Every refusal wipes the whole output buffer, whatever the reason. */
Test(codec, refusals_wipe_the_output)
{
	static const struct refusal {
		const char *in;
		size_t out_size;
		int err;
	} b64[] = {
		{"Zm9", 16, -EINVAL},	      {"Zm9vYmFy", 5, -ENOSPC},	 {"Zm9vYm?y", 16, -EINVAL},
		{"Zm9vYmF\x80", 16, -EINVAL}, {"Zm9vYmF=", 16, -EINVAL},
	};
	static const struct refusal hex[] = {
		{"666", 16, -EINVAL},
		{"666f6f", 2, -ENOSPC},
		{"666f6g", 16, -EINVAL},
	};
	uint8_t out[16];
	size_t n;

	for (size_t i = 0; i < sizeof(b64) / sizeof(b64[0]); i++) {
		memset(out, 0xaa, sizeof(out));
		cr_assert_eq(
			cw_base64_decode(out, b64[i].out_size, &n, b64[i].in, strlen(b64[i].in)),
			b64[i].err, "`%s'", b64[i].in);
		cr_assert(all_zero(out, b64[i].out_size), "`%s' left bytes", b64[i].in);
	}
	for (size_t i = 0; i < sizeof(hex) / sizeof(hex[0]); i++) {
		memset(out, 0xaa, sizeof(out));
		cr_assert_eq(cw_hex_decode(out, hex[i].out_size, hex[i].in, strlen(hex[i].in)),
			     hex[i].err, "`%s'", hex[i].in);
		cr_assert(all_zero(out, hex[i].out_size), "`%s' left bytes", hex[i].in);
	}
}

/* libsodium sets errno on a refusal; the pure layers see it unchanged. */
Test(codec, errno_is_left_alone)
{
	uint8_t out[8];
	size_t n;

	errno = 4242;
	cr_assert_eq(cw_base64_decode(out, sizeof(out), &n, "Zg=A", 4), -EINVAL);
	cr_assert_eq(cw_base64_decode(out, sizeof(out), &n, "Zm9v", 4), 0);
	cr_assert_eq(cw_hex_decode(out, sizeof(out), "6x", 2), -EINVAL);
	cr_assert_eq(cw_hex_decode(out, sizeof(out), "66", 2), 0);
	cr_assert_eq(errno, 4242);
}
