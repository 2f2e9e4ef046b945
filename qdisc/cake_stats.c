/* SPDX-License-Identifier: GPL-2.0-only */
/* Statistics snapshots, as the kernel's cake_dump_stats and cake_dump_class_stats. */
#include "qdisc/cake.h"

#include <errno.h>
#include <string.h>

#include "qdisc/cake_priv.h"

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint32_t ns_to_us(uint64_t ns)
{
	return clamp32(ns / CAKE_NS_PER_US);
}

static void fill_tin(const struct cake_tin *b, struct cake_tin_stats *t)
{
	t->threshold_rate = b->rate.bytes_per_sec;
	t->sent_bytes = b->bytes;
	t->backlog_bytes = b->tin_backlog;
	t->backlog_packets = b->tin_backlog_pkts;
	t->target_us = ns_to_us(b->cparams.target_ns);
	t->interval_us = ns_to_us(b->cparams.interval_ns);
	t->peak_delay_us = ns_to_us(b->peak_delay);
	t->avg_delay_us = ns_to_us(b->avge_delay);
	t->base_delay_us = ns_to_us(b->base_delay);
	t->sent_packets = b->packets;
	t->way_indirect_hits = b->way_hits;
	t->way_misses = b->way_misses;
	t->way_collisions = b->way_collisions;
	t->way_directs = b->way_directs;
	t->drops = b->tin_dropped;
	t->ecn_mark = b->tin_ecn_mark;
	t->ack_drops = b->ack_drops;
	t->sparse_flows = (uint32_t)b->sparse_flow_count + b->decaying_flow_count;
	t->bulk_flows = b->bulk_flow_count;
	t->unresponsive_flows = b->unresponsive_flow_count;
	t->max_pkt_len = b->max_skblen;
	t->flow_quantum = b->flow_quantum;
	t->drop_overlimit = b->drop_overlimit;
}

void cake_get_stats(const struct cake *q, struct cake_stats *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->sent_bytes = q->sent_bytes;
	out->sent_packets = q->sent_packets;
	out->dropped = q->drops;
	out->overlimits = q->overlimits;
	out->shaper_late = q->shaper_late;
	out->shaper_late_ns = q->shaper_late_ns;
	out->backlog_bytes = clamp32(q->backlog);
	out->backlog_packets = q->qlen;

	out->memory_used = clamp32(q->buffer_max_used);
	out->memory_limit = clamp32(q->buffer_limit);
	out->memory_in_use = clamp32(q->buffer_used);
	out->capacity_estimate = q->avg_peak_bandwidth;
	out->min_network_size = q->min_netlen;
	out->max_network_size = q->max_netlen;
	out->min_adj_size = q->min_adjlen;
	out->max_adj_size = q->max_adjlen;
	out->avg_hdr_offset = (q->avg_netoff + 0x8000) >> 16;

	out->diffserv = q->cfg.diffserv;
	out->tin_count = q->tin_cnt;
	for (i = 0; i < q->tin_cnt; i++)
		fill_tin(&q->tins[q->tin_order[i]], &out->tins[i]);
}

int cake_get_flow_stats(const struct cake *q, unsigned int column, unsigned int queue,
			uint64_t now_ns, struct cake_flow_stats *out)
{
	const struct cake_tin *b;
	const struct cake_flow *flow;
	const struct cake_pkt *p;

	if (column >= q->tin_cnt)
		return -ENOENT;
	if (queue >= CAKE_QUEUES)
		return -EINVAL;
	b = &q->tins[q->tin_order[column]];
	flow = &b->flows[queue];

	memset(out, 0, sizeof(*out));
	for (p = flow->head; p; p = p->next)
		out->qlen++;
	out->backlog_bytes = b->backlogs[queue];
	out->drops = flow->dropped;
	out->deficit = flow->deficit;
	out->cobalt_count = flow->cvars.count;
	out->dropping = flow->cvars.dropping;
	out->p_drop = flow->cvars.p_drop;
	if (flow->cvars.dropping)
		out->drop_next_us =
			cake_tdiff(now_ns, flow->cvars.drop_next_ns) / (int64_t)CAKE_NS_PER_US;
	if (flow->cvars.p_drop)
		out->blue_timer_us =
			cake_tdiff(now_ns, flow->cvars.blue_timer_ns) / (int64_t)CAKE_NS_PER_US;
	out->active = flow->set != CAKE_SET_NONE;
	return 0;
}
