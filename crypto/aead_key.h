/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The keyed ChaCha20-Poly1305 of the data path: a key is set up once per direction of a
 * session (cw_aead_key_init) and then seals and opens many messages. The backend is chosen
 * at build time (CMake option CAKEWG_AEAD): OpenSSL libcrypto (CAKEWG_AEAD_OPENSSL,
 * crypto/aead_openssl.h) or libsodium (crypto/aead_sodium.h); these names map to it.
 *
 * The nonce is RFC 8439's 96 bits; the counter forms build WireGuard's (cw_aead_counter_nonce).
 * In place is allowed (dst == src); otherwise dst and src must not overlap. A seal writes len
 * bytes of ciphertext and then the 16-byte tag at dst. An open takes src_len bytes including
 * the tag and writes src_len - 16 bytes of plaintext; it returns false, writing nothing, when
 * src_len < 16 (or beyond what the backend takes, INT_MAX for OpenSSL), and false with dst
 * zeroed when authentication fails: no plaintext is ever released unauthenticated. A seal
 * returns false only when the backend fails (then dst holds nothing usable).
 */
#ifndef CAKEWG_CRYPTO_AEAD_KEY_H
#define CAKEWG_CRYPTO_AEAD_KEY_H

#include "crypto/aead.h"
#include "crypto/aead_sodium.h"
#ifdef CAKEWG_HAVE_OPENSSL
#include "crypto/aead_openssl.h"
#endif

#ifdef CAKEWG_AEAD_OPENSSL
#ifndef CAKEWG_HAVE_OPENSSL
#error "CAKEWG_AEAD_OPENSSL needs CAKEWG_HAVE_OPENSSL"
#endif
#define CW_AEAD_BACKEND_NAME "openssl"
#define CW_AEAD_BACKEND(verb) cw_aead_openssl_key_##verb
#define CW_AEAD_BACKEND_KEY struct cw_aead_openssl_key
#else
#define CW_AEAD_BACKEND_NAME "libsodium"
#define CW_AEAD_BACKEND(verb) cw_aead_sodium_key_##verb
#define CW_AEAD_BACKEND_KEY struct cw_aead_sodium_key
#endif

struct cw_aead_key {
	CW_AEAD_BACKEND_KEY impl;
};

/* Sets k up for key. 0, or -ENOMEM when the backend cannot make its contexts (k then holds
 * nothing to wipe). A zeroed struct cw_aead_key may be wiped without an init. */
static inline CW_MUST_CHECK int cw_aead_key_init(struct cw_aead_key *k,
						 const uint8_t key[CW_AEAD_KEY_LEN])
{
	return CW_AEAD_BACKEND(init)(&k->impl, key);
}

/*
 * Makes the backend load what it loads at first use (OpenSSL reads its configuration file
 * and sets up its providers when the first context is made), so that later sessions need
 * no file: call it before a system call filter. 0, or -ENOMEM.
 */
static inline CW_MUST_CHECK int cw_aead_backend_ready(void)
{
	static const uint8_t zero_key[CW_AEAD_KEY_LEN];
	struct cw_aead_key k;
	int ret = CW_AEAD_BACKEND(init)(&k.impl, zero_key);

	if (!ret)
		CW_AEAD_BACKEND(wipe)(&k.impl);
	return ret;
}

/* Frees what init made and wipes k (all zero afterwards). */
static inline void cw_aead_key_wipe(struct cw_aead_key *k)
{
	CW_AEAD_BACKEND(wipe)(&k->impl);
}

static inline CW_MUST_CHECK bool cw_aead_key_seal_nonce(struct cw_aead_key *k, uint8_t *dst,
							const uint8_t *src, size_t len,
							const uint8_t *ad, size_t ad_len,
							const uint8_t nonce[CW_AEAD_NONCE_LEN])
{
	return CW_AEAD_BACKEND(seal_nonce)(&k->impl, dst, src, len, ad, ad_len, nonce);
}

static inline CW_MUST_CHECK bool cw_aead_key_open_nonce(struct cw_aead_key *k, uint8_t *dst,
							const uint8_t *src, size_t src_len,
							const uint8_t *ad, size_t ad_len,
							const uint8_t nonce[CW_AEAD_NONCE_LEN])
{
	return CW_AEAD_BACKEND(open_nonce)(&k->impl, dst, src, src_len, ad, ad_len, nonce);
}

static inline CW_MUST_CHECK bool cw_aead_key_seal(struct cw_aead_key *k, uint8_t *dst,
						  const uint8_t *src, size_t len,
						  const uint8_t *ad, size_t ad_len, uint64_t counter)
{
	uint8_t nonce[CW_AEAD_NONCE_LEN];

	cw_aead_counter_nonce(nonce, counter);
	return cw_aead_key_seal_nonce(k, dst, src, len, ad, ad_len, nonce);
}

static inline CW_MUST_CHECK bool cw_aead_key_open(struct cw_aead_key *k, uint8_t *dst,
						  const uint8_t *src, size_t src_len,
						  const uint8_t *ad, size_t ad_len, uint64_t counter)
{
	uint8_t nonce[CW_AEAD_NONCE_LEN];

	cw_aead_counter_nonce(nonce, counter);
	return cw_aead_key_open_nonce(k, dst, src, src_len, ad, ad_len, nonce);
}

#undef CW_AEAD_BACKEND_KEY

#endif
