/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SipHash-2-4 (Aumasson & Bernstein), the keyed hash behind every table that a remote
 * sender could aim collisions at: CAKE's flow and host tables, and the endpoint's peer
 * and rate-limiter tables. The key is a per-instance random secret.
 */
#ifndef CAKEWG_QDISC_SIPHASH_H
#define CAKEWG_QDISC_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct cake_siphash_key {
	uint64_t k[2];
};

uint64_t cake_siphash(const struct cake_siphash_key *key, const void *data, size_t len);

#endif
