/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ECN on inner packets: CE marking for the qdisc (RFC 3168), and the tunnel rules of
 * RFC 6040 for the endpoint, which copies the inner ECN field to the outer header on
 * encapsulation and folds the outer field back into the inner packet on decapsulation.
 */
#ifndef CAKEWG_QDISC_ECN_H
#define CAKEWG_QDISC_ECN_H

#include <stdbool.h>
#include <stdint.h>

#ifndef CAKE_MUST_CHECK
#define CAKE_MUST_CHECK __attribute__((warn_unused_result))
#endif

/* The two-bit ECN field (RFC 3168 section 5). */
enum cake_ecn {
	CAKE_ECN_NOT_ECT = 0,
	CAKE_ECN_ECT_1 = 1,
	CAKE_ECN_ECT_0 = 2,
	CAKE_ECN_CE = 3,
	CAKE_ECN_MASK = 3,
};

/* What decapsulation asks of the receiver. */
enum cake_ecn_decap_verdict {
	CAKE_ECN_DECAP_PASS = 0, /* inner packet forwarded unchanged */
	CAKE_ECN_DECAP_CHANGED,	 /* inner ECN field rewritten (CE or ECT(1)) */
	CAKE_ECN_DECAP_DROP,	 /* outer CE over a not-ECT inner packet: drop it */
	CAKE_ECN_DECAP_BAD,	 /* not an IPv4/IPv6 packet long enough to carry the field */
};

/* The ECN field of an IPv4/IPv6 packet, or CAKE_ECN_NOT_ECT if there is none to read. */
uint8_t cake_ecn_get(const uint8_t *pkt, uint32_t len);

/*
 * Marks an ECT(0)/ECT(1) packet CE in place, fixing the IPv4 header checksum
 * incrementally (RFC 1624). True if the packet now carries CE (already-CE included);
 * false, with the packet untouched, for not-ECT or a packet too short to be IP.
 */
CAKE_MUST_CHECK bool cake_ecn_set_ce(uint8_t *pkt, uint32_t len);

/*
 * Rewrites the DSCP (6 bits) of an IPv4/IPv6 packet in place, keeping the ECN field and
 * fixing the IPv4 header checksum; for tc-cake's `wash`. False, with the packet
 * untouched, if it is too short to be IP.
 */
CAKE_MUST_CHECK bool cake_ecn_set_dscp(uint8_t *pkt, uint32_t len, uint8_t dscp);

/*
 * RFC 6040 section 4.1, normal mode: the outer ECN field is a copy of the inner one.
 * Returns the outer header's ECN bits for an inner field inner_ecn.
 */
uint8_t cake_ecn_encap(uint8_t inner_ecn);

/*
 * RFC 6040 section 4.2, Figure 4: the inner ECN field to forward for an arriving
 * (outer, inner) pair, in *out_ecn, and whether that is a change or a drop.
 */
enum cake_ecn_decap_verdict cake_ecn_decap_field(uint8_t outer_ecn, uint8_t inner_ecn,
						 uint8_t *out_ecn);

/* Applies cake_ecn_decap_field to the inner packet in place (IPv4 checksum fixed). */
enum cake_ecn_decap_verdict cake_ecn_decapsulate(uint8_t *pkt, uint32_t len, uint8_t outer_ecn);

#endif
