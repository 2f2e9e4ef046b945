/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Builds real-looking IPv4/IPv6 packets with TCP, UDP or raw transport bytes for tests:
 * lengths, IPv4 header checksum and TCP/UDP checksums filled in (or the L4 field left
 * holding the pseudo-header sum, as Linux does for CHECKSUM_PARTIAL / NEEDS_CSUM).
 *
 * Deliberately independent of qdisc/csum.c: a naive RFC 1071 byte-pair sum, so tests
 * can check the library against it. Header-only; all functions are static.
 */
#ifndef CAKEWG_TESTS_SUPPORT_PKTBUILD_H
#define CAKEWG_TESTS_SUPPORT_PKTBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum pb_values {
	PB_PROTO_TCP = 6,
	PB_PROTO_UDP = 17,
	PB_IPV4_HDR = 20,
	PB_IPV6_HDR = 40,
	PB_TCP_HDR = 20,
	PB_UDP_HDR = 8,
	PB_IPV4_DF = 0x4000,
	PB_IPV4_MF = 0x2000,
	PB_TCP_FIN = 0x01,
	PB_TCP_SYN = 0x02,
	PB_TCP_RST = 0x04,
	PB_TCP_PSH = 0x08,
	PB_TCP_ACK = 0x10,
	PB_TCP_URG = 0x20,
	PB_TCP_ECE = 0x40,
	PB_TCP_CWR = 0x80,
};

/* A packet description; zero-initialise and set what matters. */
struct pb_pkt {
	uint8_t family; /* 4 or 6 */
	uint8_t src[16], dst[16];
	uint8_t tos;		/* DSCP << 2 | ECN (IPv6: traffic class) */
	uint8_t ttl;		/* 0 means 64 */
	uint16_t ip_id;		/* IPv4 */
	uint16_t frag;		/* IPv4 flags + fragment offset field, e.g. PB_IPV4_DF */
	uint32_t flow_label;	/* IPv6 */
	const uint8_t *ip_opts; /* IPv4 options, a multiple of 4 bytes */
	size_t ip_opts_len;
	const uint8_t *ext; /* IPv6 extension headers, chained by the caller ... */
	size_t ext_len;
	uint8_t ext_first; /* ... whose first type goes in the IPv6 next-header field */
	uint8_t proto;	   /* transport: TCP and UDP headers are built, others are raw */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t tcp_flags;
	uint16_t window; /* 0 means 65535 */
	uint16_t urg_ptr;
	const uint8_t *tcp_opts; /* a multiple of 4 bytes */
	size_t tcp_opts_len;
	const uint8_t *payload; /* after the TCP/UDP header, or the whole raw transport */
	size_t payload_len;
	bool partial_csum; /* leave the L4 field as the pseudo-header sum */
	bool no_l4_csum;   /* leave the L4 field zero */
};

static inline void pb_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void pb_put32(uint8_t *p, uint32_t v)
{
	pb_put16(p, (uint16_t)(v >> 16));
	pb_put16(p + 2, (uint16_t)v);
}

static inline uint16_t pb_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t pb_get32(const uint8_t *p)
{
	return (uint32_t)pb_get16(p) << 16 | pb_get16(p + 2);
}

/* RFC 1071, one big-endian byte pair at a time; returns the folded, uncomplemented sum. */
static inline uint32_t pb_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static inline uint16_t pb_csum(const uint8_t *p, size_t len)
{
	return (uint16_t)~pb_sum(p, len, 0);
}

/* Pseudo-header sum; addresses from the IP header at pkt. */
static inline uint32_t pb_pseudo(const uint8_t *pkt, uint8_t proto, uint32_t l4_len)
{
	uint8_t tail[8] = {0};
	bool v4 = pkt[0] >> 4 == 4;
	uint32_t sum = v4 ? pb_sum(pkt + 12, 8, 0) : pb_sum(pkt + 8, 32, 0);

	pb_put32(tail, l4_len);
	tail[7] = proto;
	return pb_sum(tail, sizeof(tail), sum);
}

/* True when the IPv4 header checksum verifies (ones' complement sum of all is 0xffff). */
static inline bool pb_ipv4_csum_ok(const uint8_t *pkt)
{
	return pb_sum(pkt, (size_t)(pkt[0] & 0x0f) * 4, 0) == 0xffff;
}

/* True when the TCP/UDP checksum of the transport at l4_off..len verifies. */
static inline bool pb_l4_csum_ok(const uint8_t *pkt, size_t len, size_t l4_off, uint8_t proto)
{
	uint32_t sum = pb_pseudo(pkt, proto, (uint32_t)(len - l4_off));

	if (proto == PB_PROTO_UDP && pb_get16(pkt + l4_off + 6) == 0)
		return false; /* "no checksum" never counts as verified here */
	return pb_sum(pkt + l4_off, len - l4_off, sum) == 0xffff;
}

static inline size_t pb_l4_hdr_len(const struct pb_pkt *d)
{
	if (d->proto == PB_PROTO_TCP)
		return PB_TCP_HDR + d->tcp_opts_len;
	return d->proto == PB_PROTO_UDP ? PB_UDP_HDR : 0;
}

static inline size_t pb_ip_hdr_len(const struct pb_pkt *d)
{
	return d->family == 4 ? PB_IPV4_HDR + d->ip_opts_len : PB_IPV6_HDR + d->ext_len;
}

static inline void pb_ip(uint8_t *b, const struct pb_pkt *d, size_t total)
{
	uint8_t ttl = d->ttl ? d->ttl : 64;
	uint8_t nh = d->ext_len ? d->ext_first : d->proto;

	if (d->family == 4) {
		size_t ihl = PB_IPV4_HDR + d->ip_opts_len;

		b[0] = (uint8_t)(0x40 | ihl / 4);
		b[1] = d->tos;
		pb_put16(b + 2, (uint16_t)total);
		pb_put16(b + 4, d->ip_id);
		pb_put16(b + 6, d->frag);
		b[8] = ttl;
		b[9] = d->proto;
		pb_put16(b + 10, 0);
		memcpy(b + 12, d->src, 4);
		memcpy(b + 16, d->dst, 4);
		if (d->ip_opts_len)
			memcpy(b + PB_IPV4_HDR, d->ip_opts, d->ip_opts_len);
		pb_put16(b + 10, pb_csum(b, ihl));
		return;
	}
	pb_put32(b, 6u << 28 | (uint32_t)d->tos << 20 | (d->flow_label & 0xfffff));
	pb_put16(b + 4, (uint16_t)(total - PB_IPV6_HDR));
	b[6] = nh;
	b[7] = ttl;
	memcpy(b + 8, d->src, 16);
	memcpy(b + 24, d->dst, 16);
	if (d->ext_len)
		memcpy(b + PB_IPV6_HDR, d->ext, d->ext_len);
}

static inline void pb_l4(uint8_t *l4, const struct pb_pkt *d, size_t l4_len)
{
	if (d->proto == PB_PROTO_TCP) {
		pb_put16(l4, d->sport);
		pb_put16(l4 + 2, d->dport);
		pb_put32(l4 + 4, d->seq);
		pb_put32(l4 + 8, d->ack);
		l4[12] = (uint8_t)(((PB_TCP_HDR + d->tcp_opts_len) / 4) << 4);
		l4[13] = d->tcp_flags;
		pb_put16(l4 + 14, d->window ? d->window : 65535);
		pb_put16(l4 + 16, 0);
		pb_put16(l4 + 18, d->urg_ptr);
		if (d->tcp_opts_len)
			memcpy(l4 + PB_TCP_HDR, d->tcp_opts, d->tcp_opts_len);
	} else if (d->proto == PB_PROTO_UDP) {
		pb_put16(l4, d->sport);
		pb_put16(l4 + 2, d->dport);
		pb_put16(l4 + 4, (uint16_t)l4_len);
		pb_put16(l4 + 6, 0);
	}
}

/*
 * Writes the packet into buf (cap bytes). Returns its length, or 0 if it does not fit
 * (or would not fit an IP length field).
 */
static inline size_t pb_build(uint8_t *buf, size_t cap, const struct pb_pkt *d)
{
	size_t ip_hlen = pb_ip_hdr_len(d), l4_hlen = pb_l4_hdr_len(d);
	size_t total = ip_hlen + l4_hlen + d->payload_len;
	uint8_t *l4 = buf + ip_hlen;
	size_t l4_len = total - ip_hlen;
	int field = d->proto == PB_PROTO_TCP ? 16 : 6;

	if (total > cap || (d->family == 4 ? total : total - PB_IPV6_HDR) > 65535)
		return 0;
	pb_ip(buf, d, total);
	pb_l4(l4, d, l4_len);
	if (d->payload_len)
		memcpy(l4 + l4_hlen, d->payload, d->payload_len);
	if (!l4_hlen || d->no_l4_csum)
		return total;
	if (d->partial_csum) {
		pb_put16(l4 + field, (uint16_t)pb_pseudo(buf, d->proto, (uint32_t)l4_len));
	} else {
		uint16_t c =
			(uint16_t)~pb_sum(l4, l4_len, pb_pseudo(buf, d->proto, (uint32_t)l4_len));

		pb_put16(l4 + field, (d->proto == PB_PROTO_UDP && !c) ? 0xffff : c);
	}
	return total;
}

/* Fills an address from a short list of bytes: v4 a.b.c.d, v6 with only the last byte. */
static inline void pb_addr4(uint8_t a[16], uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3)
{
	memset(a, 0, 16);
	a[0] = b0;
	a[1] = b1;
	a[2] = b2;
	a[3] = b3;
}

static inline void pb_addr6(uint8_t a[16], uint16_t prefix, uint8_t last)
{
	memset(a, 0, 16);
	pb_put16(a, prefix);
	a[15] = last;
}

#endif
