/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Drives the allowed-IPs trie with operations decoded from the input and checks every
 * answer against a naive list model (Linux's horrible_allowedips idea). Any disagreement,
 * leak or memory error aborts.
 *
 * Input: a sequence of records, each
 *   op (1 byte): bits 0-1 operation (insert, remove, remove by peer, lookup), bit 2
 *                family (0 = IPv4, 1 = IPv6), bits 3-5 peer number (8 peers)
 *   cidr (1 byte, taken modulo 33 or 129 unless bit 6 of op asks for it raw, to reach
 *         the -EINVAL paths)
 *   address (4 or 16 bytes)
 */
#include "src/core/allowedips.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum {
	MODEL_MAX = 1024,
	FUZZ_PEERS = 8,
	OP_INSERT = 0,
	OP_REMOVE = 1,
	OP_REMOVE_PEER = 2,
	OP_LOOKUP = 3,
};

struct entry {
	int family;
	uint8_t addr[16];
	uint8_t cidr;
	void *peer;
};

struct model {
	struct entry e[MODEL_MAX];
	size_t n;
};

static char peers[FUZZ_PEERS];
static struct model model;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

static void mask(uint8_t *addr, unsigned int cidr, size_t len)
{
	for (size_t i = 0; i < len * 8; i++) {
		if (i >= cidr)
			addr[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
	}
}

static bool covers(const struct entry *e, int family, const uint8_t *addr)
{
	unsigned int whole = e->cidr / 8, rest = e->cidr % 8;
	uint8_t m = (uint8_t)(0xff00u >> rest);

	if (e->family != family || memcmp(e->addr, addr, whole))
		return false;
	return !rest || (e->addr[whole] & m) == (addr[whole] & m);
}

static long find(int family, const uint8_t *masked, uint8_t cidr)
{
	for (size_t i = 0; i < model.n; i++) {
		if (model.e[i].family == family && model.e[i].cidr == cidr &&
		    !memcmp(model.e[i].addr, masked, addr_len(family)))
			return (long)i;
	}
	return -1;
}

static void drop(size_t i)
{
	memmove(&model.e[i], &model.e[i + 1], (model.n - i - 1) * sizeof(model.e[0]));
	model.n--;
}

static void *model_lookup(int family, const uint8_t *addr)
{
	const struct entry *best = NULL;

	for (size_t i = 0; i < model.n; i++) {
		if ((!best || model.e[i].cidr > best->cidr) && covers(&model.e[i], family, addr))
			best = &model.e[i];
	}
	return best ? best->peer : NULL;
}

struct walk_state {
	void *peer;
	size_t next;
};

static int walk_cb(void *ctx, const struct wg_allowedip *ip)
{
	struct walk_state *w = ctx;

	while (w->next < model.n && model.e[w->next].peer != w->peer)
		w->next++;
	CHECK(w->next < model.n);
	const struct entry *e = &model.e[w->next++];
	CHECK(e->family == ip->family && e->cidr == ip->cidr);
	CHECK(!memcmp(e->addr, ip->addr, sizeof(ip->addr)));
	return 0;
}

static void check_all(const struct wg_allowedips *t)
{
	CHECK(wg_allowedips_count(t) == model.n);
	for (size_t p = 0; p < FUZZ_PEERS; p++) {
		struct walk_state w = {.peer = &peers[p]};
		size_t want = 0;

		for (size_t i = 0; i < model.n; i++)
			want += model.e[i].peer == &peers[p];
		CHECK(wg_allowedips_peer_count(t, &peers[p]) == want);
		CHECK(wg_allowedips_walk_peer(t, &peers[p], walk_cb, &w) == 0);
	}
	for (size_t i = 0; i < model.n; i++) {
		const struct entry *e = &model.e[i];

		CHECK(wg_allowedips_lookup(t, e->family, e->addr) ==
		      model_lookup(e->family, e->addr));
	}
}

static void do_insert(struct wg_allowedips *t, int family, const uint8_t *addr, unsigned int cidr,
		      void *peer)
{
	unsigned int bits = family == AF_INET ? 32 : 128;
	struct entry e = {.family = family, .cidr = (uint8_t)cidr, .peer = peer};
	int ret = wg_allowedips_insert(t, family, addr, cidr, peer);
	long at;

	if (cidr > bits) {
		CHECK(ret == -EINVAL);
		return;
	}
	CHECK(ret == 0);
	memcpy(e.addr, addr, addr_len(family));
	mask(e.addr, cidr, addr_len(family));
	at = find(family, e.addr, e.cidr);
	if (at >= 0)
		drop((size_t)at);
	CHECK(model.n < MODEL_MAX);
	model.e[model.n++] = e;
}

static void do_remove(struct wg_allowedips *t, int family, const uint8_t *addr, unsigned int cidr,
		      void *peer)
{
	unsigned int bits = family == AF_INET ? 32 : 128;
	int ret = wg_allowedips_remove(t, family, addr, cidr, peer);
	uint8_t masked[16] = {0};
	long at;

	if (cidr > bits) {
		CHECK(ret == -EINVAL);
		return;
	}
	CHECK(ret == 0);
	memcpy(masked, addr, addr_len(family));
	mask(masked, cidr, addr_len(family));
	at = find(family, masked, (uint8_t)cidr);
	if (at >= 0 && model.e[at].peer == peer)
		drop((size_t)at);
}

static void do_remove_peer(struct wg_allowedips *t, void *peer)
{
	wg_allowedips_remove_by_peer(t, peer);
	for (size_t i = model.n; i-- > 0;) {
		if (model.e[i].peer == peer)
			drop(i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_allowedips t;
	size_t ops = 0;

	wg_allowedips_init(&t);
	model.n = 0;
	while (size >= 2 && model.n < MODEL_MAX - 1) {
		uint8_t op = data[0], raw_cidr = data[1];
		int family = op & 4 ? AF_INET6 : AF_INET;
		size_t len = addr_len(family);
		unsigned int bits = family == AF_INET ? 32 : 128;
		unsigned int cidr = op & 0x40 ? raw_cidr : raw_cidr % (bits + 1);
		void *peer = &peers[(op >> 3) & 7];
		uint8_t addr[16] = {0};

		data += 2;
		size -= 2;
		memcpy(addr, data, size < len ? size : len);
		data += size < len ? size : len;
		size -= size < len ? size : len;
		switch (op & 3) {
		case OP_INSERT:
			do_insert(&t, family, addr, cidr, peer);
			break;
		case OP_REMOVE:
			do_remove(&t, family, addr, cidr, peer);
			break;
		case OP_REMOVE_PEER:
			do_remove_peer(&t, peer);
			break;
		default:
			CHECK(wg_allowedips_lookup(&t, family, addr) == model_lookup(family, addr));
			break;
		}
		if (++ops % 64 == 0)
			check_all(&t);
	}
	check_all(&t);
	for (size_t p = 0; p < FUZZ_PEERS; p++)
		do_remove_peer(&t, &peers[p]);
	CHECK(!t.root4 && !t.root6 && wg_allowedips_count(&t) == 0);
	wg_allowedips_deinit(&t);
	return 0;
}
