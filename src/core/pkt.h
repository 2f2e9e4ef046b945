/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packet buffers. A struct wg_pkt is one plaintext or ciphertext packet with room before
 * it for the 16-byte data header and after it for padding and the tag, so that
 * encryption and decryption work in place:
 *
 *   buf: | headroom | IP packet (cp.data, cp.len) ... | tailroom |
 *        ^ the data message starts DATA_HEADROOM_LEN before cp.data
 *
 * Buffers come from a per-device pool and are recycled, never allocated per packet in the
 * steady state. Whoever holds the pointer owns the buffer; lists link through cp.next
 * (the qdisc's link), since a packet is on one list at a time.
 */
#ifndef CAKEWG_SRC_CORE_PKT_H
#define CAKEWG_SRC_CORE_PKT_H

#include <stddef.h>
#include <stdint.h>

#include "qdisc/flowkey.h"
#include "qdisc/gso.h"
#include "qdisc/pkt.h"
#include "src/core/compiler.h"
#include "src/core/endpoint.h"
#include "src/core/messages.h"

struct wg_peer;

enum wg_pkt_limits {
	/* Headroom: the data header, rounded up so the IP header is 16-byte aligned. */
	WG_PKT_HEADROOM = 32,
	WG_PKT_TAILROOM = 64,
	/* The largest message or super-packet a buffer of the large class holds. */
	WG_PKT_LARGE_LEN = 65536,
};

struct wg_pkt {
	struct cake_pkt cp;	 /* the qdisc's view; cp.data points into buf */
	struct wg_peer *peer;	 /* egress: the destination; ingress: the sender */
	struct wg_endpoint src;	 /* ingress: where the datagram came from */
	uint32_t cap;		 /* bytes in buf */
	uint32_t msg_len;	 /* egress after encryption: bytes on the wire at wg_pkt_msg() */
	uint8_t outer_ecn;	 /* ingress: ECN field of the outer IP header */
	uint64_t rx_ns;		 /* ingress: when the kernel received it (now_ns's clock), 0
				  * unknown; see wg_pkt_arrival_ns */
	struct cake_gso_plan gso; /* egress super-packet from TUN: how it is cut (segs > 1) */
	uint8_t buf[] __attribute__((aligned(16)));
};

static inline struct wg_pkt *wg_pkt_of(struct cake_pkt *cp)
{
	return wg_container_of(cp, struct wg_pkt, cp);
}

/*
 * An ingress packet's arrival: the kernel's receive time, not the later now at which
 * the loop got to it and which a whole batch shares. A time past now (the kernel stamps
 * at the read for a moment after the first socket asks for stamps) or older than
 * WG_PKT_RX_AGE_MAX_NS (a step of the wall clock between the stamp and its
 * conversion, see udp.c) is no wait in the socket: now then.
 */
#define WG_PKT_RX_AGE_MAX_NS 1000000000ull
static inline uint64_t wg_pkt_arrival_ns(const struct wg_pkt *p, uint64_t now_ns)
{
	return p->rx_ns && p->rx_ns <= now_ns && now_ns - p->rx_ns <= WG_PKT_RX_AGE_MAX_NS
		       ? p->rx_ns
		       : now_ns;
}

/* The data message around the plaintext at cp.data. */
static inline uint8_t *wg_pkt_msg(struct wg_pkt *p)
{
	return p->cp.data - DATA_HEADROOM_LEN;
}

/* Bytes available from cp.data to the end of the buffer. */
static inline size_t wg_pkt_room(const struct wg_pkt *p)
{
	return p->cap - (size_t)(p->cp.data - p->buf);
}

/* Bytes a plaintext may fill from cp.data, leaving the tailroom for padding and tag. */
static inline size_t wg_pkt_payload_room(const struct wg_pkt *p)
{
	return wg_pkt_room(p) - WG_PKT_TAILROOM;
}

/* Where the addresses sit in an inner IP header (sizes from qdisc/flowkey.h). */
enum wg_ip_offsets {
	WG_IPV4_SRC_OFFSET = 12,
	WG_IPV4_DST_OFFSET = 16,
	WG_IPV6_SRC_OFFSET = 8,
	WG_IPV6_DST_OFFSET = 24,
};

/* AF_INET or AF_INET6 when an inner packet of len bytes holds that fixed header, else 0. */
static inline int wg_ip_family(const uint8_t *ip, size_t len)
{
	if (len >= CAKE_IPV4_HDR_BYTES && (ip[0] >> 4) == 4)
		return AF_INET;
	if (len >= CAKE_IPV6_HDR_BYTES && (ip[0] >> 4) == 6)
		return AF_INET6;
	return 0;
}

/* Bytes the underlay adds around a WireGuard message: the outer IP and UDP headers. */
static inline uint32_t wg_outer_hdr_len(sa_family_t family)
{
	return (family == AF_INET6 ? CAKE_IPV6_HDR_BYTES : CAKE_IPV4_HDR_BYTES) +
	       CAKE_UDP_HDR_BYTES;
}

/* A received packet's size on the underlay: its datagram and the outer headers. */
static inline uint32_t wg_pkt_rx_wire_len(const struct wg_pkt *pkt)
{
	return pkt->msg_len + wg_outer_hdr_len(pkt->src.remote.addr.sa_family);
}

/* A singly linked FIFO of packets through cp.next. */
struct wg_pkt_list {
	struct wg_pkt *head, *tail;
	uint32_t len;
};

void wg_pkt_list_push(struct wg_pkt_list *l, struct wg_pkt *p);
void wg_pkt_list_push_front(struct wg_pkt_list *l, struct wg_pkt *p);
struct wg_pkt *wg_pkt_list_pop(struct wg_pkt_list *l);

/*
 * A pool of buffers of one capacity (the small class is sized from the MTU, the large
 * class holds a 64 KiB super-packet). Freed buffers are kept for reuse up to max_free.
 */
struct wg_pktpool {
	struct wg_pkt_list free;
	uint32_t cap;	    /* buf bytes of each buffer handed out */
	uint32_t max_free;  /* buffers kept for reuse */
	uint64_t allocated; /* buffers ever allocated (a steady state stops growing) */
	uint64_t outstanding;
};

/* A pool whose buffers hold a plaintext of up to payload bytes. */
void wg_pktpool_init(struct wg_pktpool *pool, uint32_t payload, uint32_t max_free);
/* Frees every pooled buffer; outstanding ones are the holders' to put back first. */
void wg_pktpool_deinit(struct wg_pktpool *pool);
/* A buffer with cp.data at the headroom and every field zeroed but cp.truesize (the bytes
 * allocated for it, which CAKE charges against its memory limit), or NULL if out of
 * memory. */
struct wg_pkt *wg_pktpool_get(struct wg_pktpool *pool);
/* Returns a buffer; buffers of another capacity (after an MTU change) are freed. */
void wg_pktpool_put(struct wg_pktpool *pool, struct wg_pkt *p);
/* The largest plaintext a buffer of this pool holds. */
static inline uint32_t wg_pkt_room_for_payload(const struct wg_pktpool *pool)
{
	return pool->cap - WG_PKT_HEADROOM - WG_PKT_TAILROOM;
}
/* Changes the capacity of buffers handed out from now on. */
void wg_pktpool_resize(struct wg_pktpool *pool, uint32_t payload);

#endif
