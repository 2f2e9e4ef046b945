/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/pkt.h"

#include <stdlib.h>
#include <string.h>

void wg_pkt_list_push(struct wg_pkt_list *l, struct wg_pkt *p)
{
	p->cp.next = NULL;
	if (l->tail)
		l->tail->cp.next = &p->cp;
	else
		l->head = p;
	l->tail = p;
	l->len++;
}

void wg_pkt_list_push_front(struct wg_pkt_list *l, struct wg_pkt *p)
{
	p->cp.next = l->head ? &l->head->cp : NULL;
	l->head = p;
	if (!l->tail)
		l->tail = p;
	l->len++;
}

struct wg_pkt *wg_pkt_list_pop(struct wg_pkt_list *l)
{
	struct wg_pkt *p = l->head;

	if (!p)
		return NULL;
	l->head = p->cp.next ? wg_pkt_of(p->cp.next) : NULL;
	if (!l->head)
		l->tail = NULL;
	p->cp.next = NULL;
	l->len--;
	return p;
}

static uint32_t cap_for(uint32_t payload)
{
	uint32_t cap = WG_PKT_HEADROOM + payload + WG_PKT_TAILROOM;

	return (cap + 63) & ~63u;
}

void wg_pktpool_init(struct wg_pktpool *pool, uint32_t payload, uint32_t max_free)
{
	memset(pool, 0, sizeof(*pool));
	pool->cap = cap_for(payload);
	pool->max_free = max_free;
}

void wg_pktpool_deinit(struct wg_pktpool *pool)
{
	struct wg_pkt *p;

	while ((p = wg_pkt_list_pop(&pool->free)))
		free(p);
}

/* Bytes allocated for a buffer of cap: its metadata, the buffer, the cache-line rounding. */
static size_t alloc_size(uint32_t cap)
{
	return (sizeof(struct wg_pkt) + cap + 63) & ~(size_t)63;
}

static void reset(struct wg_pkt *p)
{
	uint32_t cap = p->cap;

	memset(p, 0, offsetof(struct wg_pkt, buf));
	p->cap = cap;
	p->cp.data = p->buf + WG_PKT_HEADROOM;
	p->cp.truesize = (uint32_t)alloc_size(cap);
}

struct wg_pkt *wg_pktpool_get(struct wg_pktpool *pool)
{
	struct wg_pkt *p = wg_pkt_list_pop(&pool->free);

	if (!p) {
		p = aligned_alloc(64, alloc_size(pool->cap));
		if (!p)
			return NULL;
		p->cap = pool->cap;
		pool->allocated++;
	}
	reset(p);
	pool->outstanding++;
	return p;
}

void wg_pktpool_put(struct wg_pktpool *pool, struct wg_pkt *p)
{
	if (!p)
		return;
	pool->outstanding--;
	if (p->cap != pool->cap || pool->free.len >= pool->max_free) {
		free(p);
		return;
	}
	/* Last in, first out: the next get reuses the buffer still in the cache. */
	wg_pkt_list_push_front(&pool->free, p);
}

void wg_pktpool_resize(struct wg_pktpool *pool, uint32_t payload)
{
	struct wg_pkt *p;

	pool->cap = cap_for(payload);
	while ((p = wg_pkt_list_pop(&pool->free)))
		free(p);
}
