/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for GSO segmentation: the first 10 input bytes are a virtio_net_hdr
 * (flags, gso_type, then hdr_len, gso_size, csum_start, csum_offset little-endian), the
 * rest the packet, copied to a buffer of exactly its size. Whatever plans must cut into
 * segments of the announced lengths that fit max_seg_len, whose payloads add up to the
 * super-packet's, and that parse as sound packets of the same protocol.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/flowkey.h"
#include "qdisc/gso.h"

enum { MAX_CHECKED_SEGS = 200 };

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void check_segment(const uint8_t *seg, int n, const struct cake_gso_plan *plan)
{
	struct cake_flowkey_hdrs h;

	if (plan->type == CAKE_GSO_NONE)
		return;
	if (cake_flowkey_dissect(seg, (uint32_t)n, &h) != CAKE_FLOWKEY_OK || h.ip_len != (uint32_t)n)
		__builtin_trap();
	if (h.l4_offset != plan->l4_offset || h.family != plan->family)
		__builtin_trap();
}

static void cut(const uint8_t *pkt, uint32_t len, const struct cake_gso_plan *plan)
{
	uint8_t *seg = malloc(plan->max_seg_len ? plan->max_seg_len : 1);
	uint64_t payload = 0;

	for (uint32_t i = 0; i < plan->segs; i++) {
		int n;

		if (i == MAX_CHECKED_SEGS && plan->segs > MAX_CHECKED_SEGS + 1)
			i = plan->segs - 1; /* first ones and the last one */
		n = cake_gso_segment(pkt, len, plan, i, seg, plan->max_seg_len);
		if (n <= 0 || (uint32_t)n != cake_gso_seg_len(plan, i) ||
		    (uint32_t)n > plan->max_seg_len)
			__builtin_trap();
		check_segment(seg, n, plan);
		payload += (uint32_t)n - plan->hdr_len;
	}
	if (plan->segs <= MAX_CHECKED_SEGS + 1 && plan->type != CAKE_GSO_NONE &&
	    payload != plan->payload_len)
		__builtin_trap();
	if (cake_gso_segment(pkt, len, plan, plan->segs, seg, plan->max_seg_len) != -ERANGE)
		__builtin_trap();
	free(seg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cake_vnet_hdr vh;
	struct cake_gso_plan plan;
	uint8_t *pkt;
	uint32_t len;

	if (size < CAKE_VNET_HDR_BYTES || size > CAKE_VNET_HDR_BYTES + 0x10100)
		return 0;
	vh.flags = data[0];
	vh.gso_type = data[1];
	vh.hdr_len = le16(data + 2);
	vh.gso_size = le16(data + 4);
	vh.csum_start = le16(data + 6);
	vh.csum_offset = le16(data + 8);
	len = (uint32_t)(size - CAKE_VNET_HDR_BYTES);
	pkt = malloc(len ? len : 1);
	memcpy(pkt, data + CAKE_VNET_HDR_BYTES, len);
	if (cake_gso_plan(pkt, len, &vh, &plan) == 0) {
		if (!plan.segs || plan.len != len)
			__builtin_trap();
		cut(pkt, len, &plan);
	}
	free(pkt);
	return 0;
}
