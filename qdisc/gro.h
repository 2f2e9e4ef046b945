/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Software GRO for the TUN write path: consecutive TCP segments of one flow are
 * coalesced into one super-packet that goes to the kernel with a GSO virtio_net_hdr
 * (the inverse of qdisc/gso.h). One write() then carries up to 64 KiB.
 *
 * Two segments merge under the rules of Linux's inet_gro_receive/ipv6_gro_receive +
 * tcp_gro_receive, made strict enough that cutting the result again with
 * cake_gso_segment() gives back the segments byte for byte (checksum fields aside):
 *
 * - a candidate is a TCP segment over IPv4 without options, not a fragment, with a
 *   sound header checksum, or over IPv6 without extension headers; its IP length
 *   matches the bytes given; its flags are ACK or ACK|PSH (no SYN, FIN, RST, URG, CWR,
 *   ECE); it carries payload;
 * - it joins an open super-packet when everything but lengths, checksum, IPv4 ID and
 *   sequence number equals the first segment's headers: version, addresses, ports,
 *   IPv4 TOS (so an ECN CE mark never merges with a non-CE one), DF and TTL, IPv6
 *   traffic class, flow label and hop limit, TCP header length and option bytes, ack
 *   number, window and urgent pointer;
 * - IPv4: its ID is the first segment's + the number merged so far (mod 2^16), since a
 *   virtio header cannot say SKB_GSO_TCP_FIXEDID and the kernel, should it cut the
 *   super-packet again, numbers segments that way (fixed-ID streams are not merged);
 * - its sequence number continues the super-packet; its payload is at most the first
 *   segment's (gso_size); a shorter one or one with PSH merges and ends it;
 * - the total stays within CAKE_GRO_MAX_BYTES (the IPv4 total length field, and
 *   Linux's default gro_max_size for both families) and the buffer.
 *
 * Checksums are not verified (the IPv4 header's aside): every segment came out of a
 * WireGuard AEAD, so it is exactly what the authenticated peer sent, and Linux's
 * WireGuard marks decrypted skbs CHECKSUM_UNNECESSARY for the same reason. The
 * super-packet goes out CHECKSUM_PARTIAL: VIRTIO_NET_HDR_F_NEEDS_CSUM, csum_start at the
 * TCP header, csum_offset 16, the field holding the pseudo-header sum of the coalesced
 * length (uncomplemented, as tcp_v4_send_check leaves it).
 *
 * A "super-packet" of one segment is the segment itself, bytes untouched, and goes out
 * with an all-zero virtio header.
 *
 * No allocation: the caller gives the buffer. Only reads within [pkt, pkt + len).
 */
#ifndef CAKEWG_QDISC_GRO_H
#define CAKEWG_QDISC_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/gso.h"

enum cake_gro_limits {
	CAKE_GRO_MAX_BYTES = 65535, /* IPv4 total length field; Linux's gro_max_size - 1 */
	CAKE_GRO_TCP_CSUM_OFFSET = 16,
};

/* What a packet is to the coalescer. */
enum cake_gro_class {
	CAKE_GRO_CANDIDATE, /* a TCP segment that may start or join a super-packet */
	CAKE_GRO_TCP_FLOW,  /* TCP of a known flow (ports read) that must go out alone */
	CAKE_GRO_TCP_OTHER, /* TCP whose ports are unknown (fragment, bad header) */
	CAKE_GRO_NOT_TCP,   /* anything else: no TCP flow to keep in order with */
};

/* A TCP flow as the coalescer keys it: addresses and ports, one direction. */
struct cake_gro_flow {
	uint8_t family;	   /* 4 or 6 */
	uint8_t addrs[32]; /* source then destination; IPv4 uses the first 8 bytes */
	uint16_t sport, dport;
};

/* A classified packet: filled by cake_gro_classify(). */
struct cake_gro_seg {
	struct cake_gro_flow flow; /* valid for CANDIDATE and TCP_FLOW */
	uint16_t l4_offset;	   /* TCP header offset (CANDIDATE) */
	uint16_t hdr_len;	   /* IP + TCP header bytes (CANDIDATE) */
	uint32_t payload_len;	   /* bytes after hdr_len, > 0 (CANDIDATE) */
	uint32_t seq;
	uint8_t tcp_flags;
};

/* An open super-packet. The caller owns buf; the coalescer only writes within cap. */
struct cake_gro {
	uint8_t *buf;	   /* the super-packet, from its IP header */
	uint32_t len;	   /* bytes in buf */
	uint32_t cap;	   /* room in buf */
	uint32_t next_seq; /* sequence number the next segment must carry */
	uint16_t hdr_len;  /* IP + TCP header bytes */
	uint16_t l4_offset;
	uint16_t mss;  /* payload bytes of the first segment: gso_size */
	uint16_t segs; /* segments merged, >= 1 */
	bool closed;   /* PSH, a short segment or CAKE_GRO_MAX_BYTES: nothing may join */
	struct cake_gro_flow flow;
};

/* How cake_gro_try_add() went. */
enum cake_gro_add_result {
	CAKE_GRO_MERGED,      /* payload appended; g->closed says whether more may come */
	CAKE_GRO_OTHER_FLOW,  /* the segment is not of g's flow: g unchanged */
	CAKE_GRO_CANNOT_JOIN, /* same flow, but the rules forbid it: finish g before the
			       * segment, to keep the flow in order */
	CAKE_GRO_NO_ROOM,     /* it would join, but g->cap is too small: move g to a larger
			       * buffer (cake_gro_move) and retry, or finish g first */
};

/* Reads the headers of the len bytes at pkt and says what the packet is to GRO. */
enum cake_gro_class cake_gro_classify(const uint8_t *pkt, uint32_t len, struct cake_gro_seg *seg);

/* True when a and b are the same flow. */
bool cake_gro_flow_equal(const struct cake_gro_flow *a, const struct cake_gro_flow *b)
	__attribute__((warn_unused_result));

/*
 * Opens a super-packet with a CANDIDATE segment (seg from cake_gro_classify), copied
 * to buf (cap bytes). buf may be pkt itself (start in place: nothing is copied, cap is
 * then usually len). Returns 0, -EINVAL when seg is no candidate or disagrees with len,
 * -ENOSPC when len exceeds cap.
 */
int cake_gro_start(struct cake_gro *g, uint8_t *buf, uint32_t cap, const uint8_t *pkt, uint32_t len,
		   const struct cake_gro_seg *seg);

/* Appends a CANDIDATE segment's payload if it may join (see the rules above). */
enum cake_gro_add_result cake_gro_try_add(struct cake_gro *g, const uint8_t *pkt, uint32_t len,
					  const struct cake_gro_seg *seg);

/* Copies the super-packet to buf (cap bytes) and continues there. 0 or -ENOSPC. */
int cake_gro_move(struct cake_gro *g, uint8_t *buf, uint32_t cap);

/*
 * Completes the super-packet for writing: with more than one segment, sets the IPv4
 * total length and header checksum or the IPv6 payload length, and the TCP checksum
 * field to the pseudo-header sum, and describes it in *vh (TCPV4/TCPV6, gso_size =
 * mss, NEEDS_CSUM). With one segment the bytes are left alone and *vh is all zero.
 * Returns the length to write (g->len). g must not be added to afterwards.
 */
uint32_t cake_gro_finish(struct cake_gro *g, struct cake_vnet_hdr *vh);

#endif
