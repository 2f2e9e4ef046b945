/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Base64 and hex over libsodium (sodium/codecs.c). What this file adds is the strict
 * contract of codec.h: sizes are checked first (libsodium aborts the process when an
 * encoder's buffer is too small), the decoders get no characters to ignore and no end
 * pointer (so the whole input must be consumed), the decoded length must be the one the
 * input's length and padding promise, and a refused output is wiped. The codecs pick no
 * implementation at run time and need no sodium_init(); they may set errno, which is
 * put back, so the pure layers see no side effect.
 */
#include "crypto/codec.h"

#include <errno.h>
#include <stdbool.h>
#include <sodium.h>

enum {
	B64_GROUP_BYTES = 3,
	B64_GROUP_CHARS = 4,
	HEX_DIGITS_PER_BYTE = 2,
};

size_t cw_base64_len(size_t n)
{
	size_t groups = n / B64_GROUP_BYTES + (n % B64_GROUP_BYTES != 0);

	if (groups > SIZE_MAX / B64_GROUP_CHARS)
		return 0;
	return groups * B64_GROUP_CHARS;
}

int cw_base64_encode(char *out, size_t out_size, size_t *out_len, const uint8_t *in, size_t len)
{
	size_t need = cw_base64_len(len);

	if ((len && !need) || need >= out_size)
		return -ENOSPC;
	sodium_bin2base64(out, out_size, in, len, sodium_base64_VARIANT_ORIGINAL);
	*out_len = need;
	return 0;
}

/*
 * True when some character of s has its top bit set. libsodium 1.0.18 maps base64
 * characters as a (signed) char and takes every byte from 0x80 up for '/' (the unit
 * test probes all 256): those are refused here first, in one pass that does not branch
 * on the data.
 */
static bool has_non_ascii(const char *s, size_t len)
{
	unsigned int high = 0;

	for (size_t i = 0; i < len; i++)
		high |= (unsigned char)s[i];
	return high >> 7;
}

/* Refuses a decoding: out is wiped, the error returned. */
static int refuse(uint8_t *out, size_t out_size, int err)
{
	cw_memzero(out, out_size);
	return err;
}

int cw_base64_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *in, size_t len)
{
	int saved_errno = errno;
	size_t pad = 0, n, got = 0;
	int rc;

	if (len % B64_GROUP_CHARS)
		return refuse(out, out_size, -EINVAL);
	/* The padding length is public: it follows from the decoded length. */
	if (len && in[len - 1] == '=')
		pad = in[len - 2] == '=' ? 2 : 1;
	n = len / B64_GROUP_CHARS * B64_GROUP_BYTES - pad;
	if (n > out_size)
		return refuse(out, out_size, -ENOSPC);
	if (has_non_ascii(in, len))
		return refuse(out, out_size, -EINVAL);
	rc = sodium_base642bin(out, n, in, len, NULL, &got, NULL, sodium_base64_VARIANT_ORIGINAL);
	errno = saved_errno;
	if (rc || got != n)
		return refuse(out, out_size, -EINVAL);
	*out_len = n;
	return 0;
}

int cw_hex_encode(char *out, size_t out_size, const uint8_t *in, size_t len)
{
	if (len >= SIZE_MAX / HEX_DIGITS_PER_BYTE || len * HEX_DIGITS_PER_BYTE >= out_size)
		return -ENOSPC;
	sodium_bin2hex(out, out_size, in, len);
	return 0;
}

int cw_hex_decode(uint8_t *out, size_t out_size, const char *in, size_t len)
{
	int saved_errno = errno;
	size_t n = len / HEX_DIGITS_PER_BYTE, got = 0;
	int rc;

	if (len % HEX_DIGITS_PER_BYTE)
		return refuse(out, out_size, -EINVAL);
	if (n > out_size)
		return refuse(out, out_size, -ENOSPC);
	rc = sodium_hex2bin(out, n, in, len, NULL, &got, NULL);
	errno = saved_errno;
	if (rc || got != n)
		return refuse(out, out_size, -EINVAL);
	return 0;
}
