/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/index.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/compiler.h"
#include "tests/support/det_rng.h"

/* An RNG that yields scripted 32-bit values first, then det_rng output. */
struct script_rng {
	const uint32_t *values;
	size_t n, next;
	struct det_rng tail;
};

static void script_fill(void *ctx, void *buf, size_t len)
{
	struct script_rng *s = ctx;

	if (len == sizeof(uint32_t) && s->next < s->n) {
		memcpy(buf, &s->values[s->next++], sizeof(uint32_t));
		return;
	}
	det_rng_fill(&s->tail, buf, len);
}

static struct wg_rng script_as_wg(struct script_rng *s)
{
	return (struct wg_rng){.fill = script_fill, .ctx = s};
}

static char items[8];

Test(index, insert_lookup_by_type)
{
	struct det_rng d = {.state = 1};
	struct wg_rng rng = det_rng_as_wg(&d);
	struct wg_index_table t;
	enum wg_index_type type = 0;
	uint32_t hs, kp;

	wg_index_table_init(&t);
	cr_assert_eq(wg_index_insert(&t, &items[0], WG_INDEX_HANDSHAKE, &rng, &hs), 0);
	cr_assert_eq(wg_index_insert(&t, &items[1], WG_INDEX_KEYPAIR, &rng, &kp), 0);
	cr_expect_neq(hs, kp);
	cr_expect_eq(wg_index_count(&t), 2);

	cr_expect_eq(wg_index_lookup(&t, hs, WG_INDEX_HANDSHAKE, &type), &items[0]);
	cr_expect_eq(type, WG_INDEX_HANDSHAKE);
	cr_expect_eq(wg_index_lookup(&t, kp, WG_INDEX_HANDSHAKE | WG_INDEX_KEYPAIR, &type),
		     &items[1]);
	cr_expect_eq(type, WG_INDEX_KEYPAIR);
	cr_expect_null(wg_index_lookup(&t, kp, WG_INDEX_HANDSHAKE, NULL), "type not accepted");
	cr_expect_null(wg_index_lookup(&t, hs, WG_INDEX_KEYPAIR, NULL), "type not accepted");
	cr_expect_null(wg_index_lookup(&t, hs, 0, NULL), "empty mask");
	cr_expect_null(wg_index_lookup(&t, 0, ~0U, NULL), "0 is never an index");
	cr_expect_null(wg_index_lookup(&t, hs ^ kp ^ 1, ~0U, NULL));
	wg_index_table_deinit(&t);
}

Test(index, empty_table)
{
	struct wg_index_table t;

	wg_index_table_init(&t);
	cr_expect_null(wg_index_lookup(&t, 1, ~0U, NULL));
	cr_expect_eq(wg_index_remove(&t, 1, &items[0]), -ENOENT);
	cr_expect_eq(wg_index_replace(&t, 1, &items[0], &items[1], WG_INDEX_KEYPAIR), -ENOENT);
	cr_expect_eq(wg_index_count(&t), 0);
	wg_index_table_deinit(&t);
}

/* Zero and taken values are drawn again; a generator that only repeats itself is refused. */
Test(index, draws_skip_zero_and_taken)
{
	static const uint32_t script[] = {0, 0, 0x1234, 0x1234, 0, 0x1234, 0xfeed};
	static uint32_t stuck[WG_INDEX_MAX_DRAWS + 1];
	struct script_rng s = {.values = script, .n = WG_ARRAY_SIZE(script)};
	struct wg_rng rng = script_as_wg(&s);
	struct wg_index_table t;
	uint32_t a, b, c;

	wg_index_table_init(&t);
	cr_assert_eq(wg_index_insert(&t, &items[0], WG_INDEX_HANDSHAKE, &rng, &a), 0);
	cr_expect_eq(a, 0x1234);
	cr_assert_eq(wg_index_insert(&t, &items[1], WG_INDEX_HANDSHAKE, &rng, &b), 0);
	cr_expect_eq(b, 0xfeed);
	cr_expect_eq(s.next, WG_ARRAY_SIZE(script));

	/* Draws alternate 0 and the taken 0x1234: give up with -EAGAIN, table unchanged. */
	for (size_t i = 0; i < WG_ARRAY_SIZE(stuck); i++)
		stuck[i] = i % 2 ? 0x1234 : 0;
	s = (struct script_rng){.values = stuck, .n = WG_ARRAY_SIZE(stuck)};
	c = 77;
	cr_expect_eq(wg_index_insert(&t, &items[2], WG_INDEX_KEYPAIR, &rng, &c), -EAGAIN);
	cr_expect_eq(c, 77, "no index handed out");
	cr_expect_eq(s.next, (size_t)WG_INDEX_MAX_DRAWS, "exactly the allowed number of draws");
	cr_expect_eq(wg_index_count(&t), 2);
	cr_expect_eq(wg_index_lookup(&t, 0x1234, ~0U, NULL), &items[0]);
	wg_index_table_deinit(&t);
}

Test(index, bad_arguments)
{
	struct det_rng d = {.state = 2};
	struct wg_rng rng = det_rng_as_wg(&d);
	struct wg_index_table t;
	uint32_t idx;

	wg_index_table_init(&t);
	cr_expect_eq(wg_index_insert(&t, NULL, WG_INDEX_KEYPAIR, &rng, &idx), -EINVAL);
	cr_expect_eq(wg_index_insert(&t, &items[0], 0, &rng, &idx), -EINVAL);
	cr_expect_eq(
		wg_index_insert(&t, &items[0], WG_INDEX_HANDSHAKE | WG_INDEX_KEYPAIR, &rng, &idx),
		-EINVAL);
	cr_assert_eq(wg_index_insert(&t, &items[0], WG_INDEX_HANDSHAKE, &rng, &idx), 0);
	cr_expect_eq(wg_index_replace(&t, idx, &items[0], NULL, WG_INDEX_KEYPAIR), -EINVAL);
	cr_expect_eq(wg_index_replace(&t, idx, &items[0], &items[1], 4), -EINVAL);
	cr_expect_eq(wg_index_lookup(&t, idx, ~0U, NULL), &items[0]);
	cr_expect_eq(wg_index_count(&t), 1);
	wg_index_table_deinit(&t);
}

Test(index, replace_keeps_the_index)
{
	struct det_rng d = {.state = 3};
	struct wg_rng rng = det_rng_as_wg(&d);
	struct wg_index_table t;
	enum wg_index_type type;
	uint32_t idx;

	wg_index_table_init(&t);
	cr_assert_eq(wg_index_insert(&t, &items[0], WG_INDEX_HANDSHAKE, &rng, &idx), 0);
	cr_expect_eq(wg_index_replace(&t, idx, &items[2], &items[1], WG_INDEX_KEYPAIR), -ENOENT,
		     "index is not items[2]'s");
	cr_expect_eq(wg_index_replace(&t, idx + 1, &items[0], &items[1], WG_INDEX_KEYPAIR),
		     -ENOENT);
	cr_expect_eq(wg_index_lookup(&t, idx, WG_INDEX_HANDSHAKE, NULL), &items[0]);

	cr_expect_eq(wg_index_replace(&t, idx, &items[0], &items[1], WG_INDEX_KEYPAIR), 0);
	cr_expect_null(wg_index_lookup(&t, idx, WG_INDEX_HANDSHAKE, NULL));
	cr_expect_eq(wg_index_lookup(&t, idx, WG_INDEX_KEYPAIR, &type), &items[1]);
	cr_expect_eq(type, WG_INDEX_KEYPAIR);
	cr_expect_eq(wg_index_count(&t), 1);

	cr_expect_eq(wg_index_remove(&t, idx, &items[0]), -ENOENT, "old owner cannot remove");
	cr_expect_eq(wg_index_remove(&t, idx, &items[1]), 0);
	cr_expect_eq(wg_index_remove(&t, idx, &items[1]), -ENOENT, "removed twice");
	cr_expect_null(wg_index_lookup(&t, idx, ~0U, NULL));
	cr_expect_eq(wg_index_count(&t), 0);
	wg_index_table_deinit(&t);
}

/* ---- Against a naive model: growth, shrinking and backward-shift deletion. ---- */

enum { MODEL_ITEMS = 6000 };

struct model_slot {
	uint32_t index; /* 0: not inserted */
	enum wg_index_type type;
	void *item;
};

static char model_items[MODEL_ITEMS][2];
static struct model_slot model[MODEL_ITEMS];

static void check_model(const struct wg_index_table *t, struct det_rng *d)
{
	size_t live = 0;

	for (size_t i = 0; i < MODEL_ITEMS; i++) {
		enum wg_index_type type;

		if (!model[i].index)
			continue;
		live++;
		cr_assert_eq(wg_index_lookup(t, model[i].index, ~0U, &type), model[i].item,
			     "slot %zu", i);
		cr_assert_eq(type, model[i].type);
	}
	cr_assert_eq(wg_index_count(t), live);
	/* Random values are (almost surely) absent: they must not find anything. */
	for (int i = 0; i < 200; i++) {
		uint32_t v = (uint32_t)det_rng_next(d);
		bool present = false;

		for (size_t j = 0; j < MODEL_ITEMS && !present; j++)
			present = model[j].index == v;
		if (!present)
			cr_assert_null(wg_index_lookup(t, v, ~0U, NULL));
	}
}

static void model_step(struct wg_index_table *t, struct wg_rng *rng, struct det_rng *d,
		       unsigned int grow_percent)
{
	size_t i = det_rng_next(d) % MODEL_ITEMS;
	struct model_slot *m = &model[i];
	unsigned int op = (unsigned int)(det_rng_next(d) % 100);

	if (!m->index && op < grow_percent) {
		m->type = op % 2 ? WG_INDEX_HANDSHAKE : WG_INDEX_KEYPAIR;
		m->item = &model_items[i][0];
		cr_assert_eq(wg_index_insert(t, m->item, m->type, rng, &m->index), 0);
		cr_assert_neq(m->index, 0);
	} else if (m->index && op < 20) {
		void *next =
			m->item == &model_items[i][0] ? &model_items[i][1] : &model_items[i][0];

		cr_assert_eq(wg_index_replace(t, m->index, m->item, next, WG_INDEX_KEYPAIR), 0);
		m->item = next;
		m->type = WG_INDEX_KEYPAIR;
	} else if (m->index) {
		cr_assert_eq(wg_index_remove(t, m->index, m->item), 0);
		m->index = 0;
	}
}

Test(index, agrees_with_naive_model)
{
	struct det_rng d = {.state = 4}, idx_rng = {.state = 5};
	struct wg_rng rng = det_rng_as_wg(&idx_rng);
	struct wg_index_table t;

	memset(model, 0, sizeof(model));
	wg_index_table_init(&t);
	/* Fill up mostly, then drain mostly, twice: the table grows and shrinks. */
	for (int phase = 0; phase < 4; phase++) {
		for (int step = 0; step < 20000; step++) {
			model_step(&t, &rng, &d, phase % 2 ? 15 : 95);
			if (step % 4000 == 0)
				check_model(&t, &d);
		}
		check_model(&t, &d);
	}
	for (size_t i = 0; i < MODEL_ITEMS; i++) {
		if (model[i].index)
			cr_assert_eq(wg_index_remove(&t, model[i].index, model[i].item), 0);
	}
	cr_expect_eq(wg_index_count(&t), 0);
	cr_expect_eq(t.size, WG_INDEX_MIN_SLOTS, "an emptied table shrinks back");
	wg_index_table_deinit(&t);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The size the table is built for: 2^20 live indices, all distinct, none 0. */
Test(index, a_million_indices, .timeout = 60)
{
	enum { N = 1 << 20 };
	struct det_rng d = {.state = 6};
	struct wg_rng rng = det_rng_as_wg(&d);
	uint32_t *idx = malloc(N * sizeof(*idx)), *sorted = malloc(N * sizeof(*idx));
	struct wg_index_table t;

	cr_assert(idx && sorted);
	wg_index_table_init(&t);
	for (size_t i = 0; i < N; i++) {
		/* The items only need to be distinct pointers; they are never dereferenced. */
		cr_assert_eq(wg_index_insert(&t, (char *)idx + i, WG_INDEX_KEYPAIR, &rng, &idx[i]),
			     0);
	}
	cr_expect_eq(wg_index_count(&t), N);
	cr_expect_leq(t.size, 2 * (size_t)N, "load stays at or under one half");
	memcpy(sorted, idx, N * sizeof(*idx));
	qsort(sorted, N, sizeof(*sorted), cmp_u32);
	cr_expect_neq(sorted[0], 0);
	for (size_t i = 1; i < N; i++)
		cr_assert_neq(sorted[i], sorted[i - 1], "index %u handed out twice", sorted[i]);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(wg_index_lookup(&t, idx[i], WG_INDEX_KEYPAIR, NULL), (char *)idx + i);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(wg_index_remove(&t, idx[i], (char *)idx + i), 0);
	cr_expect_eq(wg_index_count(&t), 0);
	wg_index_table_deinit(&t);
	free(idx);
	free(sorted);
}
