/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A packet as the qdisc sees it: metadata plus a pointer to the inner packet bytes.
 * The endpoint embeds struct cake_pkt in its own buffer type and gets back to it with
 * container_of, so the qdisc never knows WireGuard types. The qdisc links packets
 * through `next` while it owns them and never allocates or frees one.
 */
#ifndef CAKEWG_QDISC_PKT_H
#define CAKEWG_QDISC_PKT_H

#include <stdbool.h>
#include <stdint.h>

enum cake_gso_type {
	CAKE_GSO_NONE = 0,
	CAKE_GSO_TCPV4,
	CAKE_GSO_TCPV6,
	CAKE_GSO_UDP_L4, /* USO: UDP segmentation, IPv4 or IPv6 */
};

enum cake_pkt_flags {
	CAKE_PKT_IPV4 = 1u << 0,
	CAKE_PKT_IPV6 = 1u << 1,
	CAKE_PKT_TCP = 1u << 2,
	CAKE_PKT_UDP = 1u << 3,
	CAKE_PKT_FRAGMENT = 1u << 4, /* a fragment: hashed on addresses only */
	CAKE_PKT_PURE_ACK = 1u << 5, /* TCP with no payload and no SYN/FIN/RST */
};

struct cake_pkt {
	struct cake_pkt *next;   /* queue link; owned by whoever holds the packet */
	uint8_t *data;           /* inner packet, starting at the IP header */
	uint32_t len;            /* inner network-layer length (bytes at data) */
	uint32_t wire_len;       /* bytes on the underlay as the caller counts them, per segment
				  * for a GSO packet (sum over segments) */
	uint32_t adj_len;        /* set by the qdisc: wire_len after overhead compensation */
	uint32_t truesize;       /* bytes of memory that hold the packet (skb->truesize), charged
				  * against the memory limit; 0: wire_len plus the instance's
				  * pkt_mem_overhead_bytes */
	uint64_t enqueue_ns;     /* set by the qdisc */
	uint32_t flow_hash;      /* keyed hash of the 5-tuple (or what is available) */
	uint32_t src_hash;       /* keyed hash of the source address */
	uint32_t dst_hash;       /* keyed hash of the destination address */
	uint32_t mark;           /* fwmark-like tag (tin override when the mask selects it) */
	uint8_t dscp;            /* inner DSCP (6 bits) */
	uint8_t ecn;             /* inner ECN field (2 bits) */
	uint8_t flags;           /* enum cake_pkt_flags */
	uint8_t gso_type;        /* enum cake_gso_type */
	uint16_t gso_size;       /* payload bytes per segment, 0 if not GSO */
	uint16_t gso_segs;       /* number of segments (1 if not GSO) */
	uint16_t l4_offset;      /* offset of the TCP/UDP header in data, 0 if none */
	uint16_t l4_hdr_len;     /* TCP header length incl. options / 8 for UDP */
};

#endif
