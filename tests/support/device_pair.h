/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two devices, A and B, wired back to back in memory on virtual time (`now`): what one
 * sends waits in its wire list until pump() hands it to the other. Shared by the device
 * tests. Header-only; every function is static inline.
 */
#ifndef CAKEWG_TESTS_SUPPORT_DEVICE_PAIR_H
#define CAKEWG_TESTS_SUPPORT_DEVICE_PAIR_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "src/core/device.h"
#include "tests/support/det_rng.h"

#define MAX_WIRE 4096

struct side {
	struct wg_device dev;
	struct det_rng rng_state;
	struct wg_endpoint addr; /* how the other side sees us */
	uint8_t priv[32], pub[32];
	/* datagrams in flight to the other side */
	uint8_t *wire[MAX_WIRE];
	size_t wire_len[MAX_WIRE];
	struct wg_endpoint wire_src[MAX_WIRE];
	size_t n_wire;
	size_t delivered;
	uint8_t last_delivered[2048];
	size_t last_delivered_len;
	bool full; /* the underlay refuses data */
	size_t refused;
	/* if set, sees every packet delivered to TUN before it goes back to the pool */
	void (*on_deliver)(struct side *s, const uint8_t *ip, size_t len);
};

static struct side A, B;
static uint64_t now;

static inline void push(struct side *s, const uint8_t *msg, size_t len)
{
	cr_assert(s->n_wire < MAX_WIRE);
	s->wire[s->n_wire] = malloc(len);
	memcpy(s->wire[s->n_wire], msg, len);
	s->wire_len[s->n_wire] = len;
	s->wire_src[s->n_wire] = s->addr;
	s->n_wire++;
}

static inline int io_send_data(void *ctx, const struct wg_endpoint *ep, struct wg_pkt *pkt)
{
	struct side *s = ctx;

	(void)ep;
	if (s->full) {
		s->refused++;
		return -EAGAIN;
	}
	push(s, wg_pkt_msg(pkt), pkt->msg_len);
	wg_device_pkt_put(&s->dev, pkt);
	return 0;
}

static inline void io_send_control(void *ctx, const struct wg_endpoint *ep, const uint8_t *msg,
				   size_t len)
{
	(void)ep;
	push(ctx, msg, len);
}

static inline void io_tun_write(void *ctx, struct wg_pkt *pkt)
{
	struct side *s = ctx;

	s->delivered++;
	s->last_delivered_len = pkt->cp.len;
	memcpy(s->last_delivered, pkt->cp.data, pkt->cp.len);
	if (s->on_deliver)
		s->on_deliver(s, pkt->cp.data, pkt->cp.len);
	wg_device_pkt_put(&s->dev, pkt);
}

static inline void endpoint4(struct wg_endpoint *ep, uint8_t last, uint16_t port)
{
	memset(ep, 0, sizeof(*ep));
	ep->remote.addr4.sin_family = AF_INET;
	ep->remote.addr4.sin_port = htons(port);
	ep->remote.addr4.sin_addr.s_addr = htonl(0xc6120000 | last); /* 198.18.0.x */
}

static inline void side_init(struct side *s, uint64_t seed, uint8_t last)
{
	struct wg_io_ops ops = {
		.ctx = s,
		.send_data = io_send_data,
		.send_control = io_send_control,
		.tun_write = io_tun_write,
	};
	struct wg_rng rng;

	memset(s, 0, sizeof(*s));
	s->rng_state.state = seed;
	rng = det_rng_as_wg(&s->rng_state);
	cr_assert_eq(wg_device_init(&s->dev, "t", &ops, &rng, now), 0);
	wg_rng_fill(&rng, s->priv, 32);
	cw_x25519_clamp(s->priv);
	cr_assert(cw_x25519_public(s->pub, s->priv));
	endpoint4(&s->addr, last, 51820);
}

/* conf: our key, and the other side as peer with allowed IP 10.0.0.<peer_last>/32. */
static inline void configure(struct side *s, struct side *other, uint8_t other_ip,
			     bool with_endpoint, const uint8_t *psk)
{
	struct wg_devconf *conf = wg_devconf_new();
	struct wg_devconf_peer *pc = wg_devconf_add_peer(conf);
	struct wg_ipaddr_prefix pfx = {.addr.family = AF_INET, .cidr = 32};

	conf->flags = WG_DEVCONF_HAS_PRIVATE_KEY;
	memcpy(conf->private_key, s->priv, 32);
	pc->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	memcpy(pc->public_key, other->pub, 32);
	if (with_endpoint) {
		pc->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
		pc->endpoint = other->addr.remote;
	}
	if (psk) {
		pc->flags |= WG_DEVCONF_PEER_HAS_PRESHARED_KEY;
		memcpy(pc->preshared_key, psk, 32);
	}
	pfx.addr.ip4.s_addr = htonl(0x0a000000 | other_ip);
	cr_assert_eq(wg_devconf_peer_add_allowedip(pc, &pfx, 0), 0);
	cr_assert_eq(wg_device_apply(&s->dev, conf, now), 0);
	wg_devconf_free(conf);
}

/* An IPv4/UDP packet from 10.0.0.src to 10.0.0.dst with n payload bytes. */
/* An IPv4/UDP header for n bytes of payload from 10.0.0.src to 10.0.0.dst, at ip. */
static inline void fill_udp(uint8_t *ip, uint8_t src, uint8_t dst, size_t n)
{
	size_t len = 28 + n;

	memset(ip, 0, 28);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(len >> 8);
	ip[3] = (uint8_t)len;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10, ip[15] = src;
	ip[16] = 10, ip[19] = dst;
	ip[20] = 0x30, ip[21] = 0x39, ip[22] = 0x00, ip[23] = 0x35;
	ip[24] = (uint8_t)((8 + n) >> 8), ip[25] = (uint8_t)(8 + n);
}

static inline struct wg_pkt *ip_packet(struct side *s, uint8_t src, uint8_t dst, size_t n,
				       uint8_t fill)
{
	struct wg_pkt *p = wg_device_pkt_get(&s->dev, false);

	fill_udp(p->cp.data, src, dst, n);
	memset(p->cp.data + 28, fill, n);
	p->cp.len = (uint32_t)(28 + n);
	return p;
}

/* Delivers everything in flight both ways until quiet; returns datagrams moved. */
static inline size_t pump(void)
{
	size_t moved = 0;

	for (int round = 0; round < 64; round++) {
		struct side *from[2] = {&A, &B}, *to[2] = {&B, &A};
		size_t n = 0;

		for (int d = 0; d < 2; d++) {
			struct side *f = from[d];
			size_t k = f->n_wire;

			wg_device_tx_flush(&f->dev, now, NULL);
			k = f->n_wire;
			f->n_wire = 0;
			for (size_t i = 0; i < k; i++) {
				struct wg_pkt *p = wg_device_pkt_get(&to[d]->dev, false);

				memcpy(wg_pkt_msg(p), f->wire[i], f->wire_len[i]);
				p->msg_len = (uint32_t)f->wire_len[i];
				p->src = f->wire_src[i];
				free(f->wire[i]);
				wg_device_rx(&to[d]->dev, p, now);
			}
			n += k;
		}
		moved += n;
		if (!n)
			break;
	}
	return moved;
}

static inline void setup(void)
{
	now = 1000 * WG_NSEC_PER_SEC;
	side_init(&A, 1, 1);
	side_init(&B, 2, 2);
}

static inline void teardown(void)
{
	wg_device_deinit(&A.dev);
	wg_device_deinit(&B.dev);
}

static inline void handshake_and_ping(const uint8_t *psk)
{
	configure(&A, &B, 2, true, psk);
	configure(&B, &A, 1, false, psk);
	wg_device_tx(&A.dev, ip_packet(&A, 1, 2, 100, 0xab), now);
	pump();
	cr_assert_eq(B.delivered, 1, "the staged packet arrives after the handshake");
	cr_assert_eq(B.last_delivered_len, 128);
	cr_assert_eq(B.last_delivered[28], 0xab);
	wg_device_tx(&B.dev, ip_packet(&B, 2, 1, 1000, 0xcd), now);
	pump();
	cr_assert_eq(A.delivered, 1, "the responder answers on the session it learnt");
	cr_assert_eq(A.last_delivered_len, 1028);
	cr_assert(A.dev.peers_head->has_handshake && B.dev.peers_head->has_handshake);
}

#endif
