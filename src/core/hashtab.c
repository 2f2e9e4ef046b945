/* SPDX-License-Identifier: GPL-2.0-only */
/* Linear probing with backward-shift deletion over caller-defined slots. */
#include "src/core/hashtab.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/compiler.h"
#include "src/core/retired.h"

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

/* Copies slot into the first free slot of its probe run (the array has one); returns
 * its position. */
static size_t place(const struct wg_hashtab_shape *shape, void *slots, size_t size,
		    const struct wg_hashtab_slot *slot)
{
	size_t mask = size - 1, i = home(slot->hash, size);

	while (at(shape, slots, i)->item)
		i = (i + 1) & mask;
	memcpy(at(shape, slots, i), slot, shape->slot_size);
	return i;
}

static size_t position(const struct wg_hashtab_shape *shape, const void *slots, const void *slot)
{
	return (size_t)((const unsigned char *)slot - (const unsigned char *)slots) /
	       shape->slot_size;
}

/* A new array of size slots holding every entry of old, which is retired; NULL: no memory. */
static void *rehash(const struct wg_hashtab_shape *shape, void *old, size_t old_size, size_t size,
		    struct wg_retired *retired)
{
	void *slots = calloc(size, shape->slot_size);

	if (!slots)
		return NULL;
	for (size_t i = 0; i < old_size; i++) {
		const struct wg_hashtab_slot *s = at(shape, old, i);

		if (s->item)
			place(shape, slots, size, s);
	}
	wg_retired_add(retired, old);
	return slots;
}

/* --- a halving under way: the copy holds exactly the entries below the cursor --- */

/* The halving is over (done or abandoned): the spares stay. */
static void halving_end(struct wg_hashtab_shrink *shrink)
{
	shrink->slots = NULL;
	shrink->size = shrink->cleared = shrink->cursor = 0;
}

void wg_hashtab_shrink_free(struct wg_hashtab_shrink *shrink)
{
	free(shrink->slots);
	wg_hashtab_spares_retire(shrink, NULL);
	memset(shrink, 0, sizeof(*shrink));
}

void wg_hashtab_prepare_shrink(const struct wg_hashtab_shape *shape, size_t size,
			       size_t count_after, struct wg_hashtab_shrink *shrink)
{
	/* A halving under way already holds its array: the next one is half of it. */
	if (shrink->slots)
		size = shrink->size;
	while (shrink->n_spares < WG_HASHTAB_SPARES && size > shape->min_slots &&
	       count_after * 8 < size) {
		void *a = malloc(size / 2 * shape->slot_size);

		if (!a)
			return;
		size /= 2;
		shrink->spare[shrink->n_spares++] = (struct wg_hashtab_spare){a, size};
	}
}

void wg_hashtab_spares_retire(struct wg_hashtab_shrink *shrink, struct wg_retired *retired)
{
	for (unsigned int i = 0; i < shrink->n_spares; i++)
		wg_retired_add(retired, shrink->spare[i].slots);
	shrink->n_spares = 0;
}

/* An array of size slots for a halving: a spare of that size, else a new one. */
static void *halving_array(const struct wg_hashtab_shape *shape, struct wg_hashtab_shrink *shrink,
			   size_t size)
{
	for (unsigned int i = 0; i < shrink->n_spares; i++) {
		void *a = shrink->spare[i].slots;

		if (shrink->spare[i].size != size)
			continue;
		memmove(&shrink->spare[i], &shrink->spare[i + 1],
			(--shrink->n_spares - i) * sizeof(shrink->spare[0]));
		return a;
	}
	return malloc(size * shape->slot_size);
}

static void delete_at(const struct wg_hashtab_shape *shape, void *slots, size_t size, size_t hole,
		      struct wg_hashtab_shrink *shrink);

/* The copy of the entry in slot (item and hash alike) in the smaller array, or NULL. */
static struct wg_hashtab_slot *copy_of(const struct wg_hashtab_shape *shape,
				       const struct wg_hashtab_shrink *shrink,
				       const struct wg_hashtab_slot *slot)
{
	size_t mask = shrink->size - 1;

	for (size_t i = home(slot->hash, shrink->size);; i = (i + 1) & mask) {
		struct wg_hashtab_slot *s = at(shape, shrink->slots, i);

		if (!s->item)
			return NULL; /* not copied: cannot happen */
		if (s->item == slot->item && s->hash == slot->hash)
			return s;
	}
}

/* Removes the copy of the entry in slot from the smaller array. */
static void copy_drop(const struct wg_hashtab_shape *shape, struct wg_hashtab_shrink *shrink,
		      const struct wg_hashtab_slot *slot)
{
	struct wg_hashtab_slot *copy = copy_of(shape, shrink, slot);

	if (copy)
		delete_at(shape, shrink->slots, shrink->size, position(shape, shrink->slots, copy),
			  NULL);
}

/* The entry in slot moves from position from to position to of the table's array. */
static void track_move(const struct wg_hashtab_shape *shape, struct wg_hashtab_shrink *shrink,
		       size_t from, size_t to, const struct wg_hashtab_slot *slot)
{
	bool was = from < shrink->cursor, is = to < shrink->cursor;

	if (was && !is)
		copy_drop(shape, shrink, slot);
	else if (!was && is)
		place(shape, shrink->slots, shrink->size, slot);
}

/* Clears slots of the smaller array until it is clear (not at once, as calloc would),
 * then copies the table's: WG_HASHTAB_SHRINK_STEP slots in all. The smaller array takes the table's
 * place once it holds them all. Returns the array now in use. */
static void *shrink_step(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			 struct wg_hashtab_shrink *shrink, struct wg_retired *retired)
{
	size_t budget = WG_HASHTAB_SHRINK_STEP, n, end;

	if (!shrink->slots)
		return slots;
	n = WG_MIN(shrink->size - shrink->cleared, budget);
	memset(at(shape, shrink->slots, shrink->cleared), 0, n * shape->slot_size);
	shrink->cleared += n;
	budget -= n;
	if (shrink->cleared < shrink->size)
		return slots;
	end = shrink->cursor + budget;
	for (; shrink->cursor < end && shrink->cursor < *size; shrink->cursor++) {
		const struct wg_hashtab_slot *s = at(shape, slots, shrink->cursor);

		if (s->item)
			place(shape, shrink->slots, shrink->size, s);
	}
	if (shrink->cursor < *size)
		return slots;
	wg_retired_add(retired, slots);
	slots = shrink->slots;
	*size = shrink->size;
	halving_end(shrink);
	return slots;
}

/* --- the table --- */

void *wg_hashtab_reserve(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			 size_t count, struct wg_hashtab_shrink *shrink, size_t extra,
			 struct wg_retired *retired)
{
	size_t want = *size ? *size : shape->min_slots;

	while ((count + extra) * 2 > want)
		want *= 2;
	/* The load is back up: the table keeps its size. */
	if (shrink->slots && (want != *size || (count + extra) * 2 > shrink->size)) {
		wg_retired_add(retired, shrink->slots);
		halving_end(shrink);
	}
	if (want != *size) {
		void *grown = rehash(shape, slots, *size, want, retired);

		if (!grown)
			return NULL;
		slots = grown;
		*size = want;
	}
	return slots;
}

void *wg_hashtab_insert(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			size_t *count, struct wg_hashtab_shrink *shrink, const void *slot,
			struct wg_retired *retired)
{
	size_t i;

	slots = wg_hashtab_reserve(shape, slots, size, *count, shrink, 1, retired);
	if (!slots)
		return NULL;
	i = place(shape, slots, *size, slot);
	if (shrink->slots && i < shrink->cursor)
		place(shape, shrink->slots, shrink->size, slot);
	(*count)++;
	return shrink_step(shape, slots, size, shrink, retired);
}

/* Empties position hole, shifting later members of its probe run back; with shrink, the
 * copy follows every entry that moves. */
static void delete_at(const struct wg_hashtab_shape *shape, void *slots, size_t size, size_t hole,
		      struct wg_hashtab_shrink *shrink)
{
	size_t mask = size - 1;

	for (size_t i = (hole + 1) & mask; at(shape, slots, i)->item; i = (i + 1) & mask) {
		size_t h = home(at(shape, slots, i)->hash, size);

		/* i may move back only if its home is not cyclically within (hole, i]. */
		if (((i - h) & mask) >= ((i - hole) & mask)) {
			if (shrink)
				track_move(shape, shrink, i, hole, at(shape, slots, i));
			memcpy(at(shape, slots, hole), at(shape, slots, i), shape->slot_size);
			hole = i;
		}
	}
	memset(at(shape, slots, hole), 0, shape->slot_size);
}

void *wg_hashtab_remove(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			size_t *count, struct wg_hashtab_shrink *shrink, void *slot,
			struct wg_retired *retired)
{
	size_t hole = position(shape, slots, slot);
	bool shrinking = shrink->slots != NULL;

	if (shrinking && hole < shrink->cursor)
		copy_drop(shape, shrink, slot);
	delete_at(shape, slots, *size, hole, shrinking ? shrink : NULL);
	(*count)--;
	/* Shrinking is an optimisation: if memory is short, keep the bigger array. */
	if (!shrinking && *size > shape->min_slots && *count * 8 < *size) {
		shrink->slots = halving_array(shape, shrink, *size / 2);
		shrink->size = shrink->slots ? *size / 2 : 0;
		shrink->cursor = shrink->cleared = 0;
	}
	return shrink_step(shape, slots, size, shrink, retired);
}

void wg_hashtab_set_item(const struct wg_hashtab_shape *shape, void *slots,
			 struct wg_hashtab_shrink *shrink, void *slot, void *item, uint32_t tag)
{
	struct wg_hashtab_slot *s = slot;

	if (shrink->slots && position(shape, slots, slot) < shrink->cursor) {
		struct wg_hashtab_slot *copy = copy_of(shape, shrink, s);

		if (copy) {
			copy->item = item;
			copy->tag = tag;
		}
	}
	s->item = item;
	s->tag = tag;
}
