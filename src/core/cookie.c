/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/cookie.h"

#include <errno.h>
#include <string.h>

#include "crypto/aead.h"
#include "crypto/blake2s.h"
#include "crypto/ct.h"
#include "src/core/clock.h"

/* Bytes a mac covers: the message up to mac1, or up to mac2. */
enum {
	MACS_LEN = sizeof(struct message_macs),
	MAC2_OFFSET = offsetof(struct message_macs, mac2),
};

static void derive_key(uint8_t key[NOISE_SYMMETRIC_KEY_LEN], const char label[COOKIE_LABEL_LEN],
		       const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	struct cw_blake2s s;

	cw_blake2s_init(&s, NOISE_SYMMETRIC_KEY_LEN, NULL, 0);
	cw_blake2s_update(&s, (const uint8_t *)label, COOKIE_LABEL_LEN);
	cw_blake2s_update(&s, pub, NOISE_PUBLIC_KEY_LEN);
	cw_blake2s_final(&s, key);
}

void wg_cookie_keys_init(struct wg_cookie_keys *keys, const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	derive_key(keys->mac1_key, COOKIE_LABEL_MAC1, pub);
	derive_key(keys->cookie_key, COOKIE_LABEL_COOKIE, pub);
}

static void compute_mac1(uint8_t mac1[COOKIE_LEN], const uint8_t *msg, size_t len,
			 const uint8_t key[NOISE_SYMMETRIC_KEY_LEN])
{
	cw_blake2s(mac1, COOKIE_LEN, msg, len - MACS_LEN, key, NOISE_SYMMETRIC_KEY_LEN);
}

static void compute_mac2(uint8_t mac2[COOKIE_LEN], const uint8_t *msg, size_t len,
			 const uint8_t cookie[COOKIE_LEN])
{
	cw_blake2s(mac2, COOKIE_LEN, msg, len - MACS_LEN + MAC2_OFFSET, cookie, COOKIE_LEN);
}

void wg_cookie_checker_init(struct wg_cookie_checker *c, const struct wg_cookie_keys *keys,
			    struct wg_ratelimiter *ratelimiter, const struct wg_rng *rng,
			    uint64_t now_ns)
{
	memset(c, 0, sizeof(*c));
	c->keys = keys;
	c->ratelimiter = ratelimiter;
	c->rng = *rng;
	wg_rng_fill(&c->rng, c->secret, sizeof(c->secret));
	c->secret_birthdate_ns = now_ns;
}

void wg_cookie_checker_deinit(struct wg_cookie_checker *c)
{
	cw_memzero(c->secret, sizeof(c->secret));
}

/* cookie = MAC(secret, source address || source port), the secret renewed when too old. */
static void make_cookie(struct wg_cookie_checker *c, uint8_t cookie[COOKIE_LEN],
			const struct wg_src_addr *src, uint64_t now_ns)
{
	uint8_t port[2] = {(uint8_t)(src->port >> 8), (uint8_t)src->port};
	struct cw_blake2s s;

	if (wg_clock_has_expired(c->secret_birthdate_ns, COOKIE_SECRET_MAX_AGE_NS, now_ns)) {
		wg_rng_fill(&c->rng, c->secret, sizeof(c->secret));
		c->secret_birthdate_ns = now_ns;
	}
	cw_blake2s_init(&s, COOKIE_LEN, c->secret, sizeof(c->secret));
	cw_blake2s_update(&s, src->addr, src->family == WG_ADDR_IPV4 ? 4 : 16);
	cw_blake2s_update(&s, port, sizeof(port));
	cw_blake2s_final(&s, cookie);
}

enum wg_mac_verdict wg_cookie_validate(struct wg_cookie_checker *c, const uint8_t *msg, size_t len,
				       bool check_cookie, const struct wg_src_addr *src,
				       uint64_t now_ns)
{
	const struct message_macs *macs;
	enum wg_mac_verdict ret = INVALID_MAC;
	uint8_t computed[COOKIE_LEN];
	uint8_t cookie[COOKIE_LEN];

	if (len < sizeof(struct message_header) + MACS_LEN)
		return INVALID_MAC;
	macs = (const struct message_macs *)(msg + len - MACS_LEN);
	compute_mac1(computed, msg, len, c->keys->mac1_key);
	if (!cw_ct_equal(computed, macs->mac1, COOKIE_LEN))
		goto out;
	ret = VALID_MAC_BUT_NO_COOKIE;
	if (!check_cookie || !src)
		goto out;
	make_cookie(c, cookie, src, now_ns);
	compute_mac2(computed, msg, len, cookie);
	if (!cw_ct_equal(computed, macs->mac2, COOKIE_LEN))
		goto out;
	ret = VALID_MAC_WITH_COOKIE_BUT_RATELIMITED;
	if (c->ratelimiter && !wg_ratelimiter_allow(c->ratelimiter, src, now_ns))
		goto out;
	ret = VALID_MAC_WITH_COOKIE;
out:
	cw_memzero(cookie, sizeof(cookie));
	return ret;
}

void wg_cookie_reply_create(struct wg_cookie_checker *c, struct message_handshake_cookie *dst,
			    const uint8_t *msg, size_t len, uint32_t sender_index,
			    const struct wg_src_addr *src, uint64_t now_ns)
{
	const struct message_macs *macs = (const struct message_macs *)(msg + len - MACS_LEN);
	uint8_t cookie[COOKIE_LEN];

	wg_message_header_set(&dst->header, MESSAGE_HANDSHAKE_COOKIE);
	wg_put_le32(dst->receiver_index, sender_index);
	wg_rng_fill(&c->rng, dst->nonce, sizeof(dst->nonce));
	make_cookie(c, cookie, src, now_ns);
	cw_xaead_encrypt(dst->encrypted_cookie, cookie, COOKIE_LEN, macs->mac1, COOKIE_LEN,
			 dst->nonce, c->keys->cookie_key);
	cw_memzero(cookie, sizeof(cookie));
}

void wg_cookie_maker_init(struct wg_cookie_maker *m, const uint8_t peer_pub[NOISE_PUBLIC_KEY_LEN])
{
	memset(m, 0, sizeof(*m));
	wg_cookie_keys_init(&m->keys, peer_pub);
}

void wg_cookie_maker_deinit(struct wg_cookie_maker *m)
{
	cw_memzero(m, sizeof(*m));
}

void wg_cookie_add_macs(struct wg_cookie_maker *m, uint8_t *msg, size_t len, uint64_t now_ns)
{
	struct message_macs *macs = (struct message_macs *)(msg + len - MACS_LEN);

	compute_mac1(macs->mac1, msg, len, m->keys.mac1_key);
	memcpy(m->last_mac1_sent, macs->mac1, COOKIE_LEN);
	m->have_sent_mac1 = true;
	if (m->cookie_valid &&
	    !wg_clock_has_expired(m->cookie_birthdate_ns, COOKIE_VALID_TIME_NS, now_ns))
		compute_mac2(macs->mac2, msg, len, m->cookie);
	else
		memset(macs->mac2, 0, COOKIE_LEN);
}

int wg_cookie_maker_consume_reply(struct wg_cookie_maker *m,
				  const struct message_handshake_cookie *src, uint64_t now_ns)
{
	uint8_t cookie[COOKIE_LEN];
	int ret = -ENOENT;

	if (!m->have_sent_mac1)
		goto out;
	ret = -EINVAL;
	if (!cw_xaead_decrypt(cookie, src->encrypted_cookie, sizeof(src->encrypted_cookie),
			      m->last_mac1_sent, COOKIE_LEN, src->nonce, m->keys.cookie_key))
		goto out;
	memcpy(m->cookie, cookie, COOKIE_LEN);
	m->cookie_birthdate_ns = now_ns;
	m->cookie_valid = true;
	m->have_sent_mac1 = false;
	ret = 0;
out:
	cw_memzero(cookie, sizeof(cookie));
	return ret;
}

bool wg_cookie_under_load(size_t queued_handshakes, uint64_t now_ns, uint64_t *last_under_load_ns)
{
	if (queued_handshakes >= UNDER_LOAD_QUEUE_LEN) {
		*last_under_load_ns = now_ns;
		return true;
	}
	return *last_under_load_ns &&
	       !wg_clock_has_expired(*last_under_load_ns, UNDER_LOAD_AFTER_TIME_NS, now_ns);
}
