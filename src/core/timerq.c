/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer queue's binary min-heap: entry i's children are 2i+1 and 2i+2. */
#include "src/core/timerq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { TIMERQ_MIN_CAP = 16 };

void wg_timerq_init(struct wg_timerq *q)
{
	memset(q, 0, sizeof(*q));
}

void wg_timerq_deinit(struct wg_timerq *q)
{
	free(q->heap);
	memset(q, 0, sizeof(*q));
}

int wg_timerq_reserve(struct wg_timerq *q, size_t n)
{
	size_t cap = q->cap ? q->cap : TIMERQ_MIN_CAP;
	struct wg_timerq_entry *heap;

	if (n <= q->cap)
		return 0;
	if (n > UINT32_MAX / 2)
		return -ENOMEM;
	while (cap < n)
		cap *= 2;
	heap = realloc(q->heap, cap * sizeof(*heap));
	if (!heap)
		return -ENOMEM;
	q->heap = heap;
	q->cap = (uint32_t)cap;
	return 0;
}

/* Puts entry e at index i and tells its node. */
static void place(struct wg_timerq *q, uint32_t i, struct wg_timerq_entry e)
{
	q->heap[i] = e;
	e.node->pos = i + 1;
}

static void sift_up(struct wg_timerq *q, uint32_t i)
{
	struct wg_timerq_entry e = q->heap[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (q->heap[parent].key <= e.key)
			break;
		place(q, i, q->heap[parent]);
		i = parent;
	}
	place(q, i, e);
}

static void sift_down(struct wg_timerq *q, uint32_t i)
{
	struct wg_timerq_entry e = q->heap[i];

	for (;;) {
		uint32_t child = 2 * i + 1;

		if (child >= q->len)
			break;
		if (child + 1 < q->len && q->heap[child + 1].key < q->heap[child].key)
			child++;
		if (e.key <= q->heap[child].key)
			break;
		place(q, i, q->heap[child]);
		i = child;
	}
	place(q, i, e);
}

/* Moves the entry at i, whose key changed, to where it belongs. */
static void fix(struct wg_timerq *q, uint32_t i)
{
	if (i > 0 && q->heap[(i - 1) / 2].key > q->heap[i].key)
		sift_up(q, i);
	else
		sift_down(q, i);
}

static void take_out(struct wg_timerq *q, struct wg_timerq_node *node)
{
	uint32_t i = node->pos - 1;

	node->pos = 0;
	if (i == --q->len)
		return;
	place(q, i, q->heap[q->len]);
	fix(q, i);
}

void wg_timerq_set(struct wg_timerq *q, struct wg_timerq_node *node, uint64_t key)
{
	if (!node->pos) {
		if (!key)
			return;
		/* wg_timerq_reserve() promised the room. */
		q->heap[q->len] = (struct wg_timerq_entry){.key = key, .node = node};
		node->pos = ++q->len;
		sift_up(q, q->len - 1);
		return;
	}
	if (!key) {
		take_out(q, node);
		return;
	}
	if (q->heap[node->pos - 1].key == key)
		return;
	q->heap[node->pos - 1].key = key;
	fix(q, node->pos - 1);
}

uint64_t wg_timerq_key(const struct wg_timerq *q, const struct wg_timerq_node *node)
{
	return node->pos ? q->heap[node->pos - 1].key : 0;
}

struct wg_timerq_node *wg_timerq_due(const struct wg_timerq *q, uint64_t now_ns)
{
	return q->len && q->heap[0].key <= now_ns ? q->heap[0].node : NULL;
}
