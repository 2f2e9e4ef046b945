/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/hashtab.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/compiler.h"
#include "src/core/retired.h"
#include "tests/support/det_rng.h"

/* A caller's slot as index.c and pubkey_table.c define theirs: the head, then a key. */
struct test_slot {
	struct wg_hashtab_slot head;
	uint32_t key;
};

static bool same_key(const struct wg_hashtab_slot *head, const void *key)
{
	return ((const struct test_slot *)head)->key == *(const uint32_t *)key;
}

enum { MIN_SLOTS = 8 };

static const struct wg_hashtab_shape shape = {
	.slot_size = sizeof(struct test_slot),
	.min_slots = MIN_SLOTS,
	.match = same_key,
};

struct table {
	struct test_slot *slots;
	size_t size, count;
	struct wg_hashtab_shrink shrink;
	struct wg_retired *retired; /* NULL: old arrays freed at once */
};

static char items[64];

/* Files key under hash (the test picks hashes to force collisions), item items[key]. */
static void insert(struct table *t, uint32_t key, uint32_t hash)
{
	struct test_slot s = {.head = {.item = &items[key], .hash = hash, .tag = key * 3},
			      .key = key};
	struct test_slot *slots =
		wg_hashtab_insert(&shape, t->slots, &t->size, &t->count, &t->shrink, &s,
				  t->retired);

	cr_assert_not_null(slots, "out of memory");
	t->slots = slots;
}

static struct test_slot *find(const struct table *t, uint32_t key, uint32_t hash)
{
	return wg_hashtab_find(&shape, t->slots, t->size, hash, &key);
}

static void remove_key(struct table *t, uint32_t key, uint32_t hash)
{
	struct test_slot *s = find(t, key, hash);

	cr_assert_not_null(s, "key %u is in the table", key);
	t->slots = wg_hashtab_remove(&shape, t->slots, &t->size, &t->count, &t->shrink, s,
				     t->retired);
	cr_assert_not_null(t->slots);
}

/* The entry for key is found whole: item, tag and key moved together. */
static void expect_found(const struct table *t, uint32_t key, uint32_t hash)
{
	const struct test_slot *s = find(t, key, hash);

	cr_assert_not_null(s, "key %u", key);
	cr_assert_eq(s->head.item, &items[key], "key %u", key);
	cr_assert_eq(s->head.tag, key * 3, "key %u", key);
	cr_assert_eq(s->key, key);
}

Test(hashtab, empty_table_finds_nothing)
{
	uint32_t key = 1;

	cr_expect_null(wg_hashtab_find(&shape, NULL, 0, 0, &key));
	cr_expect_null(wg_hashtab_find(&shape, NULL, 0, 12345, &key));
}

/*
 * The array doubles when one more entry would pass half load, and halves when the load
 * falls below an eighth, never below min_slots. Each row: the count reached and the size
 * it must leave, inserting upwards and then removing downwards.
 */
Test(hashtab, grows_at_half_and_shrinks_below_an_eighth)
{
	static const struct {
		size_t count, size;
	} up[] = {{1, 8}, {4, 8}, {5, 16}, {8, 16}, {9, 32}, {16, 32}, {17, 64}},
	  down[] = {{8, 64}, {7, 32}, {4, 32}, {3, 16}, {2, 16}, {1, 8}, {0, 8}};
	struct table t = {0};
	size_t row = 0;

	for (uint32_t k = 0; k < 17; k++) {
		insert(&t, k, k * 7);
		if (t.count == up[row].count) {
			cr_expect_eq(t.size, up[row].size, "after %zu inserts", t.count);
			row++;
		}
	}
	cr_assert_eq(row, WG_ARRAY_SIZE(up));
	row = 0;
	for (uint32_t k = 0; k < 17; k++) {
		remove_key(&t, k, k * 7);
		if (t.count == down[row].count) {
			cr_expect_eq(t.size, down[row].size, "%zu left", t.count);
			row++;
		}
		for (uint32_t j = k + 1; j < 17; j++)
			expect_found(&t, j, j * 7);
	}
	cr_assert_eq(row, WG_ARRAY_SIZE(down));
	free(t.slots);
}

/* Equal hashes are told apart by match; a key that was never filed is not found. */
Test(hashtab, match_decides_between_equal_hashes)
{
	struct table t = {0};

	for (uint32_t k = 0; k < 3; k++)
		insert(&t, k, 5);
	for (uint32_t k = 0; k < 3; k++)
		expect_found(&t, k, 5);
	cr_expect_null(find(&t, 3, 5));
	remove_key(&t, 1, 5);
	expect_found(&t, 0, 5);
	expect_found(&t, 2, 5);
	cr_expect_null(find(&t, 1, 5));
	free(t.slots);
}

/* With no match function the hash alone decides (index.c's bijective mix). */
Test(hashtab, without_match_the_hash_decides)
{
	static const struct wg_hashtab_shape by_hash = {
		.slot_size = sizeof(struct wg_hashtab_slot),
		.min_slots = MIN_SLOTS,
	};
	struct wg_hashtab_slot *slots = NULL, *s;
	struct wg_hashtab_shrink shrink = {0};
	size_t size = 0, count = 0;

	for (uint32_t h = 1; h <= 6; h++) {
		struct wg_hashtab_slot in = {.item = &items[h], .hash = h * 8};

		slots = wg_hashtab_insert(&by_hash, slots, &size, &count, &shrink, &in, NULL);
		cr_assert_not_null(slots);
	}
	for (uint32_t h = 1; h <= 6; h++) {
		s = wg_hashtab_find(&by_hash, slots, size, h * 8, NULL);
		cr_assert_not_null(s);
		cr_expect_eq(s->item, &items[h]);
	}
	cr_expect_null(wg_hashtab_find(&by_hash, slots, size, 7 * 8, NULL));
	free(slots);
}

static void swap(size_t *a, size_t *b)
{
	size_t t = *a;

	*a = *b;
	*b = t;
}

static bool next_permutation(size_t *a, size_t n)
{
	size_t i = n - 1, j = n - 1;

	while (i > 0 && a[i - 1] >= a[i])
		i--;
	if (i == 0)
		return false;
	while (a[j] <= a[i - 1])
		j--;
	swap(&a[i - 1], &a[j]);
	for (j = n - 1; i < j; i++, j--)
		swap(&a[i], &a[j]);
	return true;
}

/*
 * One probe run across the end of a 16-slot array, with homes before, at and after the
 * wrap: entries whose home lies between the hole and themselves must stay, the others
 * move back. Every removal order of the run is tried; after each removal every other
 * entry is still found (the array halves only when one entry is left).
 */
Test(hashtab, backward_shift_in_every_removal_order)
{
	enum { N = 7, SIZE = 16 };
	/* Homes 13 13 14 15 0 0 2 fill slots 13 14 15 0 1 2 3: one run, wrapping. */
	static const uint32_t hash[N] = {13, 13 + SIZE, 14, 15, 0, SIZE, 2};
	size_t order[N];
	unsigned int orders = 0;

	_Static_assert(N * 2 <= SIZE && SIZE == 2 * MIN_SLOTS, "seven entries fill 16 slots");
	for (size_t i = 0; i < N; i++)
		order[i] = i;
	do {
		struct table t = {0};

		for (uint32_t k = 0; k < N; k++)
			insert(&t, k, hash[k]);
		cr_assert_eq(t.size, (size_t)SIZE);
		for (size_t i = 0; i < SIZE; i++)
			cr_assert_eq(t.slots[i].head.item != NULL, i >= 13 || i <= 3, "slot %zu",
				     i);
		for (size_t r = 0; r < N; r++) {
			remove_key(&t, (uint32_t)order[r], hash[order[r]]);
			for (size_t q = r + 1; q < N; q++)
				expect_found(&t, (uint32_t)order[q], hash[order[q]]);
			for (size_t q = 0; q <= r; q++)
				cr_assert_null(find(&t, (uint32_t)order[q], hash[order[q]]));
		}
		cr_assert_eq(t.count, 0);
		free(t.slots);
		orders++;
	} while (next_permutation(order, N));
	cr_expect_eq(orders, 5040);
}

/* ---- Against a naive model: few distinct hashes, so long runs and many collisions. ---- */

enum { MODEL_KEYS = 60, MODEL_HASHES = 24 };

static bool model_in[MODEL_KEYS];

static uint32_t model_hash(uint32_t key)
{
	return (key * 2654435761U) % MODEL_HASHES;
}

static void check_model(const struct table *t)
{
	size_t live = 0;

	for (uint32_t k = 0; k < MODEL_KEYS; k++) {
		live += model_in[k];
		if (model_in[k])
			expect_found(t, k, model_hash(k));
		else
			cr_assert_null(find(t, k, model_hash(k)), "key %u", k);
	}
	cr_assert_eq(t->count, live);
	cr_assert_leq(t->count * 2, t->size, "load at or under one half");
	cr_assert(t->size == MIN_SLOTS || t->count * 8 >= t->size, "load at or over an eighth");
}

Test(hashtab, agrees_with_naive_model)
{
	struct det_rng d = {.state = 11};
	struct table t = {0};

	memset(model_in, 0, sizeof(model_in));
	for (int phase = 0; phase < 6; phase++) {
		unsigned int grow = phase % 2 ? 20 : 85;

		for (int step = 0; step < 3000; step++) {
			uint32_t k = (uint32_t)(det_rng_next(&d) % MODEL_KEYS);
			bool add = det_rng_next(&d) % 100 < grow;

			if (add && !model_in[k])
				insert(&t, k, model_hash(k));
			else if (!add && model_in[k])
				remove_key(&t, k, model_hash(k));
			else
				continue;
			model_in[k] = add;
			check_model(&t);
		}
	}
	free(t.slots);
}

/* --- halving in steps: tables bigger than WG_HASHTAB_SHRINK_STEP --- */

enum { BIG_KEYS = 20000 };

static char big_items[BIG_KEYS];
static bool big_in[BIG_KEYS];

/* Hashes that collide in runs: runs of 16 keys share low bits; one key in 7 lands among
 * the last slots of any power-of-two size (runs that wrap around), and one in 7 just
 * before a step's end (runs that the copy's cursor cuts). */
static uint32_t big_hash(uint32_t k)
{
	uint32_t h = (k / 16) * 2654435761u;

	if (k % 7 == 0)
		return h | 0xfffffff0u;
	if (k % 7 == 1)
		return (h & ~(uint32_t)(WG_HASHTAB_SHRINK_STEP - 1)) | (WG_HASHTAB_SHRINK_STEP - 4);
	return h;
}

static void big_insert(struct table *t, uint32_t k)
{
	struct test_slot s = {.head = {.item = &big_items[k], .hash = big_hash(k)}, .key = k};
	struct test_slot *slots =
		wg_hashtab_insert(&shape, t->slots, &t->size, &t->count, &t->shrink, &s,
				  t->retired);

	cr_assert_not_null(slots, "out of memory");
	t->slots = slots;
	big_in[k] = true;
}

static void big_remove(struct table *t, uint32_t k)
{
	struct test_slot *s = find(t, k, big_hash(k));

	cr_assert_not_null(s, "key %u is in the table", k);
	t->slots = wg_hashtab_remove(&shape, t->slots, &t->size, &t->count, &t->shrink, s,
				     t->retired);
	big_in[k] = false;
}

/* Every key the model holds is found with its item, none other is; load at most half. */
static void big_check(const struct table *t)
{
	size_t live = 0;

	for (uint32_t k = 0; k < BIG_KEYS; k++) {
		struct test_slot *s = find(t, k, big_hash(k));

		if (big_in[k]) {
			cr_assert_not_null(s, "key %u lost", k);
			cr_assert_eq(s->head.item, &big_items[k]);
			live++;
		} else {
			cr_assert_null(s, "key %u found after its removal", k);
		}
	}
	cr_assert_eq(t->count, live);
	cr_assert_leq(t->count * 2, t->size);
}

/* One operation: the copy advances at most one step, and the whole check runs at each
 * change of size and every 251 operations. */
static void big_op(struct table *t, struct det_rng *d, unsigned int grow, unsigned int *ops,
		   unsigned int *under_way)
{
	uint32_t k = (uint32_t)(det_rng_next(d) % BIG_KEYS);
	size_t size = t->size, cursor = t->shrink.cursor;
	bool shrinking = t->shrink.slots != NULL;

	if (det_rng_next(d) % 100 < grow) {
		if (big_in[k])
			return;
		big_insert(t, k);
	} else {
		if (!big_in[k])
			return;
		big_remove(t, k);
	}
	if (shrinking && t->shrink.slots)
		cr_assert_leq(t->shrink.cursor - cursor, WG_HASHTAB_SHRINK_STEP,
			      "one step at a time");
	*under_way += t->shrink.slots != NULL;
	if (t->size != size || ++*ops % 251 == 0)
		big_check(t);
}

Test(hashtab, halves_in_steps_and_stays_correct)
{
	struct det_rng d = {.state = 5};
	struct table t = {0};
	unsigned int ops = 0, under_way = 0;
	size_t peak;

	memset(big_in, 0, sizeof(big_in));
	for (uint32_t k = 0; k < BIG_KEYS; k++)
		big_insert(&t, k);
	peak = t.size;
	cr_assert_gt(peak, 8 * WG_HASHTAB_SHRINK_STEP);
	/* mostly removals, with inserts among them: a halving starts, inserts and removals
	 * run while the copy is under way, and a few bring the load back up */
	for (int phase = 0; phase < 4; phase++) {
		unsigned int grow = phase == 2 ? 80 : 25;

		for (int step = 0; step < 60000; step++)
			big_op(&t, &d, grow, &ops, &under_way);
		big_check(&t);
	}
	cr_assert_gt(under_way, 8, "halvings spread over operations (%u)", under_way);
	for (uint32_t k = 0; k < BIG_KEYS; k++)
		if (big_in[k])
			big_remove(&t, k);
	big_check(&t);
	cr_assert_eq(t.count, 0);
	cr_assert_lt(t.size, peak);
	cr_assert_leq(t.size, 2 * MIN_SLOTS, "back to a small table (%zu slots)", t.size);
	free(t.slots);
	wg_hashtab_shrink_free(&t.shrink);
}

/* Room reserved for more entries than the smaller array would hold abandons a halving
 * under way; nothing is lost, and inserts go on in the bigger array. */
Test(hashtab, reserve_abandons_a_halving)
{
	struct table t = {0};
	size_t full;

	memset(big_in, 0, sizeof(big_in));
	for (uint32_t k = 0; k < BIG_KEYS; k++)
		big_insert(&t, k);
	full = t.size;
	for (uint32_t k = 0; t.count * 8 >= full; k++)
		big_remove(&t, k);
	cr_assert_not_null(t.shrink.slots, "a halving under way");
	cr_assert_eq(t.size, full, "the table keeps its array meanwhile");
	big_check(&t);
	t.slots = wg_hashtab_reserve(&shape, t.slots, &t.size, t.count, &t.shrink, full / 4,
				    t.retired);
	cr_assert_not_null(t.slots);
	cr_assert_null(t.shrink.slots, "abandoned");
	cr_assert_eq(t.size, full);
	big_check(&t);
	for (uint32_t k = 0; k < BIG_KEYS / 2; k++)
		if (!big_in[k])
			big_insert(&t, k);
	cr_assert_eq(t.size, full);
	big_check(&t);
	free(t.slots);
	wg_hashtab_shrink_free(&t.shrink);
}

/* An entry key k's removal shifts: the copy follows it across the cursor both ways (from
 * above the cursor to below it, and from a wrapped run's start to the array's end). */
Test(hashtab, moves_across_the_cursor_are_followed)
{
	struct table t = {0};
	unsigned int across = 0, wrapped = 0;
	uint32_t next = 0;

	memset(big_in, 0, sizeof(big_in));
	for (uint32_t k = 0; k < BIG_KEYS; k++)
		big_insert(&t, k);
	for (int halving = 0; halving < 3; halving++) {
		while (!t.shrink.slots)
			if (big_in[next++])
				big_remove(&t, next - 1);
		while (t.shrink.slots) {
			size_t c = t.shrink.cursor, last = t.size - 1;
			const struct test_slot *below = &t.slots[c ? c - 1 : 0],
					       *end = &t.slots[last];

			if (!c) { /* still clearing the smaller array */
				while (!big_in[next])
					next++;
				big_remove(&t, next);
			} else if ((across + wrapped) % 2 && end->head.item &&
				   t.slots[0].head.item) {
				wrapped++;
				big_remove(&t, end->key);
			} else if (below->head.item && t.slots[c].head.item) {
				across++;
				big_remove(&t, below->key);
			} else {
				while (!big_in[next])
					next++;
				big_remove(&t, next);
			}
		}
		big_check(&t);
	}
	cr_assert_gt(across, 0);
	cr_assert_gt(wrapped, 0);
	free(t.slots);
	wg_hashtab_shrink_free(&t.shrink);
}

static bool on_list(const struct wg_retired *r, const void *p)
{
	for (size_t i = 0; i < r->len; i++)
		if (r->ptrs[i] == p)
			return true;
	return false;
}

/* With a retired list, the table frees no array itself: every array it stops using
 * (grown out of, halved out of, a halving abandoned) is on the list, the one in use is
 * not, and lookups are right throughout. Freeing the list frees them all (the sanitizer
 * build finds any left over). */
Test(hashtab, old_arrays_go_to_the_retired_list)
{
	struct wg_retired r = {0};
	struct table t = {.retired = &r};
	size_t growths = 0, full, len;
	void *old;

	memset(big_in, 0, sizeof(big_in));
	for (uint32_t k = 0; k < BIG_KEYS; k++) {
		size_t size = t.size;

		big_insert(&t, k);
		growths += size && t.size != size;
	}
	cr_assert_eq(r.len, growths, "every array grown out of is kept (%zu of %zu)", r.len,
		     growths);
	cr_assert(!on_list(&r, t.slots), "the array in use is not on the list");
	big_check(&t);
	full = t.size;
	old = t.slots;
	len = r.len;
	for (uint32_t k = 0; t.size == full; k++)
		big_remove(&t, k);
	cr_assert_eq(r.len, len + 1);
	cr_assert(on_list(&r, old), "the array halved out of is on the list");
	cr_assert(!on_list(&r, t.slots));
	big_check(&t);
	for (uint32_t k = 0; !t.shrink.slots; k++)
		if (big_in[k])
			big_remove(&t, k);
	old = t.shrink.slots;
	t.slots = wg_hashtab_reserve(&shape, t.slots, &t.size, t.count, &t.shrink, full,
				     t.retired);
	cr_assert_not_null(t.slots);
	cr_assert(on_list(&r, old), "an abandoned halving's array is on the list");
	cr_assert(!on_list(&r, t.slots));
	big_check(&t);
	wg_retired_free(&r);
	cr_assert_eq(r.len, 0);
	cr_assert_null(r.ptrs);
	big_check(&t);
	free(t.slots);
	wg_hashtab_shrink_free(&t.shrink);
}

/*
 * Arrays prepared ahead of a big removal: each halving on the way down to the count
 * announced takes its prepared array (no allocation among the frees), lookups stay right,
 * and those no halving took go to the retired list.
 */
Test(hashtab, halvings_take_the_arrays_prepared_for_them)
{
	struct wg_retired r = {0};
	struct table t = {.retired = &r};
	void *prepared[WG_HASHTAB_SPARES];
	size_t n, taken = 0, full;

	memset(big_in, 0, sizeof(big_in));
	for (uint32_t k = 0; k < BIG_KEYS; k++)
		big_insert(&t, k);
	wg_retired_free(&r);
	full = t.size;
	wg_hashtab_prepare_shrink(&shape, t.size, BIG_KEYS / 32, &t.shrink);
	n = t.shrink.n_spares;
	cr_assert_geq(n, 3, "32x fewer entries: %zu halvings ahead", n);
	for (size_t i = 0; i < n; i++) {
		prepared[i] = t.shrink.spare[i].slots;
		cr_assert_eq(t.shrink.spare[i].size, full >> (i + 1));
	}
	for (uint32_t k = 0; k < BIG_KEYS - BIG_KEYS / 32; k++) {
		bool was = t.shrink.slots != NULL;

		big_remove(&t, k);
		if (!was && t.shrink.slots) {
			cr_assert_lt(taken, n);
			cr_assert_eq(t.shrink.slots, prepared[taken], "halving %zu took its array",
				     taken);
			taken++;
		}
	}
	big_check(&t);
	cr_assert_geq(taken, 2);
	cr_assert_eq(t.shrink.n_spares, n - taken);
	wg_hashtab_spares_retire(&t.shrink, &r);
	cr_assert_eq(t.shrink.n_spares, 0);
	for (size_t i = taken; i < n; i++)
		cr_assert(on_list(&r, prepared[i]), "unused array %zu is retired", i);
	big_check(&t);
	wg_retired_free(&r);
	free(t.slots);
	wg_hashtab_shrink_free(&t.shrink);
}
