/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One rate shared by several CAKE instances, one per worker (Linux 7.0's cake_mq): every
 * CAKE_MQ_SYNC_NS each instance counts the siblings that are active — backlogged now, or
 * active since its own previous count — and shapes at the set rate divided by that
 * number. The split is equal; it needs no lock, only each sibling's two words (backlog and
 * last activity), read without ordering: a stale read costs one sync period of error.
 *
 * Pure: the members are plain data that the owner keeps; in a multi-threaded owner they
 * are written by their own worker and read by the others with relaxed atomics.
 */
#ifndef CAKEWG_QDISC_CAKE_MQ_H
#define CAKEWG_QDISC_CAKE_MQ_H

#include <stdbool.h>
#include <stdint.h>

enum cake_mq_constants {
	CAKE_MQ_SYNC_NS = 200000, /* how often an instance recounts its active siblings */
	CAKE_MQ_MAX_MEMBERS = 64,
};

struct cake_mq_member {
	uint64_t last_active_ns; /* the last time it queued or sent a packet */
	uint64_t last_check_ns;	 /* when it last counted its siblings */
	bool backlogged;	 /* it holds packets now */
};

/* Marks member m active at now_ns (call on each enqueue and dequeue) with its backlog. */
void cake_mq_touch(struct cake_mq_member *m, bool backlogged, uint64_t now_ns);

/*
 * Counts, for member self, the members (itself included) that are backlogged or were
 * active after self's previous count, records now_ns as self's count time and returns the
 * number, at least 1.
 */
uint32_t cake_mq_count_active(struct cake_mq_member *members, uint32_t n, uint32_t self,
			      uint64_t now_ns);

/* The rate each active instance shapes at: rate / active, rounded down; 0 (unlimited)
 * stays 0. */
uint64_t cake_mq_share(uint64_t rate, uint32_t active);

#endif
