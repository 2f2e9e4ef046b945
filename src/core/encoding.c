/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keys as base64 and hex, and unsigned numbers. The codecs themselves are crypto/codec.h
 * (libsodium's constant-time ones, held to the canonical forms); this file fixes the
 * key lengths, so a key has exactly one accepted spelling in each form.
 */
#include "src/core/encoding.h"

#include "crypto/codec.h"
#include "crypto/ct.h"

size_t wg_encoding_base64_len(size_t n)
{
	return cw_base64_len(n);
}

int wg_encoding_base64_encode(char *out, size_t out_size, size_t *out_len, const uint8_t *in,
			      size_t len)
{
	return cw_base64_encode(out, out_size, out_len, in, len);
}

int wg_encoding_base64_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *in,
			      size_t len)
{
	return cw_base64_decode(out, out_size, out_len, in, len);
}

int wg_encoding_hex_encode(char *out, size_t out_size, const uint8_t *in, size_t len)
{
	return cw_hex_encode(out, out_size, in, len);
}

int wg_encoding_hex_decode(uint8_t *out, size_t out_size, const char *in, size_t len)
{
	return cw_hex_decode(out, out_size, in, len);
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

bool wg_encoding_parse_uint(uint64_t *out, const char *s, size_t len, unsigned int base,
			    uint64_t max)
{
	uint64_t v = 0;
	size_t i = 0;

	if (base == 16) {
		if (len < 3 || s[0] != '0' || s[1] != 'x')
			return false;
		i = 2;
	} else if (base != 10 || !len) {
		return false;
	}
	for (; i < len; i++) {
		int d = digit_value(s[i]);

		if ((unsigned int)d >= base || (uint64_t)d > max ||
		    v > (max - (unsigned int)d) / base)
			return false;
		v = v * base + (unsigned int)d;
	}
	*out = v;
	return true;
}

void wg_encoding_key_to_base64(char b64[static WG_ENCODING_KEY_B64_SIZE],
			       const uint8_t key[static WG_ENCODING_KEY_LEN])
{
	size_t n;

	/* Cannot fail: the buffer is sized for a key. */
	if (cw_base64_encode(b64, WG_ENCODING_KEY_B64_SIZE, &n, key, WG_ENCODING_KEY_LEN))
		b64[0] = '\0';
}

bool wg_encoding_key_from_base64(uint8_t key[static WG_ENCODING_KEY_LEN], const char *b64,
				 size_t len)
{
	size_t n = 0;

	if (len != WG_ENCODING_KEY_B64_LEN ||
	    cw_base64_decode(key, WG_ENCODING_KEY_LEN, &n, b64, len) || n != WG_ENCODING_KEY_LEN) {
		cw_memzero(key, WG_ENCODING_KEY_LEN);
		return false;
	}
	return true;
}

void wg_encoding_key_to_hex(char hex[static WG_ENCODING_KEY_HEX_SIZE],
			    const uint8_t key[static WG_ENCODING_KEY_LEN])
{
	if (cw_hex_encode(hex, WG_ENCODING_KEY_HEX_SIZE, key, WG_ENCODING_KEY_LEN))
		hex[0] = '\0';
}

bool wg_encoding_key_from_hex(uint8_t key[static WG_ENCODING_KEY_LEN], const char *hex, size_t len)
{
	if (len != WG_ENCODING_KEY_HEX_LEN || cw_hex_decode(key, WG_ENCODING_KEY_LEN, hex, len)) {
		cw_memzero(key, WG_ENCODING_KEY_LEN);
		return false;
	}
	return true;
}
