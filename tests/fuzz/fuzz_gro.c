/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the TCP coalescer. Input: one mode byte, then records of a
 * little-endian 16-bit length and that many packet bytes, each copied to a buffer of
 * exactly its size. The packets go through one coalescer as the TUN batcher would feed
 * it: classify, join the open super-packet or finish it and start anew. Mode bit 0
 * starts every super-packet in place (in a buffer of the first segment's size), so
 * joins go through CAKE_GRO_NO_ROOM and cake_gro_move().
 *
 * The oracle: a finished super-packet of several segments must plan under its own
 * virtio header, and cutting it with cake_gso_segment() must give back every merged
 * segment byte for byte, the TCP checksum field aside (it is not verified on merge);
 * a single segment must come back untouched.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/gro.h"
#include "qdisc/gso.h"
#include "qdisc/tcp_wire.h"

enum {
	MAX_HELD = 2048,
	BIG_BYTES = 65536,
	MODE_IN_PLACE = 1,
};

struct held {
	const uint8_t *pkt;
	uint32_t len;
};

static struct held held[MAX_HELD];
static uint32_t n_held;
static uint8_t big[BIG_BYTES], seg[BIG_BYTES];
static uint8_t *first_copy; /* in-place mode: the buffer the super-packet started in */

static bool same_but_check(const uint8_t *a, const uint8_t *b, uint32_t len, uint32_t field)
{
	for (uint32_t i = 0; i < len; i++)
		if (a[i] != b[i] && i != field && i != field + 1)
			return false;
	return true;
}

static void check_finished(struct cake_gro *g)
{
	struct cake_vnet_hdr vh;
	struct cake_gso_plan plan;
	uint32_t len = cake_gro_finish(g, &vh);

	if (len != g->len || g->segs != n_held)
		__builtin_trap();
	if (g->segs == 1) {
		if (vh.gso_type || vh.flags || len != held[0].len ||
		    memcmp(g->buf, held[0].pkt, len))
			__builtin_trap();
		return;
	}
	if (cake_gso_plan(g->buf, len, &vh, &plan) || plan.segs != n_held ||
	    plan.hdr_len != g->hdr_len || len > CAKE_GRO_MAX_BYTES)
		__builtin_trap();
	for (uint32_t i = 0; i < plan.segs; i++) {
		int n = cake_gso_segment(g->buf, len, &plan, i, seg, sizeof(seg));

		if (n < 0 || (uint32_t)n != held[i].len ||
		    !same_but_check(seg, held[i].pkt, held[i].len,
				    (uint32_t)g->l4_offset + CAKE_TCP_CHECK_OFFSET))
			__builtin_trap();
	}
}

static void close_open(struct cake_gro *g, bool *open)
{
	if (*open)
		check_finished(g);
	*open = false;
	n_held = 0;
	free(first_copy);
	first_copy = NULL;
}

static void start(struct cake_gro *g, bool *open, const uint8_t *pkt, uint32_t len,
		  const struct cake_gro_seg *s, bool in_place)
{
	uint8_t *buf = big;
	uint32_t cap = sizeof(big);

	if (in_place) {
		first_copy = malloc(len);
		memcpy(first_copy, pkt, len);
		buf = first_copy;
		cap = len;
	}
	if (cake_gro_start(g, buf, cap, in_place ? buf : pkt, len, s))
		__builtin_trap(); /* every candidate starts */
	held[0] = (struct held){pkt, len};
	n_held = 1;
	*open = true;
	if (g->closed)
		close_open(g, open);
}

static enum cake_gro_add_result add(struct cake_gro *g, const uint8_t *pkt, uint32_t len,
				    const struct cake_gro_seg *s)
{
	enum cake_gro_add_result r = cake_gro_try_add(g, pkt, len, s);

	if (r == CAKE_GRO_NO_ROOM) {
		if (g->buf == big || cake_gro_move(g, big, sizeof(big)))
			__builtin_trap();
		r = cake_gro_try_add(g, pkt, len, s);
		if (r != CAKE_GRO_MERGED)
			__builtin_trap();
	}
	return r;
}

static void feed(struct cake_gro *g, bool *open, const uint8_t *pkt, uint32_t len, bool in_place)
{
	struct cake_gro_seg s;
	enum cake_gro_class c = cake_gro_classify(pkt, len, &s);

	if (c != CAKE_GRO_CANDIDATE) {
		if (c == CAKE_GRO_TCP_OTHER ||
		    (c == CAKE_GRO_TCP_FLOW && *open && cake_gro_flow_equal(&g->flow, &s.flow)))
			close_open(g, open);
		return;
	}
	if (*open && n_held < MAX_HELD) {
		enum cake_gro_add_result r = add(g, pkt, len, &s);

		if (r == CAKE_GRO_MERGED) {
			held[n_held++] = (struct held){pkt, len};
			if (g->closed)
				close_open(g, open);
			return;
		}
	}
	close_open(g, open);
	start(g, open, pkt, len, &s, in_place);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *pkts[MAX_HELD + 1];
	uint32_t n_pkts = 0;
	struct cake_gro g;
	bool open = false, in_place;
	size_t off = 1;

	if (size < 1)
		return 0;
	in_place = data[0] & MODE_IN_PLACE;
	while (off + 2 <= size && n_pkts < MAX_HELD) {
		uint32_t len = (uint32_t)(data[off] | data[off + 1] << 8);

		off += 2;
		if (len > size - off)
			len = (uint32_t)(size - off);
		pkts[n_pkts] = malloc(len ? len : 1);
		memcpy(pkts[n_pkts], data + off, len);
		off += len;
		feed(&g, &open, pkts[n_pkts++], len, in_place);
	}
	close_open(&g, &open);
	for (uint32_t i = 0; i < n_pkts; i++)
		free(pkts[i]);
	return 0;
}
