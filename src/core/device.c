/* SPDX-License-Identifier: GPL-2.0-only */
/* The device: lifecycle, the tables behind noise's upcalls, peers, and configuration. */
#include "src/core/device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"

enum {
	RATELIMITER_MAX_ENTRIES = 8192,
	POOL_MAX_FREE = 4096,
	POOL_LARGE_MAX_FREE = 8,
};

void wg_device_log(struct wg_device *dev, enum wg_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (!dev->ops.log)
		return;
	va_start(ap, fmt);
	dev->ops.log(dev->ops.ctx, level, fmt, ap);
	va_end(ap);
}

static struct wg_noise_remote *up_remote_get(void *arg, const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	struct wg_device *dev = arg;
	struct wg_peer *peer = wg_pubkey_table_lookup(&dev->peers_by_key, pub);

	return peer ? &peer->noise : NULL;
}

static int up_index_alloc(void *arg, struct wg_noise_remote *r, uint32_t *index)
{
	struct wg_device *dev = arg;

	return wg_index_insert(&dev->index, r, WG_INDEX_HANDSHAKE, &dev->rng, index);
}

static void up_index_replace(void *arg, uint32_t index, struct wg_keypair *kp)
{
	struct wg_device *dev = arg;

	(void)wg_index_replace(&dev->index, index, kp->remote, kp, WG_INDEX_KEYPAIR);
}

static void up_index_drop(void *arg, uint32_t index)
{
	struct wg_device *dev = arg;
	void *item = wg_index_lookup(&dev->index, index, WG_INDEX_HANDSHAKE | WG_INDEX_KEYPAIR, NULL);

	if (item)
		(void)wg_index_remove(&dev->index, index, item);
}

int wg_device_init(struct wg_device *dev, const char *name, const struct wg_io_ops *ops,
		   const struct wg_rng *rng, uint64_t now_ns)
{
	struct wg_noise_upcall upcall = {
		.arg = dev,
		.remote_get = up_remote_get,
		.index_alloc = up_index_alloc,
		.index_replace = up_index_replace,
		.index_drop = up_index_drop,
	};
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->ops = *ops;
	dev->rng = *rng;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->mtu = DEFAULT_MTU;
	dev->now_ns = now_ns;
	wg_noise_identity_init(&dev->identity, &upcall);
	ret = wg_ratelimiter_init(&dev->ratelimiter, rng, RATELIMITER_MAX_ENTRIES);
	if (ret)
		return ret;
	wg_cookie_checker_init(&dev->cookie_checker, &dev->identity.cookie_keys, &dev->ratelimiter,
			       rng, now_ns);
	wg_index_table_init(&dev->index);
	wg_pubkey_table_init(&dev->peers_by_key, rng);
	dev->index.retired = dev->peers_by_key.retired = &dev->retired;
	wg_allowedips_init(&dev->allowedips);
	dev->allowedips.retired = &dev->retired;
	wg_timerq_init(&dev->timerq);
	wg_pktpool_init(&dev->pool, dev->mtu, POOL_MAX_FREE);
	wg_pktpool_init(&dev->pool_large, WG_PKT_LARGE_LEN, POOL_LARGE_MAX_FREE);
	ret = wg_egress_init(&dev->egress, dev, false, now_ns);
	if (ret) {
		wg_device_deinit(dev);
		return ret;
	}
	return 0;
}

void wg_device_remove_peer(struct wg_device *dev, struct wg_peer *peer)
{
	struct wg_pkt *p;

	wg_allowedips_remove_by_peer(&dev->allowedips, peer);
	wg_timerq_set(&dev->timerq, &peer->timer_node, 0);
	(void)wg_pubkey_table_remove(&dev->peers_by_key, peer->noise.remote_static, peer);
	wg_noise_remote_deinit(&peer->noise);
	while ((p = wg_pkt_list_pop(&peer->staged)))
		wg_device_pkt_put(dev, p);
	if (peer->prev)
		peer->prev->next = peer->next;
	else
		dev->peers_head = peer->next;
	if (peer->next)
		peer->next->prev = peer->prev;
	else
		dev->peers_tail = peer->prev;
	dev->n_peers--;
	peer->removed = true;
	wg_device_log(dev, WG_LOG_INFO, "peer %llu removed", (unsigned long long)peer->id);
	wg_peer_put(peer);
}

void wg_device_deinit(struct wg_device *dev)
{
	while (dev->peers_head)
		wg_device_remove_peer(dev, dev->peers_head);
	{
		struct wg_pkt *p;

		while ((p = wg_pkt_list_pop(&dev->tx_held))) {
			struct wg_peer *peer = p->peer;

			wg_device_pkt_put(dev, p);
			wg_peer_put(peer);
		}
	}
	wg_egress_deinit(&dev->egress);
	if (dev->ingress) {
		wg_egress_deinit(dev->ingress);
		free(dev->ingress);
		dev->ingress = NULL;
	}
	(void)wg_device_autorate_attach(dev, dev->now_ns); /* frees the extractor */
	wg_allowedips_deinit(&dev->allowedips);
	wg_timerq_deinit(&dev->timerq);
	wg_pubkey_table_deinit(&dev->peers_by_key);
	wg_index_table_deinit(&dev->index);
	wg_retired_free(&dev->retired);
	wg_cookie_checker_deinit(&dev->cookie_checker);
	wg_ratelimiter_deinit(&dev->ratelimiter);
	wg_noise_identity_clear(&dev->identity);
	wg_pktpool_deinit(&dev->pool);
	wg_pktpool_deinit(&dev->pool_large);
}

void wg_device_set_clock(struct wg_device *dev, uint64_t now_ns, const struct wg_walltime *wall)
{
	int64_t wall_ns = (int64_t)(wall->sec * WG_NSEC_PER_SEC + wall->nsec);

	dev->wall_offset_ns = wall_ns - (int64_t)now_ns;
}

void wg_device_set_mtu(struct wg_device *dev, uint32_t mtu)
{
	if (mtu == dev->mtu)
		return;
	dev->mtu = mtu;
	wg_pktpool_resize(&dev->pool, mtu);
	wg_egress_set_mtu(&dev->egress, mtu);
	if (dev->ingress)
		wg_egress_set_mtu(dev->ingress, mtu);
}

struct wg_pkt *wg_device_pkt_get(struct wg_device *dev, bool large)
{
	struct wg_pkt *p = wg_pktpool_get(large ? &dev->pool_large : &dev->pool);

	if (!p)
		dev->stats.tx_nomem++;
	return p;
}

void wg_device_pkt_put(struct wg_device *dev, struct wg_pkt *pkt)
{
	if (!pkt)
		return;
	wg_pktpool_put(pkt->cap == dev->pool_large.cap ? &dev->pool_large : &dev->pool, pkt);
}

struct wg_peer *wg_device_add_peer(struct wg_device *dev, const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	struct wg_peer *peer;

	if (dev->n_peers >= MAX_PEERS)
		return NULL;
	peer = wg_peer_new(dev, 0);
	if (!peer)
		return NULL;
	wg_noise_remote_init(&peer->noise, &dev->identity, pub, NULL);
	if (wg_device_insert_peer(dev, peer)) {
		wg_peer_put(peer);
		return NULL;
	}
	return peer;
}

int wg_device_insert_peer(struct wg_device *dev, struct wg_peer *peer)
{
	const uint8_t *pub = peer->noise.remote_static;

	/* Room in the timer queue now, so that arming the peer's timers never allocates. */
	if (dev->n_peers >= MAX_PEERS || wg_timerq_reserve(&dev->timerq, dev->n_peers + 1))
		return -ENOMEM;
	peer->dev = dev;
	peer->id = ++dev->next_peer_id;
	peer->noise.local = &dev->identity;
	if (wg_pubkey_table_insert(&dev->peers_by_key, pub, peer))
		return -ENOMEM;
	peer->host_hash = wg_egress_host_hash(&dev->egress, pub, NOISE_PUBLIC_KEY_LEN);
	wg_timers_init(&peer->timers);
	peer->prev = dev->peers_tail;
	if (dev->peers_tail)
		dev->peers_tail->next = peer;
	else
		dev->peers_head = peer;
	dev->peers_tail = peer;
	dev->n_peers++;
	wg_device_log(dev, WG_LOG_INFO, "peer %llu created", (unsigned long long)peer->id);
	return 0;
}

struct wg_peer *wg_device_find_peer(struct wg_device *dev, const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	return wg_pubkey_table_lookup(&dev->peers_by_key, pub);
}
