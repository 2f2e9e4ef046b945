/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Peers by static public key: the responder's way from a decrypted initiation to the peer
 * that sent it, and the UAPI's way from `public_key=` to a peer. Keys are hashed with
 * SipHash under a per-table random key, so nobody can choose keys that pile up in one
 * probe run, and stored keys are compared in constant time. Peers are opaque.
 *
 * Open addressing (linear probing, backward-shift deletion), doubling at half load and
 * halving at an eighth; lookups never allocate.
 */
#ifndef CAKEWG_SRC_CORE_PUBKEY_TABLE_H
#define CAKEWG_SRC_CORE_PUBKEY_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "qdisc/siphash.h"
#include "src/core/hashtab.h"
#include "src/core/messages.h"
#include "src/core/rng.h"

enum wg_pubkey_table_limits {
	WG_PUBKEY_TABLE_MAX_ENTRIES = MAX_PEERS,
	WG_PUBKEY_TABLE_MIN_SLOTS = 16,
};

struct wg_pubkey_slot;

struct wg_pubkey_table {
	struct wg_pubkey_slot *slots; /* NULL until the first insert */
	size_t size;		      /* slots, a power of two, or 0 */
	size_t count;
	struct wg_hashtab_shrink shrink;  /* a halving under way (hashtab.h) */
	/* where arrays the table no longer uses go (src/core/retired.h); NULL, as init
	 * leaves it: freed at once */
	struct wg_retired *retired;
	struct cake_siphash_key hash_key; /* secret: wiped by deinit */
};

/* Draws the hash key from rng; the table starts empty. */
void wg_pubkey_table_init(struct wg_pubkey_table *t, const struct wg_rng *rng);
void wg_pubkey_table_deinit(struct wg_pubkey_table *t);

/*
 * Files peer under key. Returns 0, -EINVAL (NULL peer), -EEXIST (key already present; the
 * table is unchanged), -ENOSPC (WG_PUBKEY_TABLE_MAX_ENTRIES peers) or -ENOMEM.
 */
int wg_pubkey_table_insert(struct wg_pubkey_table *t, const uint8_t key[NOISE_PUBLIC_KEY_LEN],
			   void *peer);

/* Room for extra more entries without growing (capped at the maximum). 0 or -ENOMEM. */
int wg_pubkey_table_reserve(struct wg_pubkey_table *t, size_t extra);

/* Ahead of removals that may leave count_after entries: the arrays its halvings will
 * take, allocated now (wg_hashtab_prepare_shrink). The unused ones go with
 * wg_pubkey_table_spares_retire. */
void wg_pubkey_table_prepare_removals(struct wg_pubkey_table *t, size_t count_after);
void wg_pubkey_table_spares_retire(struct wg_pubkey_table *t);

/* Removes key if it maps to peer. Returns 0 or -ENOENT. */
int wg_pubkey_table_remove(struct wg_pubkey_table *t, const uint8_t key[NOISE_PUBLIC_KEY_LEN],
			   const void *peer);

/* The peer filed under key, or NULL. */
void *wg_pubkey_table_lookup(const struct wg_pubkey_table *t,
			     const uint8_t key[NOISE_PUBLIC_KEY_LEN]);

size_t wg_pubkey_table_count(const struct wg_pubkey_table *t);

#endif
