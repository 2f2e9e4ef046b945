/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The receiver-index table. Slots hold the index itself (0 marks a free slot, which is why
 * 0 is never handed out), the type and the item. The slot of an index is chosen by a mixing
 * function rather than its low bits: the values are ours and random, but a peer may send
 * any value it likes to be looked up.
 */
#include "src/core/index.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct wg_index_slot {
	uint32_t index; /* 0: free */
	enum wg_index_type type;
	void *item;
};

enum { ALL_TYPES = WG_INDEX_HANDSHAKE | WG_INDEX_KEYPAIR };

/* The 32-bit finaliser of MurmurHash3: every input bit reaches every output bit. */
static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
}

static size_t home(const struct wg_index_table *t, uint32_t index)
{
	return mix(index) & (t->size - 1);
}

static struct wg_index_slot *find(const struct wg_index_table *t, uint32_t index)
{
	size_t mask = t->size - 1;

	if (!t->size || !index)
		return NULL;
	for (size_t i = home(t, index);; i = (i + 1) & mask) {
		if (t->slots[i].index == index)
			return &t->slots[i];
		if (!t->slots[i].index)
			return NULL;
	}
}

/* Stores s in a table that has a free slot and no entry for s->index. */
static void place(struct wg_index_table *t, const struct wg_index_slot *s)
{
	size_t mask = t->size - 1, i = home(t, s->index);

	while (t->slots[i].index)
		i = (i + 1) & mask;
	t->slots[i] = *s;
}

static int resize(struct wg_index_table *t, size_t size)
{
	struct wg_index_slot *old = t->slots;
	size_t old_size = t->size;

	t->slots = calloc(size, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->size = size;
	for (size_t i = 0; i < old_size; i++) {
		if (old[i].index)
			place(t, &old[i]);
	}
	free(old);
	return 0;
}

/* Keeps the load at or below one half once one more entry is in. */
static int reserve_one(struct wg_index_table *t)
{
	size_t size = t->size ? t->size : WG_INDEX_MIN_SLOTS;

	while ((t->count + 1) * 2 > size)
		size *= 2;
	return size == t->size ? 0 : resize(t, size);
}

/* Empties slot s, pulling later members of its probe run back so no run is broken. */
static void delete_slot(struct wg_index_table *t, struct wg_index_slot *s)
{
	size_t mask = t->size - 1, hole = (size_t)(s - t->slots);

	for (size_t i = (hole + 1) & mask; t->slots[i].index; i = (i + 1) & mask) {
		size_t h = home(t, t->slots[i].index);

		/* i may move back only if its home is not cyclically within (hole, i]. */
		if (((i - h) & mask) >= ((i - hole) & mask)) {
			t->slots[hole] = t->slots[i];
			hole = i;
		}
	}
	memset(&t->slots[hole], 0, sizeof(t->slots[hole]));
	t->count--;
	/* Shrinking is an optimisation: if memory is short, keep the bigger array. */
	if (t->size > WG_INDEX_MIN_SLOTS && t->count * 8 < t->size)
		(void)resize(t, t->size / 2);
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
	wg_index_table_init(t);
}

int wg_index_insert(struct wg_index_table *t, void *item, enum wg_index_type type,
		    const struct wg_rng *rng, uint32_t *index)
{
	struct wg_index_slot s = {.type = type, .item = item};
	int ret;

	if (!item || !valid_type(type))
		return -EINVAL;
	if (t->count >= WG_INDEX_MAX_ENTRIES)
		return -ENOSPC;
	ret = reserve_one(t);
	if (ret)
		return ret;
	for (unsigned int draw = 0; draw < WG_INDEX_MAX_DRAWS; draw++) {
		s.index = wg_rng_u32(rng);
		if (!s.index || find(t, s.index))
			continue;
		place(t, &s);
		t->count++;
		*index = s.index;
		return 0;
	}
	return -EAGAIN;
}

int wg_index_replace(struct wg_index_table *t, uint32_t index, const void *old_item, void *new_item,
		     enum wg_index_type type)
{
	struct wg_index_slot *s = find(t, index);

	if (!new_item || !valid_type(type))
		return -EINVAL;
	if (!s || s->item != old_item)
		return -ENOENT;
	s->item = new_item;
	s->type = type;
	return 0;
}

int wg_index_remove(struct wg_index_table *t, uint32_t index, const void *item)
{
	struct wg_index_slot *s = find(t, index);

	if (!s || s->item != item)
		return -ENOENT;
	delete_slot(t, s);
	return 0;
}

void *wg_index_lookup(const struct wg_index_table *t, uint32_t index, unsigned int type_mask,
		      enum wg_index_type *type)
{
	const struct wg_index_slot *s = find(t, index);

	if (!s || !(s->type & type_mask & ALL_TYPES))
		return NULL;
	if (type)
		*type = s->type;
	return s->item;
}

size_t wg_index_count(const struct wg_index_table *t)
{
	return t->count;
}
