/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * GRO on the TUN write path: the decrypted packets of one receive batch are handed in one
 * by one, TCP segments of up to WG_TUN_GRO_FLOWS flows are coalesced (qdisc/gro.h), and
 * each flow's super-packet goes to the kernel in one write() with a GSO virtio header
 * (TCPV4/TCPV6, NEEDS_CSUM) when the batch ends, or as soon as nothing more may join it.
 * Fewer writes, and one trip through the kernel's stack per super-packet instead of per
 * segment.
 *
 * Order within a flow is kept: a TCP packet that cannot join its flow's open super-packet
 * flushes it first; a TCP packet whose ports cannot be read (a fragment) flushes all.
 * Packets of other protocols are written at once (they share no flow with held ones).
 *
 * Buffers: a flow's first segment stays in its own buffer (a single segment is written
 * from there, untouched, with an all-zero virtio header); when a second joins, the
 * super-packet moves to a large buffer from the device's pool, and every joining
 * segment's buffer goes back to the pool as soon as its payload is copied. Nothing is
 * held after wg_tun_gro_flush().
 *
 * Off when the TUN device has no virtio header (then every packet is written as it
 * comes, as without GRO), when switched off, or for good once the kernel refuses a GSO
 * write with EINVAL: that super-packet is then cut again (qdisc/gso.h) and written
 * segment by segment, so nothing is lost.
 */
#ifndef CAKEWG_SRC_EDGE_TUN_GRO_H
#define CAKEWG_SRC_EDGE_TUN_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/gro.h"
#include "src/core/counters.h"

struct wg_device;
struct wg_pkt;
struct wg_tun;

enum wg_tun_gro_limits {
	WG_TUN_GRO_FLOWS = 8, /* flows with an open super-packet at a time */
};

struct wg_tun_gro_stats {
	uint64_t packets;      /* packets handed in */
	uint64_t writes;       /* write() calls to the TUN device */
	uint64_t coalesced;    /* packets that joined an earlier one: writes saved */
	uint64_t gso_writes;   /* writes that carried a super-packet */
	uint64_t write_errors; /* writes that failed (the packet or super-packet is lost) */
	uint64_t gso_refused;  /* GSO writes refused by the kernel (then GRO is off) */
};

/* One flow's open super-packet. */
struct wg_tun_gro_flow {
	struct cake_gro gro;
	struct wg_pkt *pkt; /* the buffer gro.buf lies in */
	uint64_t used;	    /* when a segment last came, for eviction */
};

struct wg_tun_gro {
	const struct wg_tun *tun;
	struct wg_device *dev;
	bool enabled;
	bool gso_ok;   /* false once the kernel refused a GSO write */
	uint32_t open; /* bit i: flows[i] holds a super-packet */
	uint64_t clock;
	struct wg_tun_gro_flow flows[WG_TUN_GRO_FLOWS];
	struct wg_tun_gro_stats stats;
};

/* On when tun has a virtio header. Writes go to tun; buffers come from dev's pools. */
void wg_tun_gro_init(struct wg_tun_gro *g, struct wg_tun *tun, struct wg_device *dev);

/* Switches coalescing on (if the device allows it) or off (flushing what is held). */
void wg_tun_gro_set_enabled(struct wg_tun_gro *g, bool on);

/* Takes a decrypted packet (pkt->cp.data, pkt->cp.len) for the TUN device. */
void wg_tun_gro_add(struct wg_tun_gro *g, struct wg_pkt *pkt);

/* Writes every open super-packet; call at the end of each batch of wg_tun_gro_add(). */
void wg_tun_gro_flush(struct wg_tun_gro *g);

/* The TUN writes' counters (src/core/counters.h), for cakewg_get=1. */
void wg_tun_gro_report(const struct wg_tun_gro *g, struct wg_device_counters *c);

#endif
