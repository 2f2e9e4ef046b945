/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/egress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "crypto/ct.h"
#include "qdisc/ackfilter.h"
#include "qdisc/cake_parse.h"
#include "qdisc/ecn.h"
#include "qdisc/flowkey.h"
#include "src/core/device.h"
#include "src/core/keypair.h"

static void op_drop(void *ctx, struct cake_pkt *cp, enum cake_drop_reason reason)
{
	struct wg_egress *eg = ctx;
	struct wg_pkt *pkt = wg_pkt_of(cp);
	struct wg_peer *peer = pkt->peer;

	(void)reason;
	eg->stats.dropped++;
	if (peer) {
		peer->stats.egress_drops++;
		wg_peer_put(peer);
	}
	wg_device_pkt_put(eg->dev, pkt);
}

static void op_set_ce(void *ctx, struct cake_pkt *cp)
{
	struct wg_egress *eg = ctx;

	if (cake_ecn_set_ce(cp->data, cp->len)) {
		cp->ecn = CAKE_ECN_CE;
		eg->stats.marked++;
	}
}

/* wash: clear the inner DSCP after tin selection (ECN stays; checksum fixed). */
static void op_wash(void *ctx, struct cake_pkt *cp)
{
	(void)ctx;
	if (cake_ecn_set_dscp(cp->data, cp->len, 0))
		cp->dscp = 0;
}

static struct cake_pkt *op_ack_filter(void *ctx, struct cake_pkt *head, const struct cake_pkt *cp,
				      enum cake_ack_filter_mode mode)
{
	struct cake_pkt *prev;

	(void)ctx;
	return cake_ack_filter(head, cp, mode, &prev);
}

/* Bytes on the wire for one inner packet of len bytes to this peer. */
static uint32_t wire_len(const struct wg_peer *peer, uint32_t len, uint32_t mtu)
{
	return (uint32_t)wg_keypair_padded_len(len, mtu) + MESSAGE_MINIMUM_LENGTH +
	       wg_outer_hdr_len(peer->endpoint.remote.addr.sa_family);
}

/* The sum over the segments a super-packet will be cut into: all but the last alike. */
static uint32_t gso_wire_len(const struct wg_peer *peer, const struct cake_gso_plan *plan,
			     uint32_t mtu)
{
	uint32_t last = plan->segs - 1;

	return last * wire_len(peer, cake_gso_seg_len(plan, 0), mtu) +
	       wire_len(peer, cake_gso_seg_len(plan, last), mtu);
}

/* Frees a list of segments made by wg_egress_segment (each holds a peer reference). */
static void free_segments(struct wg_egress *eg, struct wg_pkt *seg)
{
	while (seg) {
		struct wg_pkt *next = seg->cp.next ? wg_pkt_of(seg->cp.next) : NULL;

		wg_peer_put(seg->peer);
		wg_device_pkt_put(eg->dev, seg);
		seg = next;
	}
}

struct wg_pkt *wg_egress_segment(struct wg_egress *eg, struct wg_pkt *pkt)
{
	struct wg_pkt *head = NULL, *tail = NULL;

	for (uint32_t i = 0; i < pkt->gso.segs; i++) {
		struct wg_pkt *seg = wg_device_pkt_get(eg->dev, false);
		int n;

		if (!seg) {
			free_segments(eg, head);
			return NULL;
		}
		n = cake_gso_segment(pkt->cp.data, pkt->cp.len, &pkt->gso, i, seg->cp.data,
				     wg_pkt_payload_room(seg));
		if (n < 0) {
			wg_device_pkt_put(eg->dev, seg);
			free_segments(eg, head);
			return NULL;
		}
		seg->cp.len = (uint32_t)n;
		seg->cp.flow_hash = pkt->cp.flow_hash;
		seg->cp.src_hash = pkt->cp.src_hash;
		seg->cp.dst_hash = pkt->cp.dst_hash;
		seg->cp.dscp = pkt->cp.dscp;
		seg->cp.ecn = pkt->cp.ecn;
		seg->cp.mark = pkt->cp.mark;
		seg->cp.flags = pkt->cp.flags;
		seg->cp.l4_offset = pkt->cp.l4_offset;
		seg->cp.l4_hdr_len = pkt->cp.l4_hdr_len;
		seg->cp.gso_segs = 1;
		seg->cp.wire_len = wire_len(pkt->peer, seg->cp.len, eg->dev->mtu);
		seg->peer = pkt->peer;
		wg_peer_get(seg->peer);
		if (tail)
			tail->cp.next = &seg->cp;
		else
			head = seg;
		tail = seg;
	}
	return head;
}

/* split-gso: CAKE cuts a super-packet at enqueue; each segment becomes a CAKE packet. */
static struct cake_pkt *op_split_gso(void *ctx, struct cake_pkt *cp)
{
	struct wg_egress *eg = ctx;
	struct wg_pkt *pkt = wg_pkt_of(cp);
	struct wg_pkt *segs = wg_egress_segment(eg, pkt);

	if (!segs)
		return NULL;
	wg_peer_put(pkt->peer);
	wg_device_pkt_put(eg->dev, pkt);
	return &segs->cp;
}

static const struct cake_ops egress_ops = {
	.drop = op_drop,
	.set_ce = op_set_ce,
	.wash = op_wash,
	.ack_filter = op_ack_filter,
	.split_gso = op_split_gso,
};

/* The largest wire_len at a tunnel MTU: CAKE's mtu (psched_mtu in the kernel). */
static uint32_t cake_mtu_at(uint32_t mtu)
{
	return mtu + MESSAGE_OVERHEAD_IPV6_LEN;
}

int wg_egress_init(struct wg_egress *eg, struct wg_device *dev, bool ingress, uint64_t now_ns)
{
	struct cake_params params = {
		.ops = &egress_ops,
		.ctx = eg,
		.mtu_bytes = cake_mtu_at(dev->mtu),
	};

	memset(eg, 0, sizeof(*eg));
	eg->dev = dev;
	eg->ingress = ingress;
	wg_rng_fill(&dev->rng, &eg->hash_key, sizeof(eg->hash_key));
	wg_rng_fill(&dev->rng, &params.seed, sizeof(params.seed));
	cake_options_defaults(&eg->opts);
	eg->q = cake_new(&params, &eg->opts, now_ns);
	return eg->q ? 0 : -ENOMEM;
}

void wg_egress_deinit(struct wg_egress *eg)
{
	wg_autorate_commit(eg, NULL);
	cake_free(eg->q);
	eg->q = NULL;
	cw_memzero(&eg->hash_key, sizeof(eg->hash_key));
}

static void reject(const char *options, char *err, size_t err_len)
{
	snprintf(err, err_len, "CAKE rejected the options `%s'", options);
}

/* What a new instance starts with (wg_egress_init), for a change checked before it
 * exists: no queue, no controller. */
static void fresh_instance(struct wg_egress *eg, bool ingress)
{
	memset(eg, 0, sizeof(*eg));
	eg->ingress = ingress;
	cake_options_defaults(&eg->opts);
}

int wg_egress_prepare(const struct wg_egress *eg, bool ingress, const char *options,
		      struct wg_egress_change *ch, char *err, size_t err_len, uint64_t now_ns)
{
	struct wg_egress fresh;
	struct cake_options change;
	struct cake_parse_err perr;
	int ret;

	if (!eg) {
		fresh_instance(&fresh, ingress);
		eg = &fresh;
	}
	memset(ch, 0, sizeof(*ch));
	memset(&change, 0, sizeof(change));
	ret = cake_options_parse(options, &change, &perr);
	if (ret) {
		snprintf(err, err_len, "%s", perr.msg);
		return ret;
	}
	ch->merged = eg->opts;
	cake_options_merge_at(&ch->merged, &change, wg_autorate_rate_now(eg));
	ret = wg_autorate_prepare(eg, &ch->merged, &ch->cake_opts, &ch->autorate, err, err_len,
				  now_ns);
	if (ret)
		return ret;
	ch->owns_autorate = ch->autorate && ch->autorate != eg->autorate;
	ret = cake_options_check(&ch->cake_opts);
	if (ret) {
		wg_egress_abandon(ch);
		reject(options, err, err_len);
	}
	return ret;
}

void wg_egress_abandon(struct wg_egress_change *ch)
{
	if (ch->owns_autorate)
		wg_autorate_abandon(ch->autorate);
	memset(ch, 0, sizeof(*ch));
}

int wg_egress_commit(struct wg_egress *eg, struct wg_egress_change *ch, const char *options,
		     char *err, size_t err_len, uint64_t now_ns)
{
	int ret = cake_configure(eg->q, &ch->cake_opts, now_ns);

	if (ret) { /* wg_egress_prepare() checked them: not expected */
		wg_egress_abandon(ch);
		reject(options, err, err_len);
		return ret;
	}
	wg_autorate_commit(eg, ch->autorate);
	eg->opts = ch->merged;
	memset(ch, 0, sizeof(*ch));
	return 0;
}

void wg_egress_set_mtu(struct wg_egress *eg, uint32_t mtu)
{
	cake_set_mtu(eg->q, cake_mtu_at(mtu));
}

uint32_t wg_egress_host_hash(const struct wg_egress *eg, const void *data, size_t len)
{
	return (uint32_t)cake_siphash(&eg->hash_key, data, len);
}

void wg_egress_enqueue(struct wg_egress *eg, struct wg_pkt *pkt, uint64_t now_ns)
{
	struct wg_peer *peer = pkt->peer;
	struct cake_pkt *cp = &pkt->cp;

	(void)cake_flowkey_parse(cp, cp->data, cp->len, &eg->hash_key);
	if (eg->opts.peer_isolation) {
		cp->src_hash = peer->host_hash;
		cp->dst_hash = peer->host_hash;
	}
	if (eg->ingress)
		cp->wire_len = wg_pkt_rx_wire_len(pkt);
	else if (pkt->gso.segs > 1)
		cp->wire_len = gso_wire_len(peer, &pkt->gso, eg->dev->mtu);
	else
		cp->wire_len = wire_len(peer, cp->len, eg->dev->mtu);
	wg_peer_get(peer);
	eg->stats.enqueued++;
	(void)cake_enqueue(eg->q, cp, now_ns);
}

struct wg_pkt *wg_egress_dequeue(struct wg_egress *eg, uint64_t now_ns, uint64_t *next_ns)
{
	struct cake_pkt *cp = cake_dequeue(eg->q, now_ns, next_ns);

	return cp ? wg_pkt_of(cp) : NULL;
}
