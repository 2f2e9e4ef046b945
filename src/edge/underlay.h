/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The underlay: one IPv4 and one IPv6 UDP socket on the listen port, nonblocking, with a
 * deliberately small send buffer (the byte limit that gives the egress queue its
 * backpressure) and a large receive buffer. Data messages are batched per family and
 * sent with sendmmsg; each carries its outer ECN bits (RFC 6040: copied from the inner
 * header) and, when known, the local source address the peer talks to (IP_PKTINFO).
 * Handshake messages go out at once, marked AF41 as Linux marks them.
 */
#ifndef CAKEWG_SRC_EDGE_UNDERLAY_H
#define CAKEWG_SRC_EDGE_UNDERLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "src/core/device.h"

enum wg_underlay_limits {
	WG_UNDERLAY_BATCH = 64,
	WG_UNDERLAY_RCVBUF_BYTES = 8 << 20,
	WG_UNDERLAY_SNDBUF_BYTES = 192 << 10,
	WG_UNDERLAY_CMSG_BYTES = 64,
};

struct wg_underlay_batch {
	struct mmsghdr msgs[WG_UNDERLAY_BATCH];
	struct iovec iov[WG_UNDERLAY_BATCH];
	union wg_ipaddr_sockaddr names[WG_UNDERLAY_BATCH];
	uint8_t cmsg[WG_UNDERLAY_BATCH][WG_UNDERLAY_CMSG_BYTES];
	struct wg_pkt *pkts[WG_UNDERLAY_BATCH];
	unsigned int n;
};

struct wg_underlay_stats {
	uint64_t sent, send_errors, blocked, received, truncated, sticky_resets;
};

struct wg_underlay {
	int fd4, fd6;
	uint16_t port;
	uint32_t fwmark;
	struct wg_device *dev; /* buffers go back to its pools */
	void (*rebound)(void *ctx);
	void *rebound_ctx;
	int blocked_fd; /* the socket that answered EAGAIN */
	/* A local source address the kernel refused (EINVAL: it is gone); left out since. */
	struct in_addr bad_src4;
	struct in6_addr bad_src6;
	bool has_bad_src4, has_bad_src6;
	struct wg_underlay_batch batch4, batch6;
	struct wg_underlay_stats stats;
};

/* Binds both families to port (0: a free one, the same for both). rebound(ctx) is called
 * whenever the descriptors change. */
int wg_underlay_open(struct wg_underlay *u, struct wg_device *dev, uint16_t port,
		     void (*rebound)(void *ctx), void *ctx);
/* Closes the sockets; batched packets go back to the device's pools. */
void wg_underlay_close(struct wg_underlay *u);
int wg_underlay_rebind(struct wg_underlay *u, uint16_t port);
int wg_underlay_set_fwmark(struct wg_underlay *u, uint32_t mark);

/* Receives up to n datagrams from fd into pkts (at wg_pkt_msg, msg_len set, src set).
 * Returns how many, 0 when none. A truncated datagram gets msg_len 0. */
int wg_underlay_recv(struct wg_underlay *u, int fd, struct wg_pkt **pkts, int n);

/* Takes pkt into the send batch: 0, or -EAGAIN when the batch is full and the socket
 * cannot take more (pkt stays with the caller). */
int wg_underlay_queue(struct wg_underlay *u, const struct wg_endpoint *ep, struct wg_pkt *pkt);
/* Sends the batches: 0 when empty, -EAGAIN when the socket is full (the rest waits). */
int wg_underlay_flush(struct wg_underlay *u);
/* Sends one control message now (best effort). */
void wg_underlay_send_now(struct wg_underlay *u, const struct wg_endpoint *ep, const uint8_t *msg,
			  size_t len);
/* The socket to wait on for writability after -EAGAIN. */
int wg_underlay_blocked_fd(const struct wg_underlay *u);

#endif
