/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The flow table is a handful of slots searched linearly: a receive batch rarely carries
 * more than a few TCP flows, and comparing eight keys costs less than hashing one.
 */
#include "src/edge/tun_gro.h"

#include <errno.h>
#include <string.h>

#include "qdisc/gso.h"
#include "src/core/device.h"
#include "src/core/pkt.h"
#include "src/edge/log.h"
#include "src/edge/tun.h"

static void count_write(struct wg_tun_gro *g, int err)
{
	g->stats.writes++;
	if (err)
		g->stats.write_errors++;
}

/* Writes a packet as it is and gives its buffer back. */
static void write_plain(struct wg_tun_gro *g, struct wg_pkt *pkt)
{
	count_write(g, wg_tun_write(g->tun, NULL, pkt->cp.data, pkt->cp.len));
	wg_device_pkt_put(g->dev, pkt);
}

/* After a refused GSO write: the super-packet cut again, one write per segment. */
static void write_segments(struct wg_tun_gro *g, const uint8_t *data, uint32_t len,
			   const struct cake_vnet_hdr *vh)
{
	struct cake_gso_plan plan;
	struct wg_pkt *seg;

	if (cake_gso_plan(data, len, vh, &plan)) {
		g->stats.write_errors++; /* cannot happen: the coalescer built it */
		return;
	}
	seg = wg_device_pkt_get(g->dev, plan.max_seg_len > wg_pkt_room_for_payload(&g->dev->pool));
	if (!seg) {
		g->stats.write_errors++;
		return;
	}
	for (uint32_t i = 0; i < plan.segs; i++) {
		int n = cake_gso_segment(data, len, &plan, i, seg->cp.data,
					 (uint32_t)wg_pkt_room(seg));

		if (n < 0) {
			g->stats.write_errors++;
			break;
		}
		count_write(g, wg_tun_write(g->tun, NULL, seg->cp.data, (size_t)n));
	}
	wg_device_pkt_put(g->dev, seg);
}

static void write_super(struct wg_tun_gro *g, const uint8_t *data, uint32_t len,
			const struct cake_vnet_hdr *cvh)
{
	struct wg_vnet_hdr vh = {cvh->flags,	cvh->gso_type,	 cvh->hdr_len,
				 cvh->gso_size, cvh->csum_start, cvh->csum_offset};
	int err;

	if (!g->gso_ok) {
		write_segments(g, data, len, cvh);
		return;
	}
	err = wg_tun_write(g->tun, &vh, data, len);
	if (err != -EINVAL) {
		count_write(g, err);
		if (!err)
			g->stats.gso_writes++;
		return;
	}
	g->stats.writes++;
	g->stats.gso_refused++;
	g->gso_ok = false;
	g->enabled = false;
	wg_log_err("The TUN device refused a GSO write: receive coalescing is off");
	write_segments(g, data, len, cvh);
}

static void flush_flow(struct wg_tun_gro *g, unsigned int i)
{
	struct wg_tun_gro_flow *f = &g->flows[i];
	struct cake_vnet_hdr vh;
	uint32_t len = cake_gro_finish(&f->gro, &vh);

	if (f->gro.segs > 1)
		write_super(g, f->gro.buf, len, &vh);
	else
		count_write(g, wg_tun_write(g->tun, NULL, f->gro.buf, len));
	wg_device_pkt_put(g->dev, f->pkt);
	f->pkt = NULL;
	g->open &= ~(1u << i);
}

static int find_flow(const struct wg_tun_gro *g, const struct cake_gro_flow *flow)
{
	for (unsigned int i = 0; i < WG_TUN_GRO_FLOWS; i++)
		if ((g->open & (1u << i)) && cake_gro_flow_equal(&g->flows[i].gro.flow, flow))
			return (int)i;
	return -1;
}

/* A free slot, or the one that waited longest, flushed. */
static unsigned int free_slot(struct wg_tun_gro *g)
{
	unsigned int oldest = 0;

	for (unsigned int i = 0; i < WG_TUN_GRO_FLOWS; i++) {
		if (!(g->open & (1u << i)))
			return i;
		if (g->flows[i].used < g->flows[oldest].used)
			oldest = i;
	}
	flush_flow(g, oldest);
	return oldest;
}

/* Moves a flow's super-packet from its first segment's buffer to a large one. */
static bool grow(struct wg_tun_gro *g, struct wg_tun_gro_flow *f)
{
	struct wg_pkt *big;

	if (f->pkt->cap == g->dev->pool_large.cap)
		return false;
	big = wg_device_pkt_get(g->dev, true);
	if (!big)
		return false;
	if (cake_gro_move(&f->gro, big->cp.data, (uint32_t)wg_pkt_room(big))) {
		wg_device_pkt_put(g->dev, big);
		return false;
	}
	wg_device_pkt_put(g->dev, f->pkt);
	f->pkt = big;
	return true;
}

/* Joins the flow's open super-packet; false when pkt must start a new one. */
static bool join(struct wg_tun_gro *g, unsigned int i, struct wg_pkt *pkt,
		 const struct cake_gro_seg *seg)
{
	struct wg_tun_gro_flow *f = &g->flows[i];
	enum cake_gro_add_result r = cake_gro_try_add(&f->gro, pkt->cp.data, pkt->cp.len, seg);

	if (r == CAKE_GRO_NO_ROOM && grow(g, f))
		r = cake_gro_try_add(&f->gro, pkt->cp.data, pkt->cp.len, seg);
	if (r != CAKE_GRO_MERGED) {
		flush_flow(g, i);
		return false;
	}
	g->stats.coalesced++;
	wg_device_pkt_put(g->dev, pkt);
	f->used = ++g->clock;
	if (f->gro.closed)
		flush_flow(g, i);
	return true;
}

static void add_candidate(struct wg_tun_gro *g, struct wg_pkt *pkt, const struct cake_gro_seg *seg)
{
	int found = find_flow(g, &seg->flow);
	unsigned int i;
	struct wg_tun_gro_flow *f;

	if (found >= 0 && join(g, (unsigned int)found, pkt, seg))
		return;
	i = found >= 0 ? (unsigned int)found : free_slot(g);
	f = &g->flows[i];
	/* Start in place: the segment stays in its buffer until another joins. */
	if (cake_gro_start(&f->gro, pkt->cp.data, (uint32_t)wg_pkt_room(pkt), pkt->cp.data,
			   pkt->cp.len, seg) ||
	    f->gro.closed) {
		write_plain(g, pkt);
		return;
	}
	f->pkt = pkt;
	f->used = ++g->clock;
	g->open |= 1u << i;
}

void wg_tun_gro_add(struct wg_tun_gro *g, struct wg_pkt *pkt)
{
	struct cake_gro_seg seg;
	int i;

	g->stats.packets++;
	if (!g->enabled) {
		/* Held super-packets (GRO turned off mid-batch) go first, for flow order. */
		wg_tun_gro_flush(g);
		write_plain(g, pkt);
		return;
	}
	switch (cake_gro_classify(pkt->cp.data, pkt->cp.len, &seg)) {
	case CAKE_GRO_CANDIDATE:
		add_candidate(g, pkt, &seg);
		return;
	case CAKE_GRO_TCP_FLOW:
		i = find_flow(g, &seg.flow);
		if (i >= 0)
			flush_flow(g, (unsigned int)i);
		break;
	case CAKE_GRO_TCP_OTHER:
		wg_tun_gro_flush(g);
		break;
	case CAKE_GRO_NOT_TCP:
		break;
	}
	write_plain(g, pkt);
}

void wg_tun_gro_flush(struct wg_tun_gro *g)
{
	for (unsigned int i = 0; g->open && i < WG_TUN_GRO_FLOWS; i++)
		if (g->open & (1u << i))
			flush_flow(g, i);
}

void wg_tun_gro_set_enabled(struct wg_tun_gro *g, bool on)
{
	if (!on)
		wg_tun_gro_flush(g);
	g->enabled = on && g->tun->vnet_hdr && g->gso_ok;
}

void wg_tun_gro_init(struct wg_tun_gro *g, struct wg_tun *tun, struct wg_device *dev)
{
	memset(g, 0, sizeof(*g));
	g->tun = tun;
	g->dev = dev;
	g->gso_ok = true;
	g->enabled = tun->vnet_hdr;
}

void wg_tun_gro_report(const struct wg_tun_gro *g, struct wg_device_counters *c)
{
	wg_device_counters_set(c, WG_COUNTER_TUN_WRITES, g->stats.writes);
	wg_device_counters_set(c, WG_COUNTER_TUN_GRO_COALESCED, g->stats.coalesced);
	wg_device_counters_set(c, WG_COUNTER_TUN_GSO_WRITES, g->stats.gso_writes);
	wg_device_counters_set(c, WG_COUNTER_TUN_WRITE_ERRORS, g->stats.write_errors);
}
