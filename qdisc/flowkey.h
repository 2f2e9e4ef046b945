/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inner-packet dissector: reads an IPv4 or IPv6 packet as the TUN device hands it
 * over (no link header), walks IPv4 options and IPv6 extension headers, finds the
 * transport header and fills struct cake_pkt with what CAKE classifies on: DSCP, ECN,
 * the keyed flow hash and the source and destination host hashes.
 *
 * Hashes (SipHash-2-4 under a per-instance key, low 32 bits):
 *   flow_hash = H(family, proto, sport, dport, src, dst)   ports 0 when absent
 *   src_hash  = H(family, src)     dst_hash = H(family, dst)
 * The flow hash is direction-aware, as one CAKE instance only sees one direction;
 * the host hashes share one function, so a host hashes alike as source or destination.
 * Fragments (IPv4 MF or offset, IPv6 fragment header other than an atomic one) hash
 * on addresses and protocol only, so all fragments of a datagram share a queue.
 *
 * Only reads within [data, data + len); never allocates; no side effects but *pkt.
 */
#ifndef CAKEWG_QDISC_FLOWKEY_H
#define CAKEWG_QDISC_FLOWKEY_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/pkt.h"
#include "qdisc/siphash.h"
#include "qdisc/tcp_wire.h"

/* IP protocol numbers (IANA) the dissector knows. */
enum cake_ipproto {
	CAKE_IPPROTO_HOPOPTS = 0,
	CAKE_IPPROTO_ICMP = 1,
	CAKE_IPPROTO_TCP = 6,
	CAKE_IPPROTO_UDP = 17,
	CAKE_IPPROTO_DCCP = 33,
	CAKE_IPPROTO_ROUTING = 43,
	CAKE_IPPROTO_FRAGMENT = 44,
	CAKE_IPPROTO_ESP = 50,
	CAKE_IPPROTO_AH = 51,
	CAKE_IPPROTO_ICMPV6 = 58,
	CAKE_IPPROTO_NONE = 59,
	CAKE_IPPROTO_DSTOPTS = 60,
	CAKE_IPPROTO_SCTP = 132,
	CAKE_IPPROTO_UDPLITE = 136,
};

/* IPv4, IPv6 and UDP header lengths; TCP's layout is in tcp_wire.h. */
enum cake_hdr_lengths {
	CAKE_IPV4_HDR_BYTES = 20,
	CAKE_IPV6_HDR_BYTES = 40,
	CAKE_UDP_HDR_BYTES = 8,
};

enum cake_flowkey_verdict {
	CAKE_FLOWKEY_OK = 0, /* IP header sound; transport parsed where the protocol has one */
	CAKE_FLOWKEY_BAD_L4, /* IP header sound, extension or transport header truncated or
			      * malformed: hashed on addresses and protocol as far as known */
	CAKE_FLOWKEY_BAD,    /* IP header truncated or lying about its lengths: addresses
			      * hashed if the fixed header is there, else a constant hash */
	CAKE_FLOWKEY_NOT_IP, /* version nibble neither 4 nor 6: constant hash */
};

/* What the header walk found; offsets are from the start of the packet. */
struct cake_flowkey_hdrs {
	uint8_t family;	    /* 4, 6, or 0 when the fixed IP header is not there */
	uint8_t proto;	    /* last next-header / protocol value reached */
	uint8_t tos;	    /* DS field: DSCP << 2 | ECN */
	bool fragment;	    /* see the header comment */
	bool later_fragment; /* a fragment other than the first (offset not 0) */
	bool has_ports;	    /* sport/dport valid */
	uint16_t l3_len;    /* bytes of IP header, options and extension headers */
	uint16_t l4_offset; /* TCP/UDP header offset, 0 unless TCP or UDP was parsed */
	uint16_t l4_hdr_len;
	uint32_t ip_len; /* packet length the IP header declares (<= buffer length) */
	uint16_t sport, dport;
	uint8_t tcp_flags; /* header byte 13 when TCP was parsed */
};

/* Walks the headers of the len bytes at data. */
enum cake_flowkey_verdict cake_flowkey_dissect(const uint8_t *data, uint32_t len,
					       struct cake_flowkey_hdrs *hdrs);

/*
 * Sets pkt->data and pkt->len to (data, len) and fills flags, dscp, ecn, l4_offset,
 * l4_hdr_len, flow_hash, src_hash and dst_hash. Leaves the queue, GSO, mark and
 * length-accounting fields alone.
 */
enum cake_flowkey_verdict cake_flowkey_parse(struct cake_pkt *pkt, uint8_t *data, uint32_t len,
					     const struct cake_siphash_key *key);

#endif
