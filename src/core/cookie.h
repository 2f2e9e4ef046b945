/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * WireGuard's DoS defence (protocol paper §5.3, §5.4.7; Linux cookie.c).
 *
 * Every handshake message ends in mac1 and mac2. mac1 = MAC(HASH("mac1----" || S_pub of
 * the receiver), the message up to mac1) proves the sender knows the receiver's public key.
 * mac2 = MAC(cookie, the message up to mac2), or zeros without a cookie. A responder under
 * load answers a message lacking a valid mac2 with a cookie reply instead of doing DH:
 * cookie = MAC(secret, source address bytes || port), secret rotating every
 * COOKIE_SECRET_MAX_AGE, sealed with XChaCha20-Poly1305 under HASH("cookie--" || S_pub)
 * with the triggering message's mac1 as associated data.
 *
 * The checker (one per interface) validates incoming macs and makes cookie replies; the
 * maker (one per peer) adds macs to outgoing messages and consumes cookie replies.
 */
#ifndef CAKEWG_SRC_CORE_COOKIE_H
#define CAKEWG_SRC_CORE_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/compiler.h"
#include "src/core/messages.h"
#include "src/core/ratelimiter.h"
#include "src/core/rng.h"

/* The two keys derived from one static public key. */
struct wg_cookie_keys {
	uint8_t mac1_key[NOISE_SYMMETRIC_KEY_LEN];   /* HASH("mac1----" || pub) */
	uint8_t cookie_key[NOISE_SYMMETRIC_KEY_LEN]; /* HASH("cookie--" || pub) */
};

void wg_cookie_keys_init(struct wg_cookie_keys *keys, const uint8_t pub[NOISE_PUBLIC_KEY_LEN]);

/* What the macs of a received handshake message allow (Linux's cookie_mac_state). */
enum wg_mac_verdict {
	INVALID_MAC,			       /* drop */
	VALID_MAC_BUT_NO_COOKIE,	       /* under load: answer with a cookie reply */
	VALID_MAC_WITH_COOKIE_BUT_RATELIMITED, /* drop */
	VALID_MAC_WITH_COOKIE,		       /* process */
};

struct wg_cookie_checker {
	const struct wg_cookie_keys *keys;  /* of our own static public key */
	struct wg_ratelimiter *ratelimiter; /* may be NULL: no rate limiting */
	struct wg_rng rng;
	uint8_t secret[COOKIE_SECRET_LEN];
	uint64_t secret_birthdate_ns;
};

/* keys and ratelimiter are borrowed and must outlive the checker. */
void wg_cookie_checker_init(struct wg_cookie_checker *c, const struct wg_cookie_keys *keys,
			    struct wg_ratelimiter *ratelimiter, const struct wg_rng *rng,
			    uint64_t now_ns);
void wg_cookie_checker_deinit(struct wg_cookie_checker *c);

/*
 * Checks the macs of a received handshake message (msg, len: the whole message, which ends
 * in struct message_macs). Without check_cookie (not under load) a valid mac1 suffices;
 * with it, mac2 must also be made with the cookie of src, the sender's address.
 */
enum wg_mac_verdict wg_cookie_validate(struct wg_cookie_checker *c, const uint8_t *msg, size_t len,
				       bool check_cookie, const struct wg_src_addr *src,
				       uint64_t now_ns);

/* Builds the cookie reply to the handshake message msg (sender index sender_index) from src;
 * msg is one that wg_cookie_validate() found VALID_MAC_BUT_NO_COOKIE. */
void wg_cookie_reply_create(struct wg_cookie_checker *c, struct message_handshake_cookie *dst,
			    const uint8_t *msg, size_t len, uint32_t sender_index,
			    const struct wg_src_addr *src, uint64_t now_ns);

struct wg_cookie_maker {
	struct wg_cookie_keys keys; /* of the peer's static public key */
	uint8_t cookie[COOKIE_LEN];
	uint64_t cookie_birthdate_ns;
	uint8_t last_mac1_sent[COOKIE_LEN];
	bool cookie_valid;
	bool have_sent_mac1;
};

void wg_cookie_maker_init(struct wg_cookie_maker *m, const uint8_t peer_pub[NOISE_PUBLIC_KEY_LEN]);
void wg_cookie_maker_deinit(struct wg_cookie_maker *m);

/* Fills mac1 and mac2 of an outgoing handshake message (msg, len: the whole message). */
void wg_cookie_add_macs(struct wg_cookie_maker *m, uint8_t *msg, size_t len, uint64_t now_ns);

/*
 * Consumes a cookie reply addressed to this peer (the caller matched receiver_index).
 * 0, -ENOENT when we have sent nothing it could answer (or already took a reply to it),
 * -EINVAL when it does not authenticate.
 */
int wg_cookie_maker_consume_reply(struct wg_cookie_maker *m,
				  const struct message_handshake_cookie *src, uint64_t now_ns);

/*
 * The responder is under load when at least UNDER_LOAD_QUEUE_LEN handshakes wait, and stays
 * so for UNDER_LOAD_AFTER_TIME after the last such moment (*last_under_load_ns; 0 = never;
 * updated here). Pure apart from that state, which belongs to the caller.
 */
WG_MUST_CHECK bool wg_cookie_under_load(size_t queued_handshakes, uint64_t now_ns,
					uint64_t *last_under_load_ns);

#endif
