/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A CAKE instance of the device. The egress one is shared by every peer, between
 * classification (on the inner, plaintext packet) and encryption, so that nonces are
 * assigned in dequeue order. Packets are classified once, by their inner headers: the
 * flow hash, the host hashes (or the peer, with peer-isolate), the tin from the inner
 * DSCP. The shaper sees the real encapsulated size: the padded inner length plus the
 * WireGuard header and tag, UDP and the outer IP header of the peer's endpoint.
 * The optional ingress instance (CakeIngress) sits between decryption and the TUN write
 * and counts the datagram as it arrived.
 */
#ifndef CAKEWG_SRC_CORE_EGRESS_H
#define CAKEWG_SRC_CORE_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qdisc/cake.h"
#include "qdisc/cake_options.h"
#include "qdisc/siphash.h"

struct wg_autorate;
struct wg_device;
struct wg_pkt;

/* The ingress instance's release period while it holds at least that much backlog: see
 * wg_device_rx_flush(). */
#define WG_INGRESS_GULP_NS 1000000ULL

struct wg_egress_stats {
	uint64_t enqueued;
	uint64_t dropped; /* by CAKE: overlimit, AQM, ACK filter, GSO failure */
	uint64_t marked;  /* CE marks applied */
	uint64_t gulps;	  /* ingress: releases held back to a gulp's end (see rx_flush) */
};

struct wg_egress {
	struct wg_device *dev;
	bool ingress;			/* shapes decrypted packets on their way to TUN */
	struct cake *q;
	struct cake_options opts;	/* in force, as parsed; peer_isolation applies here */
	struct cake_siphash_key hash_key; /* flow and host hashes: secret */
	struct wg_egress_stats stats;
	uint64_t gulp_end_ns; /* ingress: bulk waits until then (0: not gulping) */
	struct wg_autorate *autorate; /* autorate MIN MAX: its controller, else NULL */
};

int wg_egress_init(struct wg_egress *eg, struct wg_device *dev, bool ingress, uint64_t now_ns);
/* Hands every queued packet back to the device's pools. */
void wg_egress_deinit(struct wg_egress *eg);
/* tc-cake options (tc `change` semantics: only what the string names changes) parsed
 * and checked against an instance, not yet in force. */
struct wg_egress_change {
	struct cake_options merged;    /* the instance's options once committed */
	struct cake_options cake_opts; /* what CAKE is configured with (at autorate's rate) */
	struct wg_autorate *autorate;  /* wg_autorate_prepare()'s controller */
	bool owns_autorate;	       /* a new one, not the instance's in force */
};

/* Parses options and checks them against eg, or against a new instance's defaults when
 * eg is NULL (an instance to be created, the ingress one if ingress). Changes nothing. 0
 * (then commit or abandon ch), or -EINVAL / -ENOMEM with a one-line message naming the
 * bad word in err. */
int wg_egress_prepare(const struct wg_egress *eg, bool ingress, const char *options,
		      struct wg_egress_change *ch, char *err, size_t err_len, uint64_t now_ns);
/* Puts a prepared change in force on eg, the instance it was checked against (or the one
 * created since, for NULL) and not changed since. 0, or -EINVAL if CAKE refused it
 * after all (then as abandoned, and err says so, naming options). */
int wg_egress_commit(struct wg_egress *eg, struct wg_egress_change *ch, const char *options,
		     char *err, size_t err_len, uint64_t now_ns);
/* Frees what prepare made. A zeroed or committed ch is fine. */
void wg_egress_abandon(struct wg_egress_change *ch);
/* The tunnel's MTU changed: CAKE's mtu (the tins' target at low rates, the packet-limit
 * memory cap) follows, as the largest encapsulated size at that MTU. */
void wg_egress_set_mtu(struct wg_egress *eg, uint32_t mtu);
/* A keyed hash for CAKE's host tables. */
uint32_t wg_egress_host_hash(const struct wg_egress *eg, const void *data, size_t len);

/* Classifies pkt (pkt->peer set) and queues it; takes ownership (a reference on the peer
 * travels with it). */
void wg_egress_enqueue(struct wg_egress *eg, struct wg_pkt *pkt, uint64_t now_ns);
/* Cuts a super-packet (pkt->gso.segs > 1) into MTU-sized packets from the device's pool,
 * linked through cp.next, each holding a reference on pkt->peer; pkt is left as it was.
 * NULL when a buffer is missing or the packet cannot be cut. */
struct wg_pkt *wg_egress_segment(struct wg_egress *eg, struct wg_pkt *pkt);
/* The next packet to encrypt and send, or NULL; *next_ns as cake_dequeue(). */
struct wg_pkt *wg_egress_dequeue(struct wg_egress *eg, uint64_t now_ns, uint64_t *next_ns);

#endif
