/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The overflow heap: a max-heap of every flow of every tin keyed by its backlog, so
 * that when memory runs out the fattest flow loses its head packet. As in sch_cake it
 * is built lazily on the first overflow and then maintained on every enqueue and
 * dequeue for CAKE_OVERFLOW_TIMEOUT dequeues; after a quiet spell it goes stale and is
 * rebuilt on the next overflow.
 */
#include "qdisc/cake_priv.h"

static uint16_t entry(unsigned int tin, unsigned int queue)
{
	return (uint16_t)((tin << CAKE_HEAP_QUEUE_BITS) | queue);
}

static unsigned int entry_tin(uint16_t e)
{
	return e >> CAKE_HEAP_QUEUE_BITS;
}

static unsigned int entry_queue(uint16_t e)
{
	return e & (CAKE_QUEUES - 1);
}

static uint32_t backlog_at(const struct cake *q, uint16_t i)
{
	uint16_t e = q->overflow_heap[i];

	return q->tins[entry_tin(e)].backlogs[entry_queue(e)];
}

static void swap(struct cake *q, uint16_t i, uint16_t j)
{
	uint16_t ei = q->overflow_heap[i];
	uint16_t ej = q->overflow_heap[j];

	q->overflow_heap[i] = ej;
	q->overflow_heap[j] = ei;
	q->tins[entry_tin(ei)].overflow_idx[entry_queue(ei)] = j;
	q->tins[entry_tin(ej)].overflow_idx[entry_queue(ej)] = i;
}

/* Interleave the tins so a fresh heap is a valid (all zero) heap in any order. */
void cake_heap_init(struct cake *q)
{
	unsigned int t, j;

	for (t = 0; t < CAKE_MAX_TINS; t++) {
		for (j = 0; j < CAKE_QUEUES; j++) {
			uint16_t k = (uint16_t)(j * CAKE_MAX_TINS + t);

			q->overflow_heap[k] = entry(t, j);
			q->tins[t].overflow_idx[j] = k;
		}
	}
	q->overflow_timeout = 0;
}

/*
 * Move entry i down below any child with a larger backlog. (The kernel's version keeps
 * comparing against the child it swapped up rather than the entry moving down, so it
 * can stop early; this one restores the heap property.)
 */
void cake_heap_sift_down(struct cake *q, uint16_t i)
{
	uint32_t v = backlog_at(q, i);

	for (;;) {
		uint32_t l = 2u * i + 1;
		uint32_t r = l + 1;
		uint32_t m = i;
		uint32_t mb = v;

		if (l < CAKE_HEAP_SIZE && backlog_at(q, (uint16_t)l) > mb) {
			m = l;
			mb = backlog_at(q, (uint16_t)l);
		}
		if (r < CAKE_HEAP_SIZE && backlog_at(q, (uint16_t)r) > mb)
			m = r;
		if (m == i)
			return;
		swap(q, i, (uint16_t)m);
		i = (uint16_t)m;
	}
}

void cake_heap_sift_up(struct cake *q, uint16_t i)
{
	while (i > 0 && i < CAKE_HEAP_SIZE) {
		uint16_t p = (uint16_t)((i - 1) >> 1);

		if (backlog_at(q, i) <= backlog_at(q, p))
			return;
		swap(q, i, p);
		i = p;
	}
}

void cake_heap_rebuild(struct cake *q)
{
	int i;

	for (i = CAKE_HEAP_SIZE / 2; i >= 0; i--)
		cake_heap_sift_down(q, (uint16_t)i);
}

/* The fattest flow, as (tin << 10) | queue. */
uint16_t cake_heap_top(const struct cake *q)
{
	return q->overflow_heap[0];
}
