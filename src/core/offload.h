/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A packet read from a TUN device with a virtio header (IFF_VNET_HDR), made ready for
 * the egress queue. A super-packet (TSO/USO) is planned for segmentation and queued
 * whole: CAKE cuts it at enqueue with split-gso, the send path after dequeue with
 * no-split-gso. A single packet with a partial checksum (NEEDS_CSUM) gets it completed
 * in place. No copy, no allocation.
 */
#ifndef CAKEWG_SRC_CORE_OFFLOAD_H
#define CAKEWG_SRC_CORE_OFFLOAD_H

#include "qdisc/gso.h"
#include "src/core/compiler.h"
#include "src/core/pkt.h"

/*
 * Prepares pkt (pkt->cp.data, pkt->cp.len) as vh describes it: pkt->gso and the gso
 * fields of pkt->cp for a super-packet (pkt->gso.segs > 1), pkt->gso.segs = 0 for a
 * single packet. Returns 0, or -EINVAL for a packet that its header does not describe
 * (the caller drops it).
 */
WG_MUST_CHECK int wg_offload_prepare(struct wg_pkt *pkt, const struct cake_vnet_hdr *vh);

#endif
