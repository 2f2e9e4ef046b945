/* SPDX-License-Identifier: GPL-2.0-only */
/* Linear probing with backward-shift deletion over caller-defined slots. */
#include "src/core/hashtab.h"

#include <stdlib.h>
#include <string.h>

/* Slot i of the array; a caller's slot starts with its struct wg_hashtab_slot. */
static struct wg_hashtab_slot *at(const struct wg_hashtab_shape *shape, void *slots, size_t i)
{
	return (struct wg_hashtab_slot *)((unsigned char *)slots + i * shape->slot_size);
}

static size_t home(uint32_t hash, size_t size)
{
	return hash & (size - 1);
}

void *wg_hashtab_find(const struct wg_hashtab_shape *shape, void *slots, size_t size, uint32_t hash,
		      const void *key)
{
	size_t mask = size - 1;

	if (!size)
		return NULL;
	/* The load stays at or under one half, so every probe run ends at a free slot. */
	for (size_t i = home(hash, size);; i = (i + 1) & mask) {
		struct wg_hashtab_slot *s = at(shape, slots, i);

		if (!s->item)
			return NULL;
		if (s->hash == hash && (!shape->match || shape->match(s, key)))
			return s;
	}
}

/* Copies slot into the first free slot of its probe run; the array has one. */
static void place(const struct wg_hashtab_shape *shape, void *slots, size_t size,
		  const struct wg_hashtab_slot *slot)
{
	size_t mask = size - 1, i = home(slot->hash, size);

	while (at(shape, slots, i)->item)
		i = (i + 1) & mask;
	memcpy(at(shape, slots, i), slot, shape->slot_size);
}

/* A new array of size slots holding every entry of old, which is freed; NULL: no memory. */
static void *rehash(const struct wg_hashtab_shape *shape, void *old, size_t old_size, size_t size)
{
	void *slots = calloc(size, shape->slot_size);

	if (!slots)
		return NULL;
	for (size_t i = 0; i < old_size; i++) {
		const struct wg_hashtab_slot *s = at(shape, old, i);

		if (s->item)
			place(shape, slots, size, s);
	}
	free(old);
	return slots;
}

void *wg_hashtab_reserve(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			 size_t count, size_t extra)
{
	size_t want = *size ? *size : shape->min_slots;

	while ((count + extra) * 2 > want)
		want *= 2;
	if (want != *size) {
		void *grown = rehash(shape, slots, *size, want);

		if (!grown)
			return NULL;
		slots = grown;
		*size = want;
	}
	return slots;
}

void *wg_hashtab_insert(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			size_t *count, const void *slot)
{
	slots = wg_hashtab_reserve(shape, slots, size, *count, 1);
	if (!slots)
		return NULL;
	place(shape, slots, *size, slot);
	(*count)++;
	return slots;
}

void *wg_hashtab_remove(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			size_t *count, void *slot)
{
	size_t mask = *size - 1;
	size_t hole = (size_t)((unsigned char *)slot - (unsigned char *)slots) / shape->slot_size;

	for (size_t i = (hole + 1) & mask; at(shape, slots, i)->item; i = (i + 1) & mask) {
		size_t h = home(at(shape, slots, i)->hash, *size);

		/* i may move back only if its home is not cyclically within (hole, i]. */
		if (((i - h) & mask) >= ((i - hole) & mask)) {
			memcpy(at(shape, slots, hole), at(shape, slots, i), shape->slot_size);
			hole = i;
		}
	}
	memset(at(shape, slots, hole), 0, shape->slot_size);
	(*count)--;
	/* Shrinking is an optimisation: if memory is short, keep the bigger array. */
	if (*size > shape->min_slots && *count * 8 < *size) {
		void *shrunk = rehash(shape, slots, *size, *size / 2);

		if (shrunk) {
			slots = shrunk;
			*size /= 2;
		}
	}
	return slots;
}
