/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration of a device: applying a UAPI `set` (wireguard-go's semantics) and taking
 * the snapshot a `get` prints.
 */
#include "src/core/device.h"

#include <errno.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/send.h"

static void set_private_key(struct wg_device *dev, const uint8_t key[NOISE_PRIVATE_KEY_LEN])
{
	struct wg_peer *peer, *next;

	if (dev->identity.has_identity &&
	    cw_ct_equal(dev->identity.static_private, key, NOISE_PRIVATE_KEY_LEN))
		return;
	if (wg_noise_identity_set_private(&dev->identity, key))
		wg_noise_identity_clear(&dev->identity);
	for (peer = dev->peers_head; peer; peer = next) {
		next = peer->next;
		/* A peer with our own public key can never complete a handshake: drop it. */
		if (dev->identity.has_identity &&
		    cw_ct_equal(peer->noise.remote_static, dev->identity.static_public,
				NOISE_PUBLIC_KEY_LEN)) {
			wg_device_remove_peer(dev, peer);
			continue;
		}
		wg_noise_remote_precompute(&peer->noise);
		wg_noise_remote_expire_current(&peer->noise);
	}
	wg_device_log(dev, WG_LOG_INFO, "private key %s",
		      dev->identity.has_identity ? "set" : "cleared");
}

static int apply_allowedips(struct wg_device *dev, struct wg_peer *peer,
			    const struct wg_devconf_peer *pc)
{
	size_t i;
	int ret;

	if (pc->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS)
		wg_allowedips_remove_by_peer(&dev->allowedips, peer);
	for (i = 0; i < pc->n_allowedips; i++) {
		const struct wg_devconf_allowedip *a = &pc->allowedips[i];
		const struct wg_ipaddr *ip = &a->prefix.addr;

		if (a->flags & WG_DEVCONF_AIP_REMOVE_ME) {
			ret = wg_allowedips_remove(&dev->allowedips, ip->family, ip->bytes,
						   a->prefix.cidr, peer);
			if (ret == -ENOENT)
				ret = 0;
		} else {
			ret = wg_allowedips_insert(&dev->allowedips, ip->family, ip->bytes,
						   a->prefix.cidr, peer);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static void set_keepalive(struct wg_device *dev, struct wg_peer *peer, uint16_t secs,
			  uint64_t now_ns)
{
	unsigned int actions = wg_timers_event_persistent_keepalive_set(&peer->timers, secs);

	wg_device_timers_update(dev, peer);
	peer->persistent_keepalive_secs = secs;
	/* As Linux and wireguard-go: turning it on sends a keepalive at once. */
	if ((actions & WG_TIMERS_SEND_ANY_KEEPALIVE) && dev->identity.has_identity &&
	    wg_endpoint_is_set(&peer->endpoint))
		wg_device_send_keepalive(dev, peer, now_ns);
}

static int apply_peer(struct wg_device *dev, const struct wg_devconf_peer *pc, uint64_t now_ns)
{
	struct wg_peer *peer = wg_device_find_peer(dev, pc->public_key);

	if (pc->flags & WG_DEVCONF_PEER_REMOVE_ME) {
		if (peer)
			wg_device_remove_peer(dev, peer);
		return 0;
	}
	if (dev->identity.has_identity &&
	    cw_ct_equal(pc->public_key, dev->identity.static_public, NOISE_PUBLIC_KEY_LEN))
		return 0; /* our own key: ignored, as wireguard-go does */
	if (!peer) {
		if (pc->flags & WG_DEVCONF_PEER_UPDATE_ONLY)
			return 0;
		peer = wg_device_add_peer(dev, pc->public_key);
		if (!peer)
			return -ENOMEM;
	}
	if (pc->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
		wg_noise_remote_set_psk(&peer->noise, pc->preshared_key);
	if (pc->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) {
		memset(&peer->endpoint, 0, sizeof(peer->endpoint));
		peer->endpoint.remote = pc->endpoint;
	}
	if (pc->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE)
		set_keepalive(dev, peer, pc->persistent_keepalive_secs, now_ns);
	return apply_allowedips(dev, peer, pc);
}

int wg_device_apply(struct wg_device *dev, const struct wg_devconf *conf, uint64_t now_ns)
{
	size_t i;
	int ret;

	dev->now_ns = now_ns;
	if (conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY)
		set_private_key(dev, conf->private_key);
	if (conf->flags & WG_DEVCONF_HAS_LISTEN_PORT)
		dev->listen_port = conf->listen_port;
	if (conf->flags & WG_DEVCONF_HAS_FWMARK)
		dev->fwmark = conf->fwmark;
	if (conf->cake || conf->cake_ingress) {
		char err[160];

		ret = conf->cake ? wg_device_set_cake(dev, false, conf->cake, err, sizeof(err), now_ns)
				 : 0;
		if (!ret && conf->cake_ingress)
			ret = wg_device_set_cake(dev, true, conf->cake_ingress, err, sizeof(err),
						 now_ns);
		if (ret) {
			wg_device_log(dev, WG_LOG_ERROR, "%s", err);
			return ret;
		}
	}
	if (conf->flags & WG_DEVCONF_REPLACE_PEERS)
		while (dev->peers_head)
			wg_device_remove_peer(dev, dev->peers_head);
	for (i = 0; i < conf->n_peers; i++) {
		ret = apply_peer(dev, conf->peers[i], now_ns);
		if (ret)
			return ret;
	}
	/* Last, as it cannot fail: a request that fails above leaves it as it was. The
	 * private key, port and fwmark before it apply in order, as in wireguard-go. */
	if (conf->flags & WG_DEVCONF_HAS_AUTORATE_PROBE)
		dev->autorate_probe = conf->autorate_probe;
	return 0;
}

struct walk_ctx {
	struct wg_devconf_peer *pc;
};

static int walk_allowedip(void *arg, const struct wg_allowedip *ip)
{
	struct walk_ctx *w = arg;
	struct wg_ipaddr_prefix prefix;

	memset(&prefix, 0, sizeof(prefix));
	prefix.addr.family = (sa_family_t)ip->family;
	memcpy(prefix.addr.bytes, ip->addr, ip->family == AF_INET ? 4 : 16);
	prefix.cidr = ip->cidr;
	return wg_devconf_peer_add_allowedip(w->pc, &prefix, 0);
}

static int snapshot_peer(const struct wg_device *dev, const struct wg_peer *peer,
			 struct wg_devconf_peer *pc)
{
	struct walk_ctx w = { .pc = pc };
	bool has_psk = !cw_is_zero(peer->noise.preshared_key, NOISE_SYMMETRIC_KEY_LEN);

	pc->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	/* `get` prints the interval either way; a written config only names a set one. */
	if (peer->persistent_keepalive_secs)
		pc->flags |= WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE;
	memcpy(pc->public_key, peer->noise.remote_static, NOISE_PUBLIC_KEY_LEN);
	if (has_psk) {
		pc->flags |= WG_DEVCONF_PEER_HAS_PRESHARED_KEY;
		memcpy(pc->preshared_key, peer->noise.preshared_key, NOISE_SYMMETRIC_KEY_LEN);
	}
	if (wg_endpoint_is_set(&peer->endpoint)) {
		pc->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
		pc->endpoint = peer->endpoint.remote;
	}
	pc->persistent_keepalive_secs = peer->persistent_keepalive_secs;
	if (peer->has_handshake) {
		int64_t wall = (int64_t)peer->last_handshake_ns + dev->wall_offset_ns;

		pc->last_handshake_sec = wall / (int64_t)WG_NSEC_PER_SEC;
		pc->last_handshake_nsec = wall % (int64_t)WG_NSEC_PER_SEC;
	}
	pc->rx_bytes = peer->stats.rx_bytes;
	pc->tx_bytes = peer->stats.tx_bytes;
	pc->protocol_version = WG_DEVCONF_PROTOCOL_VERSION;
	return wg_allowedips_walk_peer(&dev->allowedips, peer, walk_allowedip, &w);
}

struct wg_devconf *wg_device_snapshot(const struct wg_device *dev, uint64_t now_ns)
{
	struct wg_devconf *conf = wg_devconf_new();
	const struct wg_peer *peer;

	(void)now_ns;
	if (!conf)
		return NULL;
	if (dev->identity.has_identity) {
		conf->flags |= WG_DEVCONF_HAS_PRIVATE_KEY;
		memcpy(conf->private_key, dev->identity.static_private, NOISE_PRIVATE_KEY_LEN);
	}
	conf->flags |= WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK;
	conf->listen_port = dev->listen_port;
	conf->fwmark = dev->fwmark;
	for (peer = dev->peers_head; peer; peer = peer->next) {
		struct wg_devconf_peer *pc = wg_devconf_add_peer(conf);

		if (!pc || snapshot_peer(dev, peer, pc)) {
			wg_devconf_free(conf);
			return NULL;
		}
	}
	return conf;
}
