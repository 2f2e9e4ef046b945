/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/offload.h"

#include <errno.h>

#include "qdisc/csum.h"

int wg_offload_prepare(struct wg_pkt *pkt, const struct cake_vnet_hdr *vh)
{
	if (cake_gso_plan(pkt->cp.data, pkt->cp.len, vh, &pkt->gso))
		return -EINVAL;
	if (pkt->gso.segs > 1) {
		cake_gso_fill_pkt(&pkt->cp, &pkt->gso);
		return 0;
	}
	pkt->gso.segs = 0;
	if ((vh->flags & CAKE_VNET_F_NEEDS_CSUM) &&
	    cake_csum_complete_partial(pkt->cp.data, pkt->cp.len, vh->csum_start, vh->csum_offset))
		return -EINVAL;
	return 0;
}
