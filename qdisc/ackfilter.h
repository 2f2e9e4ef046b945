/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sch_cake's ACK filter (cake_ack_filter / cake_tcph_may_drop): when a TCP ACK joins a
 * flow queue, an older pure ACK of the same connection still waiting in that queue
 * may carry no information the new one lacks; dropping it saves upstream capacity on
 * asymmetric links.
 *
 * A queued packet is "eligible" when it is a pure ACK (no payload; flags exactly ACK,
 * plus ECE/CWR) of the same addresses and ports as the new packet, its options are
 * only NOPs, timestamps no newer than the new packet's, SACK and MD5, its cumulative
 * ACK is not after the new one's, and every SACK block it carries is covered by the new
 * packet's SACK blocks (no DSACK), with the new packet acknowledging strictly more.
 * SYN, FIN, RST, URG, PSH, the reserved bits, unknown options, MSS/window-scale/SACK-
 * permitted/fast-open and non-first fragments are never eligible. Eligibility resets
 * when a same-connection packet's ECE/CWR bits differ from the first eligible one's.
 *
 * Normal mode drops the eligible ACK nearest the head once a second one is found.
 * Aggressive mode also drops a single eligible ACK when it sits right before the new
 * packet and their ECE/CWR bits match. Like the kernel, the new packet only needs ACK
 * set and SYN clear: a data segment's cumulative ACK also supersedes older pure ACKs.
 *
 * Packets must have been through cake_flowkey_parse (flags, l4_offset, l4_hdr_len).
 * Pure: reads headers only, changes nothing; unlinking is cake_ack_filter_unlink().
 */
#ifndef CAKEWG_QDISC_ACKFILTER_H
#define CAKEWG_QDISC_ACKFILTER_H

#include "qdisc/cake_options.h"
#include "qdisc/pkt.h"

/*
 * Walks the flow queue from head (linked through next) up to new_pkt or the end,
 * whichever comes first, so new_pkt may already be at the tail or not yet linked.
 * Returns the packet to drop and sets *prev to its predecessor (NULL if it is the
 * head), or returns NULL (mode CAKE_ACK_NONE included). prev may be NULL for callers
 * that unlink by walking (the cake_ops.ack_filter hook has this shape plus a ctx).
 */
struct cake_pkt *cake_ack_filter(struct cake_pkt *head, const struct cake_pkt *new_pkt,
				 enum cake_ack_filter_mode mode, struct cake_pkt **prev);

/* Unlinks drop (predecessor prev, NULL for the head) from a head/tail queue. */
void cake_ack_filter_unlink(struct cake_pkt **head, struct cake_pkt **tail, struct cake_pkt *drop,
			    struct cake_pkt *prev);

#endif
