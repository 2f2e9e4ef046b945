/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * X25519 against RFC 7748 (§5.2 function vectors and iterations, §6.1 Diffie-Hellman),
 * rejection of low-order points (all-zero shared secret) and of an unset private key,
 * clamping, aliasing and byte-flip loops. Suite "x25519" runs after sodium_init()
 * (production code path), suite "x25519_portable" without it.
 */
#include <criterion/criterion.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "crypto/x25519.h"

enum { KEY = CW_X25519_KEY_LEN };

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

static void sodium_ready(void)
{
	cr_assert(sodium_init() >= 0, "sodium_init failed");
}

TestSuite(x25519, .init = sodium_ready);
TestSuite(x25519_portable);

/* RFC 7748 §5.2: scalar, input u-coordinate, output u-coordinate. The second u has
 * its top bit set, which X25519 must ignore. */
static const struct {
	const char *scalar, *u, *out;
} rfc7748_5_2[] = {
	{"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
	 "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
	 "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
	{"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
	 "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
	 "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
};

/* RFC 7748 §6.1. */
static const char alice_priv[] = "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a";
static const char alice_pub[] = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
static const char bob_priv[] = "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb";
static const char bob_pub[] = "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f";
static const char shared_k[] = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";

static void check_5_2(void)
{
	uint8_t k[KEY], u[KEY], want[KEY], got[KEY];
	size_t i;

	for (i = 0; i < sizeof(rfc7748_5_2) / sizeof(rfc7748_5_2[0]); i++) {
		unhex(k, KEY, rfc7748_5_2[i].scalar);
		unhex(u, KEY, rfc7748_5_2[i].u);
		unhex(want, KEY, rfc7748_5_2[i].out);
		cr_assert(cw_x25519(got, k, u), "vector %zu", i);
		cr_assert_arr_eq(got, want, KEY, "vector %zu", i);
	}
}

static void check_6_1(void)
{
	uint8_t a[KEY], b[KEY], a_pub[KEY], b_pub[KEY], k[KEY], got[KEY];

	unhex(a, KEY, alice_priv);
	unhex(b, KEY, bob_priv);
	unhex(k, KEY, shared_k);
	unhex(a_pub, KEY, alice_pub);
	unhex(b_pub, KEY, bob_pub);
	cr_assert(cw_x25519_public(got, a));
	cr_assert_arr_eq(got, a_pub, KEY);
	cr_assert(cw_x25519_public(got, b));
	cr_assert_arr_eq(got, b_pub, KEY);
	cr_assert(cw_x25519(got, a, b_pub));
	cr_assert_arr_eq(got, k, KEY);
	cr_assert(cw_x25519(got, b, a_pub));
	cr_assert_arr_eq(got, k, KEY);
}

Test(x25519, rfc7748_5_2_vectors)
{
	check_5_2();
}

/* RFC 7748 §5.2: k = u = 9; repeat k, u = X25519(k, u), k. */
Test(x25519, rfc7748_5_2_iterated)
{
	uint8_t k[KEY] = {9}, u[KEY] = {9}, r[KEY], after1[KEY], after1000[KEY];
	int i;

	unhex(after1, KEY, "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
	unhex(after1000, KEY, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
	for (i = 1; i <= 1000; i++) {
		cr_assert(cw_x25519(r, k, u));
		memcpy(u, k, KEY);
		memcpy(k, r, KEY);
		if (i == 1)
			cr_assert_arr_eq(k, after1, KEY);
	}
	cr_assert_arr_eq(k, after1000, KEY);
}

Test(x25519, rfc7748_6_1_diffie_hellman)
{
	check_6_1();
}

/* Every byte of the private key and of the peer's public key changes the secret. */
Test(x25519, rfc7748_6_1_flips)
{
	uint8_t a[KEY], b_pub[KEY], k[KEY], got[KEY];
	size_t i;
	bool ok;

	unhex(a, KEY, alice_priv);
	unhex(b_pub, KEY, bob_pub);
	unhex(k, KEY, shared_k);
	for (i = 0; i < KEY; i++) {
		a[i] ^= 0xff;
		cr_assert(cw_x25519(got, a, b_pub));
		cr_assert_arr_neq(got, k, KEY, "private byte %zu flipped", i);
		a[i] ^= 0xff;
	}
	for (i = 0; i < KEY; i++) {
		b_pub[i] ^= 0xff;
		ok = cw_x25519(got, a, b_pub);
		cr_assert(!ok || memcmp(got, k, KEY) != 0, "public byte %zu flipped", i);
		b_pub[i] ^= 0xff;
	}
	cr_assert(cw_x25519(got, a, b_pub));
	for (i = 0; i < KEY; i++) {
		k[i] ^= 0xff;
		cr_assert_not(cw_ct_equal(got, k, KEY), "expected byte %zu flipped", i);
		k[i] ^= 0xff;
	}
}

/*
 * Points of small order: any clamped scalar (a multiple of the cofactor 8) maps them
 * to the identity, an all-zero shared secret, which must be refused. The list is the
 * one at https://cr.yp.to/ecdh.html ("How do I validate Curve25519 public keys?"):
 * 0, 1, two points of order 8, p - 1, p and p + 1, and 0 with the ignored top bit set.
 */
static const char *const low_order[] = {
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
	"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"0000000000000000000000000000000000000000000000000000000000000080",
};

Test(x25519, low_order_points_rejected)
{
	uint8_t a[KEY], u[KEY], out[KEY];
	size_t i;

	unhex(a, KEY, alice_priv);
	for (i = 0; i < sizeof(low_order) / sizeof(low_order[0]); i++) {
		unhex(u, KEY, low_order[i]);
		memset(out, 0xaa, sizeof(out));
		cr_assert_not(cw_x25519(out, a, u), "point %zu accepted", i);
		cr_assert(cw_is_zero(out, KEY), "output not wiped for point %zu", i);
	}
}

/* An all-zero private key is an unset key: no public key comes from it. */
Test(x25519, public_rejects_zero_private)
{
	uint8_t zero[KEY] = {0}, out[KEY];

	memset(out, 0xaa, sizeof(out));
	cr_assert_not(cw_x25519_public(out, zero));
	cr_assert(cw_is_zero(out, KEY));
}

/* RFC 7748 §5 decodeScalar25519: clear bits 0-2 and 255, set bit 254. */
Test(x25519, clamp_table)
{
	static const struct {
		uint8_t in0, in31, out0, out31;
	} cases[] = {
		{0x00, 0x00, 0x00, 0x40}, {0xff, 0xff, 0xf8, 0x7f}, {0x07, 0x80, 0x00, 0x40},
		{0x08, 0x3f, 0x08, 0x7f}, {0xa5, 0xc0, 0xa0, 0x40},
	};
	uint8_t k[KEY];
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(k, 0x5a, sizeof(k));
		k[0] = cases[i].in0;
		k[31] = cases[i].in31;
		cw_x25519_clamp(k);
		cr_assert_eq(k[0], cases[i].out0, "case %zu", i);
		cr_assert_eq(k[31], cases[i].out31, "case %zu", i);
		for (j = 1; j < 31; j++)
			cr_assert_eq(k[j], 0x5a, "case %zu byte %zu", i, j);
		cw_x25519_clamp(k);
		cr_assert_eq(k[0], cases[i].out0, "not idempotent, case %zu", i);
		cr_assert_eq(k[31], cases[i].out31, "not idempotent, case %zu", i);
	}
}

/* X25519 clamps on its own, so a stored clamped key gives the same public key. */
Test(x25519, clamped_key_same_public)
{
	uint8_t a[KEY], clamped[KEY], p1[KEY], p2[KEY];

	unhex(a, KEY, alice_priv);
	memcpy(clamped, a, KEY);
	cw_x25519_clamp(clamped);
	cr_assert_arr_neq(a, clamped, KEY, "vector key was already clamped: test is void");
	cr_assert(cw_x25519_public(p1, a));
	cr_assert(cw_x25519_public(p2, clamped));
	cr_assert_arr_eq(p1, p2, KEY);
}

Test(x25519, output_aliases_inputs)
{
	uint8_t a[KEY], b_pub[KEY], k[KEY];

	unhex(k, KEY, shared_k);
	unhex(a, KEY, alice_priv);
	unhex(b_pub, KEY, bob_pub);
	cr_assert(cw_x25519(a, a, b_pub));
	cr_assert_arr_eq(a, k, KEY);
	unhex(a, KEY, alice_priv);
	cr_assert(cw_x25519(b_pub, a, b_pub));
	cr_assert_arr_eq(b_pub, k, KEY);
	unhex(a, KEY, alice_priv);
	cr_assert(cw_x25519_public(a, a));
	unhex(k, KEY, alice_pub);
	cr_assert_arr_eq(a, k, KEY);
}

Test(x25519_portable, rfc7748_vectors)
{
	check_5_2();
	check_6_1();
}
