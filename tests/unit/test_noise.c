/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Noise_IKpsk2 handshake between two in-memory endpoints, each with a tiny index table
 * and a one-peer "peer table" behind the upcalls, on a fixed clock and a seeded RNG.
 * Like wireguard-go's device/noise_test.go, both sides must reach the same chaining key and
 * hash after each message and derive mirrored transport keys; the data then flows both
 * ways. Every single-bit flip of an initiation or response must be rejected, as must
 * replays, floods, zero DH results, unknown peers and a PSK mismatch.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "crypto/aead.h"
#include "crypto/blake2s.h"
#include "crypto/ct.h"
#include "crypto/kdf.h"
#include "crypto/tai64n.h"
#include "crypto/x25519.h"
#include "src/core/cookie.h"
#include "src/core/noise.h"
#include "tests/support/det_rng.h"

enum { INDEX_SLOTS = 16, T0_NS = 1000 * WG_NSEC_PER_SEC };

struct index_slot {
	bool used;
	uint32_t index;
	struct wg_noise_remote *remote;
	struct wg_keypair *kp; /* NULL while the index names a handshake */
};

struct endpoint {
	struct wg_noise_identity id;
	struct wg_noise_remote peer;
	struct index_slot slots[INDEX_SLOTS];
	struct det_rng drng;
	struct wg_rng rng;
	struct wg_cookie_checker checker;
	struct wg_src_addr addr; /* where it sends from */
	bool knows_peer;	 /* the peer table holds peer */
	int allocs, drops, replaces;
};

static struct wg_noise_remote *up_remote_get(void *arg, const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	struct endpoint *ep = arg;

	if (ep->knows_peer && cw_ct_equal(pub, ep->peer.remote_static, NOISE_PUBLIC_KEY_LEN))
		return &ep->peer;
	return NULL;
}

static struct index_slot *slot_find(struct endpoint *ep, uint32_t index)
{
	for (int i = 0; i < INDEX_SLOTS; i++)
		if (ep->slots[i].used && ep->slots[i].index == index)
			return &ep->slots[i];
	return NULL;
}

static int up_index_alloc(void *arg, struct wg_noise_remote *r, uint32_t *index)
{
	struct endpoint *ep = arg;
	uint32_t v;

	do
		v = wg_rng_u32(&ep->rng);
	while (slot_find(ep, v));
	for (int i = 0; i < INDEX_SLOTS; i++) {
		if (!ep->slots[i].used) {
			ep->slots[i] = (struct index_slot){ true, v, r, NULL };
			*index = v;
			ep->allocs++;
			return 0;
		}
	}
	return -ENOSPC;
}

static void up_index_replace(void *arg, uint32_t index, struct wg_keypair *kp)
{
	struct endpoint *ep = arg;
	struct index_slot *s = slot_find(ep, index);

	cr_assert(s, "replace of an unknown index %08x", index);
	cr_assert(!s->kp, "replace of a keypair index");
	s->kp = kp;
	ep->replaces++;
}

static void up_index_drop(void *arg, uint32_t index)
{
	struct endpoint *ep = arg;
	struct index_slot *s = slot_find(ep, index);

	cr_assert(s, "drop of an unknown index %08x", index);
	s->used = false;
	ep->drops++;
}

static int slots_used(const struct endpoint *ep)
{
	int n = 0;

	for (int i = 0; i < INDEX_SLOTS; i++)
		n += ep->slots[i].used;
	return n;
}

/* The remote whose handshake the index names (response, cookie reply lookups). */
static struct wg_noise_remote *handshake_by_index(struct endpoint *ep, const uint8_t le[4])
{
	struct index_slot *s = slot_find(ep, wg_le32(le));

	return s && !s->kp ? s->remote : NULL;
}

static struct wg_keypair *keypair_by_index(struct endpoint *ep, const uint8_t le[4])
{
	struct index_slot *s = slot_find(ep, wg_le32(le));

	return s ? s->kp : NULL;
}

static struct endpoint a, b;
static struct wg_walltime wall = { .sec = 1700000000, .nsec = 0 };
static uint64_t now_ns = T0_NS;

static void endpoint_init(struct endpoint *ep, uint64_t seed, uint8_t last_addr_byte)
{
	uint8_t priv[NOISE_PRIVATE_KEY_LEN];
	struct wg_noise_upcall up = {
		.arg = ep,
		.remote_get = up_remote_get,
		.index_alloc = up_index_alloc,
		.index_replace = up_index_replace,
		.index_drop = up_index_drop,
	};

	memset(ep, 0, sizeof(*ep));
	ep->drng.state = seed;
	ep->rng = det_rng_as_wg(&ep->drng);
	wg_noise_identity_init(&ep->id, &up);
	wg_rng_fill(&ep->rng, priv, sizeof(priv));
	cr_assert_eq(wg_noise_identity_set_private(&ep->id, priv), 0);
	wg_cookie_checker_init(&ep->checker, &ep->id.cookie_keys, NULL, &ep->rng, now_ns);
	ep->addr = (struct wg_src_addr){ .family = WG_ADDR_IPV4,
					 .addr = { 192, 0, 2, last_addr_byte },
					 .port = 51820 };
	ep->knows_peer = true;
}

/* a and b, each knowing the other; psk NULL for none. */
static void pair_init(const uint8_t *psk)
{
	now_ns = T0_NS;
	wall = (struct wg_walltime){ .sec = 1700000000, .nsec = 0 };
	endpoint_init(&a, 1, 1);
	endpoint_init(&b, 2, 2);
	wg_noise_remote_init(&a.peer, &a.id, b.id.static_public, psk);
	wg_noise_remote_init(&b.peer, &b.id, a.id.static_public, psk);
}

/* Moves both clocks on; the wall clock keeps pace. */
static void advance(uint64_t ns)
{
	now_ns += ns;
	wall.nsec += (uint32_t)(ns % WG_NSEC_PER_SEC);
	wall.sec += ns / WG_NSEC_PER_SEC + wall.nsec / WG_NSEC_PER_SEC;
	wall.nsec %= WG_NSEC_PER_SEC;
}

/* What a responder does with an initiation off the wire. */
static enum wg_noise_verdict rx_initiation(struct endpoint *ep, const uint8_t *pkt, size_t len,
					   bool under_load, const struct wg_src_addr *src)
{
	struct wg_noise_remote *r = NULL;
	enum wg_noise_verdict v;
	enum wg_mac_verdict mv;

	if (wg_message_type(pkt, len) != MESSAGE_HANDSHAKE_INITIATION)
		return NOISE_INVALID;
	mv = wg_cookie_validate(&ep->checker, pkt, len, under_load, src, now_ns);
	if (mv == INVALID_MAC || (under_load && mv != VALID_MAC_WITH_COOKIE))
		return NOISE_INVALID;
	v = wg_noise_consume_initiation(&ep->id, (const void *)pkt, now_ns, &r);
	if (v == NOISE_OK)
		cr_assert_eq(r, &ep->peer);
	return v;
}

static enum wg_noise_verdict rx_response(struct endpoint *ep, const uint8_t *pkt, size_t len)
{
	const struct message_handshake_response *msg = (const void *)pkt;
	struct wg_noise_remote *r;

	if (wg_message_type(pkt, len) != MESSAGE_HANDSHAKE_RESPONSE)
		return NOISE_INVALID;
	if (wg_cookie_validate(&ep->checker, pkt, len, false, NULL, now_ns) == INVALID_MAC)
		return NOISE_INVALID;
	r = handshake_by_index(ep, msg->receiver_index);
	if (!r)
		return NOISE_UNEXPECTED;
	return wg_noise_consume_response(r, msg);
}

/* A full handshake from init to resp; returns the messages for later replays. */
static void handshake(struct endpoint *init, struct endpoint *resp,
		      struct message_handshake_initiation *im, struct message_handshake_response *rm)
{
	cr_assert_eq(wg_noise_create_initiation(&init->peer, im, &wall, &init->rng, now_ns), 0);
	cr_assert_eq(rx_initiation(resp, (uint8_t *)im, sizeof(*im), false, &init->addr), NOISE_OK);
	cr_assert_eq(wg_noise_create_response(&resp->peer, rm, &resp->rng, now_ns), 0);
	cr_assert_eq(wg_noise_begin_session(&resp->peer, now_ns), 0);
	cr_assert_eq(rx_response(init, (uint8_t *)rm, sizeof(*rm)), NOISE_OK);
	cr_assert_eq(wg_noise_begin_session(&init->peer, now_ns), 0);
}

/* Sends one data message from -> to and checks it arrives; true if it confirmed "next". */
static bool send_data(struct endpoint *from, struct endpoint *to, const char *text)
{
	uint8_t buf[MESSAGE_DATA_HEADER_LEN + 64 + DATA_TAILROOM_LEN];
	size_t len = strlen(text), wire_len, plain_len;
	struct wg_keypair *kp = wg_noise_keypair_for_send(&from->peer, now_ns);

	cr_assert(kp, "the sender has a keypair");
	memcpy(buf + MESSAGE_DATA_HEADER_LEN, text, len);
	cr_assert_eq(wg_keypair_encrypt(kp, buf, len, sizeof(buf), DEFAULT_MTU, now_ns, &wire_len),
		     0);
	kp = keypair_by_index(to, ((struct message_data *)buf)->key_idx);
	cr_assert(kp, "the receiver finds the keypair by index");
	cr_assert_eq(wg_keypair_decrypt(kp, buf, wire_len, now_ns, &plain_len), DATA_OK);
	cr_assert_geq(plain_len, len);
	cr_assert(!memcmp(buf + MESSAGE_DATA_HEADER_LEN, text, len));
	return wg_noise_received_with_keypair(&to->peer, kp);
}

static void expect_same_state(const struct wg_noise_handshake *x, const struct wg_noise_handshake *y)
{
	cr_expect(!memcmp(x->chaining_key, y->chaining_key, NOISE_HASH_LEN), "chaining keys");
	cr_expect(!memcmp(x->hash, y->hash, NOISE_HASH_LEN), "hashes");
}

static void handshake_in_steps(struct endpoint *init, struct endpoint *resp)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;
	struct wg_keypair *ki, *kr;

	cr_assert(!memcmp(init->peer.precomputed_static_static,
			  resp->peer.precomputed_static_static, NOISE_PUBLIC_KEY_LEN),
		  "both sides compute the same static-static DH");
	cr_assert_eq(wg_noise_create_initiation(&init->peer, &im, &wall, &init->rng, now_ns), 0);
	cr_expect_eq(init->peer.handshake.state, HANDSHAKE_CREATED_INITIATION);
	cr_assert_eq(rx_initiation(resp, (uint8_t *)&im, sizeof(im), false, &init->addr), NOISE_OK);
	cr_expect_eq(resp->peer.handshake.state, HANDSHAKE_CONSUMED_INITIATION);
	expect_same_state(&init->peer.handshake, &resp->peer.handshake);

	cr_assert_eq(wg_noise_create_response(&resp->peer, &rm, &resp->rng, now_ns), 0);
	cr_expect_eq(resp->peer.handshake.state, HANDSHAKE_CREATED_RESPONSE);
	cr_assert_eq(rx_response(init, (uint8_t *)&rm, sizeof(rm)), NOISE_OK);
	cr_expect_eq(init->peer.handshake.state, HANDSHAKE_CONSUMED_RESPONSE);
	expect_same_state(&init->peer.handshake, &resp->peer.handshake);
	cr_expect_eq(init->peer.handshake.remote_index, resp->peer.handshake.local_index);
	cr_expect_eq(resp->peer.handshake.remote_index, init->peer.handshake.local_index);

	cr_assert_eq(wg_noise_begin_session(&init->peer, now_ns), 0);
	cr_assert_eq(wg_noise_begin_session(&resp->peer, now_ns), 0);
	cr_expect_eq(init->peer.handshake.state, HANDSHAKE_ZEROED);
	cr_expect_eq(resp->peer.handshake.state, HANDSHAKE_ZEROED);
	ki = init->peer.current;
	kr = resp->peer.next;
	cr_assert(ki && kr, "initiator's keypair is current, responder's is next");
	cr_expect(ki->i_am_the_initiator && !kr->i_am_the_initiator);
	cr_expect(!memcmp(ki->send_key, kr->recv_key, NOISE_SYMMETRIC_KEY_LEN));
	cr_expect(!memcmp(ki->recv_key, kr->send_key, NOISE_SYMMETRIC_KEY_LEN));
	cr_expect(memcmp(ki->send_key, ki->recv_key, NOISE_SYMMETRIC_KEY_LEN), "two directions");
	cr_expect_eq(ki->remote_index, kr->local_index);
	cr_expect_eq(kr->remote_index, ki->local_index);
	cr_expect(!wg_noise_keypair_for_send(&resp->peer, now_ns),
		  "the responder may not send before confirmation");

	cr_expect(!send_data(init, resp, "wireguard test message 1") == false,
		  "the first data message confirms the responder's keypair");
	cr_expect_eq(resp->peer.current, kr);
	cr_expect(!resp->peer.next);
	cr_expect(!send_data(resp, init, "wireguard test message 2"));
	cr_expect(!send_data(init, resp, "and once more"));
}

Test(noise, handshake_without_psk_a_initiates)
{
	pair_init(NULL);
	handshake_in_steps(&a, &b);
}

Test(noise, handshake_without_psk_b_initiates)
{
	pair_init(NULL);
	handshake_in_steps(&b, &a);
}

static const uint8_t psk[NOISE_SYMMETRIC_KEY_LEN] = {
	0x5a, 0x11, 0x93, 0x0e, 0x7c, 0x21, 0x48, 0xd2, 0x06, 0xbb, 0x3f, 0x72, 0x9a, 0x01, 0xe4, 0x58,
	0xc3, 0x6d, 0x20, 0x8f, 0x44, 0x17, 0xaa, 0x39, 0xf0, 0x0d, 0x62, 0x9e, 0x71, 0x2b, 0xd5, 0x86,
};

Test(noise, handshake_with_psk_a_initiates)
{
	pair_init(psk);
	handshake_in_steps(&a, &b);
}

Test(noise, handshake_with_psk_b_initiates)
{
	pair_init(psk);
	handshake_in_steps(&b, &a);
}

/* The psk enters after the initiation: the initiation passes, the response does not. */
Test(noise, psk_mismatch_fails_at_the_response)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;

	pair_init(psk);
	wg_noise_remote_set_psk(&b.peer, NULL);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_assert_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_OK);
	cr_assert_eq(wg_noise_create_response(&b.peer, &rm, &b.rng, now_ns), 0);
	cr_expect_eq(rx_response(&a, (uint8_t *)&rm, sizeof(rm)), NOISE_INVALID);
	cr_expect_eq(a.peer.handshake.state, HANDSHAKE_CREATED_INITIATION,
		     "a forged or wrong response leaves the handshake waiting");
}

/* The keys depend on everything: a second handshake yields different keys. */
Test(noise, every_handshake_yields_fresh_keys)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;
	uint8_t first[NOISE_SYMMETRIC_KEY_LEN];

	pair_init(NULL);
	handshake(&a, &b, &im, &rm);
	memcpy(first, a.peer.current->send_key, sizeof(first));
	advance(WG_NSEC_PER_SEC);
	handshake(&a, &b, &im, &rm);
	cr_expect(memcmp(first, a.peer.current->send_key, sizeof(first)));
}

/*
 * Every single-bit flip of an initiation is rejected. The wire check catches the header,
 * mac1 catches everything up to mac1 (sender_index included: only mac1 covers it), and
 * under load with a cookie, mac2 catches flips of mac2. Then the attacker who knows the
 * responder's public key recomputes mac1 after the flip: noise itself must reject every
 * authenticated byte. Afterwards the genuine message still passes: no state was harmed.
 */
Test(noise, every_bit_flip_of_an_initiation_is_rejected)
{
	struct message_handshake_initiation im, bad;
	struct message_handshake_cookie cm;
	struct wg_cookie_maker forger;
	uint8_t *p = (uint8_t *)&bad;
	size_t i, bit;
	const size_t mac1_at = offsetof(struct message_handshake_initiation, macs);
	const size_t idx_at = offsetof(struct message_handshake_initiation, sender_index);

	pair_init(NULL);
	/* Get a cookie first, so that mac2 is meaningful. */
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_assert_eq(wg_cookie_validate(&b.checker, (uint8_t *)&im, sizeof(im), true, &a.addr,
					now_ns),
		     VALID_MAC_BUT_NO_COOKIE);
	wg_cookie_reply_create(&b.checker, &cm, (uint8_t *)&im, sizeof(im),
			       wg_le32(im.sender_index), &a.addr, now_ns);
	cr_assert_eq(wg_cookie_maker_consume_reply(&a.peer.cookie, &cm, now_ns), 0);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);

	for (i = 0; i < sizeof(im); i++) {
		for (bit = 0; bit < 8; bit++) {
			bad = im;
			p[i] ^= (uint8_t)(1u << bit);
			cr_expect_neq(rx_initiation(&b, p, sizeof(bad), true, &a.addr), NOISE_OK,
				      "flip of byte %zu bit %zu accepted", i, bit);
		}
	}
	wg_cookie_maker_init(&forger, b.id.static_public);
	for (i = sizeof(struct message_header); i < mac1_at; i++) {
		if (i >= idx_at && i < idx_at + 4)
			continue;
		for (bit = 0; bit < 8; bit++) {
			bad = im;
			p[i] ^= (uint8_t)(1u << bit);
			wg_cookie_add_macs(&forger, p, sizeof(bad), now_ns);
			cr_expect_eq(rx_initiation(&b, p, sizeof(bad), false, &a.addr),
				     NOISE_INVALID, "flip of byte %zu bit %zu passed noise", i,
				     bit);
		}
	}
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), true, &a.addr), NOISE_OK);
}

/* The same for the response: mac1 first, then noise with a recomputed mac1. */
Test(noise, every_bit_flip_of_a_response_is_rejected)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm, bad;
	struct wg_cookie_maker forger;
	uint8_t *p = (uint8_t *)&bad;
	size_t i, bit;
	const size_t mac1_at = offsetof(struct message_handshake_response, macs);
	const size_t rcv_at = offsetof(struct message_handshake_response, receiver_index);

	pair_init(psk);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_assert_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_OK);
	cr_assert_eq(wg_noise_create_response(&b.peer, &rm, &b.rng, now_ns), 0);

	for (i = 0; i < mac1_at + COOKIE_LEN; i++) {
		for (bit = 0; bit < 8; bit++) {
			bad = rm;
			p[i] ^= (uint8_t)(1u << bit);
			cr_expect_neq(rx_response(&a, p, sizeof(bad)), NOISE_OK,
				      "flip of byte %zu bit %zu accepted", i, bit);
		}
	}
	wg_cookie_maker_init(&forger, a.id.static_public);
	for (i = rcv_at; i < mac1_at; i++) {
		for (bit = 0; bit < 8; bit++) {
			bad = rm;
			p[i] ^= (uint8_t)(1u << bit);
			wg_cookie_add_macs(&forger, p, sizeof(bad), now_ns);
			cr_expect_neq(rx_response(&a, p, sizeof(bad)), NOISE_OK,
				      "flip of byte %zu bit %zu passed noise", i, bit);
		}
	}
	cr_expect_eq(a.peer.handshake.state, HANDSHAKE_CREATED_INITIATION);
	cr_expect_eq(rx_response(&a, (uint8_t *)&rm, sizeof(rm)), NOISE_OK);
}

/* Without a cookie, mac2 is zero and ignored unless the responder is under load. */
Test(noise, mac2_is_checked_only_under_load)
{
	struct message_handshake_initiation im;

	pair_init(NULL);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_expect(cw_is_zero(im.macs.mac2, COOKIE_LEN), "no cookie, no mac2");
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), true, &a.addr), NOISE_INVALID);
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_OK);
}

Test(noise, replayed_initiation_is_rejected)
{
	struct message_handshake_initiation im, im2;
	struct message_handshake_response rm;

	pair_init(NULL);
	handshake(&a, &b, &im, &rm);
	advance(WG_NSEC_PER_SEC); /* well past the flood guard */
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr),
		     NOISE_REPLAYED);
	cr_expect_eq(b.peer.handshake.state, HANDSHAKE_ZEROED, "a replay changes nothing");
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im2, &wall, &a.rng, now_ns), 0);
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im2, sizeof(im2), false, &a.addr), NOISE_OK);
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr),
		     NOISE_REPLAYED, "an older timestamp is a replay too");
}

/* Timestamps carry nanoseconds rounded down to 2^24: two initiations in the same slot look
 * alike and the second counts as a replay (so a timestamp does not leak a precise clock). */
Test(noise, timestamp_nanoseconds_are_rounded)
{
	struct message_handshake_initiation im;

	pair_init(NULL);
	wall.nsec = 1u << 24;
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_assert_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_OK);
	now_ns += WG_NSEC_PER_SEC;
	wall.nsec = (1u << 25) - 1;
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr),
		     NOISE_REPLAYED);
	wall.nsec = 1u << 25;
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_OK);
}

/* At most one initiation per 1/INITIATIONS_PER_SECOND is consumed from a peer. */
Test(noise, initiation_flood_guard)
{
	struct message_handshake_initiation im;

	pair_init(NULL);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_assert_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_OK);
	/* A fresh timestamp (the wall clock jumped) but too soon on the monotonic clock. */
	now_ns += INITIATION_MIN_INTERVAL_NS - 1;
	wall.sec += 1;
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_FLOOD);
	now_ns += 1;
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr), NOISE_OK);
}

Test(noise, replayed_response_is_rejected)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;

	pair_init(NULL);
	handshake(&a, &b, &im, &rm);
	cr_expect_eq(rx_response(&a, (uint8_t *)&rm, sizeof(rm)), NOISE_UNEXPECTED);
	/* Even handed straight to noise, bypassing the index lookup. */
	cr_expect_eq(wg_noise_consume_response(&a.peer, &rm), NOISE_UNEXPECTED);
	/* And after a new initiation, the old response does not match its index. */
	advance(WG_NSEC_PER_SEC);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_expect_eq(wg_noise_consume_response(&a.peer, &rm), NOISE_UNEXPECTED);
}

Test(noise, unknown_peer_is_rejected)
{
	struct message_handshake_initiation im;

	pair_init(NULL);
	b.knows_peer = false;
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_expect_eq(rx_initiation(&b, (uint8_t *)&im, sizeof(im), false, &a.addr),
		     NOISE_UNKNOWN_PEER);
}

Test(noise, no_identity)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;
	struct wg_noise_remote *r = NULL;
	uint8_t zero[NOISE_PRIVATE_KEY_LEN] = { 0 };

	pair_init(NULL);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
	cr_expect_eq(wg_noise_identity_set_private(&b.id, zero), -EINVAL);
	cr_expect(!b.id.has_identity);
	cr_expect_eq(wg_noise_consume_initiation(&b.id, &im, now_ns, &r), NOISE_NO_IDENTITY);
	cr_expect_eq(wg_noise_create_response(&b.peer, &rm, &b.rng, now_ns), -EINVAL);
	wg_noise_identity_clear(&a.id);
	wg_noise_remote_precompute(&a.peer);
	cr_expect_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), -ENOKEY);
	cr_expect_eq(slots_used(&a), 0, "no index leaks from a failed initiation");
}

/* Points of small order: X25519 with them yields zero, which must be refused. */
static const uint8_t low_order[][NOISE_PUBLIC_KEY_LEN] = {
	{ 0 },
	{ 1 },
	/* The order-8 point of RFC 7748 section 6.1 / libsodium's blocklist. */
	{ 0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
	  0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00 },
};

Test(noise, zero_dh_results_are_rejected)
{
	struct message_handshake_initiation im;
	struct wg_noise_remote bad_peer;
	struct wg_noise_remote *r = NULL;
	size_t i;

	pair_init(NULL);
	for (i = 0; i < WG_ARRAY_SIZE(low_order); i++) {
		/* A peer configured with a low-order key: no usable static-static DH. */
		wg_noise_remote_init(&bad_peer, &a.id, low_order[i], NULL);
		cr_expect(cw_is_zero(bad_peer.precomputed_static_static, NOISE_PUBLIC_KEY_LEN));
		cr_expect_eq(wg_noise_create_initiation(&bad_peer, &im, &wall, &a.rng, now_ns),
			     -ENOKEY, "low-order point %zu", i);
		/* An initiation whose ephemeral is a low-order point: es is zero. */
		cr_assert_eq(wg_noise_create_initiation(&a.peer, &im, &wall, &a.rng, now_ns), 0);
		memcpy(im.unencrypted_ephemeral, low_order[i], NOISE_PUBLIC_KEY_LEN);
		cr_expect_eq(wg_noise_consume_initiation(&b.id, &im, now_ns, &r), NOISE_INVALID);
	}
	cr_expect_eq(slots_used(&a), 1, "only a.peer's handshake holds an index");
}

static void forge_mix_hash(uint8_t h[NOISE_HASH_LEN], const uint8_t *in, size_t len)
{
	struct cw_blake2s st;

	cw_blake2s_init(&st, NOISE_HASH_LEN, NULL, 0);
	cw_blake2s_update(&st, h, NOISE_HASH_LEN);
	cw_blake2s_update(&st, in, len);
	cw_blake2s_final(&st, h);
}

/*
 * An attacker aims at a peer configured with a low-order public key: the responder's
 * static-static DH with it is zero, which the attacker knows without any private key. The
 * initiation is built here by hand from the primitives, with ss = 0; it must be refused.
 */
Test(noise, impersonating_a_low_order_peer_fails)
{
	struct message_handshake_initiation im = { 0 };
	struct wg_noise_remote *r = NULL;
	uint8_t ck[NOISE_HASH_LEN], h[NOISE_HASH_LEN], key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t e_priv[NOISE_PRIVATE_KEY_LEN], dh[NOISE_PUBLIC_KEY_LEN], t[NOISE_TIMESTAMP_LEN];
	uint8_t zero[NOISE_PUBLIC_KEY_LEN] = { 0 };

	pair_init(NULL);
	wg_noise_remote_init(&b.peer, &b.id, low_order[2], NULL);
	memcpy(ck, b.id.initial_chaining_key, sizeof(ck));
	memcpy(h, b.id.initial_hash, sizeof(h));
	forge_mix_hash(h, b.id.static_public, NOISE_PUBLIC_KEY_LEN);
	/* e */
	wg_rng_fill(&a.rng, e_priv, sizeof(e_priv));
	cw_x25519_clamp(e_priv);
	cr_assert(cw_x25519_public(im.unencrypted_ephemeral, e_priv));
	forge_mix_hash(h, im.unencrypted_ephemeral, NOISE_PUBLIC_KEY_LEN);
	cw_kdf(ck, NULL, NULL, im.unencrypted_ephemeral, NOISE_PUBLIC_KEY_LEN, ck);
	/* es */
	cr_assert(cw_x25519(dh, e_priv, b.id.static_public));
	cw_kdf(ck, key, NULL, dh, sizeof(dh), ck);
	/* s: the victim peer's (low-order) key */
	cw_aead_encrypt(im.encrypted_static, low_order[2], NOISE_PUBLIC_KEY_LEN, h, sizeof(h), 0,
			key);
	forge_mix_hash(h, im.encrypted_static, sizeof(im.encrypted_static));
	/* ss: zero, as the responder would compute it */
	cw_kdf(ck, key, NULL, zero, sizeof(zero), ck);
	/* {t} */
	cw_tai64n_encode(t, wall.sec, 0);
	cw_aead_encrypt(im.encrypted_timestamp, t, sizeof(t), h, sizeof(h), 0, key);
	wg_message_header_set(&im.header, MESSAGE_HANDSHAKE_INITIATION);

	cr_expect_eq(wg_noise_consume_initiation(&b.id, &im, now_ns, &r), NOISE_INVALID);
	cr_expect_eq(b.peer.handshake.state, HANDSHAKE_ZEROED);
}

/* next/current/previous over several handshakes (Linux add_new_keypair). */
Test(noise, keypair_rotation)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;
	struct wg_keypair *k1, *k2, *k3;

	pair_init(NULL);
	handshake(&a, &b, &im, &rm);
	k1 = b.peer.next;
	cr_expect(!b.peer.current && !b.peer.previous);
	cr_expect(send_data(&a, &b, "confirm k1"));
	cr_expect(b.peer.current == k1 && !b.peer.next && !b.peer.previous);

	/* b initiates now: its keypair is current at once; k1 goes to previous. */
	advance(WG_NSEC_PER_SEC);
	handshake(&b, &a, &im, &rm);
	k2 = b.peer.current;
	cr_expect(k2 != k1 && b.peer.previous == k1 && !b.peer.next);
	/* a, the responder, has k2's mirror as next; its current is still k1's mirror. */
	cr_expect(a.peer.next && a.peer.current && !a.peer.previous);
	cr_expect(!send_data(&a, &b, "a still sends on its current keypair"));
	cr_expect(send_data(&b, &a, "confirm k2 at a"));
	cr_expect(a.peer.next == NULL && a.peer.previous);

	/* a data message on previous still decrypts, but does not rotate. */
	advance(WG_NSEC_PER_SEC);
	handshake(&a, &b, &im, &rm);
	k3 = b.peer.next;
	cr_expect(b.peer.current == k2 && b.peer.previous == NULL,
		  "the responder drops previous and waits with next");
	cr_expect(send_data(&a, &b, "confirm k3"));
	cr_expect(b.peer.current == k3 && b.peer.previous == k2 && !b.peer.next);
	cr_expect_leq(slots_used(&a), 3);
	cr_expect_leq(slots_used(&b), 3);
	cr_expect_eq(b.allocs - b.drops, slots_used(&b), "every dropped index was allocated");
}

/* An initiator that gets no confirmation (its next was never confirmed) still rotates. */
Test(noise, initiator_with_pending_next)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;
	struct wg_keypair *pending;

	pair_init(NULL);
	handshake(&a, &b, &im, &rm); /* b: next pending */
	pending = b.peer.next;
	advance(WG_NSEC_PER_SEC);
	handshake(&b, &a, &im, &rm); /* b initiates before a's data arrived */
	cr_expect_eq(b.peer.previous, pending, "the pending next moves to previous");
	cr_expect(b.peer.current && !b.peer.next);
	cr_expect_eq(slots_used(&b), 2);
}

Test(noise, clear_and_expire)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;

	pair_init(NULL);
	handshake(&a, &b, &im, &rm);
	cr_assert(send_data(&a, &b, "confirm"));
	wg_noise_remote_expire_current(&a.peer);
	cr_expect(!wg_noise_keypair_for_send(&a.peer, now_ns), "expired keypairs do not send");
	cr_expect(!send_data(&b, &a, "but they still receive"));
	wg_noise_remote_clear(&a.peer);
	cr_expect(!a.peer.current && !a.peer.next && !a.peer.previous);
	cr_expect_eq(slots_used(&a), 0, "clear drops every index");
	cr_expect_eq(a.allocs, a.drops);
}

/* The keypair is refused for sending once REJECT_AFTER_TIME has passed. */
Test(noise, keypair_for_send_honours_reject_after_time)
{
	struct message_handshake_initiation im;
	struct message_handshake_response rm;

	pair_init(NULL);
	handshake(&a, &b, &im, &rm);
	now_ns += REJECT_AFTER_TIME_NS - 1;
	cr_expect(wg_noise_keypair_for_send(&a.peer, now_ns));
	now_ns += 1;
	cr_expect(!wg_noise_keypair_for_send(&a.peer, now_ns));
}

/*
 * Under load the responder answers an initiation without a valid mac2 with a cookie reply;
 * the initiator takes the cookie and its retry, now with mac2, is processed.
 */
Test(noise, cookie_round_trip_under_load)
{
	struct message_handshake_initiation im1, im2, im_old;
	struct message_handshake_response rm;
	struct message_handshake_cookie cm, cm_old;
	struct wg_noise_remote *r;
	struct wg_src_addr elsewhere;
	uint64_t last_load = 0;

	pair_init(NULL);
	cr_assert(wg_cookie_under_load(UNDER_LOAD_QUEUE_LEN, now_ns, &last_load));

	/* A cookie reply to an initiation that is no longer the latest one is refused. */
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im_old, &wall, &a.rng, now_ns), 0);
	wg_cookie_reply_create(&b.checker, &cm_old, (uint8_t *)&im_old, sizeof(im_old),
			       wg_le32(im_old.sender_index), &a.addr, now_ns);

	advance(100 * WG_NSEC_PER_MSEC);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im1, &wall, &a.rng, now_ns), 0);
	cr_expect(!handshake_by_index(&a, cm_old.receiver_index), "the old index was dropped");
	cr_expect_eq(wg_cookie_maker_consume_reply(&a.peer.cookie, &cm_old, now_ns), -EINVAL,
		     "its associated data (the old mac1) no longer matches");

	cr_assert(wg_cookie_under_load(0, now_ns, &last_load), "still under load for a second");
	cr_assert_eq(wg_cookie_validate(&b.checker, (uint8_t *)&im1, sizeof(im1), true, &a.addr,
					now_ns),
		     VALID_MAC_BUT_NO_COOKIE);
	wg_cookie_reply_create(&b.checker, &cm, (uint8_t *)&im1, sizeof(im1),
			       wg_le32(im1.sender_index), &a.addr, now_ns);
	cr_expect_eq(wg_message_type((uint8_t *)&cm, sizeof(cm)), MESSAGE_HANDSHAKE_COOKIE);
	cr_expect_eq(b.peer.handshake.state, HANDSHAKE_ZEROED, "no DH was done for it");

	r = handshake_by_index(&a, cm.receiver_index);
	cr_assert_eq(r, &a.peer, "the reply names a's pending handshake");
	cr_assert_eq(wg_cookie_maker_consume_reply(&r->cookie, &cm, now_ns), 0);
	cr_expect_eq(wg_cookie_maker_consume_reply(&r->cookie, &cm, now_ns), -ENOENT,
		     "a replayed cookie reply finds nothing to answer");

	/* The retry carries mac2 and passes the loaded responder. */
	advance(REKEY_TIMEOUT_NS);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im2, &wall, &a.rng, now_ns), 0);
	cr_expect(!cw_is_zero(im2.macs.mac2, COOKIE_LEN));
	elsewhere = a.addr;
	elsewhere.port++;
	cr_expect_eq(wg_cookie_validate(&b.checker, (uint8_t *)&im2, sizeof(im2), true,
					&elsewhere, now_ns),
		     VALID_MAC_BUT_NO_COOKIE, "the cookie is bound to the source address");
	cr_assert_eq(rx_initiation(&b, (uint8_t *)&im2, sizeof(im2), true, &a.addr), NOISE_OK);
	cr_assert_eq(wg_noise_create_response(&b.peer, &rm, &b.rng, now_ns), 0);
	cr_assert_eq(wg_noise_begin_session(&b.peer, now_ns), 0);
	cr_assert_eq(rx_response(&a, (uint8_t *)&rm, sizeof(rm)), NOISE_OK);
	cr_assert_eq(wg_noise_begin_session(&a.peer, now_ns), 0);
	cr_expect(send_data(&a, &b, "through the load"));

	/* The cookie is used for COOKIE_SECRET_MAX_AGE - COOKIE_SECRET_LATENCY only. */
	advance(COOKIE_VALID_TIME_NS);
	cr_assert_eq(wg_noise_create_initiation(&a.peer, &im2, &wall, &a.rng, now_ns), 0);
	cr_expect(cw_is_zero(im2.macs.mac2, COOKIE_LEN), "an old cookie is not used");
	cr_expect(!wg_cookie_under_load(0, now_ns, &last_load), "the load is long gone");
}
