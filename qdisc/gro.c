/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The super-packet keeps the first segment's headers untouched until cake_gro_finish(),
 * so every later segment is compared with them directly (only PSH is set on the way,
 * and it closes the super-packet). The header walk is cake_flowkey_dissect()'s.
 */
#include "qdisc/gro.h"

#include <errno.h>
#include <string.h>

#include "qdisc/csum.h"
#include "qdisc/flowkey.h"
#include "qdisc/tcp_wire.h"

enum {
	IPV4_TOS_OFFSET = 1,
	IPV4_TOT_LEN_OFFSET = 2,
	IPV4_ID_OFFSET = 4,
	IPV4_FRAG_OFFSET = 6, /* reserved bit, DF, MF and offset: only DF may be set */
	IPV4_TTL_OFFSET = 8,
	IPV4_SADDR_OFFSET = 12,
	IPV4_ADDRS_BYTES = 8,
	IPV6_FIRST_WORD_BYTES = 4, /* version, traffic class, flow label */
	IPV6_PAYLOAD_LEN_OFFSET = 4,
	IPV6_HOP_LIMIT_OFFSET = 7,
	IPV6_SADDR_OFFSET = 8,
	IPV6_ADDRS_BYTES = 32,
	TCP_ACK_DOFF_BYTES = 5, /* ack number and the data offset byte, compared together */
	TCP_WINDOW_BYTES = 2,
	CSUM_ALL_ONES = 0xffff,
};

static void fill_flow(struct cake_gro_flow *f, const uint8_t *pkt,
		      const struct cake_flowkey_hdrs *h)
{
	memset(f, 0, sizeof(*f));
	f->family = h->family;
	if (h->family == 4)
		memcpy(f->addrs, pkt + IPV4_SADDR_OFFSET, IPV4_ADDRS_BYTES);
	else
		memcpy(f->addrs, pkt + IPV6_SADDR_OFFSET, IPV6_ADDRS_BYTES);
	f->sport = h->sport;
	f->dport = h->dport;
}

/* The IP header of a TCP segment that may be coalesced: no options, no extensions. */
static bool ip_candidate(const uint8_t *pkt, uint32_t len, const struct cake_flowkey_hdrs *h)
{
	if (h->ip_len != len || len > CAKE_GRO_MAX_BYTES)
		return false;
	if (h->family == 6)
		return h->l3_len == CAKE_IPV6_HDR_BYTES;
	/* Linux's inet_gro_receive does not merge a header that fails its checksum. */
	return h->l3_len == CAKE_IPV4_HDR_BYTES &&
	       cake_csum_partial(pkt, CAKE_IPV4_HDR_BYTES, 0) == CSUM_ALL_ONES;
}

enum cake_gro_class cake_gro_classify(const uint8_t *pkt, uint32_t len, struct cake_gro_seg *seg)
{
	struct cake_flowkey_hdrs h;
	enum cake_flowkey_verdict v = cake_flowkey_dissect(pkt, len, &h);
	uint8_t flags;

	memset(seg, 0, sizeof(*seg));
	if (v == CAKE_FLOWKEY_NOT_IP || !h.family || h.proto != CAKE_IPPROTO_TCP)
		return CAKE_GRO_NOT_TCP;
	if (v != CAKE_FLOWKEY_OK || h.fragment || !h.l4_offset)
		return CAKE_GRO_TCP_OTHER;
	fill_flow(&seg->flow, pkt, &h);
	flags = h.tcp_flags;
	if (!ip_candidate(pkt, len, &h))
		return CAKE_GRO_TCP_FLOW;
	if (flags != CAKE_TCP_ACK && flags != (CAKE_TCP_ACK | CAKE_TCP_PSH))
		return CAKE_GRO_TCP_FLOW;
	if (len <= (uint32_t)h.l4_offset + h.l4_hdr_len)
		return CAKE_GRO_TCP_FLOW; /* no payload: a pure ACK goes out as it is */
	seg->l4_offset = h.l4_offset;
	seg->hdr_len = (uint16_t)(h.l4_offset + h.l4_hdr_len);
	seg->payload_len = len - seg->hdr_len;
	seg->seq = cake_get_be32(pkt + h.l4_offset + CAKE_TCP_SEQ_OFFSET);
	seg->tcp_flags = flags;
	return CAKE_GRO_CANDIDATE;
}

bool cake_gro_flow_equal(const struct cake_gro_flow *a, const struct cake_gro_flow *b)
{
	return a->family == b->family && a->sport == b->sport && a->dport == b->dport &&
	       !memcmp(a->addrs, b->addrs, sizeof(a->addrs));
}

static bool seg_sound(const struct cake_gro_seg *seg, uint32_t len)
{
	return seg->payload_len && seg->hdr_len > seg->l4_offset &&
	       (uint32_t)seg->hdr_len + seg->payload_len == len && len <= CAKE_GRO_MAX_BYTES &&
	       (seg->flow.family == 4 || seg->flow.family == 6);
}

/*
 * After PSH or a short segment nothing may follow. A super-packet too full for another
 * full segment stays open: the short tail of a TSO burst may still fit.
 */
static void update_closed(struct cake_gro *g, uint8_t tcp_flags, uint32_t payload_len)
{
	if ((tcp_flags & CAKE_TCP_PSH) || payload_len < g->mss || g->len >= CAKE_GRO_MAX_BYTES)
		g->closed = true;
}

int cake_gro_start(struct cake_gro *g, uint8_t *buf, uint32_t cap, const uint8_t *pkt, uint32_t len,
		   const struct cake_gro_seg *seg)
{
	if (!seg_sound(seg, len) || seg->payload_len > UINT16_MAX)
		return -EINVAL;
	if (len > cap)
		return -ENOSPC;
	if (buf != pkt)
		memcpy(buf, pkt, len);
	g->buf = buf;
	g->len = len;
	g->cap = cap;
	g->hdr_len = seg->hdr_len;
	g->l4_offset = seg->l4_offset;
	g->mss = (uint16_t)seg->payload_len;
	g->segs = 1;
	g->next_seq = seg->seq + seg->payload_len;
	g->flow = seg->flow;
	g->closed = false;
	update_closed(g, seg->tcp_flags, seg->payload_len);
	return 0;
}

/* IPv4: TOS, DF and TTL equal, ID the next in line. IPv6: first word, hop limit equal. */
static bool ip_joins(const struct cake_gro *g, const uint8_t *pkt)
{
	const uint8_t *first = g->buf;
	uint16_t id;

	if (g->flow.family == 6)
		return !memcmp(pkt, first, IPV6_FIRST_WORD_BYTES) &&
		       pkt[IPV6_HOP_LIMIT_OFFSET] == first[IPV6_HOP_LIMIT_OFFSET];
	id = (uint16_t)(cake_get_be16(first + IPV4_ID_OFFSET) + g->segs);
	return pkt[IPV4_TOS_OFFSET] == first[IPV4_TOS_OFFSET] &&
	       pkt[IPV4_FRAG_OFFSET] == first[IPV4_FRAG_OFFSET] &&
	       pkt[IPV4_TTL_OFFSET] == first[IPV4_TTL_OFFSET] &&
	       cake_get_be16(pkt + IPV4_ID_OFFSET) == id;
}

/* Ack number, data offset, window, urgent pointer and options equal. */
static bool tcp_joins(const struct cake_gro *g, const uint8_t *pkt)
{
	const uint8_t *a = pkt + g->l4_offset, *b = g->buf + g->l4_offset;
	uint32_t tail = (uint32_t)g->hdr_len - g->l4_offset - CAKE_TCP_URG_PTR_OFFSET;

	return !memcmp(a + CAKE_TCP_ACK_OFFSET, b + CAKE_TCP_ACK_OFFSET, TCP_ACK_DOFF_BYTES) &&
	       !memcmp(a + CAKE_TCP_WINDOW_OFFSET, b + CAKE_TCP_WINDOW_OFFSET, TCP_WINDOW_BYTES) &&
	       !memcmp(a + CAKE_TCP_URG_PTR_OFFSET, b + CAKE_TCP_URG_PTR_OFFSET, tail);
}

enum cake_gro_add_result cake_gro_try_add(struct cake_gro *g, const uint8_t *pkt, uint32_t len,
					  const struct cake_gro_seg *seg)
{
	if (!seg_sound(seg, len) || !cake_gro_flow_equal(&g->flow, &seg->flow))
		return CAKE_GRO_OTHER_FLOW;
	if (g->closed || seg->l4_offset != g->l4_offset || seg->hdr_len != g->hdr_len)
		return CAKE_GRO_CANNOT_JOIN;
	if (seg->seq != g->next_seq || seg->payload_len > g->mss)
		return CAKE_GRO_CANNOT_JOIN;
	if (g->len + seg->payload_len > CAKE_GRO_MAX_BYTES || g->segs == UINT16_MAX)
		return CAKE_GRO_CANNOT_JOIN;
	if (!ip_joins(g, pkt) || !tcp_joins(g, pkt))
		return CAKE_GRO_CANNOT_JOIN;
	if (g->len + seg->payload_len > g->cap)
		return CAKE_GRO_NO_ROOM;
	memcpy(g->buf + g->len, pkt + seg->hdr_len, seg->payload_len);
	g->len += seg->payload_len;
	g->next_seq += seg->payload_len;
	g->segs++;
	if (seg->tcp_flags & CAKE_TCP_PSH)
		g->buf[g->l4_offset + CAKE_TCP_FLAGS_OFFSET] |= CAKE_TCP_PSH;
	update_closed(g, seg->tcp_flags, seg->payload_len);
	return CAKE_GRO_MERGED;
}

int cake_gro_move(struct cake_gro *g, uint8_t *buf, uint32_t cap)
{
	if (g->len > cap)
		return -ENOSPC;
	if (buf != g->buf)
		memmove(buf, g->buf, g->len);
	g->buf = buf;
	g->cap = cap;
	return 0;
}

uint32_t cake_gro_finish(struct cake_gro *g, struct cake_vnet_hdr *vh)
{
	uint8_t *p = g->buf;
	uint32_t l4_len = g->len - g->l4_offset;
	uint16_t pseudo;

	memset(vh, 0, sizeof(*vh));
	g->closed = true;
	if (g->segs < 2)
		return g->len;
	if (g->flow.family == 4) {
		cake_put_be16(p + IPV4_TOT_LEN_OFFSET, (uint16_t)g->len);
		cake_csum_ipv4_header_set(p, CAKE_IPV4_HDR_BYTES);
		pseudo = cake_csum_pseudo_v4(p + IPV4_SADDR_OFFSET, p + IPV4_SADDR_OFFSET + 4,
					     CAKE_IPPROTO_TCP, l4_len);
		vh->gso_type = CAKE_VNET_GSO_TCPV4;
	} else {
		cake_put_be16(p + IPV6_PAYLOAD_LEN_OFFSET,
			      (uint16_t)(g->len - CAKE_IPV6_HDR_BYTES));
		pseudo = cake_csum_pseudo_v6(p + IPV6_SADDR_OFFSET, p + IPV6_SADDR_OFFSET + 16,
					     CAKE_IPPROTO_TCP, l4_len);
		vh->gso_type = CAKE_VNET_GSO_TCPV6;
	}
	cake_put_be16(p + g->l4_offset + CAKE_GRO_TCP_CSUM_OFFSET, pseudo);
	vh->flags = CAKE_VNET_F_NEEDS_CSUM;
	vh->hdr_len = g->hdr_len;
	vh->gso_size = g->mss;
	vh->csum_start = g->l4_offset;
	vh->csum_offset = CAKE_GRO_TCP_CSUM_OFFSET;
	return g->len;
}
