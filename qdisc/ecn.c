/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Differences from Linux, where RFC 6040 and the kernel disagree (the RFC wins here):
 * - encapsulation: INET_ECN_encapsulate writes ECT(0) to the outer header for an inner
 *   CE (the RFC 3168 "full functionality" rule); RFC 6040 normal mode copies CE as CE.
 *   Both interoperate: the inner packet already carries the mark.
 * - decapsulation: INET_ECN_decapsulate leaves an ECT(0) inner packet alone under an
 *   ECT(1) outer header; RFC 6040 Figure 4 forwards it as ECT(1).
 * The CE cases (mark an ECT inner packet, drop a not-ECT one) are the same in both.
 */
#include "qdisc/ecn.h"

#include "qdisc/csum.h"

enum {
	IPV4_HDR_BYTES = 20,
	IPV6_HDR_BYTES = 40,
	IPV4_CHECK_OFFSET = 10,
};

static bool ip_version(const uint8_t *pkt, uint32_t len, int *version)
{
	if (len >= IPV4_HDR_BYTES && pkt[0] >> 4 == 4)
		*version = 4;
	else if (len >= IPV6_HDR_BYTES && pkt[0] >> 4 == 6)
		*version = 6;
	else
		return false;
	return true;
}

static uint8_t get_ds(const uint8_t *pkt, int version)
{
	return version == 4 ? pkt[1] : (uint8_t)((pkt[0] << 4) | (pkt[1] >> 4));
}

uint8_t cake_ecn_get(const uint8_t *pkt, uint32_t len)
{
	int v;

	if (!ip_version(pkt, len, &v))
		return CAKE_ECN_NOT_ECT;
	return get_ds(pkt, v) & CAKE_ECN_MASK;
}

/*
 * Writes the DS field (DSCP << 2 | ECN): byte 1 for IPv4, where the header checksum
 * follows the first 16-bit word; bits 4..11 for IPv6, which has no header checksum.
 */
static void put_ds(uint8_t *pkt, int version, uint8_t ds)
{
	if (version == 4) {
		uint16_t old_word = cake_get_be16(pkt);
		uint16_t check = cake_get_be16(pkt + IPV4_CHECK_OFFSET);

		pkt[1] = ds;
		check = cake_csum_update16(check, old_word, cake_get_be16(pkt));
		cake_put_be16(pkt + IPV4_CHECK_OFFSET, check);
	} else {
		pkt[0] = (uint8_t)((pkt[0] & 0xf0) | (ds >> 4));
		pkt[1] = (uint8_t)((pkt[1] & 0x0f) | (ds << 4));
	}
}

static void put_ecn(uint8_t *pkt, int version, uint8_t ecn)
{
	put_ds(pkt, version, (uint8_t)((get_ds(pkt, version) & ~CAKE_ECN_MASK) | ecn));
}

bool cake_ecn_set_dscp(uint8_t *pkt, uint32_t len, uint8_t dscp)
{
	int v;

	if (!ip_version(pkt, len, &v))
		return false;
	put_ds(pkt, v, (uint8_t)((dscp << 2) | (get_ds(pkt, v) & CAKE_ECN_MASK)));
	return true;
}

bool cake_ecn_set_ce(uint8_t *pkt, uint32_t len)
{
	int v;
	uint8_t ecn;

	if (!ip_version(pkt, len, &v))
		return false;
	ecn = cake_ecn_get(pkt, len);
	if (ecn == CAKE_ECN_NOT_ECT)
		return false;
	if (ecn != CAKE_ECN_CE)
		put_ecn(pkt, v, CAKE_ECN_CE);
	return true;
}

uint8_t cake_ecn_encap(uint8_t inner_ecn)
{
	return inner_ecn & CAKE_ECN_MASK;
}

enum cake_ecn_decap_verdict cake_ecn_decap_field(uint8_t outer_ecn, uint8_t inner_ecn,
						 uint8_t *out_ecn)
{
	outer_ecn &= CAKE_ECN_MASK;
	inner_ecn &= CAKE_ECN_MASK;
	*out_ecn = inner_ecn;
	if (inner_ecn == CAKE_ECN_NOT_ECT)
		return outer_ecn == CAKE_ECN_CE ? CAKE_ECN_DECAP_DROP : CAKE_ECN_DECAP_PASS;
	if (inner_ecn == CAKE_ECN_CE)
		return CAKE_ECN_DECAP_PASS;
	if (outer_ecn == CAKE_ECN_CE)
		*out_ecn = CAKE_ECN_CE;
	else if (outer_ecn == CAKE_ECN_ECT_1)
		*out_ecn = CAKE_ECN_ECT_1;
	return *out_ecn == inner_ecn ? CAKE_ECN_DECAP_PASS : CAKE_ECN_DECAP_CHANGED;
}

enum cake_ecn_decap_verdict cake_ecn_decapsulate(uint8_t *pkt, uint32_t len, uint8_t outer_ecn)
{
	enum cake_ecn_decap_verdict verdict;
	uint8_t out;
	int v;

	if (!ip_version(pkt, len, &v))
		return CAKE_ECN_DECAP_BAD;
	verdict = cake_ecn_decap_field(outer_ecn, cake_ecn_get(pkt, len), &out);
	if (verdict == CAKE_ECN_DECAP_CHANGED)
		put_ecn(pkt, v, out);
	return verdict;
}
