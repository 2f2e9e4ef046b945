/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timer queue against a brute-force model: an array of every node's key (0: not
 * queued), whose minimum is what the queue must answer. Random inserts, moves and removals
 * from a deterministic RNG; after each batch the heap's shape is checked entry by entry.
 */
#include "src/core/timerq.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "tests/support/det_rng.h"

struct model {
	struct wg_timerq q;
	struct wg_timerq_node *nodes;
	uint64_t *keys; /* the model: what each node should be filed under */
	size_t n;
	struct det_rng rng;
};

static void model_init(struct model *m, size_t n, uint64_t seed)
{
	wg_timerq_init(&m->q);
	cr_assert_eq(wg_timerq_reserve(&m->q, n), 0);
	m->nodes = calloc(n, sizeof(*m->nodes));
	m->keys = calloc(n, sizeof(*m->keys));
	cr_assert(m->nodes && m->keys);
	m->n = n;
	m->rng.state = seed;
}

static void model_fini(struct model *m)
{
	wg_timerq_deinit(&m->q);
	free(m->nodes);
	free(m->keys);
}

/* Every parent at or before its children, every node where the heap says, len right. */
static void check_shape(const struct model *m)
{
	size_t queued = 0;

	for (uint32_t i = 0; i < m->q.len; i++) {
		const struct wg_timerq_entry *e = &m->q.heap[i];

		cr_assert_neq(e->key, 0, "no entry is filed under 0");
		cr_assert_eq(e->node->pos, i + 1, "entry %u: its node knows where it is", i);
		if (i)
			cr_assert_leq(m->q.heap[(i - 1) / 2].key, e->key, "entry %u: heap order", i);
	}
	for (size_t i = 0; i < m->n; i++) {
		cr_assert_eq(wg_timerq_key(&m->q, &m->nodes[i]), m->keys[i], "node %zu's key", i);
		queued += m->keys[i] != 0;
	}
	cr_assert_eq(m->q.len, queued);
}

static uint64_t model_min(const struct model *m)
{
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < m->n; i++)
		if (m->keys[i] && m->keys[i] < min)
			min = m->keys[i];
	return min;
}

/* One random operation: a new key (often a repeat of a few values, to make ties), the
 * same key again, or removal. */
static void random_op(struct model *m)
{
	size_t i = det_rng_next(&m->rng) % m->n;
	uint64_t r = det_rng_next(&m->rng), key;

	switch (r % 8) {
	case 0:
	case 1:
		key = 0;
		break;
	case 2:
		key = m->keys[i];
		break;
	case 3:
		key = 1 + (r >> 8) % 4; /* ties */
		break;
	default:
		key = 1 + (r >> 8) % 1000000000000ULL;
		break;
	}
	wg_timerq_set(&m->q, &m->nodes[i], key);
	m->keys[i] = key;
}

Test(timerq, empty_queue_has_no_deadline)
{
	struct model m;

	model_init(&m, 4, 1);
	cr_expect_eq(wg_timerq_next(&m.q), UINT64_MAX);
	cr_expect_null(wg_timerq_due(&m.q, UINT64_MAX));
	wg_timerq_set(&m.q, &m.nodes[0], 0);
	cr_expect_eq(m.q.len, 0, "taking out a node that is not in is a no-op");
	model_fini(&m);
}

Test(timerq, due_at_the_deadline_not_before)
{
	struct model m;

	model_init(&m, 4, 1);
	wg_timerq_set(&m.q, &m.nodes[1], 500);
	wg_timerq_set(&m.q, &m.nodes[2], 300);
	cr_expect_eq(wg_timerq_next(&m.q), 300);
	cr_expect_null(wg_timerq_due(&m.q, 299), "1 ns early");
	cr_expect_eq(wg_timerq_due(&m.q, 300), &m.nodes[2]);
	wg_timerq_set(&m.q, &m.nodes[2], 700);
	cr_expect_eq(wg_timerq_due(&m.q, 600), &m.nodes[1], "moved later: the other is first");
	wg_timerq_set(&m.q, &m.nodes[1], 0);
	wg_timerq_set(&m.q, &m.nodes[2], 0);
	cr_expect_eq(wg_timerq_next(&m.q), UINT64_MAX);
	model_fini(&m);
}

Test(timerq, random_operations_match_the_model)
{
	struct model m;

	model_init(&m, 257, 42);
	for (int batch = 0; batch < 2000; batch++) {
		for (int k = 0; k < 50; k++)
			random_op(&m);
		check_shape(&m);
		cr_assert_eq(wg_timerq_next(&m.q), model_min(&m), "batch %d", batch);
	}
	model_fini(&m);
}

/* 100,000 nodes: the shape holds after mass inserts, moves and removals, and draining
 * the due nodes yields every key in order. */
Test(timerq, one_hundred_thousand_nodes, .timeout = 60)
{
	enum { N = 100000 };
	struct model m;
	uint64_t last = 0, now;
	size_t drained = 0, left = 0;
	struct wg_timerq_node *node;

	model_init(&m, N, 7);
	for (size_t i = 0; i < N; i++) {
		m.keys[i] = 1 + det_rng_next(&m.rng) % 1000000000000ULL;
		wg_timerq_set(&m.q, &m.nodes[i], m.keys[i]);
	}
	check_shape(&m);
	for (int batch = 0; batch < 6; batch++) {
		for (int k = 0; k < 50000; k++)
			random_op(&m);
		check_shape(&m);
		cr_assert_eq(wg_timerq_next(&m.q), model_min(&m));
	}
	/* Run everything due by the median of the keys, as the device runs its peers. */
	now = 500000000000ULL;
	for (size_t i = 0; i < N; i++)
		left += m.keys[i] > now;
	while ((node = wg_timerq_due(&m.q, now))) {
		size_t i = (size_t)(node - m.nodes);

		cr_assert_leq(last, m.keys[i], "due nodes come earliest first");
		cr_assert_leq(m.keys[i], now);
		last = m.keys[i];
		wg_timerq_set(&m.q, node, 0);
		m.keys[i] = 0;
		drained++;
	}
	cr_assert_gt(drained, 0);
	cr_assert_eq(m.q.len, left, "what is left is what is not due");
	check_shape(&m);
	model_fini(&m);
}
