/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The receive path: datagrams from the underlay, dispatched by message type to the
 * handshake (with cookies under load), the cookie-reply consumer, or decryption; then the
 * inner packet's checks (allowed source, RFC 6040 ECN) and the TUN write. Every packet
 * that is refused is counted by reason.
 */
#include "src/core/device.h"
#include "src/core/send.h"

#include <string.h>

#include "qdisc/ecn.h"
#include "src/core/messages.h"

static struct wg_peer *peer_of(struct wg_noise_remote *r)
{
	return wg_container_of(r, struct wg_peer, noise);
}

static void src_addr(const struct wg_endpoint *ep, struct wg_src_addr *src)
{
	memset(src, 0, sizeof(*src));
	if (ep->remote.addr.sa_family == AF_INET6) {
		src->family = WG_ADDR_IPV6;
		memcpy(src->addr, &ep->remote.addr6.sin6_addr, 16);
		src->port = ntohs(ep->remote.addr6.sin6_port);
	} else {
		src->family = WG_ADDR_IPV4;
		memcpy(src->addr, &ep->remote.addr4.sin_addr, 4);
		src->port = ntohs(ep->remote.addr4.sin_port);
	}
}

/* Roaming: the endpoint becomes the source of the latest authenticated packet. */
static void set_endpoint(struct wg_peer *peer, const struct wg_endpoint *src)
{
	if (wg_endpoint_same_remote(&peer->endpoint, src) &&
	    peer->endpoint.has_src == src->has_src &&
	    !memcmp(&peer->endpoint.src6, &src->src6, sizeof(src->src6)))
		return;
	if (wg_endpoint_is_set(&peer->endpoint) && !wg_endpoint_same_remote(&peer->endpoint, src))
		peer->stats.roams++;
	peer->endpoint = *src;
}

static void authenticated(struct wg_peer *peer, const struct wg_pkt *pkt, uint64_t now_ns)
{
	set_endpoint(peer, &pkt->src);
	wg_timers_event_any_authenticated_packet_received(&peer->timers);
	wg_timers_event_any_authenticated_packet_traversal(&peer->timers, now_ns);
	wg_device_timers_update(peer->dev, peer);
}

static void handshake_done(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns)
{
	wg_timers_event_handshake_complete(&peer->timers, now_ns);
	wg_device_timers_update(dev, peer);
	peer->has_handshake = true;
	peer->last_handshake_ns = now_ns;
	peer->initiation_sent = false;
	peer->stats.handshakes_completed++;
	wg_device_log(dev, WG_LOG_DEBUG, "peer %llu: handshake complete",
		      (unsigned long long)peer->id);
}

/* Counts handshake messages per second: the single-threaded analogue of Linux's queue. */
static bool under_load(struct wg_device *dev, uint64_t now_ns)
{
	if (now_ns - dev->hs_window_start_ns >= WG_NSEC_PER_SEC) {
		dev->hs_window_start_ns = now_ns;
		dev->hs_window_count = 0;
	}
	dev->hs_window_count++;
	return wg_cookie_under_load(dev->hs_window_count, now_ns, &dev->last_under_load_ns);
}

static void rx_initiation(struct wg_device *dev, const uint8_t *msg, struct wg_pkt *pkt,
			  uint64_t now_ns)
{
	struct message_handshake_response resp;
	struct wg_noise_remote *remote;
	struct wg_peer *peer;

	if (wg_noise_consume_initiation(&dev->identity, (const void *)msg, now_ns, &remote) !=
	    NOISE_OK) {
		dev->stats.rx_handshake_bad++;
		return;
	}
	peer = peer_of(remote);
	authenticated(peer, pkt, now_ns);
	peer->stats.rx_bytes += pkt->msg_len;
	if (wg_noise_create_response(remote, &resp, &dev->rng, now_ns) ||
	    wg_noise_begin_session(remote, now_ns)) {
		dev->stats.rx_handshake_bad++;
		return;
	}
	wg_timers_event_session_derived(&peer->timers, now_ns);
	wg_timers_event_any_authenticated_packet_sent(&peer->timers);
	wg_device_timers_update(dev, peer);
	wg_device_send_control(dev, peer, (const uint8_t *)&resp, sizeof(resp));
	wg_device_log(dev, WG_LOG_DEBUG, "peer %llu: answered handshake initiation",
		      (unsigned long long)peer->id);
}

static void rx_response(struct wg_device *dev, const uint8_t *msg, struct wg_pkt *pkt,
			uint64_t now_ns)
{
	const struct message_handshake_response *resp = (const void *)msg;
	struct wg_noise_remote *remote = wg_index_lookup(&dev->index, wg_le32(resp->receiver_index),
							 WG_INDEX_HANDSHAKE, NULL);
	struct wg_peer *peer;

	if (!remote || wg_noise_consume_response(remote, resp) != NOISE_OK ||
	    wg_noise_begin_session(remote, now_ns)) {
		dev->stats.rx_handshake_bad++;
		return;
	}
	peer = peer_of(remote);
	authenticated(peer, pkt, now_ns);
	peer->stats.rx_bytes += pkt->msg_len;
	wg_timers_event_session_derived(&peer->timers, now_ns);
	wg_device_timers_update(dev, peer);
	handshake_done(dev, peer, now_ns);
	/* Confirm the session to the responder: with staged data, or a keepalive. */
	if (peer->staged.len)
		wg_device_flush_staged(dev, peer, now_ns);
	else
		wg_device_send_keepalive(dev, peer, now_ns);
}

static void rx_handshake(struct wg_device *dev, struct wg_pkt *pkt, uint8_t type, uint64_t now_ns)
{
	const uint8_t *msg = wg_pkt_msg(pkt);
	bool load = under_load(dev, now_ns);
	struct wg_src_addr src;
	enum wg_mac_verdict mac;

	src_addr(&pkt->src, &src);
	mac = wg_cookie_validate(&dev->cookie_checker, msg, pkt->msg_len, load, &src, now_ns);
	if (load && mac == VALID_MAC_BUT_NO_COOKIE) {
		struct message_handshake_cookie reply;
		/* The sender index sits right after the header in both handshake messages. */
		uint32_t sender = wg_le32(msg + sizeof(struct message_header));

		wg_cookie_reply_create(&dev->cookie_checker, &reply, msg, pkt->msg_len, sender, &src,
				       now_ns);
		dev->ops.send_control(dev->ops.ctx, &pkt->src, (const uint8_t *)&reply, sizeof(reply));
		dev->stats.cookie_replies_sent++;
		return;
	}
	if (!(mac == VALID_MAC_WITH_COOKIE || (!load && mac == VALID_MAC_BUT_NO_COOKIE))) {
		if (mac == VALID_MAC_WITH_COOKIE_BUT_RATELIMITED)
			dev->stats.rx_ratelimited++;
		else
			dev->stats.rx_invalid_mac++;
		return;
	}
	if (type == MESSAGE_HANDSHAKE_INITIATION)
		rx_initiation(dev, msg, pkt, now_ns);
	else
		rx_response(dev, msg, pkt, now_ns);
}

static void rx_cookie(struct wg_device *dev, struct wg_pkt *pkt, uint64_t now_ns)
{
	const struct message_handshake_cookie *c = (const void *)wg_pkt_msg(pkt);
	enum wg_index_type type;
	void *item = wg_index_lookup(&dev->index, wg_le32(c->receiver_index),
				     WG_INDEX_HANDSHAKE | WG_INDEX_KEYPAIR, &type);
	struct wg_noise_remote *remote;

	if (!item) {
		dev->stats.rx_cookie_bad++;
		return;
	}
	remote = type == WG_INDEX_KEYPAIR ? ((struct wg_keypair *)item)->remote : item;
	if (wg_cookie_maker_consume_reply(&remote->cookie, c, now_ns))
		dev->stats.rx_cookie_bad++;
}

/* The inner packet's length from its own header (the rest is padding), or 0 if malformed. */
static uint32_t inner_len(const uint8_t *ip, size_t len, int *family)
{
	uint32_t n;

	*family = wg_ip_family(ip, len);
	if (*family == AF_INET) {
		n = (uint32_t)ip[2] << 8 | ip[3];
		return n >= CAKE_IPV4_HDR_BYTES && n <= len ? n : 0;
	}
	if (*family == AF_INET6) {
		n = CAKE_IPV6_HDR_BYTES + ((uint32_t)ip[4] << 8 | ip[5]);
		return n <= len ? n : 0;
	}
	return 0;
}

/* Delivers a decrypted, non-empty plaintext; returns true when pkt went to TUN. */
static bool deliver(struct wg_device *dev, struct wg_peer *peer, struct wg_pkt *pkt,
		    size_t plain_len)
{
	int family = 0;
	uint32_t len = inner_len(pkt->cp.data, plain_len, &family);
	const uint8_t *src;

	if (!len) {
		dev->stats.rx_bad_inner++;
		return false;
	}
	src = pkt->cp.data + (family == AF_INET ? WG_IPV4_SRC_OFFSET : WG_IPV6_SRC_OFFSET);
	if (wg_allowedips_lookup(&dev->allowedips, family, src) != peer) {
		dev->stats.rx_bad_source++;
		return false;
	}
	pkt->cp.len = len;
	if (cake_ecn_decapsulate(pkt->cp.data, len, pkt->outer_ecn) == CAKE_ECN_DECAP_DROP) {
		dev->stats.rx_ecn_drops++;
		return false;
	}
	pkt->peer = peer;
	if (dev->tcpts) /* autorate: arrival, before the ingress CAKE */
		wg_device_autorate_packet(dev, CAKE_TCPTS_IN, pkt, wg_pkt_rx_wire_len(pkt),
					  wg_pkt_arrival_ns(pkt, dev->now_ns), dev->now_ns);
	if (dev->ingress)
		wg_egress_enqueue(dev->ingress, pkt, dev->now_ns);
	else
		dev->ops.tun_write(dev->ops.ctx, pkt);
	return true;
}

static void rx_release(struct wg_device *dev, struct wg_pkt *pkt)
{
	struct wg_peer *peer = pkt->peer;

	dev->ops.tun_write(dev->ops.ctx, pkt);
	wg_peer_put(peer);
}

/*
 * Each TUN write is a syscall and the kernel's receive path runs inside it, and GRO can
 * only join segments that leave together. A shaper that lets one packet go per loop
 * iteration defeats both, so while the ingress instance holds a real backlog (at least
 * WG_INGRESS_GULP_NS at its rate) the bulk goes once per that period, a gulp of what
 * came due meanwhile. CAKE's order is kept; only the moment of dequeue moves. A sparse
 * flow (a ping, an ACK) goes when it arrives: CAKE serves new flows first, so dequeuing
 * while one waits releases it, and little else.
 */
uint64_t wg_device_rx_flush(struct wg_device *dev, uint64_t now_ns)
{
	struct wg_egress *in = dev->ingress;
	uint64_t next = UINT64_MAX;
	struct wg_pkt *pkt;

	if (!in)
		return UINT64_MAX;
	if (now_ns < in->gulp_end_ns) {
		bool sparse;

		while ((sparse = cake_sparse_waiting(in->q)) &&
		       (pkt = wg_egress_dequeue(in, now_ns, &next)))
			rx_release(dev, pkt);
		if (!cake_backlog_packets(in->q))
			return UINT64_MAX;
		/* a sparse packet the shaper holds goes when it allows; the bulk at the end */
		return sparse && next < in->gulp_end_ns ? next : in->gulp_end_ns;
	}
	while ((pkt = wg_egress_dequeue(in, now_ns, &next)))
		rx_release(dev, pkt);
	in->gulp_end_ns = 0;
	if (cake_backlog_time_ns(in->q) >= WG_INGRESS_GULP_NS) {
		in->gulp_end_ns = now_ns + WG_INGRESS_GULP_NS;
		in->stats.gulps++;
		if (next < in->gulp_end_ns)
			next = in->gulp_end_ns;
	}
	return next;
}

static bool rx_data(struct wg_device *dev, struct wg_pkt *pkt, uint64_t now_ns)
{
	uint8_t *msg = wg_pkt_msg(pkt);
	struct wg_keypair *kp = wg_index_lookup(&dev->index, wg_le32(msg + 4), WG_INDEX_KEYPAIR,
						NULL);
	struct wg_peer *peer;
	size_t plain_len;

	if (!kp) {
		dev->stats.rx_no_keypair++;
		return false;
	}
	switch (wg_keypair_decrypt(kp, msg, pkt->msg_len, now_ns, &plain_len)) {
	case DATA_OK:
		break;
	case DATA_REPLAYED:
		dev->stats.rx_replayed++;
		return false;
	case DATA_AUTH_FAILED:
		dev->stats.rx_auth_failed++;
		return false;
	default:
		dev->stats.rx_no_keypair++;
		return false;
	}
	peer = peer_of(kp->remote);
	authenticated(peer, pkt, now_ns);
	peer->stats.rx_bytes += pkt->msg_len;
	peer->stats.rx_packets++;
	if (wg_noise_received_with_keypair(&peer->noise, kp)) {
		handshake_done(dev, peer, now_ns);
		wg_device_flush_staged(dev, peer, now_ns);
	}
	/* Keep the key fresh: an initiator about to lose its keypair starts over now. */
	if (kp->i_am_the_initiator && !peer->timers.sent_lastminute_handshake &&
	    wg_keypair_should_rekey_on_receive(kp, now_ns)) {
		peer->timers.sent_lastminute_handshake = true;
		wg_device_send_initiation(dev, peer, false, now_ns);
	}
	if (!plain_len)
		return false; /* a keepalive */
	wg_timers_event_data_received(&peer->timers, now_ns);
	wg_device_timers_update(dev, peer);
	return deliver(dev, peer, pkt, plain_len);
}

void wg_device_rx(struct wg_device *dev, struct wg_pkt *pkt, uint64_t now_ns)
{
	const uint8_t *msg = wg_pkt_msg(pkt);
	size_t len = pkt->msg_len;
	uint32_t type = len >= 4 ? wg_le32(msg) : MESSAGE_INVALID;
	bool delivered = false;

	dev->now_ns = now_ns;
	if (type == MESSAGE_HANDSHAKE_INITIATION && len == MESSAGE_HANDSHAKE_INITIATION_LEN)
		rx_handshake(dev, pkt, MESSAGE_HANDSHAKE_INITIATION, now_ns);
	else if (type == MESSAGE_HANDSHAKE_RESPONSE && len == MESSAGE_HANDSHAKE_RESPONSE_LEN)
		rx_handshake(dev, pkt, MESSAGE_HANDSHAKE_RESPONSE, now_ns);
	else if (type == MESSAGE_HANDSHAKE_COOKIE && len == MESSAGE_HANDSHAKE_COOKIE_LEN)
		rx_cookie(dev, pkt, now_ns);
	else if (type == MESSAGE_DATA && len >= MESSAGE_MINIMUM_LENGTH)
		delivered = rx_data(dev, pkt, now_ns);
	else
		dev->stats.rx_malformed++;
	if (!delivered)
		wg_device_pkt_put(dev, pkt);
}
