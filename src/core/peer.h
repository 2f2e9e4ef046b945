/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer: its handshake and keypairs (noise), timers, endpoint, the packets staged while
 * no session exists, and its counters. Peers belong to a device (device.h), which finds
 * them by public key, by receiver index and by allowed IP.
 */
#ifndef CAKEWG_SRC_CORE_PEER_H
#define CAKEWG_SRC_CORE_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/endpoint.h"
#include "src/core/noise.h"
#include "src/core/pkt.h"
#include "src/core/reresolve.h"
#include "src/core/timerq.h"
#include "src/core/timers.h"

struct wg_device;

struct wg_peer_stats {
	uint64_t rx_bytes, tx_bytes;	 /* UDP payload bytes, as wireguard-go counts */
	uint64_t rx_packets, tx_packets; /* data messages, keepalives included */
	uint64_t staged_drops;		 /* staged queue full, or handshake gave up */
	uint64_t egress_drops;		 /* dropped by the egress queue (overflow, AQM) */
	uint64_t handshakes_initiated;
	uint64_t handshakes_completed;
	uint64_t roams;			 /* endpoint changes learnt from authenticated packets */
};

struct wg_peer {
	struct wg_device *dev;
	uint64_t id; /* internal, for logs: keys are never logged */
	struct wg_peer *next, *prev; /* the device's list, in insertion order */
	struct wg_noise_remote noise;
	struct wg_timers timers;
	struct wg_timerq_node timer_node; /* in the device's timer queue while armed */
	struct wg_endpoint endpoint;
	/* cakewg's endpoint_host=: the name the endpoint came from ("": none), resolved
	 * again by the edge when reresolve says so (src/core/device_netchange.h) */
	char endpoint_host[WG_IPADDR_HOST_NAME_MAX + 1];
	uint16_t endpoint_port;
	struct wg_reresolve reresolve;
	/* the route to the endpoint when the edge last looked (src/core/device_netchange.h) */
	struct wg_path path;
	bool has_path;
	uint16_t persistent_keepalive_secs;
	struct wg_pkt_list staged;	/* waiting for a session, at most MAX_STAGED_PACKETS */
	uint64_t last_initiation_sent_ns; /* initiations are sent at most every REKEY_TIMEOUT */
	bool initiation_sent;
	uint64_t last_handshake_ns;	/* monotonic time of the latest completed handshake */
	bool has_handshake;
	uint32_t host_hash;		/* for CAKE's peer isolation: a keyed hash of the key */
	uint32_t refs;			/* packets queued for it, plus one while configured */
	bool removed;			/* no longer configured: freed when refs drops to 0 */
	struct wg_peer_stats stats;
};

/* A new, empty peer, not yet in any table. NULL when out of memory. */
struct wg_peer *wg_peer_new(struct wg_device *dev, uint64_t id);
/* Packets hold a reference on their peer, so a removed peer outlives its queued packets. */
static inline void wg_peer_get(struct wg_peer *peer)
{
	peer->refs++;
}
/* Drops a reference; the last one of a removed peer frees it (keys wiped). */
void wg_peer_put(struct wg_peer *peer);

/* Stages pkt until a session exists; beyond MAX_STAGED_PACKETS the oldest is dropped and
 * returned for the caller to free (else NULL). */
struct wg_pkt *wg_peer_stage(struct wg_peer *peer, struct wg_pkt *pkt);
/* Takes every staged packet, in order. */
struct wg_pkt_list wg_peer_unstage(struct wg_peer *peer);

#endif
