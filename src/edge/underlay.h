/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The underlay as the daemon sees it: the UDP sockets of src/edge/udp.h (both families on
 * the listen port, sticky source, backpressure) plus what belongs to the device. Data
 * messages are batched per family in the device's packet buffers, which go back to the
 * device's pools once sent; each carries its outer ECN bits (RFC 6040: copied from the
 * inner header). Handshake messages go out at once, marked AF41 as Linux marks them. A
 * change of listen port reopens the sockets and tells the daemon through rebound().
 *
 * Trains: consecutive messages of a batch that leave the same way (endpoint, source, outer
 * TOS) and have one length (the last may be shorter), up to a quarter of the byte limit
 * (the whole limit while the socket is found empty stall after stall), go as one UDP GSO
 * send, which the kernel carries down the stack as one packet and cuts at the device
 * (or wherever something below needs single datagrams): the per-packet work
 * of the send path, most of what a datagram costs, is done once per train. The peer
 * receives the same datagrams, so any WireGuard peer takes them. A refused train is sent
 * message by message; when GSO itself was the fault (no checksum offload, a segment over
 * the MTU), that socket sends no more trains.
 *
 * Receive: the sockets ask for UDP GRO, so a train (from a peer that sends them, or
 * joined by the kernel on the way in) arrives in one piece, and is cut into datagrams
 * here. Where the kernel has no UDP GRO, datagrams arrive one by one, straight into the
 * packet buffers.
 *
 * Backpressure: each family's socket may hold a limited number of bytes (src/core/bql.h:
 * a few milliseconds' worth of the rate at which they drain, learnt while it stalls), and
 * its send buffer is that limit. A data message is taken only while the socket, as
 * measured at the start of the send round (wg_underlay_begin) less what the round took
 * since, has room for it; when it has none, the socket stalls until the kernel signals
 * it drained to half (wg_underlay_writable), and the backlog waits in CAKE. Control
 * messages are not limited.
 *
 * Control messages (handshake, cookie reply, keepalive) never wait behind data and are
 * never lost to a full socket: each goes out at once, and when the kernel answers EAGAIN
 * (or ENOBUFS) it waits in a bounded per-family queue that the next send round, on
 * writability, empties before it sends any data message of that family. Only a full
 * queue, a rebind or close, or the kernel refusing a message loses one, and each loss is
 * counted (src/core/counters.h: underlay_ctl_dropped, underlay_send_errors).
 *
 * Datagrams longer than the MTU-sized receive buffers (a peer whose MTU is larger than
 * ours, or a jumbo underlay) arrive whole, in a large buffer that takes the small one's
 * place: with UDP GRO they are cut from the 64 KiB receive buffers anyway, and without
 * it a datagram that does not fit its buffer goes on into a spill area (the unused GRO
 * buffers). Datagrams that fit cost nothing more.
 */
#ifndef CAKEWG_SRC_EDGE_UNDERLAY_H
#define CAKEWG_SRC_EDGE_UNDERLAY_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/bql.h"
#include "src/core/device.h"
#include "src/core/messages.h"
#include "src/edge/udp.h"

enum wg_underlay_limits {
	WG_UNDERLAY_BATCH = 64,
	/* What a datagram costs the socket beyond its payload (sk_buff, shared info and the
	 * slab's rounding: 1452 bytes are held as 2304 on x86-64), rounded up. */
	WG_UNDERLAY_SKB_COST = 1024,
	/* A coalesced receive (UDP GRO) is at most one IP datagram. */
	WG_UNDERLAY_GRO_BYTES = 65535,
	/* Control messages waiting for one family's full socket, at most. */
	WG_UNDERLAY_CTL_QUEUE = 256,
	/* The longest control message: a handshake initiation. */
	WG_UNDERLAY_CTL_MAX_LEN = MESSAGE_HANDSHAKE_INITIATION_LEN,
	/* The largest train: the most a UDP datagram may carry over IPv4 (65535 less the
	 * IPv4 and UDP headers); IPv6 allows a little more. */
	WG_UNDERLAY_TRAIN_MAX_BYTES = 65535 - 20 - 8,
	/* A train carries at most this fraction of the byte limit (see train_cap()). */
	WG_UNDERLAY_TRAIN_LIMIT_DIV = 4,
	/* Stalls in a row that find the socket empty before its trains may fill the limit:
	 * behind a veth every stall does; behind a tbf, one now and then (a train filling
	 * the limit after one such stall let 40 KB wait in a 20 Mbit/s tbf, 8 KB without). */
	WG_UNDERLAY_EMPTY_STALLS = 8,
	/* Backpressure off: the send buffer wireguard-go asks for (socketBufferSize). */
	WG_UNDERLAY_SNDBUF_OFF_BYTES = 7 << 20,
	/* The send buffer follows the limit when they differ by more than limit >> this. */
	WG_UNDERLAY_SNDBUF_SLACK_SHIFT = 3,
};

/* wg_underlay_set_limit: 0 learns the limit (the default), this turns it off, any other
 * value is a fixed limit in bytes. */
#define WG_UNDERLAY_LIMIT_OFF WG_DEVCONF_UNDERLAY_LIMIT_OFF

/* Encrypted data messages waiting for one family's socket, oldest first. */
struct wg_underlay_batch {
	struct wg_pkt *pkts[WG_UNDERLAY_BATCH];
	struct wg_endpoint eps[WG_UNDERLAY_BATCH]; /* as queued; udp.c may clear a source */
	uint8_t tos[WG_UNDERLAY_BATCH];
	unsigned int n;
};

/*
 * Coalesced datagrams (UDP GRO) received into the underlay's own buffers and handed out
 * one datagram per packet buffer; what did not fit the caller's batch waits here, for
 * the socket it came from.
 */
struct wg_underlay_rx {
	uint8_t *bufs; /* WG_UNDERLAY_BATCH buffers of WG_UNDERLAY_GRO_BYTES; NULL: no GRO */
	struct wg_udp_rx rx[WG_UNDERLAY_BATCH];
	unsigned int have; /* entries received */
	unsigned int next; /* the entry being handed out */
	size_t off;	   /* where its next datagram starts */
	int fd;		   /* the socket they came from */
};

/* One control message waiting for its socket. */
struct wg_underlay_ctl_msg {
	struct wg_endpoint ep; /* udp.c may clear a source */
	uint16_t len;
	uint8_t tos;
	uint8_t msg[WG_UNDERLAY_CTL_MAX_LEN];
};

/* One family's waiting control messages, oldest first, from head (a ring). */
struct wg_underlay_ctlq {
	struct wg_underlay_ctl_msg m[WG_UNDERLAY_CTL_QUEUE];
	unsigned int head, n;
};

struct wg_underlay_stats {
	uint64_t sent, send_errors, blocked, received, truncated;
	uint64_t rx_large;	/* received datagrams longer than the MTU-sized buffers */
	uint64_t ctl_queued;	/* control messages that found the socket full and waited */
	uint64_t ctl_dropped;	/* control messages lost: queue full, rebind or close */
	uint64_t rx_trains;	/* received datagrams that the kernel had coalesced (GRO) */
	uint64_t sndbuf_errors; /* the kernel refused a send buffer size */
	uint64_t trains;	/* sends that carried several messages (UDP GSO) */
	uint64_t trains_refused; /* refused trains: GSO then off for that socket */
};

/* One family's byte queue limit and the room left in this send round. */
struct wg_underlay_gate {
	struct wg_bql bql;
	uint32_t room;	   /* bytes the round may still hand to the socket */
	bool measured;	   /* room is from this round */
	bool starved;	   /* a message found no room: stall after the batch went */
	bool pushed_back;  /* the kernel refused a send this round (EAGAIN, ENOBUFS) */
	uint32_t empty_stalls; /* stalls in a row that found the socket empty */
	uint32_t sndbuf;   /* the send buffer last set on the socket */
};

struct wg_underlay {
	struct wg_udp udp;
	/* Copies of udp's for the daemon: its watchers, `get` and `set`. */
	int fd4, fd6; /* -1: closed, or that family is unavailable */
	uint16_t port;
	uint32_t fwmark;
	bool rx_stamps;	       /* each datagram's receive time, for wg_pkt.rx_ns */
	struct wg_device *dev; /* buffers go back to its pools */
	void (*rebound)(void *ctx);
	void *rebound_ctx;
	int blocked_fd; /* the socket that answered EAGAIN or ran out of room */
	uint64_t now_ns; /* of the send round */
	uint32_t limit_setting; /* 0: learnt, WG_UNDERLAY_LIMIT_OFF, or fixed bytes */
	struct wg_underlay_batch batch[WG_UDP_FAMILIES];
	struct wg_underlay_ctlq ctlq[WG_UDP_FAMILIES];
	struct wg_underlay_gate gate[WG_UDP_FAMILIES];
	struct wg_underlay_rx rxq;
	struct wg_underlay_stats stats;
};

/* Binds both families to port (0: a free one, the same for both). rebound(ctx) is called
 * whenever the descriptors change. */
int wg_underlay_open(struct wg_underlay *u, struct wg_device *dev, uint16_t port,
		     void (*rebound)(void *ctx), void *ctx);
/* Closes the sockets; batched packets go back to the device's pools. Also safe on a
 * zeroed underlay whose fd4 and fd6 are -1 (never opened). */
void wg_underlay_close(struct wg_underlay *u);
/* Moves to port (0: a free one). On failure the old port stays bound if it can be. Batched
 * packets are dropped either way, and rebound() is called. 0 or -errno. */
int wg_underlay_rebind(struct wg_underlay *u, uint16_t port);
int wg_underlay_set_fwmark(struct wg_underlay *u, uint32_t mark);
/* Receive times (wg_udp_set_rx_stamps), kept across rebinds; off after open. */
int wg_underlay_set_rx_stamps(struct wg_underlay *u, bool on);

/* Receives up to n datagrams from fd into pkts (at wg_pkt_msg, msg_len set, src set).
 * Returns how many, 0 when none. A datagram longer than its buffer comes in a large
 * buffer that replaces pkts[i] (the small one goes back to the pool); only when none can
 * be had is it truncated, counted, with msg_len 0. With UDP GRO, the datagrams of a
 * coalesced receive that did not fit stay for the next call on fd. */
int wg_underlay_recv(struct wg_underlay *u, int fd, struct wg_pkt **pkts, int n);
/* The socket whose coalesced datagrams wait for wg_underlay_recv, or -1. */
int wg_underlay_rx_pending(const struct wg_underlay *u);

/* Starts a send round at now_ns: the sockets' room is measured afresh. */
void wg_underlay_begin(struct wg_underlay *u, uint64_t now_ns);
/* Takes pkt into the send batch: 0, or -EAGAIN when the socket has no room for it or the
 * batch is full and the socket cannot take more (pkt stays with the caller). */
int wg_underlay_queue(struct wg_underlay *u, const struct wg_endpoint *ep, struct wg_pkt *pkt);
/* Sends the waiting control messages, then the batches: 0 when all went, -EAGAIN when
 * a socket is full (the rest waits). */
int wg_underlay_flush(struct wg_underlay *u);
/* Sends one control message (up to WG_UNDERLAY_CTL_MAX_LEN bytes) ahead of any data: now,
 * or, when the socket is full or others wait, from the family's control queue at the
 * next flush (wg_underlay_blocked_fd then names the socket to wait on). */
void wg_underlay_send_now(struct wg_underlay *u, const struct wg_endpoint *ep, const uint8_t *msg,
			  size_t len);
/* The socket to wait on for writability after -EAGAIN. */
int wg_underlay_blocked_fd(const struct wg_underlay *u);
/* When the socket that stalled this round was found, at the stall, holding less than
 * half its send buffer, and the kernel did not refuse a send, it is writable already:
 * the stall ends here (it lasted no time, so the limit learns nothing from it) and true
 * is returned, so that the caller may start another round without waiting for the
 * kernel's signal. Otherwise false, and the stall goes on. */
bool wg_underlay_resume_drained(struct wg_underlay *u, uint64_t now_ns);
/* fd signalled writability at now_ns: the stall ends, and the limit learns from it. */
void wg_underlay_writable(struct wg_underlay *u, int fd, uint64_t now_ns);
/* Sets how much the sockets may hold: 0 learns it from the drain rate (the default),
 * WG_UNDERLAY_LIMIT_OFF takes every message (no backpressure below a large send buffer,
 * for comparison), any other value is a fixed limit in bytes (clamped to
 * [WG_BQL_MIN_BYTES, WG_BQL_MAX_BYTES]). 0, or -errno when a send buffer was refused. */
int wg_underlay_set_limit(struct wg_underlay *u, uint32_t setting);
/* The byte limits' counters, summed over both families: stalls (the socket pushed
 * back), starved stalls, overflows below, regrown limits. */
struct wg_bql_stats wg_underlay_bql_stats(const struct wg_underlay *u);
/* The limit of the family that stalled more often (IPv4 when neither did). */
const struct wg_bql *wg_underlay_busiest(const struct wg_underlay *u);
/* The sockets' counters (src/core/counters.h) and the byte limit, for cakewg_get=1. */
void wg_underlay_report(const struct wg_underlay *u, struct wg_device_ext *ext);

#endif
