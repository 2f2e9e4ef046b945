/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device: one WireGuard interface as the protocol sees it. It owns the static
 * identity, the peers and the tables that find them (public key, receiver index,
 * allowed IPs), the cookie checker and rate limiter, the packet pools and the egress
 * queue. It does no I/O: the edge drives it with packets and the time, and it acts
 * through struct wg_io_ops.
 *
 *   egress:  wg_device_tx(dev, pkt)  -> peer by allowed IP -> staged, or egress queue
 *            wg_device_tx_flush(dev) -> dequeue -> encrypt (nonces in dequeue order) ->
 *                                       ops->send_data, until it answers "full"
 *   ingress: wg_device_rx(dev, pkt)  -> handshake / cookie / data -> ops->tun_write
 *   timers:  wg_device_next_deadline(dev), wg_device_run_timers(dev)
 *
 * Every entry point takes the monotonic time in ns; wall time (for TAI64N timestamps and
 * reporting) is derived from the offset the edge sets with wg_device_set_clock().
 */
#ifndef CAKEWG_SRC_CORE_DEVICE_H
#define CAKEWG_SRC_CORE_DEVICE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/core/allowedips.h"
#include "src/core/clock.h"
#include "src/core/cookie.h"
#include "src/core/counters.h"
#include "src/core/device_autorate.h"
#include "src/core/devconf.h"
#include "src/core/egress.h"
#include "src/core/icmp_ratelimit.h"
#include "src/core/index.h"
#include "src/core/noise.h"
#include "src/core/offload.h"
#include "src/core/peer.h"
#include "src/core/pubkey_table.h"
#include "src/core/pkt.h"
#include "src/core/ratelimiter.h"
#include "src/core/retired.h"
#include "src/core/rng.h"
#include "src/core/timerq.h"

enum wg_log_level {
	WG_LOG_ERROR = 1,
	WG_LOG_INFO = 2,
	WG_LOG_DEBUG = 3,
};

struct wg_io_ops {
	void *ctx;
	/*
	 * Takes an encrypted data message (wg_pkt_msg(pkt), pkt->msg_len) for ep. Returns 0
	 * when it took ownership, or -EAGAIN when the underlay cannot take more now: the
	 * packet stays with the device, which retries after wg_device_tx_flush() is called
	 * again (on writability). Never drops.
	 */
	int (*send_data)(void *ctx, const struct wg_endpoint *ep, struct wg_pkt *pkt);
	/* Sends a handshake, cookie or keepalive message now, ahead of queued data. Best
	 * effort: the protocol's timers retry what is lost. */
	void (*send_control)(void *ctx, const struct wg_endpoint *ep, const uint8_t *msg,
			     size_t len);
	/* Takes a decrypted packet (pkt->cp.data, pkt->cp.len) for the TUN device. */
	void (*tun_write)(void *ctx, struct wg_pkt *pkt);
	void (*log)(void *ctx, enum wg_log_level level, const char *fmt, va_list ap);
	/* Optional: sends one ICMP echo request to dst through the tunnel (autorate's
	 * active probe, src/core/device_autorate.h). Best effort. */
	void (*send_probe)(void *ctx, const struct wg_ipaddr *dst);
	/* Optional: hands an ICMP error (a whole IPv4 or IPv6 packet, len bytes; see
	 * src/core/device_icmp.h) to the host's stack, to its destination. Best effort. */
	void (*send_icmp)(void *ctx, const uint8_t *pkt, size_t len);
};

/* Counters of what the device dropped or refused, by reason (never silent). */
struct wg_device_stats {
	uint64_t rx_malformed;	     /* too short, unknown type, wrong length */
	uint64_t rx_invalid_mac;     /* handshake messages failing mac1 (or mac2 under load) */
	uint64_t rx_ratelimited;     /* initiations over the per-source rate */
	uint64_t rx_handshake_bad;   /* failed to authenticate, replayed, flooded, unknown */
	uint64_t rx_cookie_bad;	     /* cookie replies we could not use */
	uint64_t rx_no_keypair;	     /* data for an unknown or expired index */
	uint64_t rx_auth_failed;     /* data that failed to authenticate */
	uint64_t rx_replayed;	     /* authentic data with a seen counter */
	uint64_t rx_bad_source;	     /* inner source outside the peer's allowed IPs */
	uint64_t rx_bad_inner;	     /* inner packet not IPv4/IPv6 or truncated */
	uint64_t rx_ecn_drops;	     /* outer CE over a not-ECT inner packet (RFC 6040) */
	uint64_t tx_routing_loop;    /* our own datagram came back through the tunnel */
	uint64_t tx_no_peer;	     /* no allowed IP covers the destination */
	uint64_t tx_icmp_unreach;    /* of those, answered with ICMP unreachable (not a drop) */
	uint64_t tx_no_endpoint;     /* the peer has no endpoint yet */
	uint64_t tx_bad_packet;	     /* not an IP packet, or larger than the MTU */
	uint64_t tx_nomem;	     /* out of packet buffers */
	uint64_t cookie_replies_sent;
	uint64_t under_load_events;
};

struct wg_device {
	struct wg_io_ops ops;
	struct wg_rng rng;
	char name[16];
	int64_t wall_offset_ns; /* wall time = monotonic + offset */
	uint64_t now_ns;	/* the time of the current call, for the upcalls */

	struct wg_noise_identity identity;
	struct wg_cookie_checker cookie_checker;
	struct wg_ratelimiter ratelimiter;
	uint64_t ratelimiter_gc_next_ns; /* its idle entries are collected once a second */
	struct wg_index_table index;
	struct wg_pubkey_table peers_by_key;
	/* The old arrays of both tables and of the allowed IPs' owner map, for the edge to
	 * free off the datapath (a request carries them to the control thread:
	 * src/edge/control.c); deinit frees what is left. */
	struct wg_retired retired;
	struct wg_allowedips allowedips;
	struct wg_peer *peers_head, *peers_tail;
	struct wg_timerq timerq; /* the peers with an armed timer, by earliest deadline */
	uint32_t n_peers;
	uint64_t next_peer_id;

	uint16_t listen_port;
	uint32_t fwmark;
	uint32_t mtu;

	struct wg_pktpool pool;	      /* MTU-sized buffers */
	struct wg_pktpool pool_large; /* 64 KiB super-packets */
	struct wg_egress egress;
	struct wg_egress *ingress;    /* CakeIngress: between decryption and TUN, or NULL */
	struct wg_pkt_list tx_held;   /* encrypted, refused by the underlay: goes first */

	/* autorate (src/core/device_autorate.h): the signal extractor, NULL while no
	 * instance has autorate, and the tick's and the probes' schedules */
	struct cake_tcpts *tcpts;
	uint64_t autorate_next_ns, autorate_probe_next_ns;
	uint64_t autorate_early_ns; /* the next check for an early tick */
	struct wg_ipaddr autorate_probe; /* AutorateProbe; family 0: not set */
	uint64_t autorate_probes;	 /* probes asked of the edge */

	/* ICMP errors for packets no peer holds (src/core/device_icmp.h): the source of
	 * each family (an address of the TUN device; family 0: none), and their rate */
	struct wg_ipaddr icmp_src4, icmp_src6;
	struct wg_icmp_ratelimit icmp_rl;

	/* Handshake load: messages seen in the current one-second window. */
	uint64_t hs_window_start_ns;
	uint32_t hs_window_count;
	uint64_t last_under_load_ns;
	struct wg_device_stats stats;
};

int wg_device_init(struct wg_device *dev, const char *name, const struct wg_io_ops *ops,
		   const struct wg_rng *rng, uint64_t now_ns);
/* Frees every peer, packet and table and wipes every key. */
void wg_device_deinit(struct wg_device *dev);

/* Sets wall time = now_ns + offset for the calls that follow. */
void wg_device_set_clock(struct wg_device *dev, uint64_t now_ns, const struct wg_walltime *wall);
void wg_device_set_mtu(struct wg_device *dev, uint32_t mtu);

/* Applies a UAPI `set` (or a whole config) at once: all or nothing as far as validation
 * goes. Returns 0 or -errno (the UAPI errno). Listen port and fwmark changes are recorded
 * in the device; the edge rebinds sockets when they differ. The same in bounded steps:
 * src/core/device_conf.h. */
int wg_device_apply(struct wg_device *dev, const struct wg_devconf *conf, uint64_t now_ns);
/* A snapshot for UAPI `get`. NULL when out of memory. */
struct wg_devconf *wg_device_snapshot(const struct wg_device *dev, uint64_t now_ns);

/* Peers by public key; add (NULL when out of memory or at MAX_PEERS) and remove. */
struct wg_peer *wg_device_find_peer(struct wg_device *dev, const uint8_t pub[NOISE_PUBLIC_KEY_LEN]);
struct wg_peer *wg_device_add_peer(struct wg_device *dev, const uint8_t pub[NOISE_PUBLIC_KEY_LEN]);
void wg_device_remove_peer(struct wg_device *dev, struct wg_peer *peer);
/* Adds a peer built elsewhere (wg_peer_new, wg_noise_remote_init): it joins the device's
 * tables and identity. 0, or -ENOMEM (at MAX_PEERS too) with the peer still the caller's. */
int wg_device_insert_peer(struct wg_device *dev, struct wg_peer *peer);

/* Buffers for the edge to read into. */
struct wg_pkt *wg_device_pkt_get(struct wg_device *dev, bool large);
void wg_device_pkt_put(struct wg_device *dev, struct wg_pkt *pkt);

/* Egress: takes an IP packet read from TUN (pkt->cp.data, pkt->cp.len). */
void wg_device_tx(struct wg_device *dev, struct wg_pkt *pkt, uint64_t now_ns);
/* The same for a packet read with the virtio header vh (src/core/offload.h): a
 * super-packet is queued whole; one the header does not describe is dropped (and
 * counted as tx_bad_packet). */
void wg_device_tx_offload(struct wg_device *dev, struct wg_pkt *pkt,
			  const struct cake_vnet_hdr *vh, uint64_t now_ns);
/* Sends queued data until the underlay is full or nothing is eligible. Returns true when
 * packets remain (then *next_ns, if not 0, is when the queue can send next; 0 means "when
 * the underlay is writable"). */
bool wg_device_tx_flush(struct wg_device *dev, uint64_t now_ns, uint64_t *next_ns);

/* With ingress shaping: hands the packets CAKE lets go now to ops->tun_write. Returns
 * when to call again (UINT64_MAX: none queued). While CAKE holds WG_INGRESS_GULP_NS of
 * backlog, the bulk goes in gulps of that period and only sparse flows go in between. */
uint64_t wg_device_rx_flush(struct wg_device *dev, uint64_t now_ns);

/* Applies tc-cake options to the egress instance, or to the ingress one (created on first
 * use; WG_DEVCONF_CAKE_INGRESS_OFF removes it). 0, or -EINVAL with a one-line reason in err.
 * Both at once, checked before either changes: src/core/device_cake.h. */
int wg_device_set_cake(struct wg_device *dev, bool ingress, const char *options, char *err,
		       size_t err_len, uint64_t now_ns);

/* What the edge adds to the cakewg_get=1 reply: the counters of the daemon's modules
 * (src/core/counters.h) and the underlay's byte limit. */
struct wg_device_ext {
	struct wg_device_counters counters;
	bool has_underlay_limit;	 /* the three below are set */
	uint32_t underlay_limit;	 /* bytes the busiest family's sockets may hold now */
	uint64_t underlay_drain_rate;	 /* the rate it was learnt from, bytes/s; 0: none yet */
	uint32_t underlay_limit_setting; /* WG_DEVCONF_UNDERLAY_LIMIT_AUTO, _OFF or bytes */
};

/*
 * cakewg's UAPI extension reply (cakewg_get=1), without the final errno line: the device
 * counters (ext's and the device's own, in one table order), ext's underlay limit, the
 * CAKE instances, then each peer's public_key and counters. ext may be NULL.
 */
int wg_device_ext_get_write(const struct wg_device *dev, const struct wg_device_ext *ext,
			    struct wg_devconf_buf *out);
/* The same in steps (src/core/device_conf.h): the device's part, then from *next (the
 * first peer at the start) up to budget units of peers; WG_DEVICE_CONF_MORE, 0 when all
 * are written, or -ENOMEM. */
int wg_device_ext_get_head(const struct wg_device *dev, const struct wg_device_ext *ext,
			   struct wg_devconf_buf *out);
int wg_device_ext_get_peers(const struct wg_peer **next, unsigned int budget,
			    struct wg_devconf_buf *out);

/* Ingress: takes a received UDP payload (at wg_pkt_msg(pkt), pkt->msg_len) whose source is
 * pkt->src. */
void wg_device_rx(struct wg_device *dev, struct wg_pkt *pkt, uint64_t now_ns);

/* The earliest timer deadline over all peers and housekeeping; UINT64_MAX if none. O(1):
 * the timer queue keeps the peers by deadline. */
uint64_t wg_device_next_deadline(const struct wg_device *dev);
/* Runs the timers of the peers that are due (O(log n) each) and the housekeeping. */
void wg_device_run_timers(struct wg_device *dev, uint64_t now_ns);

/* Logging through ops->log, prefixed with the interface name. */
void wg_device_log(struct wg_device *dev, enum wg_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
