/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/replay.h"

#include <string.h>

_Static_assert((REPLAY_WORDS & (REPLAY_WORDS - 1)) == 0, "the ring is a power of two words");

void wg_replay_init(struct wg_replay *r)
{
	memset(r, 0, sizeof(*r));
}

bool wg_replay_exhausted(const struct wg_replay *r)
{
	return r->next >= REJECT_AFTER_MESSAGES;
}

/*
 * Works on counter + 1 so that "next == 0" means nothing seen yet. Moving forward clears
 * the words between the old and the new top (at most the whole ring); the bit of the new
 * counter is then tested and set. A counter more than COUNTER_WINDOW_SIZE behind the top
 * is too old: its word may already hold newer bits.
 */
bool wg_replay_accept(struct wg_replay *r, uint64_t counter)
{
	uint64_t n, word, top_word, gap, i, bit;

	if (r->next > REJECT_AFTER_MESSAGES || counter >= REJECT_AFTER_MESSAGES)
		return false;
	n = counter + 1;
	if (n + COUNTER_WINDOW_SIZE < r->next)
		return false;
	word = n / 64;
	if (n > r->next) {
		top_word = r->next / 64;
		gap = WG_MIN(word - top_word, (uint64_t)REPLAY_WORDS);
		for (i = 1; i <= gap; i++)
			r->words[(top_word + i) & (REPLAY_WORDS - 1)] = 0;
		r->next = n;
	}
	bit = UINT64_C(1) << (n & 63);
	word &= REPLAY_WORDS - 1;
	if (r->words[word] & bit)
		return false;
	r->words[word] |= bit;
	return true;
}
