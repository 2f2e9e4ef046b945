/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Noise KDF against wireguard-go's published vectors, plus aliasing (the handshake
 * writes the new chaining key over the old one) and byte-flip loops.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "crypto/kdf.h"

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

/*
 * wireguard-go device/kdf_test.go (TestKDF). Its keys are 8, 9 and 0 bytes long; an
 * HMAC key shorter than the 64-byte block is zero-padded to the block (RFC 2104 §2),
 * so each is the same key as our 32-byte chaining key with zeros after it.
 * Their t0, t1, t2 are our t1, t2, t3.
 */
static const struct {
	const char *key, *input, *t[3];
} wg_go[] = {
	{"746573742d6b6579",
	 "746573742d696e707574",
	 {"6f0e5ad38daba1bea8a0d213688736f19763239305e0f58aba697f9ffc41c633",
	  "df1194df20802a4fe594cde27e92991c8cae66c366e8106aaa937a55fa371e8a",
	  "fac6e2745a325f5dc5d11a5b165aad08b0ada28e7b4e666b7c077934a4d76c24"}},
	{"776972656775617264",
	 "776972656775617264",
	 {"491d43bbfdaa8750aaf535e334ecbfe5129967cd64635101c566d4caefda96e8",
	  "1e71a379baefd8a79aa4662212fcafe19a23e2b609a3db7d6bcba8f560e3d25f",
	  "31e1ae48bddfbe5de38f295e5452b1909a1b4e38e183926af3780b0c1e1f0160"}},
	{"",
	 "",
	 {"8387b46bf43eccfcf349552a095d8315c4055beb90208fb1be23b894bc2ed5d0",
	  "58a0e5f6faefccf4807bff1f05fa8a9217945762040bcec2f4b4a62bdfe0e86e",
	  "0ce6ea98ec548f8e281e93e32db65621c45eb18dc6f0a7ad94178610a2f7338e"}},
};

enum { N_VECTORS = sizeof(wg_go) / sizeof(wg_go[0]) };

struct kdf_case {
	uint8_t ck[CW_KDF_OUT_LEN];
	uint8_t data[64];
	size_t data_len;
	uint8_t t[3][CW_KDF_OUT_LEN];
};

static void load(struct kdf_case *c, size_t i)
{
	int j;

	memset(c, 0, sizeof(*c));
	unhex(c->ck, sizeof(c->ck), wg_go[i].key);
	c->data_len = unhex(c->data, sizeof(c->data), wg_go[i].input);
	for (j = 0; j < 3; j++)
		unhex(c->t[j], sizeof(c->t[j]), wg_go[i].t[j]);
}

Test(kdf, wireguard_go_kdf3)
{
	struct kdf_case c;
	uint8_t t1[32], t2[32], t3[32];
	size_t i;

	for (i = 0; i < N_VECTORS; i++) {
		load(&c, i);
		cw_kdf(t1, t2, t3, c.data, c.data_len, c.ck);
		cr_assert_arr_eq(t1, c.t[0], 32, "vector %zu", i);
		cr_assert_arr_eq(t2, c.t[1], 32, "vector %zu", i);
		cr_assert_arr_eq(t3, c.t[2], 32, "vector %zu", i);
	}
}

Test(kdf, wireguard_go_kdf2_kdf1)
{
	struct kdf_case c;
	uint8_t t1[32], t2[32];
	size_t i;

	for (i = 0; i < N_VECTORS; i++) {
		load(&c, i);
		cw_kdf(t1, t2, NULL, c.data, c.data_len, c.ck);
		cr_assert_arr_eq(t1, c.t[0], 32, "vector %zu", i);
		cr_assert_arr_eq(t2, c.t[1], 32, "vector %zu", i);
		memset(t1, 0, sizeof(t1));
		cw_kdf(t1, NULL, NULL, c.data, c.data_len, c.ck);
		cr_assert_arr_eq(t1, c.t[0], 32, "vector %zu", i);
	}
}

/* t3 alone still follows the chain through t2. */
Test(kdf, third_output_without_second)
{
	struct kdf_case c;
	uint8_t t1[32], t3[32];

	load(&c, 0);
	cw_kdf(t1, NULL, t3, c.data, c.data_len, c.ck);
	cr_assert_arr_eq(t1, c.t[0], 32);
	cr_assert_arr_eq(t3, c.t[2], 32);
}

/* Noise writes ck = KDF(ck, ...): each output may be the chaining key or the data. */
Test(kdf, outputs_alias_inputs)
{
	struct kdf_case c;
	uint8_t buf[3][32];
	uint8_t *outs[3];
	size_t i, which, j;

	for (i = 0; i < N_VECTORS; i++) {
		for (which = 0; which < 3; which++) {
			load(&c, i);
			for (j = 0; j < 3; j++)
				outs[j] = j == which ? c.ck : buf[j];
			cw_kdf(outs[0], outs[1], outs[2], c.data, c.data_len, c.ck);
			cr_assert_arr_eq(outs[0], c.t[0], 32, "vector %zu ck=t%zu", i, which + 1);
			cr_assert_arr_eq(outs[1], c.t[1], 32, "vector %zu ck=t%zu", i, which + 1);
			cr_assert_arr_eq(outs[2], c.t[2], 32, "vector %zu ck=t%zu", i, which + 1);
		}
		load(&c, i);
		cw_kdf(c.data, buf[1], buf[2], c.data, c.data_len, c.ck);
		cr_assert_arr_eq(c.data, c.t[0], 32, "vector %zu data=t1", i);
		cr_assert_arr_eq(buf[2], c.t[2], 32, "vector %zu data=t1", i);
	}
}

static void expect_all_differ(const struct kdf_case *c, const char *what, size_t i)
{
	uint8_t t[3][32];
	int j;

	cw_kdf(t[0], t[1], t[2], c->data, c->data_len, c->ck);
	for (j = 0; j < 3; j++)
		cr_assert_arr_neq(t[j], c->t[j], 32, "t%d unchanged with %s byte %zu flipped",
				  j + 1, what, i);
}

Test(kdf, flips)
{
	struct kdf_case c;
	size_t v, i;

	for (v = 0; v < N_VECTORS; v++) {
		load(&c, v);
		for (i = 0; i < sizeof(c.ck); i++) {
			c.ck[i] ^= 0xff;
			expect_all_differ(&c, "ck", i);
			c.ck[i] ^= 0xff;
		}
		for (i = 0; i < c.data_len; i++) {
			c.data[i] ^= 0xff;
			expect_all_differ(&c, "data", i);
			c.data[i] ^= 0xff;
		}
		/* One more byte of data, even a zero, is different input. */
		c.data[c.data_len] = 0;
		c.data_len++;
		expect_all_differ(&c, "appended data", 0);
	}
}
