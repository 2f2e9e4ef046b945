/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The public-key table over hashtab.c. Each slot keeps 32 bits of the key's SipHash next
 * to a copy of the key: a probe compares hashes first and runs the constant-time key
 * comparison only on a hash match, which leaks nothing useful since the hash itself is
 * keyed and secret.
 */
#include "src/core/pubkey_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/compiler.h"
#include "src/core/hashtab.h"

struct wg_pubkey_slot {
	struct wg_hashtab_slot head; /* item: the peer */
	uint8_t key[NOISE_PUBLIC_KEY_LEN];
};

static bool same_key(const struct wg_hashtab_slot *head, const void *key)
{
	const struct wg_pubkey_slot *s = (const struct wg_pubkey_slot *)head;

	return cw_ct_equal(s->key, key, NOISE_PUBLIC_KEY_LEN);
}

static const struct wg_hashtab_shape shape = {
	.slot_size = sizeof(struct wg_pubkey_slot),
	.min_slots = WG_PUBKEY_TABLE_MIN_SLOTS,
	.match = same_key,
};

static uint32_t hash_of(const struct wg_pubkey_table *t, const uint8_t *key)
{
	return (uint32_t)cake_siphash(&t->hash_key, key, NOISE_PUBLIC_KEY_LEN);
}

static struct wg_pubkey_slot *find(const struct wg_pubkey_table *t, const uint8_t *key)
{
	return wg_hashtab_find(&shape, t->slots, t->size, hash_of(t, key), key);
}

void wg_pubkey_table_init(struct wg_pubkey_table *t, const struct wg_rng *rng)
{
	memset(t, 0, sizeof(*t));
	wg_rng_fill(rng, &t->hash_key, sizeof(t->hash_key));
}

void wg_pubkey_table_deinit(struct wg_pubkey_table *t)
{
	free(t->slots);
	wg_hashtab_shrink_free(&t->shrink);
	cw_memzero(t, sizeof(*t));
}

int wg_pubkey_table_insert(struct wg_pubkey_table *t, const uint8_t key[NOISE_PUBLIC_KEY_LEN],
			   void *peer)
{
	struct wg_pubkey_slot s = {.head = {.item = peer, .hash = hash_of(t, key)}};
	struct wg_pubkey_slot *slots;

	if (!peer)
		return -EINVAL;
	if (find(t, key))
		return -EEXIST;
	if (t->count >= WG_PUBKEY_TABLE_MAX_ENTRIES)
		return -ENOSPC;
	memcpy(s.key, key, sizeof(s.key));
	slots = wg_hashtab_insert(&shape, t->slots, &t->size, &t->count, &t->shrink, &s,
				  t->retired);
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	return 0;
}

int wg_pubkey_table_reserve(struct wg_pubkey_table *t, size_t extra)
{
	struct wg_pubkey_slot *slots;

	extra = WG_MIN(extra, WG_PUBKEY_TABLE_MAX_ENTRIES - WG_MIN(t->count, WG_PUBKEY_TABLE_MAX_ENTRIES));
	slots = wg_hashtab_reserve(&shape, t->slots, &t->size, t->count, &t->shrink, extra,
				   t->retired);
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	return 0;
}

void wg_pubkey_table_prepare_removals(struct wg_pubkey_table *t, size_t count_after)
{
	wg_hashtab_prepare_shrink(&shape, t->size, count_after, &t->shrink);
}

void wg_pubkey_table_spares_retire(struct wg_pubkey_table *t)
{
	wg_hashtab_spares_retire(&t->shrink, t->retired);
}

int wg_pubkey_table_remove(struct wg_pubkey_table *t, const uint8_t key[NOISE_PUBLIC_KEY_LEN],
			   const void *peer)
{
	struct wg_pubkey_slot *s = find(t, key);

	if (!s || s->head.item != peer)
		return -ENOENT;
	t->slots = wg_hashtab_remove(&shape, t->slots, &t->size, &t->count, &t->shrink, s,
				     t->retired);
	return 0;
}

void *wg_pubkey_table_lookup(const struct wg_pubkey_table *t,
			     const uint8_t key[NOISE_PUBLIC_KEY_LEN])
{
	const struct wg_pubkey_slot *s;

	if (!t->count)
		return NULL;
	s = find(t, key);
	return s ? s->head.item : NULL;
}

size_t wg_pubkey_table_count(const struct wg_pubkey_table *t)
{
	return t->count;
}
