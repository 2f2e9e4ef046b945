/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Base64 (RFC 4648 section 4, the standard alphabet, padded) and hex (base16) over
 * libsodium's constant-time codecs, in their strict canonical forms.
 *
 * The character mapping never branches on, or indexes a table by, a data byte. For
 * accepted input the time depends only on the length; a decoder stops at the first
 * character outside the alphabet, so for refused input it may also depend on where that
 * character is. Lengths and the position of the '=' padding are public.
 *
 * Decoders accept only the canonical form: padding is required, nothing may follow it,
 * no character is skipped (not even whitespace), and the bits left over after the last
 * byte must be zero, so every byte string has exactly one accepted encoding. Hex
 * decoding accepts both cases; hex encoding emits lowercase. None of these functions
 * needs sodium_init(), and none leaves errno changed.
 */
#ifndef CAKEWG_CRYPTO_CODEC_H
#define CAKEWG_CRYPTO_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/ct.h"

/* Characters (without the NUL) that base64 needs for n bytes; 0 on overflow. */
size_t cw_base64_len(size_t n);

/*
 * Encodes len bytes of in as padded base64 into out, NUL-terminated. Writes the length
 * (without the NUL) to *out_len. Returns 0, or -ENOSPC when out_size is too small.
 */
CW_MUST_CHECK int cw_base64_encode(char *out, size_t out_size, size_t *out_len, const uint8_t *in,
				   size_t len);

/*
 * Decodes len characters of canonical padded base64. Writes the byte count to *out_len.
 * Returns 0, -EINVAL for anything not canonical base64, or -ENOSPC. On any error the
 * first out_size bytes of out are zeroed.
 */
CW_MUST_CHECK int cw_base64_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *in,
				   size_t len);

/* Encodes len bytes as lowercase hex, NUL-terminated. Returns 0 or -ENOSPC. */
CW_MUST_CHECK int cw_hex_encode(char *out, size_t out_size, const uint8_t *in, size_t len);

/*
 * Decodes len hex digits (either case) into len / 2 bytes. Returns 0, -EINVAL (odd
 * length or a non-hex character) or -ENOSPC. On any error the first out_size bytes of
 * out are zeroed.
 */
CW_MUST_CHECK int cw_hex_decode(uint8_t *out, size_t out_size, const char *in, size_t len);

#endif
