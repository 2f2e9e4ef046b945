/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The receive-side replay window of a transport keypair: a ring of COUNTER_BITS_TOTAL bits
 * in 64-bit words (RFC 6479, as the Linux driver), of which COUNTER_WINDOW_SIZE are usable.
 * A counter may be recorded only after its packet authenticated.
 */
#ifndef CAKEWG_SRC_CORE_REPLAY_H
#define CAKEWG_SRC_CORE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/compiler.h"
#include "src/core/messages.h"

enum { REPLAY_WORDS = COUNTER_BITS_TOTAL / 64 };

struct wg_replay {
	/* One more than the greatest counter accepted so far; 0 before the first. */
	uint64_t next;
	uint64_t words[REPLAY_WORDS];
};

void wg_replay_init(struct wg_replay *r);

/*
 * Records an authenticated counter. True when it is new: neither seen before, nor older
 * than the window, nor at or beyond REJECT_AFTER_MESSAGES. False leaves the state as it was.
 */
WG_MUST_CHECK bool wg_replay_accept(struct wg_replay *r, uint64_t counter);

/* True once the last valid counter (REJECT_AFTER_MESSAGES - 1) was accepted: the keypair's
 * receive side is used up (Linux decrypt_packet), though the window still answers. */
WG_MUST_CHECK bool wg_replay_exhausted(const struct wg_replay *r);

#endif
