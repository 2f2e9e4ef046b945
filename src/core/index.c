/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The receiver-index table over hashtab.c. A slot keeps the item, its type (the slot's
 * tag) and a mix of the index as the hash: a peer may send any value it likes to be
 * looked up, so the home slot must not be the index's low bits, and since the mix is a
 * bijection, equal hashes mean equal indices and no key needs to be stored. The mix of 0
 * is 0, and 0 is never handed out.
 */
#include "src/core/index.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/hashtab.h"

struct wg_index_slot {
	struct wg_hashtab_slot head; /* item, mix(index), tag: enum wg_index_type */
};

enum { ALL_TYPES = WG_INDEX_HANDSHAKE | WG_INDEX_KEYPAIR };

static const struct wg_hashtab_shape shape = {
	.slot_size = sizeof(struct wg_index_slot),
	.min_slots = WG_INDEX_MIN_SLOTS,
};

/*
 * The 32-bit finaliser of MurmurHash3: every input bit reaches every output bit, and each
 * step (xor-shift, multiplication by an odd number) can be undone, so no two indices mix
 * to the same value.
 */
static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
}

static struct wg_index_slot *find(const struct wg_index_table *t, uint32_t index)
{
	if (!index)
		return NULL;
	return wg_hashtab_find(&shape, t->slots, t->size, mix(index), NULL);
}

static bool valid_type(enum wg_index_type type)
{
	return type == WG_INDEX_HANDSHAKE || type == WG_INDEX_KEYPAIR;
}

void wg_index_table_init(struct wg_index_table *t)
{
	memset(t, 0, sizeof(*t));
}

void wg_index_table_deinit(struct wg_index_table *t)
{
	free(t->slots);
	wg_hashtab_shrink_free(&t->shrink);
	wg_index_table_init(t);
}

/* A random index that is neither 0 nor taken, or 0 when the RNG kept drawing such. */
static uint32_t draw_free_index(const struct wg_index_table *t, const struct wg_rng *rng)
{
	for (unsigned int draw = 0; draw < WG_INDEX_MAX_DRAWS; draw++) {
		uint32_t index = wg_rng_u32(rng);

		if (index && !find(t, index))
			return index;
	}
	return 0;
}

int wg_index_insert(struct wg_index_table *t, void *item, enum wg_index_type type,
		    const struct wg_rng *rng, uint32_t *index)
{
	struct wg_index_slot s = {.head = {.item = item, .tag = type}};
	struct wg_index_slot *slots;
	uint32_t fresh;

	if (!item || !valid_type(type))
		return -EINVAL;
	if (t->count >= WG_INDEX_MAX_ENTRIES)
		return -ENOSPC;
	fresh = draw_free_index(t, rng);
	if (!fresh)
		return -EAGAIN;
	s.head.hash = mix(fresh);
	slots = wg_hashtab_insert(&shape, t->slots, &t->size, &t->count, &t->shrink, &s,
				  t->retired);
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	*index = fresh;
	return 0;
}

int wg_index_replace(struct wg_index_table *t, uint32_t index, const void *old_item, void *new_item,
		     enum wg_index_type type)
{
	struct wg_index_slot *s = find(t, index);

	if (!new_item || !valid_type(type))
		return -EINVAL;
	if (!s || s->head.item != old_item)
		return -ENOENT;
	wg_hashtab_set_item(&shape, t->slots, &t->shrink, s, new_item, type);
	return 0;
}

int wg_index_remove(struct wg_index_table *t, uint32_t index, const void *item)
{
	struct wg_index_slot *s = find(t, index);

	if (!s || s->head.item != item)
		return -ENOENT;
	t->slots = wg_hashtab_remove(&shape, t->slots, &t->size, &t->count, &t->shrink, s,
				     t->retired);
	return 0;
}

void *wg_index_lookup(const struct wg_index_table *t, uint32_t index, unsigned int type_mask,
		      enum wg_index_type *type)
{
	const struct wg_index_slot *s = find(t, index);

	if (!s || !(s->head.tag & type_mask & ALL_TYPES))
		return NULL;
	if (type)
		*type = (enum wg_index_type)s->head.tag;
	return s->head.item;
}

size_t wg_index_count(const struct wg_index_table *t)
{
	return t->count;
}
