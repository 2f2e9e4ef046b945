/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The UDP underlay sockets: one IPv4 and one IPv6 socket bound to the listen port, both
 * nonblocking, received and sent in batches (recvmmsg/sendmmsg).
 *
 * - Port: 0 lets the kernel pick one for IPv4; IPv6 (IPV6_V6ONLY) then binds the same
 *   number, and if that is taken, both are retried (as wireguard-go's StdNetBind.Open).
 * - Sticky source: every received datagram reports our local address and interface
 *   (IP_PKTINFO / IPV6_RECVPKTINFO) in its endpoint; sending to that endpoint sends from
 *   that address. If the kernel refuses the source (EINVAL: the address is gone), the
 *   source is cleared in the caller's endpoint and the datagram retried without it, as
 *   wireguard-go and Linux WireGuard do. A source refused this way is remembered per
 *   family and left out of later datagrams too (callers may hold copies of the endpoint
 *   that still name it), until a datagram arrives at that address again.
 * - Backpressure: the send buffer is small on purpose, and the caller sizes it at run
 *   time (the byte limit of src/core/bql.h) from what the socket holds (SIOCOUTQ).
 *   EAGAIN and ENOBUFS are not losses: the send stops, reports how many datagrams went
 *   out, and the rest stay with the caller until the socket is writable.
 * - ECN: the outer TOS/traffic class is received (IP_RECVTOS / IPV6_RECVTCLASS) and can
 *   be set per datagram, so the caller can apply RFC 6040.
 * - Offloads: UDP GSO (a UDP_SEGMENT cmsg on a datagram made of equal segments, the last
 *   possibly shorter: one trip down the stack for the whole train) is probed at open and
 *   switched off for good on EIO (the egress device cannot checksum); the caller may
 *   switch it off too (gso[f] = false) when a train is refused for another reason. UDP
 *   GRO is asked for only when configured, and a coalesced datagram reports its segment
 *   size.
 */
#ifndef CAKEWG_SRC_EDGE_UDP_H
#define CAKEWG_SRC_EDGE_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "src/core/compiler.h"
#include "src/core/endpoint.h"

enum wg_udp_limits {
	WG_UDP_BATCH_MAX = 128,		 /* per call; wireguard-go's IdealBatchSize */
	WG_UDP_RCVBUF_BYTES = 8 << 20,	 /* default receive buffer (SO_RCVBUFFORCE) */
	WG_UDP_SNDBUF_BYTES = 128 << 10, /* default send buffer: the backpressure limit */
	WG_UDP_GSO_MAX_SEGMENTS = 64,	 /* the kernel's UDP_MAX_SEGMENTS */
	WG_UDP_CMSG_BYTES = 160,	 /* pktinfo + tos + segment size + receive time, with room */
	WG_UDP_BIND_ATTEMPTS = 100,	 /* port 0: retries when v6 finds v4's port taken */
};

enum wg_udp_family {
	WG_UDP_V4,
	WG_UDP_V6,
	WG_UDP_FAMILIES,
};

struct wg_udp_config {
	uint16_t port;	       /* 0: the kernel picks (the same for both families) */
	uint32_t fwmark;       /* SO_MARK; 0: none */
	bool rx_stamps;	       /* each datagram's receive time (wg_udp_rx.rx_ns) */
	uint32_t rcvbuf_bytes; /* 0: WG_UDP_RCVBUF_BYTES */
	uint32_t sndbuf_bytes; /* 0: WG_UDP_SNDBUF_BYTES */
	bool gro;	       /* ask for UDP_GRO: receive buffers must then hold 64 KiB */
};

/* One datagram to receive into. */
struct wg_udp_rx {
	void *buf;
	size_t cap;
	/* Filled in: */
	size_t len;
	struct wg_endpoint ep; /* the sender, and our address it wrote to (has_src) */
	uint8_t tos;	       /* outer TOS / traffic class: DSCP and ECN */
	uint16_t gro_size;     /* >0: GRO joined segments of this size into buf */
	uint64_t rx_ns;	       /* when the kernel received it, on the monotonic clock (our
				* now_ns's): 0 unknown. Earlier than now by the time it
				* waited in the socket, and for GRO the time of the train */
	bool truncated;	       /* larger than cap (and the spill area, if any): the tail is
				* lost, drop it */
};

/* One datagram (or, with gso_size, a train of equal datagrams) to send: buf and len, or,
 * when iovcnt is not 0, the concatenation of iov[0..iovcnt) (which must stay valid until
 * wg_udp_send returns). */
struct wg_udp_tx {
	const void *buf;
	size_t len;
	const struct iovec *iov;
	unsigned int iovcnt;
	struct wg_endpoint *ep; /* has_src may be cleared when the source is gone */
	uint8_t tos;		/* outer TOS / traffic class; 0: leave the socket's */
	uint16_t gso_size;	/* >0: split into datagrams of this size (needs gso) */
};

enum wg_udp_send_outcome {
	WG_UDP_SENT_ALL,     /* every datagram went out */
	WG_UDP_SEND_BLOCKED, /* EAGAIN/ENOBUFS: tx[sent..] kept; wait until writable */
	WG_UDP_SEND_FAILED,  /* tx[sent] was refused (err); tx[sent+1..] not tried */
};

struct wg_udp_send_result {
	unsigned int sent; /* datagrams (tx entries) that went out, from the start */
	int err;	   /* -errno for BLOCKED and FAILED, else 0 */
	int blocked_fd;	   /* BLOCKED: the socket to wait on for writability */
};

struct wg_udp_stats {
	uint64_t sticky_resets; /* sources cleared after EINVAL */
	uint64_t gso_disabled;	/* EIO answers that switched GSO off */
};

/* A local source (address and interface) the kernel refused: it is gone. */
struct wg_udp_refused_src {
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
	int ifindex;
	bool set;
};

/* The mmsghdr arrays of one batch (defined in udp.c: struct mmsghdr needs _GNU_SOURCE). */
struct wg_udp_scratch;

struct wg_udp {
	int fd[WG_UDP_FAMILIES]; /* -1 when that family is unavailable */
	uint16_t port;
	uint32_t fwmark;
	bool rx_stamps;
	bool gso[WG_UDP_FAMILIES]; /* UDP_SEGMENT usable */
	bool gro[WG_UDP_FAMILIES]; /* UDP_GRO on */
	struct wg_udp_refused_src refused[WG_UDP_FAMILIES];
	struct wg_udp_stats stats;
	struct wg_udp_scratch *scratch;
};

/* Opens and binds both families. 0 or -errno (-EAFNOSUPPORT when neither family works). */
int wg_udp_open(struct wg_udp *u, const struct wg_udp_config *cfg);
void wg_udp_close(struct wg_udp *u);
int wg_udp_set_fwmark(struct wg_udp *u, uint32_t mark);
/*
 * Receive times (SO_TIMESTAMPNS) on or off, now and for sockets opened later. On, the
 * kernel stamps every packet the host receives (one global switch, turned on a moment
 * after the first socket asks), so they stay off unless something reads them. 0 or
 * -errno (then a socket may be without them: rx_ns 0).
 */
int wg_udp_set_rx_stamps(struct wg_udp *u, bool on);
/* The bytes the kernel holds for one family's socket (SIOCOUTQ: the truesize of datagrams
 * not yet sent or not yet freed by the driver), or -errno. */
int wg_udp_queued_bytes(const struct wg_udp *u, enum wg_udp_family f);
/* Sets one family's send buffer to `bytes` (past wmem_max as root): sends fail with EAGAIN
 * once the socket holds that much, and it signals writability when it holds less than
 * half. 0 or -errno. */
int wg_udp_set_sndbuf(struct wg_udp *u, enum wg_udp_family f, uint32_t bytes);
/* The family an endpoint is sent on; WG_UDP_FAMILIES when it has no address. */
enum wg_udp_family wg_udp_family_of(const struct wg_endpoint *ep);

/*
 * Receives up to n (<= WG_UDP_BATCH_MAX) datagrams from one family's socket with one
 * recvmmsg. Returns how many (0 when none are waiting) or -errno.
 */
int wg_udp_recv(struct wg_udp *u, enum wg_udp_family f, struct wg_udp_rx *rx, unsigned int n);
/*
 * wg_udp_recv, where a datagram longer than rx[i].cap goes on into rx[i]'s spill area,
 * spill + i * spill_len (spill_len bytes): rx[i].len then exceeds cap, and the rest is
 * there. Datagrams that fit cost nothing more. truncated: longer than both.
 */
int wg_udp_recv_spill(struct wg_udp *u, enum wg_udp_family f, struct wg_udp_rx *rx,
		      unsigned int n, uint8_t *spill, size_t spill_len);

/*
 * Sends tx[0..n) in order, batching runs of one family into sendmmsg calls. The outcome
 * says whether all went, the socket filled up (the rest is kept by the caller, never
 * dropped here) or one datagram was refused; res tells how many went out first. An
 * endpoint whose source is gone (refused now, or before) has it cleared.
 */
enum wg_udp_send_outcome wg_udp_send(struct wg_udp *u, struct wg_udp_tx *tx, unsigned int n,
				     struct wg_udp_send_result *res);

#endif
