/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Allowed IPs: which peer owns an inner address. Each family has its own path-compressed
 * binary trie (a node exists only where a prefix ends or two branches split), searched for
 * the longest prefix that covers an address. Egress routes a packet to the peer owning its
 * destination; ingress accepts a decrypted packet only if its source belongs to the sender.
 *
 * Peers are opaque pointers: the table never dereferences them. Each peer's prefixes are
 * also chained in the order they were inserted (a re-inserted prefix moves to the end, as
 * in Linux), which gives remove-by-peer its cost and the UAPI `get` its stable order.
 *
 * Addresses are in network byte order: 4 bytes for AF_INET, 16 for AF_INET6. Host bits
 * beyond the prefix length are ignored on insert and remove (192.168.1.7/24 is
 * 192.168.1.0/24). Not thread-safe; the device serialises access.
 */
#ifndef CAKEWG_SRC_CORE_ALLOWEDIPS_H
#define CAKEWG_SRC_CORE_ALLOWEDIPS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/compiler.h"

struct wg_retired;

enum wg_allowedips_limits {
	WG_ALLOWEDIPS_V4_BITS = 32,
	WG_ALLOWEDIPS_V6_BITS = 128,
	WG_ALLOWEDIPS_V4_LEN = WG_ALLOWEDIPS_V4_BITS / 8,
	WG_ALLOWEDIPS_V6_LEN = WG_ALLOWEDIPS_V6_BITS / 8,
};

struct wg_allowedips_node;
struct wg_allowedips_owner;

struct wg_allowedips {
	struct wg_allowedips_node *root4;
	struct wg_allowedips_node *root6;
	/* Open-addressed map peer -> its chain of prefixes; size is a power of two or 0. */
	struct wg_allowedips_owner *owners;
	size_t owners_size;
	size_t owners_used;
	size_t count; /* prefixes held, both families */
	/* where the owner map's old array goes when it grows (src/core/retired.h); NULL, as
	 * init leaves it: freed at once */
	struct wg_retired *retired;
};

/* One prefix, as walk hands it out. */
struct wg_allowedip {
	int family;			    /* AF_INET or AF_INET6 */
	uint8_t cidr;			    /* prefix length */
	uint8_t addr[WG_ALLOWEDIPS_V6_LEN]; /* network order, host bits zero; v4 uses 4 bytes */
};

void wg_allowedips_init(struct wg_allowedips *t);
/* Frees every node; the table is empty and reusable afterwards. */
void wg_allowedips_deinit(struct wg_allowedips *t);

/*
 * Maps family/addr/cidr to peer. If the prefix is already present it moves to peer.
 * Returns 0, -EINVAL (unknown family, cidr beyond 32/128, NULL peer) or -ENOMEM (the table
 * is then unchanged).
 */
int wg_allowedips_insert(struct wg_allowedips *t, int family, const void *addr, unsigned int cidr,
			 void *peer);

/*
 * Removes exactly family/addr/cidr if it belongs to peer. A prefix that is absent or owned
 * by another peer is left alone and still returns 0, so removal is idempotent (the kernel's
 * WGALLOWEDIP_F_REMOVE_ME). Returns -EINVAL for an unknown family or a cidr out of range.
 */
int wg_allowedips_remove(struct wg_allowedips *t, int family, const void *addr, unsigned int cidr,
			 const void *peer);

/* Removes every prefix of peer. */
void wg_allowedips_remove_by_peer(struct wg_allowedips *t, const void *peer);
/* Room for extra more peers' chains without growing the owner map. 0 or -ENOMEM. */
int wg_allowedips_reserve_peers(struct wg_allowedips *t, size_t extra);

/* The peer owning the longest prefix that covers addr, or NULL. */
void *wg_allowedips_lookup_v4(const struct wg_allowedips *t,
			      const uint8_t addr[WG_ALLOWEDIPS_V4_LEN]);
void *wg_allowedips_lookup_v6(const struct wg_allowedips *t,
			      const uint8_t addr[WG_ALLOWEDIPS_V6_LEN]);
/* The same by family; NULL for an unknown family. */
void *wg_allowedips_lookup(const struct wg_allowedips *t, int family, const void *addr);

/* Prefixes held in total, and held by one peer. */
size_t wg_allowedips_count(const struct wg_allowedips *t);
size_t wg_allowedips_peer_count(const struct wg_allowedips *t, const void *peer);

/*
 * Calls fn for each prefix of peer in insertion order. fn must not modify the table. A
 * non-zero return from fn stops the walk and is returned; otherwise 0.
 */
typedef int (*wg_allowedips_walk_fn)(void *ctx, const struct wg_allowedip *ip);
int wg_allowedips_walk_peer(const struct wg_allowedips *t, const void *peer,
			    wg_allowedips_walk_fn fn, void *ctx);

#endif
