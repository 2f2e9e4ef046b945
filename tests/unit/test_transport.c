/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Data messages on a transport keypair: in-place encryption with padding to 16 bytes (not
 * beyond the MTU), keepalives, the receiver's checks (every bit flip, replays, old
 * counters, expiry) and the counter and age limits that decide when to rekey. Keypairs are
 * built by hand as mirror images, as a handshake would leave them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "src/core/keypair.h"
#include "tests/support/det_rng.h"

enum { BUF_LEN = MESSAGE_DATA_HEADER_LEN + 1500 + DATA_TAILROOM_LEN, T0_NS = 5 * WG_NSEC_PER_SEC };

static struct wg_keypair tx, rx;
static uint8_t buf[BUF_LEN];

static void pair_init(bool tx_initiates)
{
	struct det_rng d = { .state = 42 };
	struct wg_rng rng = det_rng_as_wg(&d);
	uint8_t a[NOISE_SYMMETRIC_KEY_LEN], b[NOISE_SYMMETRIC_KEY_LEN];

	wg_keypair_clear(&tx);
	wg_keypair_clear(&rx);
	wg_rng_fill(&rng, a, sizeof(a));
	wg_rng_fill(&rng, b, sizeof(b));
	cr_assert_eq(wg_keypair_set_keys(&tx, a, b), 0);
	cr_assert_eq(wg_keypair_set_keys(&rx, b, a), 0);
	tx.local_index = rx.remote_index = 0x11223344;
	rx.local_index = tx.remote_index = 0xa1b2c3d4;
	tx.i_am_the_initiator = tx_initiates;
	rx.i_am_the_initiator = !tx_initiates;
	tx.birthdate_ns = rx.birthdate_ns = T0_NS;
	tx.in_use = rx.in_use = true;
	tx.send_valid = tx.recv_valid = rx.send_valid = rx.recv_valid = true;
	wg_replay_init(&tx.replay);
	wg_replay_init(&rx.replay);
}

/* The keypairs' AEAD contexts go with each test. */
static void pair_clear(void)
{
	wg_keypair_clear(&tx);
	wg_keypair_clear(&rx);
}

TestSuite(transport, .fini = pair_clear);

/* rx's receiving key with one bit flipped, contexts included. */
static void rekey_rx_with_flipped_bit(void)
{
	uint8_t send[NOISE_SYMMETRIC_KEY_LEN], recv[NOISE_SYMMETRIC_KEY_LEN];

	memcpy(send, rx.send_key, sizeof(send));
	memcpy(recv, rx.recv_key, sizeof(recv));
	recv[0] ^= 1;
	cw_aead_key_wipe(&rx.send_aead);
	cw_aead_key_wipe(&rx.recv_aead);
	cr_assert_eq(wg_keypair_set_keys(&rx, send, recv), 0);
}

static void fill_plain(size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[MESSAGE_DATA_HEADER_LEN + i] = (uint8_t)(seed + i * 7);
}

static size_t seal(size_t len, uint64_t now_ns)
{
	size_t wire_len = 0;

	cr_assert_eq(wg_keypair_encrypt(&tx, buf, len, sizeof(buf), DEFAULT_MTU, now_ns, &wire_len),
		     0);
	return wire_len;
}

/* Padding (Linux calculate_skb_padding): to 16, clamped to the MTU, MTU-relative beyond. */
Test(transport, padding_table)
{
	static const struct {
		size_t plain;
		unsigned int mtu;
		size_t padded;
	} cases[] = {
		{ 0, 1420, 0 },	      { 1, 1420, 16 },	    { 15, 1420, 16 },
		{ 16, 1420, 16 },     { 17, 1420, 32 },	    { 1409, 1420, 1420 },
		{ 1419, 1420, 1420 }, { 1420, 1420, 1420 }, { 1421, 1420, 1421 + 15 },
		{ 1409, 1410, 1410 }, { 2840, 1420, 2840 }, { 100, 0, 112 },
		{ 1421, 0, 1424 },    { 65, 70, 70 },	    { 71, 70, 71 + 15 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(wg_keypair_padded_len(cases[i].plain, cases[i].mtu), cases[i].padded,
			     "case %zu: %zu bytes at MTU %u", i, cases[i].plain, cases[i].mtu);
}

Test(transport, round_trip_of_many_lengths)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 100, 1280, 1419, 1420, 1500 };
	uint8_t expect[1500];
	size_t plain_len;

	pair_init(true);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t len = lens[i], wire_len;
		const struct message_data *hdr = (const void *)buf;

		fill_plain(len, (uint8_t)i);
		memcpy(expect, buf + MESSAGE_DATA_HEADER_LEN, len);
		wire_len = seal(len, T0_NS);
		cr_expect_eq(wire_len, message_data_len(wg_keypair_padded_len(len, DEFAULT_MTU)));
		cr_expect_eq(wg_le32(hdr->header.type_le), MESSAGE_DATA);
		cr_expect_eq(wg_le32(hdr->key_idx), rx.local_index, "addressed to the receiver");
		cr_expect_eq(wg_le64(hdr->counter), i, "counters count up from zero");
		cr_assert_eq(wg_keypair_decrypt(&rx, buf, wire_len, T0_NS, &plain_len), DATA_OK);
		cr_expect_eq(plain_len, wg_keypair_padded_len(len, DEFAULT_MTU));
		cr_expect(!memcmp(buf + MESSAGE_DATA_HEADER_LEN, expect, len), "length %zu", len);
		for (size_t j = len; j < plain_len; j++)
			cr_expect_eq(buf[MESSAGE_DATA_HEADER_LEN + j], 0, "padding is zeros");
	}
}

Test(transport, keepalive_is_an_empty_plaintext)
{
	size_t wire_len, plain_len = 99;

	pair_init(true);
	wire_len = seal(0, T0_NS);
	cr_expect_eq(wire_len, MESSAGE_MINIMUM_LENGTH);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, wire_len, T0_NS, &plain_len), DATA_OK);
	cr_expect_eq(plain_len, 0);
}

Test(transport, every_bit_flip_is_rejected)
{
	uint8_t orig[MESSAGE_DATA_HEADER_LEN + 64 + NOISE_AUTHTAG_LEN];
	size_t wire_len, plain_len, i, bit;
	enum wg_data_verdict v;

	pair_init(true);
	fill_plain(50, 3);
	wire_len = seal(50, T0_NS);
	cr_assert_leq(wire_len, sizeof(orig));
	memcpy(orig, buf, wire_len);
	for (i = 0; i < wire_len; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(buf, orig, wire_len);
			buf[i] ^= (uint8_t)(1u << bit);
			v = wg_keypair_decrypt(&rx, buf, wire_len, T0_NS, &plain_len);
			cr_expect_neq(v, DATA_OK, "flip of byte %zu bit %zu accepted", i, bit);
		}
	}
	/* Truncations too. */
	for (i = 0; i < wire_len; i++) {
		memcpy(buf, orig, wire_len);
		cr_expect_neq(wg_keypair_decrypt(&rx, buf, i, T0_NS, &plain_len), DATA_OK);
	}
	memcpy(buf, orig, wire_len);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, wire_len, T0_NS, &plain_len), DATA_OK,
		     "no rejected message moved the replay window");
}

Test(transport, replayed_data_is_rejected)
{
	uint8_t first[MESSAGE_MINIMUM_LENGTH + 16], second[MESSAGE_MINIMUM_LENGTH + 16];
	size_t len1, len2, plain_len;

	pair_init(true);
	fill_plain(10, 1);
	len1 = seal(10, T0_NS);
	memcpy(first, buf, len1);
	fill_plain(10, 2);
	len2 = seal(10, T0_NS);
	memcpy(second, buf, len2);

	/* Out of order inside the window is fine; each only once. */
	memcpy(buf, second, len2);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len2, T0_NS, &plain_len), DATA_OK);
	memcpy(buf, first, len1);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len1, T0_NS, &plain_len), DATA_OK);
	memcpy(buf, first, len1);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len1, T0_NS, &plain_len), DATA_REPLAYED);
	memcpy(buf, second, len2);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len2, T0_NS, &plain_len), DATA_REPLAYED);
}

/* A counter too far behind the newest is rejected even though it authenticates. */
Test(transport, counter_behind_the_window_is_rejected)
{
	uint8_t old[MESSAGE_MINIMUM_LENGTH];
	size_t len, plain_len;

	pair_init(true);
	len = seal(0, T0_NS); /* counter 0 */
	memcpy(old, buf, len);
	tx.send_counter = COUNTER_WINDOW_SIZE + 1;
	len = seal(0, T0_NS);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len, T0_NS, &plain_len), DATA_OK);
	memcpy(buf, old, sizeof(old));
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, sizeof(old), T0_NS, &plain_len), DATA_REPLAYED);
}

Test(transport, wrong_key_or_index)
{
	size_t len, plain_len;

	pair_init(true);
	len = seal(20, T0_NS);
	rekey_rx_with_flipped_bit();
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len, T0_NS, &plain_len), DATA_AUTH_FAILED);
	pair_init(true);
	len = seal(20, T0_NS);
	cr_expect_eq(wg_keypair_decrypt(&tx, buf, len, T0_NS, &plain_len), DATA_MALFORMED,
		     "addressed to another keypair");
	cr_expect_eq(wg_keypair_decrypt(NULL, buf, len, T0_NS, &plain_len), DATA_MALFORMED);
}

Test(transport, send_limits)
{
	size_t wire_len;

	pair_init(true);
	tx.send_counter = REJECT_AFTER_MESSAGES - 1;
	cr_expect(wg_keypair_can_send(&tx, T0_NS));
	cr_expect_eq(wg_keypair_encrypt(&tx, buf, 0, sizeof(buf), 0, T0_NS, &wire_len), 0,
		     "the last valid counter is used");
	cr_expect_eq(wg_le64(((struct message_data *)buf)->counter), REJECT_AFTER_MESSAGES - 1);
	cr_expect_eq(wg_keypair_encrypt(&tx, buf, 0, sizeof(buf), 0, T0_NS, &wire_len), -ENOKEY);
	cr_expect(!tx.send_valid, "a used-up keypair is invalidated");

	pair_init(true);
	cr_expect_eq(wg_keypair_encrypt(&tx, buf, 0, sizeof(buf), 0,
					T0_NS + REJECT_AFTER_TIME_NS - 1, &wire_len),
		     0);
	cr_expect_eq(wg_keypair_encrypt(&tx, buf, 0, sizeof(buf), 0, T0_NS + REJECT_AFTER_TIME_NS,
					&wire_len),
		     -ENOKEY, "too old to send");

	pair_init(true);
	cr_expect_eq(wg_keypair_encrypt(&tx, buf, 100, message_data_len(112) - 1, 0, T0_NS,
					&wire_len),
		     -EMSGSIZE);
	cr_expect_eq(tx.send_counter, 0, "no nonce is spent on a refused message");
	cr_expect_eq(wg_keypair_encrypt(&tx, buf, 100, message_data_len(112), 0, T0_NS, &wire_len),
		     0);
	cr_expect_eq(wg_keypair_encrypt(NULL, buf, 0, sizeof(buf), 0, T0_NS, &wire_len), -ENOKEY);
}

Test(transport, receive_limits)
{
	size_t len, plain_len;

	pair_init(true);
	len = seal(0, T0_NS);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len, T0_NS + REJECT_AFTER_TIME_NS, &plain_len),
		     DATA_KEYPAIR_INVALID, "too old to receive");
	cr_expect(!rx.recv_valid);
	len = seal(0, T0_NS);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len, T0_NS, &plain_len), DATA_KEYPAIR_INVALID,
		     "and stays invalid");

	pair_init(true);
	tx.send_counter = REJECT_AFTER_MESSAGES - 1;
	len = seal(0, T0_NS);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len, T0_NS, &plain_len), DATA_OK);
	tx.send_counter = REJECT_AFTER_MESSAGES - 2;
	len = seal(0, T0_NS);
	cr_expect_eq(wg_keypair_decrypt(&rx, buf, len, T0_NS, &plain_len), DATA_KEYPAIR_INVALID,
		     "the receive side is used up after the last counter");
}

/* When to start a new handshake (Linux send.c and receive.c keep_key_fresh). */
Test(transport, rekey_decisions)
{
	static const struct {
		bool initiator;
		uint64_t age_ns;
		uint64_t counter;
		bool on_send, on_receive;
	} cases[] = {
		{ true, 0, 0, false, false },
		{ true, REKEY_AFTER_TIME_NS - 1, 0, false, false },
		{ true, REKEY_AFTER_TIME_NS, 0, true, false },
		{ false, REKEY_AFTER_TIME_NS, 0, false, false },
		{ true, 0, REKEY_AFTER_MESSAGES, false, false },
		{ true, 0, REKEY_AFTER_MESSAGES + 1, true, false },
		{ false, 0, REKEY_AFTER_MESSAGES + 1, true, false },
		{ true, REKEY_ON_RECEIVE_AFTER_TIME_NS - 1, 0, true, false },
		{ true, REKEY_ON_RECEIVE_AFTER_TIME_NS, 0, true, true },
		{ false, REKEY_ON_RECEIVE_AFTER_TIME_NS, 0, false, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pair_init(cases[i].initiator);
		tx.send_counter = cases[i].counter;
		cr_expect_eq(wg_keypair_should_rekey_on_send(&tx, T0_NS + cases[i].age_ns),
			     cases[i].on_send, "case %zu on send", i);
		cr_expect_eq(wg_keypair_should_rekey_on_receive(&tx, T0_NS + cases[i].age_ns),
			     cases[i].on_receive, "case %zu on receive", i);
	}
	pair_init(true);
	tx.send_valid = false;
	cr_expect(!wg_keypair_should_rekey_on_send(&tx, T0_NS + REKEY_AFTER_TIME_NS),
		  "an invalidated keypair asks for nothing");
	cr_expect(!wg_keypair_should_rekey_on_send(NULL, T0_NS));
	cr_expect(!wg_keypair_should_rekey_on_receive(NULL, T0_NS));
	cr_expect_eq(REKEY_ON_RECEIVE_AFTER_TIME_SECS, 165);
}

/* The on-wire layout is what the structs say. */
Test(transport, message_layout)
{
	cr_expect_eq(sizeof(struct message_handshake_initiation), 148);
	cr_expect_eq(sizeof(struct message_handshake_response), 92);
	cr_expect_eq(sizeof(struct message_handshake_cookie), 64);
	cr_expect_eq(sizeof(struct message_data), 16);
	cr_expect_eq(offsetof(struct message_handshake_initiation, encrypted_timestamp), 88);
	cr_expect_eq(offsetof(struct message_handshake_response, macs), 60);
	cr_expect_eq(offsetof(struct message_handshake_cookie, encrypted_cookie), 32);
	cr_expect_eq(MAX_TIMER_HANDSHAKES, 18);
	cr_expect_eq(REJECT_AFTER_MESSAGES, UINT64_MAX - 8128 - 1);
	cr_expect_eq(DEFAULT_MTU, 1420);
}

Test(transport, message_type_checks_length_and_reserved_bytes)
{
	uint8_t pkt[200] = { 0 };

	pkt[0] = MESSAGE_HANDSHAKE_INITIATION;
	cr_expect_eq(wg_message_type(pkt, 148), MESSAGE_HANDSHAKE_INITIATION);
	cr_expect_eq(wg_message_type(pkt, 147), MESSAGE_INVALID);
	cr_expect_eq(wg_message_type(pkt, 149), MESSAGE_INVALID);
	pkt[3] = 1;
	cr_expect_eq(wg_message_type(pkt, 148), MESSAGE_INVALID, "reserved bytes must be zero");
	pkt[3] = 0;
	pkt[0] = MESSAGE_DATA;
	cr_expect_eq(wg_message_type(pkt, 32), MESSAGE_DATA);
	cr_expect_eq(wg_message_type(pkt, 31), MESSAGE_INVALID);
	cr_expect_eq(wg_message_type(pkt, 3), MESSAGE_INVALID);
	pkt[0] = 5;
	cr_expect_eq(wg_message_type(pkt, 148), MESSAGE_INVALID);
}
