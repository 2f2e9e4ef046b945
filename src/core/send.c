/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The send path: packets from TUN to their peer's egress queue (or staged until a session
 * exists), encryption in dequeue order, handshake initiations, keepalives and the timers
 * that drive them.
 */
#include "src/core/device.h"
#include "src/core/send.h"

#include <errno.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/device_icmp.h"
#include "src/core/loop_guard.h"

static struct wg_peer *route(struct wg_device *dev, const struct wg_pkt *pkt)
{
	const uint8_t *ip = pkt->cp.data;
	int family = wg_ip_family(ip, pkt->cp.len);

	if (!family)
		return NULL;
	return wg_allowedips_lookup(&dev->allowedips, family,
				    ip + (family == AF_INET ? WG_IPV4_DST_OFFSET : WG_IPV6_DST_OFFSET));
}

/* Every message to a peer counts in its transfer, as Linux and wireguard-go count. */
void wg_device_send_control(struct wg_device *dev, struct wg_peer *peer, const uint8_t *msg,
			    size_t len)
{
	peer->stats.tx_bytes += len;
	dev->ops.send_control(dev->ops.ctx, &peer->endpoint, msg, len);
}

void wg_device_send_initiation(struct wg_device *dev, struct wg_peer *peer, bool is_retry,
			       uint64_t now_ns)
{
	struct message_handshake_initiation msg;
	struct wg_walltime wall;
	int64_t wall_ns = (int64_t)now_ns + dev->wall_offset_ns;

	if (!is_retry)
		wg_timers_event_handshake_requested(&peer->timers);
	if (!wg_endpoint_is_set(&peer->endpoint) || !dev->identity.has_identity)
		return;
	/* At most one initiation per REKEY_TIMEOUT, whatever asks for it. */
	if (peer->initiation_sent && now_ns - peer->last_initiation_sent_ns < REKEY_TIMEOUT_NS)
		return;
	wall.sec = (uint64_t)(wall_ns / (int64_t)WG_NSEC_PER_SEC);
	wall.nsec = (uint32_t)(wall_ns % (int64_t)WG_NSEC_PER_SEC);
	dev->now_ns = now_ns;
	if (wg_noise_create_initiation(&peer->noise, &msg, &wall, &dev->rng, now_ns))
		return;
	peer->initiation_sent = true;
	peer->last_initiation_sent_ns = now_ns;
	peer->stats.handshakes_initiated++;
	wg_device_log(dev, WG_LOG_DEBUG, "peer %llu: sending handshake initiation",
		      (unsigned long long)peer->id);
	wg_timers_event_any_authenticated_packet_traversal(&peer->timers, now_ns);
	wg_timers_event_any_authenticated_packet_sent(&peer->timers);
	wg_device_send_control(dev, peer, (const uint8_t *)&msg, sizeof(msg));
	wg_timers_event_handshake_initiated(&peer->timers, now_ns, &dev->rng);
	wg_device_timers_update(dev, peer);
	cw_memzero(&msg, sizeof(msg));
}

void wg_device_send_keepalive(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns)
{
	struct wg_keypair *kp;
	struct wg_pkt *pkt;
	size_t msg_len;

	if (peer->staged.len || !wg_endpoint_is_set(&peer->endpoint))
		return; /* data is waiting: it will carry the session along */
	kp = wg_noise_keypair_for_send(&peer->noise, now_ns);
	if (!kp) {
		wg_device_send_initiation(dev, peer, false, now_ns);
		return;
	}
	pkt = wg_device_pkt_get(dev, false);
	if (!pkt)
		return;
	if (!wg_keypair_encrypt(kp, wg_pkt_msg(pkt), 0, wg_pkt_room(pkt) + DATA_HEADROOM_LEN,
				dev->mtu, now_ns, &msg_len)) {
		peer->stats.tx_packets++;
		wg_timers_event_any_authenticated_packet_traversal(&peer->timers, now_ns);
		wg_timers_event_any_authenticated_packet_sent(&peer->timers);
		wg_device_timers_update(dev, peer);
		wg_device_send_control(dev, peer, wg_pkt_msg(pkt), msg_len);
	}
	wg_device_pkt_put(dev, pkt);
}

/* Moves the peer's staged packets into the egress queue once a session exists. */
void wg_device_flush_staged(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns)
{
	struct wg_pkt_list staged;
	struct wg_pkt *pkt;

	if (!peer->staged.len || !wg_noise_keypair_for_send(&peer->noise, now_ns))
		return;
	staged = wg_peer_unstage(peer);
	while ((pkt = wg_pkt_list_pop(&staged)))
		wg_egress_enqueue(&dev->egress, pkt, now_ns);
}

static void stage(struct wg_device *dev, struct wg_peer *peer, struct wg_pkt *pkt, uint64_t now_ns)
{
	wg_device_pkt_put(dev, wg_peer_stage(peer, pkt));
	wg_device_send_initiation(dev, peer, false, now_ns);
}

void wg_device_tx(struct wg_device *dev, struct wg_pkt *pkt, uint64_t now_ns)
{
	struct wg_peer *peer = route(dev, pkt);

	dev->now_ns = now_ns;
	if (!peer) {
		dev->stats.tx_no_peer++;
		wg_device_icmp_unreach(dev, pkt->cp.data, pkt->cp.len, now_ns);
		wg_device_pkt_put(dev, pkt);
		return;
	}
	if (!wg_endpoint_is_set(&peer->endpoint)) {
		dev->stats.tx_no_endpoint++;
		wg_device_pkt_put(dev, pkt);
		return;
	}
	if (wg_loop_is_own_datagram(pkt->cp.data, pkt->cp.len, dev->listen_port, &peer->endpoint)) {
		dev->stats.tx_routing_loop++;
		wg_device_pkt_put(dev, pkt);
		return;
	}
	pkt->peer = peer;
	if (peer->staged.len || !wg_noise_keypair_for_send(&peer->noise, now_ns)) {
		stage(dev, peer, pkt, now_ns);
		return;
	}
	wg_egress_enqueue(&dev->egress, pkt, now_ns);
}

void wg_device_tx_offload(struct wg_device *dev, struct wg_pkt *pkt, const struct cake_vnet_hdr *vh,
			  uint64_t now_ns)
{
	if (wg_offload_prepare(pkt, vh)) {
		dev->stats.tx_bad_packet++;
		wg_device_pkt_put(dev, pkt);
		return;
	}
	wg_device_tx(dev, pkt, now_ns);
}

/* Encrypts a dequeued packet. False when the peer has no usable keypair any more: then the
 * packet went back to the staged queue and a handshake was asked for. */
static bool encrypt(struct wg_device *dev, struct wg_peer *peer, struct wg_pkt *pkt,
		    uint64_t now_ns)
{
	struct wg_keypair *kp = wg_noise_keypair_for_send(&peer->noise, now_ns);
	size_t msg_len;

	if (!kp || wg_keypair_encrypt(kp, wg_pkt_msg(pkt), pkt->cp.len,
				      wg_pkt_room(pkt) + DATA_HEADROOM_LEN, dev->mtu, now_ns,
				      &msg_len)) {
		stage(dev, peer, pkt, now_ns);
		return false;
	}
	pkt->msg_len = (uint32_t)msg_len;
	peer->stats.tx_bytes += msg_len;
	peer->stats.tx_packets++;
	wg_timers_event_any_authenticated_packet_traversal(&peer->timers, now_ns);
	wg_timers_event_any_authenticated_packet_sent(&peer->timers);
	wg_timers_event_data_sent(&peer->timers, now_ns, &dev->rng);
	wg_device_timers_update(dev, peer);
	if (wg_keypair_should_rekey_on_send(kp, now_ns))
		wg_device_send_initiation(dev, peer, false, now_ns);
	return true;
}

/* Hands the held packets to the underlay, oldest first. False when it is full. */
static bool transmit_held(struct wg_device *dev)
{
	struct wg_pkt *pkt;

	while ((pkt = wg_pkt_list_pop(&dev->tx_held))) {
		struct wg_peer *peer = pkt->peer;

		/* Off the list first: once taken, the packet is the underlay's, which may
		 * hand it back to the pool (and reuse its link) before returning. */
		if (dev->ops.send_data(dev->ops.ctx, &peer->endpoint, pkt) == -EAGAIN) {
			wg_pkt_list_push_front(&dev->tx_held, pkt);
			return false;
		}
		wg_peer_put(peer);
	}
	return true;
}

/* Encrypts pkt, or each segment of a super-packet queued whole (no-split-gso), into the
 * held list, in order: the nonces follow the queue. */
static void encrypt_dequeued(struct wg_device *dev, struct wg_pkt *pkt, uint64_t now_ns)
{
	struct wg_peer *peer = pkt->peer;
	struct wg_pkt *seg;

	if (pkt->gso.segs > 1) {
		seg = wg_egress_segment(&dev->egress, pkt);
		wg_device_pkt_put(dev, pkt);
		wg_peer_put(peer);
		if (!seg) {
			dev->stats.tx_bad_packet++;
			return;
		}
	} else {
		seg = pkt;
	}
	while (seg) {
		struct wg_pkt *next = seg->cp.next ? wg_pkt_of(seg->cp.next) : NULL;

		seg->cp.next = NULL;
		if (encrypt(dev, peer, seg, now_ns))
			wg_pkt_list_push(&dev->tx_held, seg);
		else
			wg_peer_put(peer); /* re-staged: the staged queue holds no reference */
		seg = next;
	}
}

bool wg_device_tx_flush(struct wg_device *dev, uint64_t now_ns, uint64_t *next_ns)
{
	struct wg_pkt *pkt;
	uint64_t next = UINT64_MAX;

	dev->now_ns = now_ns;
	if (!transmit_held(dev))
		goto full;
	while ((pkt = wg_egress_dequeue(&dev->egress, now_ns, &next))) {
		if (pkt->peer->removed) {
			struct wg_peer *peer = pkt->peer;

			wg_device_pkt_put(dev, pkt);
			wg_peer_put(peer);
			continue;
		}
		if (dev->tcpts) /* autorate: the packet leaves the egress CAKE */
			wg_device_autorate_packet(dev, CAKE_TCPTS_OUT, pkt, pkt->cp.wire_len,
						  now_ns, now_ns);
		encrypt_dequeued(dev, pkt, now_ns);
		if (!transmit_held(dev))
			goto full;
	}
	if (next_ns)
		*next_ns = next;
	return next != UINT64_MAX;
full:
	if (next_ns)
		*next_ns = 0;
	return true;
}

void wg_device_timers_update(struct wg_device *dev, struct wg_peer *peer)
{
	/* A removed peer left the queue for good: its room went with it, and it may be
	 * freed while the queue still points at it. */
	if (peer->removed)
		return;
	wg_timerq_set(&dev->timerq, &peer->timer_node, wg_timers_next_deadline(&peer->timers));
}

static void run_peer_timers(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns)
{
	unsigned int actions = wg_timers_run(&peer->timers, now_ns);
	struct wg_pkt *pkt;

	wg_device_timers_update(dev, peer);
	if (!actions)
		return;
	if (actions & WG_TIMERS_ZERO_KEY_MATERIAL) {
		wg_device_log(dev, WG_LOG_DEBUG, "peer %llu: zeroing keys", (unsigned long long)peer->id);
		wg_noise_remote_clear(&peer->noise);
	}
	if (actions & WG_TIMERS_GIVE_UP) {
		wg_device_log(dev, WG_LOG_INFO,
			      "peer %llu: handshake did not complete after %d attempts, giving up",
			      (unsigned long long)peer->id, MAX_TIMER_HANDSHAKES + 2);
		while ((pkt = wg_pkt_list_pop(&peer->staged))) {
			peer->stats.staged_drops++;
			wg_device_pkt_put(dev, pkt);
		}
	}
	if (actions & WG_TIMERS_CLEAR_ENDPOINT_SRC)
		peer->endpoint.has_src = false;
	if (actions & WG_TIMERS_SEND_HANDSHAKE)
		wg_device_send_initiation(dev, peer, !!(actions & WG_TIMERS_RETRY_HANDSHAKE),
					  now_ns);
	if (actions & WG_TIMERS_SEND_ANY_KEEPALIVE)
		wg_device_send_keepalive(dev, peer, now_ns);
}

uint64_t wg_device_next_deadline(const struct wg_device *dev)
{
	return WG_MIN(wg_timerq_next(&dev->timerq), wg_device_autorate_next(dev));
}

void wg_device_run_timers(struct wg_device *dev, uint64_t now_ns)
{
	struct wg_timerq_node *node;

	dev->now_ns = now_ns;
	/*
	 * Only the due peers, earliest first. A run leaves its peer's deadlines after now_ns
	 * (wg_timers_run() and the sends it asks for arm nothing earlier), so each due peer is
	 * run once; the bound is a guard, not a limit that is ever reached.
	 */
	for (uint32_t n = dev->timerq.len; n && (node = wg_timerq_due(&dev->timerq, now_ns)); n--)
		run_peer_timers(dev, wg_container_of(node, struct wg_peer, timer_node), now_ns);
	/* A walk over the whole table: once a second, not at every peer's deadline. */
	if (now_ns >= dev->ratelimiter_gc_next_ns) {
		(void)wg_ratelimiter_gc(&dev->ratelimiter, now_ns);
		dev->ratelimiter_gc_next_ns = now_ns + RATELIMIT_IDLE_NS;
	}
	wg_device_autorate_tick(dev, now_ns);
}
