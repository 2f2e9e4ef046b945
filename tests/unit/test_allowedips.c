/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/allowedips.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tests/support/det_rng.h"

static char peer_a, peer_b, peer_c, peer_d, peer_e, peer_f, peer_g, peer_h;
#define A (&peer_a)
#define B (&peer_b)
#define C (&peer_c)
#define D (&peer_d)
#define E (&peer_e)
#define F (&peer_f)
#define G (&peer_g)
#define H (&peer_h)

struct v4_case {
	void *peer;
	uint8_t ip[4];
	unsigned int cidr;
};

struct v6_case {
	void *peer;
	uint32_t ip[4]; /* four host-order words, most significant first */
	unsigned int cidr;
};

static void v6_bytes(uint8_t out[16], const uint32_t w[4])
{
	for (int i = 0; i < 4; i++) {
		out[4 * i] = (uint8_t)(w[i] >> 24);
		out[4 * i + 1] = (uint8_t)(w[i] >> 16);
		out[4 * i + 2] = (uint8_t)(w[i] >> 8);
		out[4 * i + 3] = (uint8_t)w[i];
	}
}

static void insert4(struct wg_allowedips *t, const struct v4_case *c)
{
	cr_assert_eq(wg_allowedips_insert(t, AF_INET, c->ip, c->cidr, c->peer), 0);
}

static void insert6(struct wg_allowedips *t, const struct v6_case *c)
{
	uint8_t ip[16];

	v6_bytes(ip, c->ip);
	cr_assert_eq(wg_allowedips_insert(t, AF_INET6, ip, c->cidr, c->peer), 0);
}

static void *lookup6(struct wg_allowedips *t, const uint32_t w[4])
{
	uint8_t ip[16];

	v6_bytes(ip, w);
	return wg_allowedips_lookup_v6(t, ip);
}

/*
 * The hand-written cases of Linux drivers/net/wireguard/selftest/allowedips.c
 * (wg_allowedips_selftest): the same inserts, in the same order, and the same expected
 * lookups. Entries marked there "maskself is required" carry host bits.
 */
static const struct v4_case selftest_v4_inserts[] = {
	{A, {192, 168, 4, 0}, 24}, {B, {192, 168, 4, 4}, 32},	{C, {192, 168, 0, 0}, 16},
	{D, {192, 95, 5, 64}, 27}, {C, {192, 95, 5, 65}, 27},	{E, {0, 0, 0, 0}, 0},
	{G, {64, 15, 112, 0}, 20}, {H, {64, 15, 123, 211}, 25}, {A, {10, 0, 0, 0}, 25},
	{B, {10, 0, 0, 128}, 25},  {A, {10, 1, 0, 0}, 30},	{B, {10, 1, 0, 4}, 30},
	{C, {10, 1, 0, 8}, 29},	   {D, {10, 1, 0, 16}, 29},
};

static const struct v6_case selftest_v6_inserts[] = {
	{D, {0x26075300, 0x60006b00, 0, 0xc05f0543}, 128},
	{C, {0x26075300, 0x60006b00, 0, 0}, 64},
	{E, {0, 0, 0, 0}, 0},
	{F, {0, 0, 0, 0}, 0},
	{G, {0x24046800, 0, 0, 0}, 32},
	{H, {0x24046800, 0x40040800, 0xdeadbeef, 0xdeadbeef}, 64},
	{A, {0x24046800, 0x40040800, 0xdeadbeef, 0xdeadbeef}, 128},
	{C, {0x24446800, 0x40e40800, 0xdeaebeef, 0xdefbeef}, 128},
	{B, {0x24446800, 0xf0e40800, 0xeeaebeef, 0}, 98},
};

static const struct v4_case selftest_v4_lookups[] = {
	{A, {192, 168, 4, 20}, 0},    {A, {192, 168, 4, 0}, 0},	  {B, {192, 168, 4, 4}, 0},
	{C, {192, 168, 200, 182}, 0}, {C, {192, 95, 5, 68}, 0},	  {E, {192, 95, 5, 96}, 0},
	{G, {64, 15, 116, 26}, 0},    {G, {64, 15, 127, 3}, 0},	  {G, {64, 15, 123, 1}, 0},
	{H, {64, 15, 123, 128}, 0},   {H, {64, 15, 123, 129}, 0}, {A, {10, 0, 0, 52}, 0},
	{B, {10, 0, 0, 220}, 0},      {A, {10, 1, 0, 2}, 0},	  {B, {10, 1, 0, 6}, 0},
	{C, {10, 1, 0, 10}, 0},	      {D, {10, 1, 0, 20}, 0},
};

static const struct v6_case selftest_v6_lookups[] = {
	{D, {0x26075300, 0x60006b00, 0, 0xc05f0543}, 0},
	{C, {0x26075300, 0x60006b00, 0, 0xc02e01ee}, 0},
	{F, {0x26075300, 0x60006b01, 0, 0}, 0},
	{G, {0x24046800, 0x40040806, 0, 0x1006}, 0},
	{G, {0x24046800, 0x40040806, 0x1234, 0x5678}, 0},
	{F, {0x240467ff, 0x40040806, 0x1234, 0x5678}, 0},
	{F, {0x24046801, 0x40040806, 0x1234, 0x5678}, 0},
	{H, {0x24046800, 0x40040800, 0x1234, 0x5678}, 0},
	{H, {0x24046800, 0x40040800, 0, 0}, 0},
	{H, {0x24046800, 0x40040800, 0x10101010, 0x10101010}, 0},
	{A, {0x24046800, 0x40040800, 0xdeadbeef, 0xdeadbeef}, 0},
};

Test(allowedips, linux_selftest_lookups)
{
	struct wg_allowedips t;

	wg_allowedips_init(&t);
	for (size_t i = 0; i < WG_ARRAY_SIZE(selftest_v4_inserts); i++)
		insert4(&t, &selftest_v4_inserts[i]);
	for (size_t i = 0; i < WG_ARRAY_SIZE(selftest_v6_inserts); i++)
		insert6(&t, &selftest_v6_inserts[i]);
	for (size_t i = 0; i < WG_ARRAY_SIZE(selftest_v4_lookups); i++) {
		const struct v4_case *c = &selftest_v4_lookups[i];

		cr_expect_eq(wg_allowedips_lookup_v4(&t, c->ip), c->peer, "v4 lookup %zu", i);
		cr_expect_eq(wg_allowedips_lookup(&t, AF_INET, c->ip), c->peer, "v4 by family %zu",
			     i);
	}
	for (size_t i = 0; i < WG_ARRAY_SIZE(selftest_v6_lookups); i++) {
		const struct v6_case *c = &selftest_v6_lookups[i];

		cr_expect_eq(lookup6(&t, c->ip), c->peer, "v6 lookup %zu", i);
	}
	/* Two v4 and one v6 insert overwrote an existing prefix. */
	cr_expect_eq(wg_allowedips_count(&t), WG_ARRAY_SIZE(selftest_v4_inserts) - 1 +
						      WG_ARRAY_SIZE(selftest_v6_inserts) - 1);
	wg_allowedips_deinit(&t);
}

Test(allowedips, linux_selftest_remove_by_peer)
{
	static const uint8_t hosts[][4] = {
		{1, 0, 0, 0}, {64, 0, 0, 0}, {128, 0, 0, 0}, {192, 0, 0, 0}, {255, 0, 0, 0},
	};
	static const uint8_t net[4] = {192, 168, 0, 0}, inside[4] = {192, 168, 0, 1};
	struct wg_allowedips t;

	wg_allowedips_init(&t);
	for (size_t i = 0; i < WG_ARRAY_SIZE(selftest_v4_inserts); i++)
		insert4(&t, &selftest_v4_inserts[i]);
	for (size_t i = 0; i < WG_ARRAY_SIZE(hosts); i++)
		cr_assert_eq(wg_allowedips_insert(&t, AF_INET, hosts[i], 32, A), 0);
	wg_allowedips_remove_by_peer(&t, A);
	for (size_t i = 0; i < WG_ARRAY_SIZE(hosts); i++)
		cr_expect_neq(wg_allowedips_lookup_v4(&t, hosts[i]), A, "host %zu", i);
	cr_expect_eq(wg_allowedips_peer_count(&t, A), 0);
	/* Other peers keep theirs: 10.0.0.220 is B's, and 192.168.4.20 falls back to C. */
	cr_expect_eq(wg_allowedips_lookup_v4(&t, (uint8_t[]){10, 0, 0, 220}), B);
	cr_expect_eq(wg_allowedips_lookup_v4(&t, (uint8_t[]){192, 168, 4, 20}), C);
	wg_allowedips_deinit(&t);

	/* A nested pair owned by one peer. */
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, net, 16, A), 0);
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, net, 24, A), 0);
	wg_allowedips_remove_by_peer(&t, A);
	cr_expect_null(wg_allowedips_lookup_v4(&t, inside));
	cr_expect_null(t.root4, "an emptied trie frees every node");
	cr_expect_eq(wg_allowedips_count(&t), 0);
	wg_allowedips_deinit(&t);
}

/* From the Linux selftest: 128 host routes that each differ in one bit, the deepest trie. */
Test(allowedips, deepest_trie)
{
	struct wg_allowedips t;
	uint8_t ip[16];

	wg_allowedips_init(&t);
	for (unsigned int i = 0; i < 128; i++) {
		memset(ip, 0xff, sizeof(ip));
		ip[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
		cr_assert_eq(wg_allowedips_insert(&t, AF_INET6, ip, 128, A), 0);
	}
	cr_expect_eq(wg_allowedips_count(&t), 128);
	for (unsigned int i = 0; i < 128; i++) {
		memset(ip, 0xff, sizeof(ip));
		ip[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
		cr_expect_eq(wg_allowedips_lookup_v6(&t, ip), A, "host %u", i);
	}
	memset(ip, 0xff, sizeof(ip));
	cr_expect_null(wg_allowedips_lookup_v6(&t, ip), "all-ones is not among them");
	wg_allowedips_deinit(&t);
}

struct collected {
	struct wg_allowedip ips[16];
	size_t n;
	size_t stop_after;
};

static int collect(void *ctx, const struct wg_allowedip *ip)
{
	struct collected *c = ctx;

	cr_assert_lt(c->n, WG_ARRAY_SIZE(c->ips));
	c->ips[c->n++] = *ip;
	return c->n == c->stop_after ? 7 : 0;
}

static void expect_ip(const struct wg_allowedip *ip, int family, const uint8_t *addr,
		      unsigned int cidr, size_t at)
{
	cr_expect_eq(ip->family, family, "family at %zu", at);
	cr_expect_eq(ip->cidr, cidr, "cidr at %zu", at);
	cr_expect_arr_eq(ip->addr, addr, family == AF_INET ? 4 : 16, "address at %zu", at);
}

/* The Linux selftest's walk case: host bits come back masked off, every prefix once. */
Test(allowedips, walk_masks_and_keeps_insertion_order)
{
	static const struct v4_case v4[] = {
		{A, {192, 95, 5, 93}, 27},
		{A, {10, 1, 0, 20}, 29},
	};
	static const struct v6_case v6[] = {
		{A, {0x26075300, 0x60006b00, 0, 0xc05f0543}, 128},
		{A, {0x26075300, 0x6d8a6bf8, 0xdab1f1df, 0xc05f1523}, 83},
		{A, {0x26075300, 0x6d8a6bf8, 0xdab1f1df, 0xc05f1523}, 21},
	};
	static const uint32_t want_b[4] = {0x26075300, 0x60006b00, 0, 0xc05f0543};
	static const uint32_t want_d[4] = {0x26075300, 0x6d8a6bf8, 0xdab1e000, 0};
	static const uint32_t want_e[4] = {0x26075000, 0, 0, 0};
	struct collected got = {.n = 0};
	struct wg_allowedips t;
	uint8_t b[16], d[16], e[16];

	v6_bytes(b, want_b);
	v6_bytes(d, want_d);
	v6_bytes(e, want_e);
	wg_allowedips_init(&t);
	insert4(&t, &v4[0]);
	insert6(&t, &v6[0]);
	insert4(&t, &v4[1]);
	insert6(&t, &v6[1]);
	insert6(&t, &v6[2]);
	insert4(&t, &(struct v4_case){B, {10, 0, 0, 0}, 8});
	cr_assert_eq(wg_allowedips_walk_peer(&t, A, collect, &got), 0);
	cr_assert_eq(got.n, 5);
	expect_ip(&got.ips[0], AF_INET, (uint8_t[]){192, 95, 5, 64}, 27, 0);
	expect_ip(&got.ips[1], AF_INET6, b, 128, 1);
	expect_ip(&got.ips[2], AF_INET, (uint8_t[]){10, 1, 0, 16}, 29, 2);
	expect_ip(&got.ips[3], AF_INET6, d, 83, 3);
	expect_ip(&got.ips[4], AF_INET6, e, 21, 4);

	/* Re-inserting moves a prefix to the end of its peer's order, as in Linux. */
	insert4(&t, &v4[0]);
	got.n = 0;
	cr_assert_eq(wg_allowedips_walk_peer(&t, A, collect, &got), 0);
	cr_assert_eq(got.n, 5);
	expect_ip(&got.ips[0], AF_INET6, b, 128, 0);
	expect_ip(&got.ips[4], AF_INET, (uint8_t[]){192, 95, 5, 64}, 27, 4);

	/* A non-zero return stops the walk and comes back. */
	got = (struct collected){.stop_after = 2};
	cr_expect_eq(wg_allowedips_walk_peer(&t, A, collect, &got), 7);
	cr_expect_eq(got.n, 2);
	got = (struct collected){.n = 0};
	cr_expect_eq(wg_allowedips_walk_peer(&t, C, collect, &got), 0);
	cr_expect_eq(got.n, 0, "a peer without prefixes walks nothing");
	wg_allowedips_deinit(&t);
}

Test(allowedips, overwrite_moves_prefix_between_peers)
{
	static const uint8_t net[4] = {10, 9, 0, 0}, host[4] = {10, 9, 8, 7};
	struct collected got = {.n = 0};
	struct wg_allowedips t;

	wg_allowedips_init(&t);
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, net, 16, A), 0);
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, host, 16, B), 0);
	cr_expect_eq(wg_allowedips_lookup_v4(&t, host), B);
	cr_expect_eq(wg_allowedips_count(&t), 1);
	cr_expect_eq(wg_allowedips_peer_count(&t, A), 0);
	cr_expect_eq(wg_allowedips_peer_count(&t, B), 1);
	cr_expect_eq(wg_allowedips_walk_peer(&t, A, collect, &got), 0);
	cr_expect_eq(got.n, 0);
	wg_allowedips_deinit(&t);
}

Test(allowedips, remove_only_the_owners_exact_prefix)
{
	static const uint8_t net[4] = {172, 16, 0, 0}, host[4] = {172, 16, 5, 9};
	struct wg_allowedips t;

	wg_allowedips_init(&t);
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, net, 12, A), 0);
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, net, 16, B), 0);

	/* Wrong peer, wrong length, absent prefix: nothing changes, and it is not an error. */
	cr_expect_eq(wg_allowedips_remove(&t, AF_INET, net, 16, A), 0);
	cr_expect_eq(wg_allowedips_remove(&t, AF_INET, net, 20, B), 0);
	cr_expect_eq(wg_allowedips_remove(&t, AF_INET6, (uint8_t[16]){172, 16}, 16, B), 0);
	cr_expect_eq(wg_allowedips_lookup_v4(&t, host), B);
	cr_expect_eq(wg_allowedips_count(&t), 2);

	/* The owner removes it, host bits notwithstanding; the shorter prefix shows through. */
	cr_expect_eq(wg_allowedips_remove(&t, AF_INET, host, 16, B), 0);
	cr_expect_eq(wg_allowedips_lookup_v4(&t, host), A);
	cr_expect_eq(wg_allowedips_count(&t), 1);
	cr_expect_eq(wg_allowedips_remove(&t, AF_INET, host, 12, A), 0);
	cr_expect_null(wg_allowedips_lookup_v4(&t, host));
	cr_expect_null(t.root4);
	cr_expect_eq(wg_allowedips_count(&t), 0);
	wg_allowedips_deinit(&t);
}

Test(allowedips, zero_length_prefixes_cover_everything)
{
	static const uint8_t any4[4] = {0}, any6[16] = {0};
	static const uint8_t some4[4] = {203, 0, 113, 9};
	uint8_t some6[16];
	struct wg_allowedips t;

	memset(some6, 0xa5, sizeof(some6));
	wg_allowedips_init(&t);
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, some4, 0, A), 0, "host bits of a /0");
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET6, any6, 0, B), 0);
	cr_expect_eq(wg_allowedips_lookup_v4(&t, any4), A);
	cr_expect_eq(wg_allowedips_lookup_v4(&t, (uint8_t[]){255, 255, 255, 255}), A);
	cr_expect_eq(wg_allowedips_lookup_v6(&t, some6), B);
	cr_expect_null(wg_allowedips_lookup(&t, AF_UNIX, any6));
	cr_expect_eq(wg_allowedips_remove(&t, AF_INET, any4, 0, A), 0);
	cr_expect_null(wg_allowedips_lookup_v4(&t, some4));
	cr_expect_eq(wg_allowedips_lookup_v6(&t, some6), B, "families are separate");
	wg_allowedips_deinit(&t);
}

Test(allowedips, bad_arguments_are_rejected)
{
	static const uint8_t ip[16] = {10};
	static const struct {
		int family;
		unsigned int cidr;
		bool null_peer;
	} bad[] = {
		{AF_INET, 33, false},	{AF_INET, 255, false},	 {AF_INET, 256, false},
		{AF_INET6, 129, false}, {AF_INET6, 1000, false}, {AF_UNIX, 8, false},
		{0, 0, false},		{AF_INET, 8, true},	 {AF_INET6, 64, true},
	};
	struct wg_allowedips t;

	wg_allowedips_init(&t);
	cr_assert_eq(wg_allowedips_insert(&t, AF_INET, ip, 8, A), 0);
	for (size_t i = 0; i < WG_ARRAY_SIZE(bad); i++) {
		void *peer = bad[i].null_peer ? NULL : B;

		cr_expect_eq(wg_allowedips_insert(&t, bad[i].family, ip, bad[i].cidr, peer),
			     -EINVAL, "insert case %zu", i);
		cr_expect_eq(wg_allowedips_remove(&t, bad[i].family, ip, bad[i].cidr, peer),
			     -EINVAL, "remove case %zu", i);
	}
	cr_expect_eq(wg_allowedips_insert(&t, AF_INET, NULL, 8, B), -EINVAL);
	cr_expect_eq(wg_allowedips_count(&t), 1);
	cr_expect_eq(wg_allowedips_lookup_v4(&t, ip), A);
	wg_allowedips_remove_by_peer(&t, NULL);
	cr_expect_eq(wg_allowedips_count(&t), 1);
	wg_allowedips_deinit(&t);
}

/* ---- A deliberately naive model (Linux's horrible_allowedips), checked against the trie. */

enum {
	MODEL_MAX = 32768,
	NUM_PEERS = 97,
};

struct model_entry {
	int family;
	uint8_t addr[16];
	uint8_t cidr;
	void *peer;
};

struct model {
	struct model_entry e[MODEL_MAX]; /* in each peer's insertion order */
	size_t n;
};

static bool covers(const uint8_t *net, unsigned int cidr, const uint8_t *addr)
{
	unsigned int whole = cidr / 8, rest = cidr % 8;
	uint8_t m = (uint8_t)(0xff00u >> rest);

	return !memcmp(net, addr, whole) && (!rest || (net[whole] & m) == (addr[whole] & m));
}

static void mask_bytes(uint8_t *addr, unsigned int cidr, size_t len)
{
	for (size_t i = 0; i < len * 8; i++) {
		if (i >= cidr)
			addr[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
	}
}

static long model_find(const struct model *m, int family, const uint8_t *addr, uint8_t cidr)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct model_entry *e = &m->e[i];

		if (e->family == family && e->cidr == cidr &&
		    !memcmp(e->addr, addr, family == AF_INET ? 4 : 16))
			return (long)i;
	}
	return -1;
}

static void model_delete(struct model *m, size_t i)
{
	memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(m->e[0]));
	m->n--;
}

static void model_insert(struct model *m, int family, const uint8_t *addr, uint8_t cidr, void *peer)
{
	struct model_entry e = {.family = family, .cidr = cidr, .peer = peer};
	size_t len = family == AF_INET ? 4 : 16;
	long at;

	memcpy(e.addr, addr, len);
	mask_bytes(e.addr, cidr, len);
	at = model_find(m, family, e.addr, cidr);
	if (at >= 0)
		model_delete(m, (size_t)at);
	cr_assert_lt(m->n, MODEL_MAX);
	m->e[m->n++] = e;
}

static void model_remove(struct model *m, int family, const uint8_t *addr, uint8_t cidr, void *peer)
{
	uint8_t masked[16] = {0};
	size_t len = family == AF_INET ? 4 : 16;
	long at;

	memcpy(masked, addr, len);
	mask_bytes(masked, cidr, len);
	at = model_find(m, family, masked, cidr);
	if (at >= 0 && m->e[at].peer == peer)
		model_delete(m, (size_t)at);
}

static void model_remove_peer(struct model *m, void *peer)
{
	for (size_t i = m->n; i-- > 0;) {
		if (m->e[i].peer == peer)
			model_delete(m, i);
	}
}

static void *model_lookup(const struct model *m, int family, const uint8_t *addr)
{
	const struct model_entry *best = NULL;

	for (size_t i = 0; i < m->n; i++) {
		const struct model_entry *e = &m->e[i];

		if (e->family == family && (!best || e->cidr > best->cidr) &&
		    covers(e->addr, e->cidr, addr))
			best = e;
	}
	return best ? best->peer : NULL;
}

struct walk_check {
	const struct model *m;
	void *peer;
	size_t next; /* index into m->e to resume the search from */
	bool ok;
};

static int walk_matches_model(void *ctx, const struct wg_allowedip *ip)
{
	struct walk_check *w = ctx;
	const struct model *m = w->m;

	while (w->next < m->n && m->e[w->next].peer != w->peer)
		w->next++;
	if (w->next == m->n) {
		w->ok = false;
		return 1;
	}
	const struct model_entry *e = &m->e[w->next++];
	if (e->family != ip->family || e->cidr != ip->cidr ||
	    memcmp(e->addr, ip->addr, sizeof(ip->addr)))
		w->ok = false;
	return 0;
}

struct random_run {
	struct wg_allowedips t;
	struct model m;
	struct det_rng rng;
	char peers[NUM_PEERS];
	unsigned int cidr_div; /* prefix lengths are drawn from 0..bits / cidr_div */
};

static unsigned int rnd(struct random_run *r, unsigned int below)
{
	return (unsigned int)(det_rng_next(&r->rng) % below);
}

/* An address near an existing prefix half the time, so that prefixes nest and split. */
static void random_addr(struct random_run *r, int family, uint8_t *addr)
{
	size_t len = family == AF_INET ? 4 : 16;
	const struct model_entry *e;
	unsigned int keep;

	det_rng_fill(&r->rng, addr, len);
	if (!r->m.n || rnd(r, 2))
		return;
	e = &r->m.e[rnd(r, (unsigned int)r->m.n)];
	if (e->family != family)
		return;
	keep = rnd(r, (unsigned int)len * 8 + 1);
	for (unsigned int i = 0; i < keep; i++) {
		unsigned int m = 0x80u >> (i % 8);

		addr[i / 8] = (uint8_t)((addr[i / 8] & ~m) | (e->addr[i / 8] & m));
	}
}

static void check_agreement(struct random_run *r, int family, unsigned int lookups)
{
	uint8_t addr[16];

	for (unsigned int i = 0; i < lookups; i++) {
		random_addr(r, family, addr);
		cr_assert_eq(wg_allowedips_lookup(&r->t, family, addr),
			     model_lookup(&r->m, family, addr), "lookup %u disagrees", i);
	}
	cr_assert_eq(wg_allowedips_count(&r->t), r->m.n);
	for (int p = 0; p < NUM_PEERS; p++) {
		struct walk_check w = {.m = &r->m, .peer = &r->peers[p], .ok = true};
		size_t want = 0;

		for (size_t i = 0; i < r->m.n; i++)
			want += r->m.e[i].peer == &r->peers[p];
		cr_assert_eq(wg_allowedips_peer_count(&r->t, &r->peers[p]), want);
		cr_assert_eq(wg_allowedips_walk_peer(&r->t, &r->peers[p], walk_matches_model, &w),
			     0);
		cr_assert(w.ok, "walk of peer %d disagrees with the model", p);
	}
}

static void random_op(struct random_run *r, int family)
{
	unsigned int bits = family == AF_INET ? 32 : 128, op = rnd(r, 100);
	void *peer = &r->peers[rnd(r, NUM_PEERS)];
	uint8_t addr[16];
	uint8_t cidr;

	if (op < 70 || !r->m.n) { /* insert, sometimes an overwrite */
		random_addr(r, family, addr);
		cidr = (uint8_t)rnd(r, bits / r->cidr_div + 1);
		cr_assert_eq(wg_allowedips_insert(&r->t, family, addr, cidr, peer), 0);
		model_insert(&r->m, family, addr, cidr, peer);
	} else if (op < 85) { /* re-insert an existing prefix (overwrite) */
		const struct model_entry *e = &r->m.e[rnd(r, (unsigned int)r->m.n)];
		struct model_entry copy = *e;

		cr_assert_eq(wg_allowedips_insert(&r->t, copy.family, copy.addr, copy.cidr, peer),
			     0);
		model_insert(&r->m, copy.family, copy.addr, copy.cidr, peer);
	} else if (op < 99) { /* remove an existing prefix, by its owner or by another */
		const struct model_entry *e = &r->m.e[rnd(r, (unsigned int)r->m.n)];
		struct model_entry copy = *e;

		if (rnd(r, 3))
			peer = copy.peer;
		cr_assert_eq(wg_allowedips_remove(&r->t, copy.family, copy.addr, copy.cidr, peer),
			     0);
		model_remove(&r->m, copy.family, copy.addr, copy.cidr, peer);
	} else {
		wg_allowedips_remove_by_peer(&r->t, peer);
		model_remove_peer(&r->m, peer);
	}
}

/* Both families share one table and one model, so cross-family mix-ups show too. */
static void random_run(uint64_t seed, unsigned int ops_per_family, unsigned int rounds,
		       unsigned int lookups, unsigned int cidr_div)
{
	static struct random_run r;

	memset(&r, 0, sizeof(r));
	r.rng.state = seed;
	r.cidr_div = cidr_div;
	wg_allowedips_init(&r.t);
	for (unsigned int round = 0; round < rounds; round++) {
		for (unsigned int i = 0; i < ops_per_family; i++) {
			random_op(&r, AF_INET);
			random_op(&r, AF_INET6);
		}
		check_agreement(&r, AF_INET, lookups);
		check_agreement(&r, AF_INET6, lookups);
	}
	for (int p = 0; p < NUM_PEERS; p++) {
		wg_allowedips_remove_by_peer(&r.t, &r.peers[p]);
		model_remove_peer(&r.m, &r.peers[p]);
		if (p % 16 == 0) {
			check_agreement(&r, AF_INET, 200);
			check_agreement(&r, AF_INET6, 200);
		}
	}
	cr_expect_eq(wg_allowedips_count(&r.t), 0);
	cr_expect_null(r.t.root4, "removing every peer frees every v4 node");
	cr_expect_null(r.t.root6, "removing every peer frees every v6 node");
	wg_allowedips_deinit(&r.t);
}

/*
 * Per family: 10 rounds x 1,500 ops (about 10,500 fresh inserts, 2,250 overwrites, 2,100
 * removals, 150 peer removals) and 10,000 lookups checked against the model.
 */
Test(allowedips, agrees_with_naive_model, .timeout = 60)
{
	random_run(0x5eed0001, 1500, 10, 1000, 1);
}

/* Prefixes of at most 8 (v4) or 32 (v6) bits: dense, deeply nested, many overwrites. */
Test(allowedips, agrees_with_naive_model_short_prefixes, .timeout = 60)
{
	random_run(0xa110ed1b5ULL, 1000, 5, 1000, 4);
}
