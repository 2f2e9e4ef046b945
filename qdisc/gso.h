/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Software GSO for the super-packets a TUN device with IFF_VNET_HDR hands over: TCP
 * over IPv4/IPv6 (TSO) and UDP over IPv4/IPv6 (USO), cut into gso_size segments the
 * way Linux's inet_gso_segment/ipv6_gso_segment + tcp_gso_segment/__udp_gso_segment
 * cut them, with full checksums (the segments leave encrypted, so nothing downstream
 * could complete a partial one):
 *
 * - the IP header (with IPv4 options or IPv6 extension headers) and the TCP header
 *   with options, or the UDP header, are copied to every segment;
 * - IPv4: total length per segment; ID = first ID + i (mod 2^16) for segment i. Linux
 *   keeps the ID fixed only for SKB_GSO_TCP_FIXEDID, which only GRO sets and
 *   virtio_net_hdr cannot express, so a TUN super-packet always gets +1 per segment,
 *   DF set or not (kernels before 6.x refused FIXEDID without DF; that does not arise);
 *   header checksum recomputed;
 * - IPv6: payload length per segment;
 * - TCP: sequence number advanced by gso_size per segment; CWR kept on the first
 *   segment only, FIN and PSH on the last only; everything else (URG, urgent pointer,
 *   window, options) copied;
 * - UDP: length per segment; a computed checksum of 0 is sent as 0xffff;
 * - L4 checksum: with NEEDS_CSUM the field holds the pseudo-header sum over the whole
 *   super-packet (as Linux leaves it); it is adjusted for each segment's length and
 *   completed over the segment, as tcp_gso_segment does. Without NEEDS_CSUM (TCP only)
 *   the pseudo-header is computed from the IP addresses, as tcp4/6_gso_segment do.
 *
 * A packet whose payload fits in one gso_size is not a GSO packet (as in
 * virtio_net_hdr_to_skb): it yields one segment, its checksum completed if partial.
 * A gso_type of NONE with NEEDS_CSUM is planned the same way, so one code path serves
 * every packet read from TUN; cake_csum_complete_partial() does it in place instead.
 *
 * No allocation: plan first (segment count and the largest segment size), then copy
 * segment i into a caller buffer. Both only read within [data, data + len).
 */
#ifndef CAKEWG_QDISC_GSO_H
#define CAKEWG_QDISC_GSO_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/pkt.h"

/* virtio_net_hdr values (virtio spec 1.2 section 5.1.6; linux/virtio_net.h). */
enum cake_vnet_values {
	CAKE_VNET_F_NEEDS_CSUM = 1,
	CAKE_VNET_F_DATA_VALID = 2,
	CAKE_VNET_GSO_NONE = 0,
	CAKE_VNET_GSO_TCPV4 = 1,
	CAKE_VNET_GSO_UDP = 3, /* UFO: IP fragmentation, not supported */
	CAKE_VNET_GSO_TCPV6 = 4,
	CAKE_VNET_GSO_UDP_L4 = 5,
	CAKE_VNET_GSO_ECN = 0x80,
	CAKE_VNET_HDR_BYTES = 10,
	/* Linux's UDP_MAX_SEGMENTS (include/linux/udp.h: 128 now, 64 in older kernels). */
	CAKE_USO_MAX_SEGS = 128,
};

/* struct virtio_net_hdr in host byte order (the edge converts from the device's). */
struct cake_vnet_hdr {
	uint8_t flags;	  /* CAKE_VNET_F_* */
	uint8_t gso_type; /* CAKE_VNET_GSO_*, optionally | CAKE_VNET_GSO_ECN */
	uint16_t hdr_len; /* a hint only (Linux sends skb_headlen): must not exceed len */
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
};

struct cake_gso_plan {
	uint8_t type;	      /* enum cake_gso_type; CAKE_GSO_NONE for a single packet */
	uint8_t family;	      /* 4 or 6 */
	bool partial_csum;    /* the L4 checksum field holds a pseudo-header sum */
	uint16_t l4_offset;   /* transport header offset (0 for an untouched packet) */
	uint16_t csum_start;  /* partial_csum: where the sum starts ... */
	uint16_t csum_offset; /* ... and where its field is, from csum_start */
	uint16_t hdr_len;     /* bytes of IP + transport headers copied to each segment */
	uint16_t mss;	      /* payload bytes per segment but the last */
	uint32_t segs;	      /* number of segments, >= 1 */
	uint32_t payload_len; /* payload bytes after hdr_len in the super-packet */
	uint32_t max_seg_len; /* buffer size that fits any segment */
	uint32_t len;	      /* length of the planned packet */
};

/*
 * Checks the headers and vnet fields and plans the cut. Returns 0, -EINVAL when a
 * field lies (lengths, offsets, protocol not matching gso_type, gso_size 0, IPv4
 * fragment, too many USO segments) or -EOPNOTSUPP for UFO or unknown types.
 */
int cake_gso_plan(const uint8_t *data, uint32_t len, const struct cake_vnet_hdr *vh,
		  struct cake_gso_plan *plan);

/* Length of segment i of a plan (0 if i is out of range). */
uint32_t cake_gso_seg_len(const struct cake_gso_plan *plan, uint32_t i);

/*
 * Writes segment i into out (out_size bytes). Returns its length, -ERANGE if i is out
 * of range, -ENOSPC if out is too small, -EINVAL if data/len do not match the plan.
 */
int cake_gso_segment(const uint8_t *data, uint32_t len, const struct cake_gso_plan *plan,
		     uint32_t i, uint8_t *out, uint32_t out_size);

/* Fills pkt->gso_type, gso_size and gso_segs from a plan. */
void cake_gso_fill_pkt(struct cake_pkt *pkt, const struct cake_gso_plan *plan);

#endif
