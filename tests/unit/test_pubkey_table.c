/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/pubkey_table.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/compiler.h"
#include "tests/support/det_rng.h"

enum { KEY_LEN = NOISE_PUBLIC_KEY_LEN };

static char peers[4];

static void table_init(struct wg_pubkey_table *t, uint64_t seed)
{
	struct det_rng d = {.state = seed};
	struct wg_rng rng = det_rng_as_wg(&d);

	wg_pubkey_table_init(t, &rng);
}

Test(pubkey_table, insert_lookup_remove)
{
	uint8_t ka[KEY_LEN], kb[KEY_LEN], kc[KEY_LEN];
	struct wg_pubkey_table t;

	memset(ka, 0xaa, sizeof(ka));
	memset(kb, 0xbb, sizeof(kb));
	memset(kc, 0xcc, sizeof(kc));
	table_init(&t, 1);
	cr_expect_null(wg_pubkey_table_lookup(&t, ka), "empty table");
	cr_assert_eq(wg_pubkey_table_insert(&t, ka, &peers[0]), 0);
	cr_assert_eq(wg_pubkey_table_insert(&t, kb, &peers[1]), 0);
	cr_expect_eq(wg_pubkey_table_count(&t), 2);
	cr_expect_eq(wg_pubkey_table_lookup(&t, ka), &peers[0]);
	cr_expect_eq(wg_pubkey_table_lookup(&t, kb), &peers[1]);
	cr_expect_null(wg_pubkey_table_lookup(&t, kc));

	cr_expect_eq(wg_pubkey_table_insert(&t, ka, &peers[2]), -EEXIST);
	cr_expect_eq(wg_pubkey_table_lookup(&t, ka), &peers[0], "a duplicate changes nothing");
	cr_expect_eq(wg_pubkey_table_insert(&t, kc, NULL), -EINVAL);
	cr_expect_eq(wg_pubkey_table_count(&t), 2);

	cr_expect_eq(wg_pubkey_table_remove(&t, ka, &peers[1]), -ENOENT, "not peer 1's key");
	cr_expect_eq(wg_pubkey_table_remove(&t, kc, &peers[2]), -ENOENT, "absent key");
	cr_expect_eq(wg_pubkey_table_remove(&t, ka, &peers[0]), 0);
	cr_expect_eq(wg_pubkey_table_remove(&t, ka, &peers[0]), -ENOENT, "removed twice");
	cr_expect_null(wg_pubkey_table_lookup(&t, ka));
	cr_expect_eq(wg_pubkey_table_lookup(&t, kb), &peers[1]);
	cr_expect_eq(wg_pubkey_table_count(&t), 1);
	wg_pubkey_table_deinit(&t);
}

/* Keys one bit apart are different keys: every one of the 256 bits matters. */
Test(pubkey_table, every_bit_counts)
{
	static char bit_peers[KEY_LEN * 8];
	uint8_t key[KEY_LEN];
	struct wg_pubkey_table t;

	table_init(&t, 2);
	for (size_t bit = 0; bit < KEY_LEN * 8; bit++) {
		memset(key, 0x5a, sizeof(key));
		key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		cr_assert_eq(wg_pubkey_table_insert(&t, key, &bit_peers[bit]), 0, "bit %zu", bit);
	}
	memset(key, 0x5a, sizeof(key));
	cr_expect_null(wg_pubkey_table_lookup(&t, key), "the unflipped key was never filed");
	for (size_t bit = 0; bit < KEY_LEN * 8; bit++) {
		key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		cr_expect_eq(wg_pubkey_table_lookup(&t, key), &bit_peers[bit], "bit %zu", bit);
		key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	wg_pubkey_table_deinit(&t);
}

/* The hash key is drawn from the injected RNG, and deinit wipes it. */
Test(pubkey_table, hash_key_from_rng_and_wiped)
{
	struct cake_siphash_key want, zero = {{0, 0}};
	struct det_rng d = {.state = 3};
	struct wg_pubkey_table t, u;

	det_rng_fill(&d, &want, sizeof(want));
	table_init(&t, 3);
	table_init(&u, 4);
	cr_expect_arr_eq(&t.hash_key, &want, sizeof(want));
	cr_expect_arr_neq(&t.hash_key, &u.hash_key, sizeof(want), "seeds give different keys");
	cr_assert_eq(wg_pubkey_table_insert(&t, (uint8_t[KEY_LEN]){1}, &peers[0]), 0);
	wg_pubkey_table_deinit(&t);
	wg_pubkey_table_deinit(&u);
	cr_expect_arr_eq(&t.hash_key, &zero, sizeof(zero));
	cr_expect_null(t.slots);
	cr_expect_eq(t.count, 0);
}

/* Finds count distinct keys whose home slot in a table of size slots is home. */
static void colliding_keys(const struct wg_pubkey_table *t, size_t size, size_t home,
			   uint8_t keys[][KEY_LEN], size_t count)
{
	uint8_t key[KEY_LEN] = {0};
	size_t found = 0;

	for (uint32_t n = 0; found < count; n++) {
		memcpy(key + 1, &n, sizeof(n));
		if ((cake_siphash(&t->hash_key, key, KEY_LEN) & (size - 1)) != home)
			continue;
		memcpy(keys[found++], key, KEY_LEN);
	}
}

/*
 * Seven keys that all hash to the last of 16 slots: one probe run that wraps around the end.
 * Removing from the middle of the run must leave every other key findable (backward-shift
 * deletion), in every removal order tried.
 */
Test(pubkey_table, one_probe_run_wrapping_around)
{
	enum { N = 7, SIZE = WG_PUBKEY_TABLE_MIN_SLOTS };
	static char run_peers[N];
	static const size_t orders[][N] = {
		{0, 1, 2, 3, 4, 5, 6},
		{6, 5, 4, 3, 2, 1, 0},
		{3, 0, 6, 1, 5, 2, 4},
		{1, 3, 5, 0, 2, 4, 6},
	};
	uint8_t keys[N][KEY_LEN];
	struct wg_pubkey_table t;

	_Static_assert((N + 1) * 2 <= SIZE, "the table must not grow");
	for (size_t o = 0; o < WG_ARRAY_SIZE(orders); o++) {
		table_init(&t, 5);
		colliding_keys(&t, SIZE, SIZE - 1, keys, N);
		for (size_t i = 0; i < N; i++)
			cr_assert_eq(wg_pubkey_table_insert(&t, keys[i], &run_peers[i]), 0);
		cr_assert_eq(t.size, (size_t)SIZE);
		for (size_t r = 0; r < N; r++) {
			size_t gone = orders[o][r];

			cr_assert_eq(wg_pubkey_table_remove(&t, keys[gone], &run_peers[gone]), 0);
			for (size_t k = 0; k < N; k++) {
				bool removed = false;

				for (size_t q = 0; q <= r; q++)
					removed |= orders[o][q] == k;
				cr_assert_eq(wg_pubkey_table_lookup(&t, keys[k]),
					     removed ? NULL : &run_peers[k],
					     "order %zu step %zu key %zu", o, r, k);
			}
		}
		cr_expect_eq(wg_pubkey_table_count(&t), 0);
		wg_pubkey_table_deinit(&t);
	}
}

/* ---- Against a naive model, through growth and shrinking. ---- */

enum { MODEL_KEYS = 3000 };

static uint8_t model_keys[MODEL_KEYS][KEY_LEN];
static bool model_in[MODEL_KEYS];
static char model_peers[MODEL_KEYS];

static void check_model(const struct wg_pubkey_table *t)
{
	size_t live = 0;

	for (size_t i = 0; i < MODEL_KEYS; i++) {
		live += model_in[i];
		cr_assert_eq(wg_pubkey_table_lookup(t, model_keys[i]),
			     model_in[i] ? &model_peers[i] : NULL, "key %zu", i);
	}
	cr_assert_eq(wg_pubkey_table_count(t), live);
}

Test(pubkey_table, agrees_with_naive_model)
{
	struct det_rng d = {.state = 6};
	struct wg_pubkey_table t;

	memset(model_in, 0, sizeof(model_in));
	det_rng_fill(&d, model_keys, sizeof(model_keys));
	table_init(&t, 7);
	for (int phase = 0; phase < 4; phase++) {
		unsigned int grow = phase % 2 ? 15 : 90;

		for (int step = 0; step < 12000; step++) {
			size_t i = det_rng_next(&d) % MODEL_KEYS;
			bool add = det_rng_next(&d) % 100 < grow;
			void *who = &model_peers[i];

			if (add) {
				cr_assert_eq(wg_pubkey_table_insert(&t, model_keys[i], who),
					     model_in[i] ? -EEXIST : 0);
				model_in[i] = true;
			} else {
				cr_assert_eq(wg_pubkey_table_remove(&t, model_keys[i], who),
					     model_in[i] ? 0 : -ENOENT);
				model_in[i] = false;
			}
			if (step % 3000 == 0)
				check_model(&t);
		}
		check_model(&t);
	}
	for (size_t i = 0; i < MODEL_KEYS; i++) {
		if (model_in[i])
			cr_assert_eq(wg_pubkey_table_remove(&t, model_keys[i], &model_peers[i]), 0);
	}
	cr_expect_eq(t.size, WG_PUBKEY_TABLE_MIN_SLOTS, "an emptied table shrinks back");
	wg_pubkey_table_deinit(&t);
}

/* Reserved room is used without growing again: the entries move once, while few. */
Test(pubkey_table, reserve_grows_once)
{
	static char many[1000];
	uint8_t k[KEY_LEN] = {0};
	struct wg_pubkey_table t;
	void *slots;
	size_t size;

	table_init(&t, 3);
	cr_assert_eq(wg_pubkey_table_insert(&t, k, &many[0]), 0);
	cr_assert_eq(wg_pubkey_table_reserve(&t, WG_ARRAY_SIZE(many) - 1), 0);
	slots = t.slots;
	size = t.size;
	cr_assert_geq(size, 2 * WG_ARRAY_SIZE(many));
	for (size_t i = 1; i < WG_ARRAY_SIZE(many); i++) {
		memcpy(k, &i, sizeof(i));
		cr_assert_eq(wg_pubkey_table_insert(&t, k, &many[i]), 0);
	}
	cr_assert_eq(t.slots, slots, "no growth after the reserve");
	cr_assert_eq(t.size, size);
	for (size_t i = 0; i < WG_ARRAY_SIZE(many); i++) {
		memcpy(k, &i, sizeof(i));
		cr_assert_eq(wg_pubkey_table_lookup(&t, k), &many[i]);
	}
	wg_pubkey_table_deinit(&t);
}
