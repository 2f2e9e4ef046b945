/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The open addressing behind the receiver-index table (index.c) and the public-key table
 * (pubkey_table.c): linear probing over a power-of-two array of slots that doubles when
 * one more entry would pass half load and halves when the load falls below an eighth
 * (never below min_slots). Deletion shifts later members of the probe run back instead
 * of leaving tombstones, so lookups stay short, never allocate and always end at a free
 * slot.
 *
 * Halving is spread over the inserts and removals that follow the one that started it:
 * each clears, then copies, at most WG_HASHTAB_SHRINK_STEP slots of the smaller array
 * (halving 262144 slots at once, as 100,000 peers were removed, held the datapath for
 * milliseconds). The smaller array holds exactly the entries at positions below its
 * cursor; lookups use the table's own array until the copy is complete and takes its
 * place. Room reserved for more than the smaller array would hold abandons it.
 *
 * An array the table no longer uses (the old one after it grew or halved, a halving's
 * smaller one when abandoned) goes to the caller's retired list (src/core/retired.h), or
 * is freed at once when that is NULL: freeing a large array unmaps it, which must not
 * happen on the datapath.
 *
 * The caller keeps the array, its size and its count in its own table struct, hashes its
 * keys, and defines its slot as a struct whose first member is struct wg_hashtab_slot,
 * followed by whatever it keeps per entry (a key to compare). A hash a remote party can
 * aim must be keyed (SipHash) or come from values we chose at random.
 */
#ifndef CAKEWG_SRC_CORE_HASHTAB_H
#define CAKEWG_SRC_CORE_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wg_retired;

struct wg_hashtab_slot {
	void *item;    /* NULL marks a free slot */
	uint32_t hash; /* the caller's hash of the key; its low bits pick the home slot */
	uint32_t tag;  /* the caller's own, kept with the item (index.c: the item's type) */
};

/* The slots one insert or removal copies of a halving under way. */
#define WG_HASHTAB_SHRINK_STEP 512

/* Smaller arrays allocated ahead for the halvings a big removal will start. */
#define WG_HASHTAB_SPARES 16

/* A halving under way, kept by the caller next to its array (zeroed: none). */
struct wg_hashtab_shrink {
	void *slots;	/* the smaller array being filled, or NULL */
	size_t size;	/* its slots */
	size_t cleared; /* its slots cleared so far: copying starts when all are */
	size_t cursor;	/* the table's slots below it are copied */
	/* wg_hashtab_prepare_shrink's arrays, largest first */
	struct wg_hashtab_spare {
		void *slots;
		size_t size; /* its slots */
	} spare[WG_HASHTAB_SPARES];
	unsigned int n_spares;
};

struct wg_hashtab_shape {
	size_t slot_size; /* sizeof the caller's slot, which starts with struct wg_hashtab_slot */
	size_t min_slots; /* a power of two */
	/*
	 * Whether slot, whose hash equals the key's, holds key. NULL when equal hashes mean
	 * equal keys (a hash that is a bijection of the key).
	 */
	bool (*match)(const struct wg_hashtab_slot *slot, const void *key);
};

/* The caller's slot holding key (whose hash is hash), or NULL. size may be 0. */
void *wg_hashtab_find(const struct wg_hashtab_shape *shape, void *slots, size_t size, uint32_t hash,
		      const void *key);

/*
 * Copies slot (shape->slot_size bytes, a non-NULL item, a key not in the table yet) into
 * the table of *count entries in *size slots, growing it first if needed; slots may be
 * NULL when *size is 0. Returns the array now in use (slots, or a new one after slots was
 * retired), with *size and *count updated; NULL when out of memory, with nothing changed.
 */
void *wg_hashtab_insert(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			size_t *count, struct wg_hashtab_shrink *shrink, const void *slot,
			struct wg_retired *retired);

/* Grows the table of count entries so that extra more fit without growing again (a big
 * insertion then moves the entries once, while they are few). Returns the array now in
 * use, as insert does; NULL when out of memory, with nothing changed. */
void *wg_hashtab_reserve(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			 size_t count, struct wg_hashtab_shrink *shrink, size_t extra,
			 struct wg_retired *retired);

/*
 * Empties slot, which wg_hashtab_find returned for this array, and starts halving the
 * table when the load falls below an eighth. Returns the array now in use, as insert
 * does; if memory is short for the smaller array, the bigger one stays. Never NULL.
 */
void *wg_hashtab_remove(const struct wg_hashtab_shape *shape, void *slots, size_t *size,
			size_t *count, struct wg_hashtab_shrink *shrink, void *slot,
			struct wg_retired *retired);

/* Gives slot, which wg_hashtab_find returned for this array, a new item (not NULL) and
 * tag; the rest of the caller's slot must not change. */
void wg_hashtab_set_item(const struct wg_hashtab_shape *shape, void *slots,
			 struct wg_hashtab_shrink *shrink, void *slot, void *item, uint32_t tag);

/*
 * Allocates now the smaller arrays that the halvings of a table of size slots would take
 * on the way down to count_after entries, for the removals to come to use. A large
 * allocation after many frees makes glibc sort the chunks freed so far: 1.4 ms for the
 * 6 MiB array at 67,000 of 100,000 peers removed, in one datapath slice; before the
 * removals it costs what an allocation costs. Only an optimisation: without memory, a
 * halving allocates as before. The arrays left over go with wg_hashtab_spares_retire.
 */
void wg_hashtab_prepare_shrink(const struct wg_hashtab_shape *shape, size_t size,
			       size_t count_after, struct wg_hashtab_shrink *shrink);
/* Hands the prepared arrays no halving took to retired (freed at once when NULL). */
void wg_hashtab_spares_retire(struct wg_hashtab_shrink *shrink, struct wg_retired *retired);
/* Frees a halving's array and the spares (the caller's table is freed): shrink is zeroed. */
void wg_hashtab_shrink_free(struct wg_hashtab_shrink *shrink);

#endif
