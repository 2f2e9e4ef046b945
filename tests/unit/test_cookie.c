/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mac1, mac2 and cookie replies (protocol paper §5.4.4 and §5.4.7). The macs are recomputed
 * here from their definitions with the BLAKE2s primitives; cookie replies must survive no
 * bit flip, be bound to the source address and the triggering mac1, and expire; the
 * responder's secret rotates. The rate limiter joins in for valid cookies.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/ct.h"
#include "crypto/x25519.h"
#include "src/core/cookie.h"
#include "tests/support/det_rng.h"

enum { T0_NS = 100 * WG_NSEC_PER_SEC };

static struct det_rng drng = { .state = 7 };
static struct wg_rng rng;
static uint8_t responder_pub[NOISE_PUBLIC_KEY_LEN];
static struct wg_cookie_keys responder_keys;
static struct wg_cookie_checker checker;
static struct wg_cookie_maker maker;
static struct message_handshake_initiation msg;
static const struct wg_src_addr src4 = { WG_ADDR_IPV4, { 198, 51, 100, 7 }, 40000 };
static const struct wg_src_addr src6 = {
	WG_ADDR_IPV6, { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }, 40000
};

static void setup(void)
{
	uint8_t priv[NOISE_PRIVATE_KEY_LEN];

	drng.state = 7;
	rng = det_rng_as_wg(&drng);
	wg_rng_fill(&rng, priv, sizeof(priv));
	cw_x25519_clamp(priv);
	cr_assert(cw_x25519_public(responder_pub, priv));
	wg_cookie_keys_init(&responder_keys, responder_pub);
	wg_cookie_checker_init(&checker, &responder_keys, NULL, &rng, T0_NS);
	wg_cookie_maker_init(&maker, responder_pub);
	wg_rng_fill(&rng, &msg, sizeof(msg));
	wg_message_header_set(&msg.header, MESSAGE_HANDSHAKE_INITIATION);
}

TestSuite(cookie, .init = setup);

/* Asks for a cookie for msg from src and hands the reply to the maker. */
static int fetch_cookie(const struct wg_src_addr *src, uint64_t now_ns)
{
	struct message_handshake_cookie reply;

	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), now_ns);
	wg_cookie_reply_create(&checker, &reply, (uint8_t *)&msg, sizeof(msg),
			       wg_le32(msg.sender_index), src, now_ns);
	return wg_cookie_maker_consume_reply(&maker, &reply, now_ns);
}

static enum wg_mac_verdict check(bool under_load, const struct wg_src_addr *src, uint64_t now_ns)
{
	return wg_cookie_validate(&checker, (uint8_t *)&msg, sizeof(msg), under_load, src, now_ns);
}

Test(cookie, macs_match_their_definition)
{
	static const char label[] = "mac1----";
	uint8_t key[NOISE_HASH_LEN], mac[COOKIE_LEN];
	struct cw_blake2s s;

	cw_blake2s_init(&s, NOISE_HASH_LEN, NULL, 0);
	cw_blake2s_update(&s, (const uint8_t *)label, 8);
	cw_blake2s_update(&s, responder_pub, sizeof(responder_pub));
	cw_blake2s_final(&s, key);
	cr_expect(!memcmp(key, responder_keys.mac1_key, sizeof(key)));

	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	cw_blake2s(mac, COOKIE_LEN, (const uint8_t *)&msg, offsetof(typeof(msg), macs), key,
		   sizeof(key));
	cr_expect(!memcmp(mac, msg.macs.mac1, COOKIE_LEN), "mac1 = MAC(key, msg up to mac1)");
	cr_expect(cw_is_zero(msg.macs.mac2, COOKIE_LEN), "no cookie: mac2 is zero");

	cr_assert_eq(fetch_cookie(&src4, T0_NS), 0);
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	cw_blake2s(mac, COOKIE_LEN, (const uint8_t *)&msg, offsetof(typeof(msg), macs.mac2),
		   maker.cookie, COOKIE_LEN);
	cr_expect(!memcmp(mac, msg.macs.mac2, COOKIE_LEN), "mac2 = MAC(cookie, msg up to mac2)");
}

Test(cookie, verdicts)
{
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	cr_expect_eq(check(false, &src4, T0_NS), VALID_MAC_BUT_NO_COOKIE);
	cr_expect_eq(check(true, &src4, T0_NS), VALID_MAC_BUT_NO_COOKIE);
	cr_assert_eq(fetch_cookie(&src4, T0_NS), 0);
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	cr_expect_eq(check(true, &src4, T0_NS), VALID_MAC_WITH_COOKIE);
	msg.sender_index[0] ^= 1;
	cr_expect_eq(check(false, &src4, T0_NS), INVALID_MAC);
	cr_expect_eq(wg_cookie_validate(&checker, (uint8_t *)&msg, 35, false, &src4, T0_NS),
		     INVALID_MAC, "too short to hold macs");
}

/* The cookie is bound to the address, the port and the family. */
Test(cookie, cookie_is_bound_to_the_source)
{
	struct wg_src_addr other;

	cr_assert_eq(fetch_cookie(&src6, T0_NS), 0);
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	cr_expect_eq(check(true, &src6, T0_NS), VALID_MAC_WITH_COOKIE);
	for (size_t i = 0; i < 16; i++) {
		other = src6;
		other.addr[i] ^= 0x80;
		cr_expect_eq(check(true, &other, T0_NS), VALID_MAC_BUT_NO_COOKIE, "byte %zu", i);
	}
	other = src6;
	other.port ^= 1;
	cr_expect_eq(check(true, &other, T0_NS), VALID_MAC_BUT_NO_COOKIE);
	other = src6;
	other.family = WG_ADDR_IPV4;
	cr_expect_eq(check(true, &other, T0_NS), VALID_MAC_BUT_NO_COOKIE);
}

Test(cookie, every_bit_flip_of_a_reply_is_rejected)
{
	struct message_handshake_cookie reply, bad;
	uint8_t *p = (uint8_t *)&bad;

	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	wg_cookie_reply_create(&checker, &reply, (uint8_t *)&msg, sizeof(msg), 0x01020304, &src4,
			       T0_NS);
	cr_expect_eq(wg_message_type((uint8_t *)&reply, sizeof(reply)), MESSAGE_HANDSHAKE_COOKIE);
	cr_expect_eq(wg_le32(reply.receiver_index), 0x01020304);
	/* Type and receiver index are the embedder's to check; the sealed part is ours. */
	for (size_t i = offsetof(typeof(reply), nonce); i < sizeof(reply); i++) {
		for (int bit = 0; bit < 8; bit++) {
			bad = reply;
			p[i] ^= (uint8_t)(1u << bit);
			cr_expect_eq(wg_cookie_maker_consume_reply(&maker, &bad, T0_NS), -EINVAL,
				     "byte %zu bit %d", i, bit);
		}
	}
	cr_expect(!maker.cookie_valid, "no forged cookie was taken");
	cr_expect_eq(wg_cookie_maker_consume_reply(&maker, &reply, T0_NS), 0);
	cr_expect(maker.cookie_valid);
}

Test(cookie, reply_without_a_sent_message)
{
	struct message_handshake_cookie reply;

	wg_cookie_reply_create(&checker, &reply, (uint8_t *)&msg, sizeof(msg), 1, &src4, T0_NS);
	cr_expect_eq(wg_cookie_maker_consume_reply(&maker, &reply, T0_NS), -ENOENT);
}

/* The maker uses a cookie for COOKIE_SECRET_MAX_AGE - COOKIE_SECRET_LATENCY. */
Test(cookie, cookie_expires_at_the_maker)
{
	cr_assert_eq(fetch_cookie(&src4, T0_NS), 0);
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS + COOKIE_VALID_TIME_NS - 1);
	cr_expect(!cw_is_zero(msg.macs.mac2, COOKIE_LEN));
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS + COOKIE_VALID_TIME_NS);
	cr_expect(cw_is_zero(msg.macs.mac2, COOKIE_LEN));
}

/* The checker's secret rotates after COOKIE_SECRET_MAX_AGE: older cookies stop working. */
Test(cookie, secret_rotates)
{
	uint8_t before[COOKIE_SECRET_LEN];

	memcpy(before, checker.secret, sizeof(before));
	cr_assert_eq(fetch_cookie(&src4, T0_NS), 0);
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	cr_expect_eq(check(true, &src4, T0_NS + COOKIE_SECRET_MAX_AGE_NS - 1),
		     VALID_MAC_WITH_COOKIE);
	cr_expect(!memcmp(before, checker.secret, sizeof(before)));
	cr_expect_eq(check(true, &src4, T0_NS + COOKIE_SECRET_MAX_AGE_NS),
		     VALID_MAC_BUT_NO_COOKIE);
	cr_expect(memcmp(before, checker.secret, sizeof(before)), "a new secret");
}

Test(cookie, valid_cookies_are_rate_limited)
{
	struct wg_ratelimiter rl;
	int allowed = 0, limited = 0;

	cr_assert_eq(wg_ratelimiter_init(&rl, &rng, 64), 0);
	checker.ratelimiter = &rl;
	cr_assert_eq(fetch_cookie(&src4, T0_NS), 0);
	wg_cookie_add_macs(&maker, (uint8_t *)&msg, sizeof(msg), T0_NS);
	for (int i = 0; i < 2 * RATELIMIT_BURST_PACKETS; i++) {
		enum wg_mac_verdict v = check(true, &src4, T0_NS);

		allowed += v == VALID_MAC_WITH_COOKIE;
		limited += v == VALID_MAC_WITH_COOKIE_BUT_RATELIMITED;
	}
	cr_expect_eq(allowed, RATELIMIT_BURST_PACKETS);
	cr_expect_eq(limited, RATELIMIT_BURST_PACKETS);
	cr_expect_eq(check(false, &src4, T0_NS), VALID_MAC_BUT_NO_COOKIE,
		     "not under load, the limiter is not consulted");
	wg_ratelimiter_deinit(&rl);
}

/* Under load from UNDER_LOAD_QUEUE_LEN queued handshakes on, sticky for a second. */
Test(cookie, under_load_decision)
{
	static const struct {
		size_t queued;
		uint64_t at_ns;
		bool under_load;
	} steps[] = {
		{ 0, T0_NS, false },
		{ UNDER_LOAD_QUEUE_LEN - 1, T0_NS, false },
		{ UNDER_LOAD_QUEUE_LEN, T0_NS + 10, true },
		{ 0, T0_NS + 10 + UNDER_LOAD_AFTER_TIME_NS - 1, true },
		{ 0, T0_NS + 10 + UNDER_LOAD_AFTER_TIME_NS, false },
		{ MAX_QUEUED_INCOMING_HANDSHAKES, T0_NS + 5 * WG_NSEC_PER_SEC, true },
		{ 1, T0_NS + 5 * WG_NSEC_PER_SEC + 1, true },
	};
	uint64_t last = 0;

	cr_expect_eq(UNDER_LOAD_QUEUE_LEN, 512);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		cr_expect_eq(wg_cookie_under_load(steps[i].queued, steps[i].at_ns, &last),
			     steps[i].under_load, "step %zu", i);
}
