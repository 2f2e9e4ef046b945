/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Internet checksum (RFC 1071) and its helpers: partial sums over byte ranges,
 * IPv4/IPv6 pseudo-header sums, incremental updates (RFC 1624) and completing a
 * checksum left partial by the kernel (VIRTIO_NET_HDR_F_NEEDS_CSUM).
 *
 * Sums are plain numbers: 16-bit words are read in network byte order, so a value
 * returned here is stored with cake_put_be16(). A "sum" is a ones' complement sum
 * folded to 16 bits but not complemented; cake_csum_finish() gives the field value.
 */
#ifndef CAKEWG_QDISC_CSUM_H
#define CAKEWG_QDISC_CSUM_H

#include <stddef.h>
#include <stdint.h>

#ifndef CAKE_MUST_CHECK
#define CAKE_MUST_CHECK __attribute__((warn_unused_result))
#endif

enum cake_csum_values {
	CAKE_CSUM_MANGLED_0 = 0xffff, /* a computed UDP checksum of 0 is sent as this */
	CAKE_CSUM_FIELD_BYTES = 2,
};

static inline uint16_t cake_get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t cake_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline void cake_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void cake_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * Adds len bytes at buf to sum. Chunks of a larger range may be summed one after the
 * other as long as every chunk but the last has an even length.
 */
uint16_t cake_csum_partial(const void *buf, size_t len, uint16_t sum);

/* Ones' complement addition and subtraction of two sums or 16-bit words. */
uint16_t cake_csum_add(uint16_t a, uint16_t b);
uint16_t cake_csum_sub(uint16_t a, uint16_t b);

/* The value to store in a checksum field for a range whose sum is sum. */
static inline uint16_t cake_csum_finish(uint16_t sum)
{
	return (uint16_t)~sum;
}

/* Pseudo-header sums (RFC 793/768 for IPv4, RFC 8200 section 8.1 for IPv6). */
uint16_t cake_csum_pseudo_v4(const uint8_t saddr[4], const uint8_t daddr[4], uint8_t proto,
			     uint32_t l4_len);
uint16_t cake_csum_pseudo_v6(const uint8_t saddr[16], const uint8_t daddr[16], uint8_t proto,
			     uint32_t l4_len);

/* RFC 1624 eqn. 3: the new checksum field after a 16-bit word changed from old to new. */
uint16_t cake_csum_update16(uint16_t check, uint16_t old_word, uint16_t new_word);

/* Same for a 32-bit quantity (two adjacent words, e.g. a sequence number or address). */
uint16_t cake_csum_update32(uint16_t check, uint32_t old_val, uint32_t new_val);

/* Computes and stores the IPv4 header checksum of the ihl_bytes header at iph. */
void cake_csum_ipv4_header_set(uint8_t *iph, size_t ihl_bytes);

/*
 * Completes a partial checksum in place: the field at csum_start + csum_offset holds the
 * pseudo-header sum (as Linux leaves it for CHECKSUM_PARTIAL); sums from csum_start to
 * the end of the packet and stores the result, 0 sent as 0xffff as skb_checksum_help
 * does. Returns 0, or -EINVAL when the offsets do not fit in len.
 */
CAKE_MUST_CHECK int cake_csum_complete_partial(uint8_t *pkt, uint32_t len, uint16_t csum_start,
					       uint16_t csum_offset);

#endif
