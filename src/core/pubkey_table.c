/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The public-key table. Each slot keeps the full 64-bit hash next to the key: a probe
 * compares hashes first and runs the constant-time key comparison only on a hash match,
 * which leaks nothing useful since the hash itself is keyed and secret.
 */
#include "src/core/pubkey_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"

struct wg_pubkey_slot {
	uint64_t hash;
	void *peer; /* NULL: free */
	uint8_t key[NOISE_PUBLIC_KEY_LEN];
};

static uint64_t hash_of(const struct wg_pubkey_table *t, const uint8_t *key)
{
	return cake_siphash(&t->hash_key, key, NOISE_PUBLIC_KEY_LEN);
}

static size_t home(const struct wg_pubkey_table *t, uint64_t hash)
{
	return (size_t)hash & (t->size - 1);
}

static struct wg_pubkey_slot *find(const struct wg_pubkey_table *t, const uint8_t *key,
				   uint64_t hash)
{
	size_t mask = t->size - 1;

	if (!t->size)
		return NULL;
	for (size_t i = home(t, hash); t->slots[i].peer; i = (i + 1) & mask) {
		if (t->slots[i].hash == hash &&
		    cw_ct_equal(t->slots[i].key, key, NOISE_PUBLIC_KEY_LEN))
			return &t->slots[i];
	}
	return NULL;
}

/* Stores s in a table that has a free slot and no entry for s->key. */
static void place(struct wg_pubkey_table *t, const struct wg_pubkey_slot *s)
{
	size_t mask = t->size - 1, i = home(t, s->hash);

	while (t->slots[i].peer)
		i = (i + 1) & mask;
	t->slots[i] = *s;
}

static int resize(struct wg_pubkey_table *t, size_t size)
{
	struct wg_pubkey_slot *old = t->slots;
	size_t old_size = t->size;

	t->slots = calloc(size, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->size = size;
	for (size_t i = 0; i < old_size; i++) {
		if (old[i].peer)
			place(t, &old[i]);
	}
	free(old);
	return 0;
}

static int reserve_one(struct wg_pubkey_table *t)
{
	size_t size = t->size ? t->size : WG_PUBKEY_TABLE_MIN_SLOTS;

	while ((t->count + 1) * 2 > size)
		size *= 2;
	return size == t->size ? 0 : resize(t, size);
}

/* Empties slot s, pulling later members of its probe run back so no run is broken. */
static void delete_slot(struct wg_pubkey_table *t, struct wg_pubkey_slot *s)
{
	size_t mask = t->size - 1, hole = (size_t)(s - t->slots);

	for (size_t i = (hole + 1) & mask; t->slots[i].peer; i = (i + 1) & mask) {
		size_t h = home(t, t->slots[i].hash);

		/* i may move back only if its home is not cyclically within (hole, i]. */
		if (((i - h) & mask) >= ((i - hole) & mask)) {
			t->slots[hole] = t->slots[i];
			hole = i;
		}
	}
	memset(&t->slots[hole], 0, sizeof(t->slots[hole]));
	t->count--;
	if (t->size > WG_PUBKEY_TABLE_MIN_SLOTS && t->count * 8 < t->size)
		(void)resize(t, t->size / 2); /* on failure the bigger array stays */
}

void wg_pubkey_table_init(struct wg_pubkey_table *t, const struct wg_rng *rng)
{
	memset(t, 0, sizeof(*t));
	wg_rng_fill(rng, &t->hash_key, sizeof(t->hash_key));
}

void wg_pubkey_table_deinit(struct wg_pubkey_table *t)
{
	free(t->slots);
	cw_memzero(t, sizeof(*t));
}

int wg_pubkey_table_insert(struct wg_pubkey_table *t, const uint8_t key[NOISE_PUBLIC_KEY_LEN],
			   void *peer)
{
	struct wg_pubkey_slot s = {.hash = hash_of(t, key), .peer = peer};
	int ret;

	if (!peer)
		return -EINVAL;
	if (find(t, key, s.hash))
		return -EEXIST;
	if (t->count >= WG_PUBKEY_TABLE_MAX_ENTRIES)
		return -ENOSPC;
	ret = reserve_one(t);
	if (ret)
		return ret;
	memcpy(s.key, key, sizeof(s.key));
	place(t, &s);
	t->count++;
	return 0;
}

int wg_pubkey_table_remove(struct wg_pubkey_table *t, const uint8_t key[NOISE_PUBLIC_KEY_LEN],
			   const void *peer)
{
	struct wg_pubkey_slot *s = find(t, key, hash_of(t, key));

	if (!s || s->peer != peer)
		return -ENOENT;
	delete_slot(t, s);
	return 0;
}

void *wg_pubkey_table_lookup(const struct wg_pubkey_table *t,
			     const uint8_t key[NOISE_PUBLIC_KEY_LEN])
{
	const struct wg_pubkey_slot *s;

	if (!t->count)
		return NULL;
	s = find(t, key, hash_of(t, key));
	return s ? s->peer : NULL;
}

size_t wg_pubkey_table_count(const struct wg_pubkey_table *t)
{
	return t->count;
}
