/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration of a device: a UAPI `set` (wireguard-go's semantics) applied as a change
 * set in bounded steps, and the snapshot a `get` prints, taken the same way
 * (device_conf.h).
 */
#include "src/core/device_conf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/device.h"
#include "src/core/device_cake.h"
#include "src/core/device_netchange.h"
#include "src/core/send.h"

/* The longest error line a check logs. */
enum { CONF_ERR_LEN = 160 };

static bool is_own_key(const struct wg_noise_identity *id, const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	return id->has_identity && cw_ct_equal(pub, id->static_public, NOISE_PUBLIC_KEY_LEN);
}

static bool same_private_key(const struct wg_noise_identity *id,
			     const uint8_t key[NOISE_PRIVATE_KEY_LEN])
{
	return id->has_identity && cw_ct_equal(id->static_private, key, NOISE_PRIVATE_KEY_LEN);
}

static bool keeps_identity(const struct wg_devconf *conf, const struct wg_noise_identity *id)
{
	return !(conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY) ||
	       same_private_key(id, conf->private_key);
}

/* The identity after a private key change, as the device computes it. */
static void set_identity(struct wg_noise_identity *id, const uint8_t key[NOISE_PRIVATE_KEY_LEN])
{
	if (wg_noise_identity_set_private(id, key))
		wg_noise_identity_clear(id);
}

/* --- building the change set: no device touched --- */

void wg_device_change_deinit(struct wg_device_change *c)
{
	wg_device_cake_abandon(&c->cake);
	for (size_t i = 0; c->fresh && i < c->conf->n_peers; i++)
		if (c->fresh[i])
			wg_peer_put(c->fresh[i]);
	free(c->fresh);
	cw_memzero(c, sizeof(*c));
}

int wg_device_change_prepare(struct wg_device_change *c, const struct wg_devconf *conf,
			     const struct wg_noise_identity *current)
{
	memset(c, 0, sizeof(*c));
	c->conf = conf;
	c->identity = *current;
	if (!keeps_identity(conf, current))
		set_identity(&c->identity, conf->private_key);
	if (!conf->n_peers)
		return 0;
	c->fresh = calloc(conf->n_peers, sizeof(*c->fresh));
	if (!c->fresh)
		return -ENOMEM;
	for (size_t i = 0; i < conf->n_peers; i++) {
		const struct wg_devconf_peer *pc = conf->peers[i];
		struct wg_peer *peer;

		c->removals += (pc->flags & WG_DEVCONF_PEER_REMOVE_ME) != 0;
		/* Only a record that may create its peer gets one: an existing peer's is
		 * freed unused. */
		if ((pc->flags & (WG_DEVCONF_PEER_REMOVE_ME | WG_DEVCONF_PEER_UPDATE_ONLY)) ||
		    is_own_key(&c->identity, pc->public_key))
			continue;
		peer = wg_peer_new(NULL, 0);
		if (!peer)
			return -ENOMEM;
		wg_noise_remote_init(&peer->noise, &c->identity, pc->public_key, NULL);
		c->fresh[i] = peer;
	}
	return 0;
}

/* --- applying it, on the datapath --- */

/* The tables grow once, now, for every peer the change may create, while they hold only
 * the peers of today: growing as they fill would move every entry at each doubling, in
 * one step (6 ms at 16384 peers). Only an optimisation: without memory, they grow later. */
static void reserve(struct wg_device *dev, const struct wg_device_change *c)
{
	size_t n = 0, removals = c->removals;

	for (size_t i = 0; c->fresh && i < c->conf->n_peers; i++)
		n += c->fresh[i] != NULL;
	/* The removals' halvings get their arrays now, not after the frees (hashtab.h). */
	if (c->conf->flags & WG_DEVCONF_REPLACE_PEERS)
		removals = dev->n_peers;
	if (removals)
		wg_pubkey_table_prepare_removals(&dev->peers_by_key,
						 dev->n_peers - WG_MIN(removals, dev->n_peers));
	if (!n)
		return;
	(void)wg_pubkey_table_reserve(&dev->peers_by_key, n);
	(void)wg_allowedips_reserve_peers(&dev->allowedips, n);
}

int wg_device_change_check(struct wg_device *dev, struct wg_device_change *c, uint64_t now_ns)
{
	char err[CONF_ERR_LEN];
	int ret;

	wg_device_cake_abandon(&c->cake);
	c->checked = false;
	ret = wg_device_cake_check(dev, &c->cake, c->conf->cake, c->conf->cake_ingress, err,
				   sizeof(err), now_ns);
	if (ret) {
		wg_device_log(dev, WG_LOG_ERROR, "%s", err);
		return ret;
	}
	c->checked = true;
	return 0;
}

int wg_device_change_begin(struct wg_device *dev, struct wg_device_change *c, uint64_t now_ns)
{
	char err[CONF_ERR_LEN];
	int ret;

	dev->now_ns = now_ns;
	if (!c->checked) {
		ret = wg_device_change_check(dev, c, now_ns);
		if (ret)
			return ret;
	}
	/* Checked: only memory can fail it now. */
	c->checked = false;
	ret = wg_device_cake_commit(dev, &c->cake, err, sizeof(err), now_ns);
	if (ret) {
		wg_device_log(dev, WG_LOG_ERROR, "%s", err);
		return ret;
	}
	reserve(dev, c);
	c->stage = WG_CHANGE_PRIVATE_KEY;
	return 0;
}

/* The device takes the new private key; its peers are precomputed again in later steps.
 * Fresh peers built for another identity than the device now has are precomputed again
 * when they are added (the caller's copy of the identity was stale). */
static unsigned int take_identity(struct wg_device *dev, struct wg_device_change *c)
{
	bool changes = !keeps_identity(c->conf, &dev->identity);

	if (changes)
		set_identity(&dev->identity, c->conf->private_key);
	if (dev->identity.has_identity != c->identity.has_identity ||
	    (dev->identity.has_identity &&
	     !cw_ct_equal(dev->identity.static_private, c->identity.static_private,
			  NOISE_PRIVATE_KEY_LEN))) {
		c->identity = dev->identity;
		c->stale_fresh = true;
	}
	c->identity_applied = true;
	c->next_peer = dev->peers_head;
	c->stage = changes ? WG_CHANGE_REKEY_PEERS : WG_CHANGE_DEVICE;
	return changes ? WG_DEVICE_CONF_UNITS_X25519 : WG_DEVICE_CONF_UNITS_ITEM;
}

/* One existing peer under the new identity. */
static unsigned int rekey_peer(struct wg_device *dev, struct wg_device_change *c)
{
	struct wg_peer *peer = c->next_peer;

	if (!peer) {
		wg_device_log(dev, WG_LOG_INFO, "private key %s",
			      dev->identity.has_identity ? "set" : "cleared");
		c->stage = WG_CHANGE_DEVICE;
		return WG_DEVICE_CONF_UNITS_ITEM;
	}
	c->next_peer = peer->next;
	/* A peer with our own public key can never complete a handshake: drop it. */
	if (is_own_key(&dev->identity, peer->noise.remote_static)) {
		wg_device_remove_peer(dev, peer);
		return WG_DEVICE_CONF_UNITS_ITEM;
	}
	wg_noise_remote_precompute(&peer->noise);
	wg_noise_remote_expire_current(&peer->noise);
	return WG_DEVICE_CONF_UNITS_X25519;
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

/* The peer record i creates: the one prepare built, or NULL when out of memory. */
static struct wg_peer *create_peer(struct wg_device *dev, struct wg_device_change *c, size_t i)
{
	struct wg_peer *peer = c->fresh[i];

	if (!peer) /* prepare took it for our own key under a stale identity */
		return wg_device_add_peer(dev, c->conf->peers[i]->public_key);
	c->fresh[i] = NULL;
	if (wg_device_insert_peer(dev, peer)) {
		wg_peer_put(peer);
		return NULL;
	}
	if (c->stale_fresh)
		wg_noise_remote_precompute(&peer->noise);
	return peer;
}

static int apply_peer(struct wg_device *dev, struct wg_device_change *c, size_t i,
		      uint64_t now_ns)
{
	const struct wg_devconf_peer *pc = c->conf->peers[i];
	struct wg_peer *peer = wg_device_find_peer(dev, pc->public_key);

	if (pc->flags & WG_DEVCONF_PEER_REMOVE_ME) {
		if (peer)
			wg_device_remove_peer(dev, peer);
		return 0;
	}
	if (is_own_key(&dev->identity, pc->public_key))
		return 0; /* our own key: ignored, as wireguard-go does */
	if (!peer) {
		if (pc->flags & WG_DEVCONF_PEER_UPDATE_ONLY)
			return 0;
		peer = create_peer(dev, c, i);
		if (!peer)
			return -ENOMEM;
	}
	if (pc->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
		wg_noise_remote_set_psk(&peer->noise, pc->preshared_key);
	if (pc->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) {
		memset(&peer->endpoint, 0, sizeof(peer->endpoint));
		peer->endpoint.remote = pc->endpoint;
	}
	wg_device_peer_set_endpoint_name(peer, pc, now_ns);
	if (pc->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE)
		set_keepalive(dev, peer, pc->persistent_keepalive_secs, now_ns);
	return apply_allowedips(dev, peer, pc);
}

/* The device's own fields, after the private key, in wireguard-go's order. */
static unsigned int apply_device(struct wg_device *dev, struct wg_device_change *c)
{
	const struct wg_devconf *conf = c->conf;

	if (conf->flags & WG_DEVCONF_HAS_LISTEN_PORT)
		dev->listen_port = conf->listen_port;
	if (conf->flags & WG_DEVCONF_HAS_FWMARK)
		dev->fwmark = conf->fwmark;
	c->stage = conf->flags & WG_DEVCONF_REPLACE_PEERS ? WG_CHANGE_REPLACE : WG_CHANGE_PEERS;
	return WG_DEVICE_CONF_UNITS_ITEM;
}

/* The next peer record; -errno when it failed. */
static int next_record(struct wg_device *dev, struct wg_device_change *c, uint64_t now_ns,
		       unsigned int *units)
{
	const struct wg_devconf *conf = c->conf;

	*units = WG_DEVICE_CONF_UNITS_ITEM;
	if (c->next == conf->n_peers) {
		/* Last, as it cannot fail: a request that fails above leaves it as it was. */
		if (conf->flags & WG_DEVCONF_HAS_AUTORATE_PROBE)
			dev->autorate_probe = conf->autorate_probe;
		wg_pubkey_table_spares_retire(&dev->peers_by_key);
		c->stage = WG_CHANGE_DONE;
		return 0;
	}
	*units += (unsigned int)WG_MIN(conf->peers[c->next]->n_allowedips, (size_t)UINT_MAX / 2);
	return apply_peer(dev, c, c->next++, now_ns);
}

int wg_device_change_step(struct wg_device *dev, struct wg_device_change *c, unsigned int budget,
			  uint64_t now_ns)
{
	unsigned long long used = 0;
	unsigned int units = 0;
	int ret = 0;

	dev->now_ns = now_ns;
	while (used < budget && !ret) {
		switch (c->stage) {
		case WG_CHANGE_CAKE:
			return -EINVAL; /* wg_device_change_begin() first */
		case WG_CHANGE_PRIVATE_KEY:
			units = take_identity(dev, c);
			break;
		case WG_CHANGE_REKEY_PEERS:
			units = rekey_peer(dev, c);
			break;
		case WG_CHANGE_DEVICE:
			units = apply_device(dev, c);
			break;
		case WG_CHANGE_REPLACE:
			units = WG_DEVICE_CONF_UNITS_ITEM;
			if (dev->peers_head)
				wg_device_remove_peer(dev, dev->peers_head);
			else
				c->stage = WG_CHANGE_PEERS;
			break;
		case WG_CHANGE_PEERS:
			ret = next_record(dev, c, now_ns, &units);
			break;
		case WG_CHANGE_DONE:
			return 0;
		}
		used += units;
	}
	if (ret)
		return ret;
	return c->stage == WG_CHANGE_DONE ? 0 : WG_DEVICE_CONF_MORE;
}

int wg_device_apply(struct wg_device *dev, const struct wg_devconf *conf, uint64_t now_ns)
{
	struct wg_device_change c;
	int ret = wg_device_change_prepare(&c, conf, &dev->identity);

	if (!ret)
		ret = wg_device_change_begin(dev, &c, now_ns);
	while (!ret && (ret = wg_device_change_step(dev, &c, UINT_MAX, now_ns)) == WG_DEVICE_CONF_MORE)
		ret = 0;
	wg_device_change_deinit(&c);
	return ret;
}

/* --- the snapshot a `get` prints --- */

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

int wg_device_snapshot_init(const struct wg_device *dev, struct wg_device_snapshot *s)
{
	struct wg_devconf *conf = wg_devconf_new();

	memset(s, 0, sizeof(*s));
	if (!conf)
		return -ENOMEM;
	if (dev->identity.has_identity) {
		conf->flags |= WG_DEVCONF_HAS_PRIVATE_KEY;
		memcpy(conf->private_key, dev->identity.static_private, NOISE_PRIVATE_KEY_LEN);
	}
	conf->flags |= WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK;
	conf->listen_port = dev->listen_port;
	conf->fwmark = dev->fwmark;
	s->conf = conf;
	s->next = dev->peers_head;
	return 0;
}

int wg_device_snapshot_step(const struct wg_device *dev, struct wg_device_snapshot *s,
			    unsigned int budget)
{
	unsigned long long used = 0;

	if (!s->conf)
		return -ENOMEM;
	while (s->next && used < budget) {
		struct wg_devconf_peer *pc = wg_devconf_add_peer(s->conf);

		if (!pc || snapshot_peer(dev, s->next, pc)) {
			wg_device_snapshot_deinit(s);
			return -ENOMEM;
		}
		used += WG_DEVICE_CONF_UNITS_ITEM + pc->n_allowedips;
		s->next = s->next->next;
	}
	return s->next ? WG_DEVICE_CONF_MORE : 0;
}

void wg_device_snapshot_deinit(struct wg_device_snapshot *s)
{
	wg_devconf_free(s->conf);
	memset(s, 0, sizeof(*s));
}

struct wg_devconf *wg_device_snapshot(const struct wg_device *dev, uint64_t now_ns)
{
	struct wg_device_snapshot s;
	struct wg_devconf *conf;

	(void)now_ns;
	if (wg_device_snapshot_init(dev, &s) || wg_device_snapshot_step(dev, &s, UINT_MAX))
		return NULL;
	conf = s.conf;
	s.conf = NULL;
	return conf;
}
