/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Receiver indices: the 32-bit numbers a peer puts in the header of every message it sends
 * us, so that we find the handshake or keypair it refers to without trying keys. Each
 * index is drawn at random (struct wg_rng) so that it says nothing about us, and is unique
 * within the device. 0 is never handed out: a struct may use it for "no index".
 *
 * The table is open-addressed (linear probing, backward-shift deletion) over a power-of-two
 * array that doubles at half load and halves when it falls to an eighth, so lookups never
 * allocate and stay short at any size up to WG_INDEX_MAX_ENTRIES. Items are opaque.
 */
#ifndef CAKEWG_SRC_CORE_INDEX_H
#define CAKEWG_SRC_CORE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/hashtab.h"
#include "src/core/messages.h"
#include "src/core/rng.h"

/* What an index refers to; the values are bits so lookups can accept several. */
enum wg_index_type {
	WG_INDEX_HANDSHAKE = 1U << 0,
	WG_INDEX_KEYPAIR = 1U << 1,
};

enum wg_index_limits {
	/* A handshake in progress and three keypairs (previous, current, next) per peer. */
	WG_INDEX_PER_PEER = 4,
	WG_INDEX_MAX_ENTRIES = WG_INDEX_PER_PEER * MAX_PEERS,
	WG_INDEX_MIN_SLOTS = 64,
	/* Draws before insert gives up: only a broken RNG repeats taken indices this often. */
	WG_INDEX_MAX_DRAWS = 64,
};

struct wg_index_slot;

struct wg_index_table {
	struct wg_index_slot *slots;	 /* NULL until the first insert */
	size_t size;			 /* slots, a power of two, or 0 */
	size_t count;			 /* indices in use */
	struct wg_hashtab_shrink shrink; /* a halving under way (hashtab.h) */
	/* where arrays the table no longer uses go (src/core/retired.h); NULL, as init
	 * leaves it: freed at once */
	struct wg_retired *retired;
};

void wg_index_table_init(struct wg_index_table *t);
void wg_index_table_deinit(struct wg_index_table *t);

/*
 * Gives item a fresh random index, stored in *index. Returns 0, -EINVAL (NULL item or
 * unknown type), -ENOSPC (WG_INDEX_MAX_ENTRIES in use), -ENOMEM, or -EAGAIN when the RNG
 * kept drawing 0 or taken indices.
 */
int wg_index_insert(struct wg_index_table *t, void *item, enum wg_index_type type,
		    const struct wg_rng *rng, uint32_t *index);

/*
 * Hands index over from old_item to new_item (a handshake becoming a keypair keeps the index
 * the peer already knows). Returns 0, -EINVAL, or -ENOENT when index is not old_item's.
 */
int wg_index_replace(struct wg_index_table *t, uint32_t index, const void *old_item, void *new_item,
		     enum wg_index_type type);

/* Frees index if it belongs to item. Returns 0 or -ENOENT. */
int wg_index_remove(struct wg_index_table *t, uint32_t index, const void *item);

/*
 * The item behind index if its type is in type_mask (a set of enum wg_index_type), else
 * NULL. *type receives the type when type is not NULL.
 */
void *wg_index_lookup(const struct wg_index_table *t, uint32_t index, unsigned int type_mask,
		      enum wg_index_type *type);

size_t wg_index_count(const struct wg_index_table *t);

#endif
