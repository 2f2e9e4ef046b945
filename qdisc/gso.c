/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/gso.h"

#include <errno.h>
#include <string.h>

#include "qdisc/csum.h"
#include "qdisc/flowkey.h"
#include "qdisc/tcp_wire.h"

enum {
	IPV4_TOT_LEN_OFFSET = 2,
	IPV4_ID_OFFSET = 4,
	IPV6_PAYLOAD_LEN_OFFSET = 4,
	UDP_LEN_OFFSET = 4,
	UDP_CHECK_OFFSET = 6,
	IPV4_SADDR_OFFSET = 12,
	IPV6_SADDR_OFFSET = 8,
};

static int plan_single(const uint8_t *data, uint32_t len, const struct cake_vnet_hdr *vh,
		       struct cake_gso_plan *plan)
{
	if (!len)
		return -EINVAL; /* an empty read is no packet */
	plan->type = CAKE_GSO_NONE;
	plan->family = (uint8_t)(data[0] >> 4);
	plan->segs = 1;
	plan->max_seg_len = len;
	plan->len = len;
	if (!(vh->flags & CAKE_VNET_F_NEEDS_CSUM))
		return 0;
	if ((uint32_t)vh->csum_start + vh->csum_offset + CAKE_CSUM_FIELD_BYTES > len)
		return -EINVAL;
	plan->partial_csum = true;
	plan->csum_start = vh->csum_start;
	plan->csum_offset = vh->csum_offset;
	return 0;
}

/* The transport header the gso_type names, where the vnet fields say it is. */
static int check_l4(const uint8_t *data, uint32_t len, const struct cake_vnet_hdr *vh,
		    const struct cake_flowkey_hdrs *h, uint8_t gt)
{
	bool tcp = gt != CAKE_VNET_GSO_UDP_L4;
	uint16_t field = tcp ? CAKE_TCP_CHECK_OFFSET : UDP_CHECK_OFFSET;

	if (h->fragment || h->ip_len != len || !h->l4_offset)
		return -EINVAL;
	if (h->proto != (tcp ? CAKE_IPPROTO_TCP : CAKE_IPPROTO_UDP))
		return -EINVAL;
	if ((gt == CAKE_VNET_GSO_TCPV4 && h->family != 4) ||
	    (gt == CAKE_VNET_GSO_TCPV6 && h->family != 6))
		return -EINVAL;
	if (vh->flags & CAKE_VNET_F_NEEDS_CSUM) {
		if (vh->csum_start != h->l4_offset || vh->csum_offset != field)
			return -EINVAL;
	} else if (!tcp) {
		return -EINVAL; /* Linux accepts USO only with a partial checksum */
	}
	/* The UDP length is part of the pseudo-header sum: it must be the real one. */
	if (!tcp && cake_get_be16(data + h->l4_offset + UDP_LEN_OFFSET) != len - h->l4_offset)
		return -EINVAL;
	return 0;
}

static uint8_t gso_type_of(uint8_t gt)
{
	switch (gt) {
	case CAKE_VNET_GSO_TCPV4:
		return CAKE_GSO_TCPV4;
	case CAKE_VNET_GSO_TCPV6:
		return CAKE_GSO_TCPV6;
	default:
		return CAKE_GSO_UDP_L4;
	}
}

int cake_gso_plan(const uint8_t *data, uint32_t len, const struct cake_vnet_hdr *vh,
		  struct cake_gso_plan *plan)
{
	uint8_t gt = vh->gso_type & (uint8_t)~CAKE_VNET_GSO_ECN;
	struct cake_flowkey_hdrs h;
	int err;

	memset(plan, 0, sizeof(*plan));
	if (gt == CAKE_VNET_GSO_NONE)
		return plan_single(data, len, vh, plan);
	if (gt == CAKE_VNET_GSO_UDP)
		return -EOPNOTSUPP;
	if (gt != CAKE_VNET_GSO_TCPV4 && gt != CAKE_VNET_GSO_TCPV6 && gt != CAKE_VNET_GSO_UDP_L4)
		return -EINVAL;
	if (!vh->gso_size || vh->hdr_len > len)
		return -EINVAL;
	if (cake_flowkey_dissect(data, len, &h) != CAKE_FLOWKEY_OK)
		return -EINVAL;
	err = check_l4(data, len, vh, &h, gt);
	if (err)
		return err;

	plan->family = h.family;
	plan->l4_offset = h.l4_offset;
	plan->hdr_len = (uint16_t)(h.l4_offset + h.l4_hdr_len);
	plan->payload_len = len - plan->hdr_len;
	plan->len = len;
	plan->partial_csum = vh->flags & CAKE_VNET_F_NEEDS_CSUM;
	plan->csum_start = vh->csum_start;
	plan->csum_offset = vh->csum_offset;
	if (plan->payload_len <= vh->gso_size) {
		/* Not really GSO: one packet, checksum completed if partial. */
		plan->segs = 1;
		plan->max_seg_len = len;
		return 0;
	}
	plan->type = gso_type_of(gt);
	plan->mss = vh->gso_size;
	plan->segs = (plan->payload_len + plan->mss - 1) / plan->mss;
	if (plan->type == CAKE_GSO_UDP_L4 && plan->segs > CAKE_USO_MAX_SEGS)
		return -EINVAL;
	plan->max_seg_len = (uint32_t)plan->hdr_len + plan->mss;
	return 0;
}

uint32_t cake_gso_seg_len(const struct cake_gso_plan *plan, uint32_t i)
{
	if (i >= plan->segs)
		return 0;
	if (plan->type == CAKE_GSO_NONE)
		return plan->len;
	if (i + 1 < plan->segs)
		return plan->max_seg_len;
	return plan->hdr_len + plan->payload_len - i * plan->mss;
}

static void fix_ip(uint8_t *seg, const struct cake_gso_plan *plan, uint32_t i, uint32_t seg_len)
{
	if (plan->family == 4) {
		uint16_t id = cake_get_be16(seg + IPV4_ID_OFFSET);

		cake_put_be16(seg + IPV4_TOT_LEN_OFFSET, (uint16_t)seg_len);
		cake_put_be16(seg + IPV4_ID_OFFSET, (uint16_t)(id + i));
		cake_csum_ipv4_header_set(seg, (size_t)(seg[0] & 0x0f) * 4);
	} else {
		cake_put_be16(seg + IPV6_PAYLOAD_LEN_OFFSET,
			      (uint16_t)(seg_len - CAKE_IPV6_HDR_BYTES));
	}
}

/* Pseudo-header sum for an L4 length, from the addresses in the segment's IP header. */
static uint16_t pseudo_from_addrs(const uint8_t *seg, uint8_t family, uint8_t proto,
				  uint32_t l4_len)
{
	if (family == 4)
		return cake_csum_pseudo_v4(seg + IPV4_SADDR_OFFSET, seg + IPV4_SADDR_OFFSET + 4,
					   proto, l4_len);
	return cake_csum_pseudo_v6(seg + IPV6_SADDR_OFFSET, seg + IPV6_SADDR_OFFSET + 16, proto,
				   l4_len);
}

/* The sender's pseudo-header sum, moved from the whole packet's L4 length to l4_len. */
static uint16_t pseudo_adjusted(uint16_t field, uint32_t old_len, uint32_t l4_len)
{
	field = cake_csum_sub(field, (uint16_t)(old_len >> 16));
	field = cake_csum_sub(field, (uint16_t)old_len);
	field = cake_csum_add(field, (uint16_t)(l4_len >> 16));
	return cake_csum_add(field, (uint16_t)l4_len);
}

static void fix_l4(uint8_t *seg, const struct cake_gso_plan *plan, uint32_t i, uint32_t seg_len)
{
	uint8_t *l4 = seg + plan->l4_offset;
	uint32_t l4_len = seg_len - plan->l4_offset;
	bool tcp = plan->type != CAKE_GSO_UDP_L4;
	uint8_t *field = l4 + (tcp ? CAKE_TCP_CHECK_OFFSET : UDP_CHECK_OFFSET);
	uint16_t pseudo, check;

	if (tcp) {
		cake_put_be32(l4 + CAKE_TCP_SEQ_OFFSET,
			      cake_get_be32(l4 + CAKE_TCP_SEQ_OFFSET) + i * plan->mss);
		if (i > 0)
			l4[CAKE_TCP_FLAGS_OFFSET] &= (uint8_t)~CAKE_TCP_CWR;
		if (i + 1 < plan->segs)
			l4[CAKE_TCP_FLAGS_OFFSET] &= (uint8_t) ~(CAKE_TCP_FIN | CAKE_TCP_PSH);
	} else {
		cake_put_be16(l4 + UDP_LEN_OFFSET, (uint16_t)l4_len);
	}
	if (plan->partial_csum)
		pseudo = pseudo_adjusted(cake_get_be16(field), plan->len - plan->l4_offset, l4_len);
	else
		pseudo = pseudo_from_addrs(seg, plan->family, CAKE_IPPROTO_TCP, l4_len);
	cake_put_be16(field, 0);
	check = cake_csum_finish(cake_csum_partial(l4, l4_len, pseudo));
	if (!tcp && !check)
		check = CAKE_CSUM_MANGLED_0;
	cake_put_be16(field, check);
}

int cake_gso_segment(const uint8_t *data, uint32_t len, const struct cake_gso_plan *plan,
		     uint32_t i, uint8_t *out, uint32_t out_size)
{
	uint32_t seg_len = cake_gso_seg_len(plan, i);
	uint32_t plen;

	if (len != plan->len || (uint32_t)plan->hdr_len + plan->payload_len > len)
		return -EINVAL;
	if (!seg_len)
		return -ERANGE;
	if (seg_len > out_size)
		return -ENOSPC;
	if (plan->type == CAKE_GSO_NONE) {
		memcpy(out, data, len);
		if (plan->partial_csum &&
		    cake_csum_complete_partial(out, len, plan->csum_start, plan->csum_offset))
			return -EINVAL;
		return (int)len;
	}
	plen = seg_len - plan->hdr_len;
	memcpy(out, data, plan->hdr_len);
	memcpy(out + plan->hdr_len, data + plan->hdr_len + i * plan->mss, plen);
	fix_ip(out, plan, i, seg_len);
	fix_l4(out, plan, i, seg_len);
	return (int)seg_len;
}

void cake_gso_fill_pkt(struct cake_pkt *pkt, const struct cake_gso_plan *plan)
{
	pkt->gso_type = plan->type;
	pkt->gso_size = plan->type == CAKE_GSO_NONE ? 0 : plan->mss;
	pkt->gso_segs = (uint16_t)(plan->segs > UINT16_MAX ? UINT16_MAX : plan->segs);
}
