/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Base64 (RFC 4648 section 4, padded) and hex (base16) in constant time, for keys.
 *
 * Keys travel as base64 in wg-quick files and as lowercase hex over the UAPI. The
 * codecs are crypto/codec.h (libsodium's): they never branch on, or index a table by,
 * a data byte; for accepted input the time they take depends only on the length (a
 * decoder stops at the first character outside the alphabet). Lengths and the position
 * of the '=' padding are public. Decoders accept only the canonical form: padding is
 * required and the bits left over after the last byte must be zero, so every byte
 * string has exactly one accepted encoding. Hex decoding accepts both cases; hex
 * encoding emits lowercase.
 */
#ifndef CAKEWG_SRC_CORE_ENCODING_H
#define CAKEWG_SRC_CORE_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/x25519.h"
#include "src/core/compiler.h"

enum wg_encoding_lengths {
	/* Every WireGuard key (private, public, preshared) is 32 bytes. */
	WG_ENCODING_KEY_LEN = CW_X25519_KEY_LEN,
	/* 44 characters: 43 significant plus one '='. */
	WG_ENCODING_KEY_B64_LEN = (WG_ENCODING_KEY_LEN + 2) / 3 * 4,
	WG_ENCODING_KEY_B64_SIZE = WG_ENCODING_KEY_B64_LEN + 1,
	/* 64 hex digits. */
	WG_ENCODING_KEY_HEX_LEN = WG_ENCODING_KEY_LEN * 2,
	WG_ENCODING_KEY_HEX_SIZE = WG_ENCODING_KEY_HEX_LEN + 1,
};

/* Characters (without the NUL) that base64 needs for n bytes; 0 on overflow. */
size_t wg_encoding_base64_len(size_t n);

/*
 * Encodes len bytes of in as padded base64 into out, NUL-terminated. Writes the length
 * (without the NUL) to *out_len. Returns 0, or -ENOSPC when out_size is too small.
 */
int wg_encoding_base64_encode(char *out, size_t out_size, size_t *out_len, const uint8_t *in,
			      size_t len);

/*
 * Decodes len characters of canonical padded base64. Writes the byte count to *out_len.
 * Returns 0, -EINVAL for anything not canonical base64, or -ENOSPC. On any error the
 * first out_size bytes of out are zeroed.
 */
int wg_encoding_base64_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *in,
			      size_t len);

/* Encodes len bytes as lowercase hex, NUL-terminated. Returns 0 or -ENOSPC. */
int wg_encoding_hex_encode(char *out, size_t out_size, const uint8_t *in, size_t len);

/*
 * Decodes len hex digits (either case) into len / 2 bytes. Returns 0, -EINVAL (odd
 * length or a non-hex character) or -ENOSPC. On any error out is zeroed.
 */
int wg_encoding_hex_decode(uint8_t *out, size_t out_size, const char *in, size_t len);

/*
 * Parses an unsigned number of exactly len characters: base 10 digits, or with base 16
 * "0x" followed by hex digits. No sign, no spaces, no empty string; leading zeros are
 * fine. True when the value fits in max. (Not constant time: numbers are not secret.)
 */
WG_MUST_CHECK bool wg_encoding_parse_uint(uint64_t *out, const char *s, size_t len,
					  unsigned int base, uint64_t max);

/* A key as 44 base64 characters and a NUL. */
void wg_encoding_key_to_base64(char b64[static WG_ENCODING_KEY_B64_SIZE],
			       const uint8_t key[static WG_ENCODING_KEY_LEN]);

/* True when b64 (len characters) is a canonical base64 key; on false key is zeroed. */
WG_MUST_CHECK bool wg_encoding_key_from_base64(uint8_t key[static WG_ENCODING_KEY_LEN],
					       const char *b64, size_t len);

/* A key as 64 lowercase hex digits and a NUL. */
void wg_encoding_key_to_hex(char hex[static WG_ENCODING_KEY_HEX_SIZE],
			    const uint8_t key[static WG_ENCODING_KEY_LEN]);

/* True when hex (len characters) is 64 hex digits; on false key is zeroed. */
WG_MUST_CHECK bool wg_encoding_key_from_hex(uint8_t key[static WG_ENCODING_KEY_LEN],
					    const char *hex, size_t len);

#endif
