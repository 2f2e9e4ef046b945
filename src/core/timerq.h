/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timer queue: every peer whose timers have something armed, ordered by its earliest
 * deadline, so that the loop learns when to wake in O(1) and runs only the peers that are
 * due. A peer with nothing armed is not in the queue and costs nothing.
 *
 * A binary min-heap in one array of (deadline, node) entries; each node (embedded in its
 * owner, e.g. struct wg_peer) remembers where it sits, so a deadline moves or leaves in
 * O(log n). Why a heap and not a timer wheel: deadlines are exact nanoseconds (the timer
 * state machine promises "fires at d, not 1 ns earlier") over a range of 10 ms to
 * 9 minutes; a wheel would round them to its slot width or need cascading levels, and its
 * O(1) insert buys little when one update per packet usually finds the key unchanged and
 * returns at once. The heap keeps them exact, needs 16 bytes per armed peer, and ties
 * break by position, deterministically.
 *
 * Updates never allocate: wg_timerq_reserve() makes room beforehand (the device reserves
 * one entry per configured peer when it adds the peer). Pure: no clock, no I/O.
 */
#ifndef CAKEWG_SRC_CORE_TIMERQ_H
#define CAKEWG_SRC_CORE_TIMERQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/compiler.h"

/* Embedded in whatever is queued; zero-initialised means "not queued". */
struct wg_timerq_node {
	uint32_t pos; /* 1 + its index in the heap; 0: not queued */
};

struct wg_timerq_entry {
	uint64_t key; /* the deadline, never 0 */
	struct wg_timerq_node *node;
};

struct wg_timerq {
	struct wg_timerq_entry *heap;
	uint32_t len, cap;
};

void wg_timerq_init(struct wg_timerq *q);
void wg_timerq_deinit(struct wg_timerq *q);

/* Room for n nodes in all, so that wg_timerq_set() never allocates. 0 or -ENOMEM. */
WG_MUST_CHECK int wg_timerq_reserve(struct wg_timerq *q, size_t n);

/*
 * Files node under key (a deadline; 0 takes it out). O(1) when the key did not change,
 * O(log n) otherwise. Needs reserved room for a node not queued yet.
 */
void wg_timerq_set(struct wg_timerq *q, struct wg_timerq_node *node, uint64_t key);

/* The node's key, 0 when it is not queued. */
uint64_t wg_timerq_key(const struct wg_timerq *q, const struct wg_timerq_node *node);

/* The earliest key, UINT64_MAX when the queue is empty. */
static inline uint64_t wg_timerq_next(const struct wg_timerq *q)
{
	return q->len ? q->heap[0].key : UINT64_MAX;
}

/* The node with the earliest key if that key is at or before now_ns, else NULL. It stays
 * queued: the caller runs it and sets its new key. */
struct wg_timerq_node *wg_timerq_due(const struct wg_timerq *q, uint64_t now_ns);

#endif
