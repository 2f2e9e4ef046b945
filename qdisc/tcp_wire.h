/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TCP and ICMP echo as they are on the wire: the header layout, flag bits, option kinds
 * and lengths, named once for every reader and writer of them in qdisc/ and tools/sim/,
 * and the one walk over a TCP header's options.
 *
 * The walk (cake_tcpopt_next) skips NOPs and stops at EOL, at an option whose kind and
 * length bytes are not both there, at a length below 2 and at one that runs past the
 * option bytes given. What it returns lies whole within them. It only reads.
 */
#ifndef CAKEWG_QDISC_TCP_WIRE_H
#define CAKEWG_QDISC_TCP_WIRE_H

#include <stdint.h>

/* The TCP header (RFC 9293, section 3.1): lengths and byte offsets of its fields. */
enum cake_tcp_header {
	CAKE_TCP_HDR_BYTES = 20,
	CAKE_TCP_MAX_HDR_BYTES = 60,
	CAKE_TCP_SEQ_OFFSET = 4,
	CAKE_TCP_ACK_OFFSET = 8,
	CAKE_TCP_DOFF_OFFSET = 12, /* data offset in the high nibble, reserved bits low */
	CAKE_TCP_FLAGS_OFFSET = 13,
	CAKE_TCP_WINDOW_OFFSET = 14,
	CAKE_TCP_CHECK_OFFSET = 16,
	CAKE_TCP_URG_PTR_OFFSET = 18,
};

/* TCP flag bits in header byte 13 (RFC 9293; ECE and CWR from RFC 3168). */
enum cake_tcp_flags {
	CAKE_TCP_FIN = 0x01,
	CAKE_TCP_SYN = 0x02,
	CAKE_TCP_RST = 0x04,
	CAKE_TCP_PSH = 0x08,
	CAKE_TCP_ACK = 0x10,
	CAKE_TCP_URG = 0x20,
	CAKE_TCP_ECE = 0x40,
	CAKE_TCP_CWR = 0x80,
};

/*
 * TCP option kinds and total lengths: EOL, NOP and the kind-length-value layout from
 * RFC 9293 (section 3.2), SACK from RFC 2018 (a 2-byte kind and length, then blocks of
 * two 32-bit sequence numbers), timestamps from RFC 7323 (TSval then TSecr), MD5
 * signatures from RFC 2385.
 */
enum cake_tcp_options {
	CAKE_TCPOPT_EOL = 0,
	CAKE_TCPOPT_NOP = 1,
	CAKE_TCPOPT_SACK = 5,
	CAKE_TCPOPT_TIMESTAMP = 8,
	CAKE_TCPOPT_MD5SIG = 19,
	CAKE_TCPOLEN_MIN = 2, /* kind and length bytes */
	CAKE_TCPOLEN_SACK_BASE = 2,
	CAKE_TCPOLEN_SACK_BLOCK = 8,
	CAKE_TCPOLEN_TIMESTAMP = 10,
};

/*
 * ICMP (RFC 792) and ICMPv6 (RFC 4443) echo: type values and the 8-byte header of type,
 * code, checksum, identifier (offset 4) and sequence number (offset 6).
 */
enum cake_icmp_echo {
	CAKE_ICMP_ECHOREPLY = 0,
	CAKE_ICMP_ECHO = 8,
	CAKE_ICMPV6_ECHO_REQUEST = 128,
	CAKE_ICMPV6_ECHO_REPLY = 129,
	CAKE_ICMP_ECHO_HDR_BYTES = 8,
	CAKE_ICMP_ECHO_ID_OFFSET = 4,
	CAKE_ICMP_ECHO_SEQ_OFFSET = 6,
};

/* A walk over the len option bytes at p (the bytes after the fixed TCP header). */
struct cake_tcpopt_walk {
	const uint8_t *p;
	uint32_t left;
};

static inline struct cake_tcpopt_walk cake_tcpopt_walk_init(const uint8_t *opts, uint32_t len)
{
	return (struct cake_tcpopt_walk){opts, len};
}

/* The next option (its kind byte; *size its total length, >= 2), or NULL at the end. */
const uint8_t *cake_tcpopt_next(struct cake_tcpopt_walk *w, uint32_t *size);

#endif
