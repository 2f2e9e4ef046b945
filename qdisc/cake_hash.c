/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Flow and host classification: the isolation mode picks which of the packet's hashes
 * name its queue, then an 8-way set-associative lookup finds (or reserves) a queue, and
 * in dual/triple modes the host slots whose bulk-flow counts scale the flow's quantum.
 */
#include "qdisc/cake_priv.h"

void cake_host_bulk_inc(struct cake_tin *b, const struct cake_flow *flow, enum cake_flow_mode mode)
{
	struct cake_host *src = &b->hosts[flow->srchost];
	struct cake_host *dst = &b->hosts[flow->dsthost];

	if (flow->rehost)
		return;
	if (cake_dsrc(mode) && src->srchost_bulk_flow_count < CAKE_QUEUES)
		src->srchost_bulk_flow_count++;
	if (cake_ddst(mode) && dst->dsthost_bulk_flow_count < CAKE_QUEUES)
		dst->dsthost_bulk_flow_count++;
}

void cake_host_bulk_dec(struct cake_tin *b, const struct cake_flow *flow, enum cake_flow_mode mode)
{
	struct cake_host *src = &b->hosts[flow->srchost];
	struct cake_host *dst = &b->hosts[flow->dsthost];

	if (flow->rehost)
		return;
	if (cake_dsrc(mode) && src->srchost_bulk_flow_count)
		src->srchost_bulk_flow_count--;
	if (cake_ddst(mode) && dst->dsthost_bulk_flow_count)
		dst->dsthost_bulk_flow_count--;
}

/*
 * After a change of isolation (the flow mode, or the hashes peer isolation gives the
 * packets): a queue keeps the host slots it was attached to when it was reserved, so
 * the queues that stay backlogged across the change would go on counting for the old
 * mode's hosts, and the new mode's shares would not hold until they all drained (a
 * lone flow held a fifth of the link instead of half, test_cake_hosts). So every host
 * count and tag is cleared, and each reserved queue is attached again by its next
 * packet, under the new mode, with that packet's hashes; until then it counts for no
 * host. The kernel's cake_change does not do this (its flows keep their hosts).
 */
void cake_hash_rehost(struct cake_tin *b)
{
	unsigned int j;

	for (j = 0; j < CAKE_QUEUES; j++) {
		b->hosts[j] = (struct cake_host){0};
		b->flows[j].rehost = b->flows[j].set != CAKE_SET_NONE;
	}
}

/* The hash that names the packet's queue under an isolation mode. */
static uint32_t queue_hash(const struct cake_pkt *pkt, enum cake_flow_mode mode)
{
	uint32_t hash = 0;

	if (mode & CAKE_FLOW_FLOWS)
		return pkt->flow_hash;
	if (mode & CAKE_FLOW_SRC_IP)
		hash ^= pkt->src_hash;
	if (mode & CAKE_FLOW_DST_IP)
		hash ^= pkt->dst_hash;
	return hash;
}

/*
 * Search the set of `reduced` for the queue of flow_hash, starting at its own way:
 * first a queue already tagged with it, then a free queue, else accept a collision on
 * the home queue. *fresh tells whether the queue's host slots must be (re)assigned.
 */
static uint32_t find_way(struct cake_tin *b, uint32_t flow_hash, uint32_t reduced,
			 enum cake_flow_mode mode, bool *fresh)
{
	uint32_t inner = reduced % CAKE_SET_WAYS;
	uint32_t outer = reduced - inner;
	uint32_t i, k;

	for (i = 0, k = inner; i < CAKE_SET_WAYS; i++, k = (k + 1) % CAKE_SET_WAYS) {
		if (b->tags[outer + k] == flow_hash) {
			if (i)
				b->way_hits++;
			*fresh = !b->flows[outer + k].set || b->flows[outer + k].rehost;
			return outer + k;
		}
	}
	for (i = 0; i < CAKE_SET_WAYS; i++, k = (k + 1) % CAKE_SET_WAYS) {
		if (!b->flows[outer + k].set) {
			b->way_misses++;
			*fresh = true;
			return outer + k;
		}
	}
	/* Every way is busy: take over the home queue and its host accounting. */
	b->way_collisions++;
	if (b->flows[outer + k].set == CAKE_SET_BULK)
		cake_host_bulk_dec(b, &b->flows[outer + k], mode);
	*fresh = true;
	return outer + k;
}

/* The host slot for host_hash: one tagged with it, else a slot with no bulk flows. */
static uint16_t find_src_host(struct cake_tin *b, uint32_t host_hash)
{
	uint32_t idx = host_hash % CAKE_QUEUES;
	uint32_t inner = idx % CAKE_SET_WAYS;
	uint32_t outer = idx - inner;
	uint32_t i, k;

	for (i = 0, k = inner; i < CAKE_SET_WAYS; i++, k = (k + 1) % CAKE_SET_WAYS)
		if (b->hosts[outer + k].srchost_tag == host_hash)
			return (uint16_t)(outer + k);
	for (i = 0; i < CAKE_SET_WAYS; i++, k = (k + 1) % CAKE_SET_WAYS)
		if (!b->hosts[outer + k].srchost_bulk_flow_count)
			break;
	b->hosts[outer + k].srchost_tag = host_hash;
	return (uint16_t)(outer + k);
}

static uint16_t find_dst_host(struct cake_tin *b, uint32_t host_hash)
{
	uint32_t idx = host_hash % CAKE_QUEUES;
	uint32_t inner = idx % CAKE_SET_WAYS;
	uint32_t outer = idx - inner;
	uint32_t i, k;

	for (i = 0, k = inner; i < CAKE_SET_WAYS; i++, k = (k + 1) % CAKE_SET_WAYS)
		if (b->hosts[outer + k].dsthost_tag == host_hash)
			return (uint16_t)(outer + k);
	for (i = 0; i < CAKE_SET_WAYS; i++, k = (k + 1) % CAKE_SET_WAYS)
		if (!b->hosts[outer + k].dsthost_bulk_flow_count)
			break;
	b->hosts[outer + k].dsthost_tag = host_hash;
	return (uint16_t)(outer + k);
}

uint32_t cake_hash_classify(struct cake_tin *b, const struct cake_pkt *pkt,
			    enum cake_flow_mode mode)
{
	uint32_t flow_hash, idx;
	struct cake_flow *flow;
	bool fresh = false;

	if (cake_unlikely(mode == CAKE_FLOW_NONE))
		return 0;

	flow_hash = queue_hash(pkt, mode);
	idx = flow_hash % CAKE_QUEUES;
	if (cake_likely(b->tags[idx] == flow_hash && b->flows[idx].set && !b->flows[idx].rehost)) {
		b->way_directs++;
		return idx;
	}

	idx = find_way(b, flow_hash, idx, mode, &fresh);
	flow = &b->flows[idx];
	b->tags[idx] = flow_hash;
	if (!fresh)
		return idx;

	/* a reserved queue: (re)attach it to its hosts, carrying its bulk count */
	flow->rehost = false;
	if (cake_dsrc(mode)) {
		flow->srchost = find_src_host(b, pkt->src_hash);
		if (flow->set == CAKE_SET_BULK)
			cake_host_bulk_inc(b, flow, CAKE_FLOW_DUAL_SRC);
	}
	if (cake_ddst(mode)) {
		flow->dsthost = find_dst_host(b, pkt->dst_hash);
		if (flow->set == CAKE_SET_BULK)
			cake_host_bulk_inc(b, flow, CAKE_FLOW_DUAL_DST);
	}
	return idx;
}
