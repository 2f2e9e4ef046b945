/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Constant-time base64 and hex. Every character is mapped with masks computed by
 * arithmetic on its value, never with a branch or a table indexed by it; validity is
 * accumulated into one mask and examined once, after the whole input was processed.
 */
#include "src/core/encoding.h"

#include <errno.h>
#include <string.h>

#include "crypto/ct.h"

/* All ones when a > b, else zero. Both must be below 2^31. */
static inline uint32_t gt_mask(uint32_t a, uint32_t b)
{
	return 0U - ((b - a) >> 31);
}

/* All ones when lo <= c <= hi, else zero. */
static inline uint32_t range_mask(uint32_t c, uint32_t lo, uint32_t hi)
{
	return gt_mask(c + 1, lo) & gt_mask(hi + 1, c);
}

/* The base64 digit for a 6-bit value. */
static char b64_char(uint32_t v)
{
	uint32_t c = v + 'A';

	/* 26..51 -> 'a'..'z', 52..61 -> '0'..'9', 62 -> '+', 63 -> '/' */
	c += gt_mask(v, 25) & (uint32_t)(('a' - 26) - 'A');
	c -= gt_mask(v, 51) & (uint32_t)(('a' - 26) - ('0' - 52));
	c -= gt_mask(v, 61) & (uint32_t)(('0' - 52 + 62) - '+');
	c += gt_mask(v, 62) & (uint32_t)('/' - ('+' + 1));
	return (char)c;
}

/* The 6-bit value of a base64 digit; *bad gets all ones if c is not one. */
static uint32_t b64_value(unsigned char ch, uint32_t *bad)
{
	uint32_t c = ch;
	uint32_t upper = range_mask(c, 'A', 'Z');
	uint32_t lower = range_mask(c, 'a', 'z');
	uint32_t digit = range_mask(c, '0', '9');
	uint32_t plus = range_mask(c, '+', '+');
	uint32_t slash = range_mask(c, '/', '/');

	*bad |= ~(upper | lower | digit | plus | slash);
	return (((c - 'A') & upper) | ((c - 'a' + 26) & lower) | ((c - '0' + 52) & digit) |
		(62 & plus) | (63 & slash)) &
	       63;
}

static char hex_char(uint32_t nibble)
{
	return (char)('0' + nibble + (gt_mask(nibble, 9) & (uint32_t)('a' - '0' - 10)));
}

static uint32_t hex_value(unsigned char ch, uint32_t *bad)
{
	uint32_t c = ch;
	uint32_t lc = c | 0x20;
	uint32_t digit = range_mask(c, '0', '9');
	uint32_t alpha = range_mask(lc, 'a', 'f');

	*bad |= ~(digit | alpha);
	return (((c - '0') & digit) | ((lc - 'a' + 10) & alpha)) & 15;
}

size_t wg_encoding_base64_len(size_t n)
{
	size_t groups = n / 3 + (n % 3 != 0);

	if (groups > SIZE_MAX / 4)
		return 0;
	return groups * 4;
}

static void encode_group(char dst[4], const uint8_t *src, size_t n)
{
	uint32_t v = (uint32_t)src[0] << 16;

	if (n > 1)
		v |= (uint32_t)src[1] << 8;
	if (n > 2)
		v |= src[2];
	dst[0] = b64_char(v >> 18);
	dst[1] = b64_char((v >> 12) & 63);
	dst[2] = n > 1 ? b64_char((v >> 6) & 63) : '=';
	dst[3] = n > 2 ? b64_char(v & 63) : '=';
}

int wg_encoding_base64_encode(char *out, size_t out_size, size_t *out_len, const uint8_t *in,
			      size_t len)
{
	size_t need = wg_encoding_base64_len(len);
	size_t i;

	if ((len && !need) || need >= out_size)
		return -ENOSPC;
	for (i = 0; i < len; i += 3)
		encode_group(&out[i / 3 * 4], &in[i], WG_MIN(len - i, (size_t)3));
	out[need] = '\0';
	*out_len = need;
	return 0;
}

int wg_encoding_base64_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *in,
			      size_t len)
{
	uint32_t bad = 0;
	size_t pad = 0, n, i, o = 0;

	if (len % 4)
		return -EINVAL;
	/* The padding length is public: it follows from the decoded length. */
	if (len && in[len - 1] == '=')
		pad = in[len - 2] == '=' ? 2 : 1;
	n = len / 4 * 3 - pad;
	if (n > out_size)
		return -ENOSPC;
	for (i = 0; i < len; i += 4) {
		bool last = i + 4 == len;
		size_t take = last ? 3 - pad : 3;
		uint32_t v = 0;

		for (size_t j = 0; j < 4; j++) {
			bool is_pad = last && j >= 4 - pad;

			v = v << 6 | (is_pad ? 0 : b64_value((unsigned char)in[i + j], &bad));
		}
		/* Canonical form: the bits after the last whole byte are zero. */
		if (take < 3)
			bad |= 0U - (uint32_t)((v & (0xffffffU >> (take * 8))) != 0);
		for (size_t j = 0; j < take; j++)
			out[o++] = (uint8_t)(v >> (16 - 8 * j));
	}
	if (bad) {
		cw_memzero(out, n);
		return -EINVAL;
	}
	*out_len = n;
	return 0;
}

int wg_encoding_hex_encode(char *out, size_t out_size, const uint8_t *in, size_t len)
{
	if (len > (SIZE_MAX - 1) / 2 || len * 2 >= out_size)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex_char(in[i] >> 4);
		out[2 * i + 1] = hex_char(in[i] & 15);
	}
	out[len * 2] = '\0';
	return 0;
}

int wg_encoding_hex_decode(uint8_t *out, size_t out_size, const char *in, size_t len)
{
	uint32_t bad = 0;

	if (len % 2)
		return -EINVAL;
	if (len / 2 > out_size)
		return -ENOSPC;
	for (size_t i = 0; i < len; i += 2) {
		uint32_t hi = hex_value((unsigned char)in[i], &bad);

		out[i / 2] = (uint8_t)(hi << 4 | hex_value((unsigned char)in[i + 1], &bad));
	}
	if (bad) {
		cw_memzero(out, len / 2);
		return -EINVAL;
	}
	return 0;
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
	if (wg_encoding_base64_encode(b64, WG_ENCODING_KEY_B64_SIZE, &n, key, WG_ENCODING_KEY_LEN))
		b64[0] = '\0';
}

bool wg_encoding_key_from_base64(uint8_t key[static WG_ENCODING_KEY_LEN], const char *b64,
				 size_t len)
{
	size_t n = 0;

	if (len != WG_ENCODING_KEY_B64_LEN ||
	    wg_encoding_base64_decode(key, WG_ENCODING_KEY_LEN, &n, b64, len) ||
	    n != WG_ENCODING_KEY_LEN) {
		cw_memzero(key, WG_ENCODING_KEY_LEN);
		return false;
	}
	return true;
}

void wg_encoding_key_to_hex(char hex[static WG_ENCODING_KEY_HEX_SIZE],
			    const uint8_t key[static WG_ENCODING_KEY_LEN])
{
	if (wg_encoding_hex_encode(hex, WG_ENCODING_KEY_HEX_SIZE, key, WG_ENCODING_KEY_LEN))
		hex[0] = '\0';
}

bool wg_encoding_key_from_hex(uint8_t key[static WG_ENCODING_KEY_LEN], const char *hex, size_t len)
{
	if (len != WG_ENCODING_KEY_HEX_LEN ||
	    wg_encoding_hex_decode(key, WG_ENCODING_KEY_LEN, hex, len)) {
		cw_memzero(key, WG_ENCODING_KEY_LEN);
		return false;
	}
	return true;
}
