/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The allowed-IPs tries. Semantics follow Linux drivers/net/wireguard/allowedips.c; the
 * layout is our own.
 *
 * A key is held as two host-order 64-bit words, most significant bit first, whatever the
 * family: an IPv4 address sits in the top 32 bits of word 0. Bit i of a key is then bit
 * (63 - i % 64) of word i / 64, so both families share every helper. Each node stores its
 * prefix already masked to its cidr.
 *
 * Invariants: a node without a peer (a "glue" node, where two branches split) has exactly
 * two children; a child's prefix extends its parent's, and sits on the side given by the
 * child's bit at the parent's cidr. Lookup walks down while the node's prefix covers the
 * address and remembers the last node with a peer.
 */
#include "src/core/allowedips.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "src/core/retired.h"

/* What lookup reads comes first, within one cache line. */
struct wg_allowedips_node {
	uint64_t key[2];
	struct wg_allowedips_node *child[2];
	void *peer; /* NULL for a glue node */
	uint8_t cidr;
	uint8_t bits; /* 32 or 128: the family */
	struct wg_allowedips_node *parent;
	/* The owner's chain, in insertion order. */
	struct wg_allowedips_node *peer_prev, *peer_next;
};

struct wg_allowedips_owner {
	const void *peer; /* NULL marks a free slot */
	struct wg_allowedips_node *first, *last;
	size_t count;
};

enum { OWNERS_MIN_SIZE = 8 };

/* Fibonacci hashing of peer pointers: they are ours, not an attacker's. */
#define PTR_HASH_MULT 0x9e3779b97f4a7c15ULL

static uint64_t load_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void store_be(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = n; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

static void load_key(uint64_t key[2], const uint8_t *addr, uint8_t bits)
{
	if (bits == WG_ALLOWEDIPS_V4_BITS) {
		key[0] = load_be(addr, WG_ALLOWEDIPS_V4_LEN) << 32;
		key[1] = 0;
	} else {
		key[0] = load_be(addr, 8);
		key[1] = load_be(addr + 8, 8);
	}
}

static void mask_key(uint64_t key[2], uint8_t cidr)
{
	if (cidr == 0) {
		key[0] = key[1] = 0;
	} else if (cidr <= 64) {
		key[0] &= ~0ULL << (64 - cidr);
		key[1] = 0;
	} else {
		key[1] &= ~0ULL << (128 - cidr);
	}
}

/* Length of the common leading run of a and b, 0..128. */
static unsigned int common_bits(const uint64_t a[2], const uint64_t b[2])
{
	uint64_t x = a[0] ^ b[0];

	if (x)
		return (unsigned int)__builtin_clzll(x);
	x = a[1] ^ b[1];
	if (x)
		return 64 + (unsigned int)__builtin_clzll(x);
	return 128;
}

static bool prefix_matches(const struct wg_allowedips_node *node, const uint64_t key[2])
{
	return common_bits(node->key, key) >= node->cidr;
}

/* The key's bit just past node's prefix: which child leads towards key. */
static unsigned int choose(const struct wg_allowedips_node *node, const uint64_t key[2])
{
	unsigned int bit = node->cidr;

	return (unsigned int)(key[bit / 64] >> (63 - bit % 64)) & 1;
}

static uint8_t family_bits(int family)
{
	if (family == AF_INET)
		return WG_ALLOWEDIPS_V4_BITS;
	if (family == AF_INET6)
		return WG_ALLOWEDIPS_V6_BITS;
	return 0;
}

static struct wg_allowedips_node **root_of(struct wg_allowedips *t, uint8_t bits)
{
	return bits == WG_ALLOWEDIPS_V4_BITS ? &t->root4 : &t->root6;
}

/* ---- The owner map: peer -> chain of its nodes (linear probing). ---- */

static size_t owner_slot(const struct wg_allowedips *t, const void *peer)
{
	unsigned int shift = 64 - (unsigned int)__builtin_ctzll(t->owners_size);

	return (size_t)(((uint64_t)(uintptr_t)peer * PTR_HASH_MULT) >> shift);
}

static struct wg_allowedips_owner *owner_find(const struct wg_allowedips *t, const void *peer)
{
	size_t mask = t->owners_size - 1;

	if (!t->owners_size)
		return NULL;
	for (size_t i = owner_slot(t, peer);; i = (i + 1) & mask) {
		if (t->owners[i].peer == peer)
			return &t->owners[i];
		if (!t->owners[i].peer)
			return NULL;
	}
}

/* Places o in a table known to hold no entry for o->peer and to have a free slot. */
static void owner_place(struct wg_allowedips *t, const struct wg_allowedips_owner *o)
{
	size_t mask = t->owners_size - 1, i = owner_slot(t, o->peer);

	while (t->owners[i].peer)
		i = (i + 1) & mask;
	t->owners[i] = *o;
}

/* Makes room for extra more owners, keeping the load at most one half. */
static int owner_reserve(struct wg_allowedips *t, size_t extra)
{
	struct wg_allowedips_owner *old = t->owners;
	size_t old_size = t->owners_size;
	size_t size = old_size ? old_size : OWNERS_MIN_SIZE;

	while ((t->owners_used + extra) * 2 > size)
		size *= 2;
	if (size == old_size)
		return 0;
	t->owners = calloc(size, sizeof(*t->owners));
	if (!t->owners) {
		t->owners = old;
		return -ENOMEM;
	}
	t->owners_size = size;
	for (size_t i = 0; i < old_size; i++) {
		if (old[i].peer)
			owner_place(t, &old[i]);
	}
	wg_retired_add(t->retired, old);
	return 0;
}

/* Deletes o, shifting back the entries of its probe run (no tombstones). */
static void owner_delete(struct wg_allowedips *t, struct wg_allowedips_owner *o)
{
	size_t mask = t->owners_size - 1, hole = (size_t)(o - t->owners);

	for (size_t i = (hole + 1) & mask; t->owners[i].peer; i = (i + 1) & mask) {
		size_t home = owner_slot(t, t->owners[i].peer);

		/* Move i into the hole unless its home lies cyclically in (hole, i]. */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			t->owners[hole] = t->owners[i];
			hole = i;
		}
	}
	memset(&t->owners[hole], 0, sizeof(t->owners[hole]));
	t->owners_used--;
}

/* Appends node to peer's chain; owner_reserve() must have made room. */
static void chain_append(struct wg_allowedips *t, struct wg_allowedips_node *node, void *peer)
{
	struct wg_allowedips_owner *o = owner_find(t, peer);

	if (!o) {
		struct wg_allowedips_owner fresh = {.peer = peer};

		owner_place(t, &fresh);
		t->owners_used++;
		o = owner_find(t, peer);
	}
	node->peer = peer;
	node->peer_next = NULL;
	node->peer_prev = o->last;
	if (o->last)
		o->last->peer_next = node;
	else
		o->first = node;
	o->last = node;
	o->count++;
}

static void chain_unlink(struct wg_allowedips *t, struct wg_allowedips_node *node)
{
	struct wg_allowedips_owner *o = owner_find(t, node->peer);

	if (node->peer_prev)
		node->peer_prev->peer_next = node->peer_next;
	else
		o->first = node->peer_next;
	if (node->peer_next)
		node->peer_next->peer_prev = node->peer_prev;
	else
		o->last = node->peer_prev;
	node->peer = NULL;
	node->peer_prev = node->peer_next = NULL;
	if (--o->count == 0)
		owner_delete(t, o);
}

/* Gives node (new or glue or someone else's) to peer, at the end of peer's chain. */
static void set_owner(struct wg_allowedips *t, struct wg_allowedips_node *node, void *peer)
{
	if (node->peer)
		chain_unlink(t, node);
	else
		t->count++;
	chain_append(t, node, peer);
}

/* ---- The trie. ---- */

static struct wg_allowedips_node *node_new(const uint64_t key[2], uint8_t cidr, uint8_t bits)
{
	struct wg_allowedips_node *node = calloc(1, sizeof(*node));

	if (!node)
		return NULL;
	node->key[0] = key[0];
	node->key[1] = key[1];
	mask_key(node->key, cidr);
	node->cidr = cidr;
	node->bits = bits;
	return node;
}

/* Puts child in old's place under parent (or at the root), child may be NULL. */
static void replace_child(struct wg_allowedips_node **root, struct wg_allowedips_node *parent,
			  struct wg_allowedips_node *old, struct wg_allowedips_node *child)
{
	if (parent)
		parent->child[parent->child[1] == old] = child;
	else
		*root = child;
	if (child)
		child->parent = parent;
}

static void link_child(struct wg_allowedips_node *parent, struct wg_allowedips_node *child)
{
	parent->child[choose(parent, child->key)] = child;
	child->parent = parent;
}

/*
 * The deepest node whose prefix covers key and is no longer than cidr, or NULL. *exact is
 * set when that node's cidr equals cidr, i.e. it is the prefix itself.
 */
static struct wg_allowedips_node *placement(struct wg_allowedips_node *node, const uint64_t key[2],
					    uint8_t cidr, bool *exact)
{
	struct wg_allowedips_node *parent = NULL;

	*exact = false;
	while (node && node->cidr <= cidr && prefix_matches(node, key)) {
		parent = node;
		if (node->cidr == cidr) {
			*exact = true;
			break;
		}
		node = node->child[choose(node, key)];
	}
	return parent;
}

/* Hangs newnode where down is, splitting with a glue node where their prefixes part. */
static int splice(struct wg_allowedips_node **root, struct wg_allowedips_node *parent,
		  struct wg_allowedips_node *down, struct wg_allowedips_node *newnode)
{
	unsigned int common = WG_MIN(newnode->cidr, common_bits(down->key, newnode->key));
	struct wg_allowedips_node *glue;

	if (common == newnode->cidr) {
		/* newnode's prefix covers down's: it goes in between. */
		replace_child(root, parent, down, newnode);
		link_child(newnode, down);
		return 0;
	}
	glue = node_new(newnode->key, (uint8_t)common, newnode->bits);
	if (!glue)
		return -ENOMEM;
	replace_child(root, parent, down, glue);
	link_child(glue, down);
	link_child(glue, newnode);
	return 0;
}

static int add(struct wg_allowedips *t, uint8_t bits, const uint64_t key[2], uint8_t cidr,
	       void *peer)
{
	struct wg_allowedips_node **root = root_of(t, bits), *parent, *down, *newnode;
	bool exact;
	int ret;

	ret = owner_reserve(t, 1);
	if (ret)
		return ret;
	parent = placement(*root, key, cidr, &exact);
	if (exact) {
		set_owner(t, parent, peer);
		return 0;
	}
	newnode = node_new(key, cidr, bits);
	if (!newnode)
		return -ENOMEM;
	down = parent ? parent->child[choose(parent, key)] : *root;
	if (!down && parent) {
		link_child(parent, newnode);
	} else if (!down) {
		*root = newnode;
	} else {
		ret = splice(root, parent, down, newnode);
		if (ret) {
			free(newnode);
			return ret;
		}
	}
	set_owner(t, newnode, peer);
	return 0;
}

/* Drops node's prefix, then frees whatever nodes the invariants no longer need. */
static void remove_node(struct wg_allowedips *t, struct wg_allowedips_node *node)
{
	struct wg_allowedips_node **root = root_of(t, node->bits);
	struct wg_allowedips_node *child, *parent, *other;

	chain_unlink(t, node);
	t->count--;
	if (node->child[0] && node->child[1])
		return; /* still needed as a glue node */
	child = node->child[0] ? node->child[0] : node->child[1];
	parent = node->parent;
	replace_child(root, parent, node, child);
	free(node);
	if (child || !parent || parent->peer)
		return;
	/* parent is a glue node left with one child: splice it out too. */
	other = parent->child[0] ? parent->child[0] : parent->child[1];
	replace_child(root, parent->parent, parent, other);
	free(parent);
}

static void free_trie(struct wg_allowedips_node *node)
{
	while (node) {
		struct wg_allowedips_node *parent;

		if (node->child[0]) {
			node = node->child[0];
			continue;
		}
		if (node->child[1]) {
			node = node->child[1];
			continue;
		}
		parent = node->parent;
		if (parent)
			parent->child[parent->child[1] == node] = NULL;
		free(node);
		node = parent;
	}
}

static const struct wg_allowedips_node *find(const struct wg_allowedips_node *node,
					     const uint64_t key[2])
{
	const struct wg_allowedips_node *found = NULL;

	while (node && prefix_matches(node, key)) {
		if (node->peer)
			found = node;
		if (node->cidr == node->bits)
			break;
		node = node->child[choose(node, key)];
	}
	return found;
}

static void read_node(const struct wg_allowedips_node *node, struct wg_allowedip *out)
{
	memset(out, 0, sizeof(*out));
	out->cidr = node->cidr;
	if (node->bits == WG_ALLOWEDIPS_V4_BITS) {
		out->family = AF_INET;
		store_be(out->addr, node->key[0] >> 32, WG_ALLOWEDIPS_V4_LEN);
	} else {
		out->family = AF_INET6;
		store_be(out->addr, node->key[0], 8);
		store_be(out->addr + 8, node->key[1], 8);
	}
}

/* ---- The API. ---- */

void wg_allowedips_init(struct wg_allowedips *t)
{
	memset(t, 0, sizeof(*t));
}

void wg_allowedips_deinit(struct wg_allowedips *t)
{
	free_trie(t->root4);
	free_trie(t->root6);
	free(t->owners);
	wg_allowedips_init(t);
}

/* Checks family and cidr and loads the masked key; returns the family's bit count or 0. */
static uint8_t parse_prefix(int family, const void *addr, unsigned int cidr, uint64_t key[2])
{
	uint8_t bits = family_bits(family);

	if (!bits || !addr || cidr > bits)
		return 0;
	load_key(key, addr, bits);
	mask_key(key, (uint8_t)cidr);
	return bits;
}

int wg_allowedips_insert(struct wg_allowedips *t, int family, const void *addr, unsigned int cidr,
			 void *peer)
{
	uint64_t key[2];
	uint8_t bits = parse_prefix(family, addr, cidr, key);

	if (!bits || !peer)
		return -EINVAL;
	return add(t, bits, key, (uint8_t)cidr, peer);
}

int wg_allowedips_remove(struct wg_allowedips *t, int family, const void *addr, unsigned int cidr,
			 const void *peer)
{
	uint64_t key[2];
	uint8_t bits = parse_prefix(family, addr, cidr, key);
	struct wg_allowedips_node *node;
	bool exact;

	if (!bits || !peer)
		return -EINVAL;
	node = placement(*root_of(t, bits), key, (uint8_t)cidr, &exact);
	if (exact && node->peer == peer)
		remove_node(t, node);
	return 0;
}

int wg_allowedips_reserve_peers(struct wg_allowedips *t, size_t extra)
{
	return owner_reserve(t, extra);
}

void wg_allowedips_remove_by_peer(struct wg_allowedips *t, const void *peer)
{
	struct wg_allowedips_owner *o = peer ? owner_find(t, peer) : NULL;
	struct wg_allowedips_node *node, *next;

	if (!o)
		return;
	/* Nodes freed along the way are this one and glue nodes, never a chain member. */
	for (node = o->first; node; node = next) {
		next = node->peer_next;
		remove_node(t, node);
	}
}

void *wg_allowedips_lookup_v4(const struct wg_allowedips *t,
			      const uint8_t addr[WG_ALLOWEDIPS_V4_LEN])
{
	uint64_t key[2];
	const struct wg_allowedips_node *node;

	load_key(key, addr, WG_ALLOWEDIPS_V4_BITS);
	node = find(t->root4, key);
	return node ? node->peer : NULL;
}

void *wg_allowedips_lookup_v6(const struct wg_allowedips *t,
			      const uint8_t addr[WG_ALLOWEDIPS_V6_LEN])
{
	uint64_t key[2];
	const struct wg_allowedips_node *node;

	load_key(key, addr, WG_ALLOWEDIPS_V6_BITS);
	node = find(t->root6, key);
	return node ? node->peer : NULL;
}

void *wg_allowedips_lookup(const struct wg_allowedips *t, int family, const void *addr)
{
	if (family == AF_INET)
		return wg_allowedips_lookup_v4(t, addr);
	if (family == AF_INET6)
		return wg_allowedips_lookup_v6(t, addr);
	return NULL;
}

size_t wg_allowedips_count(const struct wg_allowedips *t)
{
	return t->count;
}

size_t wg_allowedips_peer_count(const struct wg_allowedips *t, const void *peer)
{
	const struct wg_allowedips_owner *o = peer ? owner_find(t, peer) : NULL;

	return o ? o->count : 0;
}

int wg_allowedips_walk_peer(const struct wg_allowedips *t, const void *peer,
			    wg_allowedips_walk_fn fn, void *ctx)
{
	const struct wg_allowedips_owner *o = peer ? owner_find(t, peer) : NULL;
	struct wg_allowedip ip;

	for (const struct wg_allowedips_node *node = o ? o->first : NULL; node;
	     node = node->peer_next) {
		int ret;

		read_node(node, &ip);
		ret = fn(ctx, &ip);
		if (ret)
			return ret;
	}
	return 0;
}
