/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/peer.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"

struct wg_peer *wg_peer_new(struct wg_device *dev, uint64_t id)
{
	struct wg_peer *peer = calloc(1, sizeof(*peer));

	if (!peer)
		return NULL;
	peer->dev = dev;
	peer->id = id;
	peer->refs = 1;
	return peer;
}

void wg_peer_put(struct wg_peer *peer)
{
	if (--peer->refs)
		return;
	/* The device deinitialised the handshake state when it removed the peer. */
	cw_memzero(peer, sizeof(*peer));
	free(peer);
}

struct wg_pkt *wg_peer_stage(struct wg_peer *peer, struct wg_pkt *pkt)
{
	wg_pkt_list_push(&peer->staged, pkt);
	if (peer->staged.len <= MAX_STAGED_PACKETS)
		return NULL;
	peer->stats.staged_drops++;
	return wg_pkt_list_pop(&peer->staged);
}

struct wg_pkt_list wg_peer_unstage(struct wg_peer *peer)
{
	struct wg_pkt_list all = peer->staged;

	memset(&peer->staged, 0, sizeof(peer->staged));
	return all;
}
