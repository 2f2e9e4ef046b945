/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every WireGuard protocol fact in one place: wire formats, message types and lengths,
 * the Noise strings, and the timer and counter limits. Values follow the Linux driver
 * (drivers/net/wireguard/messages.h) and the protocol paper; they are derived from one
 * another wherever the protocol derives them, and names carry their unit (_SECS, _MS, _NS,
 * _LEN for bytes).
 *
 * All integers on the wire are little-endian. The wire structs are packed so that they can
 * overlay any received buffer; read their integer fields with wg_le32()/wg_le64() and write
 * them with wg_put_le32()/wg_put_le64().
 */
#ifndef CAKEWG_SRC_CORE_MESSAGES_H
#define CAKEWG_SRC_CORE_MESSAGES_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/aead.h"
#include "crypto/blake2s.h"
#include "crypto/tai64n.h"
#include "crypto/x25519.h"
#include "src/core/clock.h"

/* The Noise protocol name, WireGuard's prologue and the MAC labels (no trailing NUL). */
#define NOISE_CONSTRUCTION  "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s"
#define NOISE_IDENTIFIER    "WireGuard v1 zx2c4 Jason@zx2c4.com"
#define COOKIE_LABEL_MAC1   "mac1----"
#define COOKIE_LABEL_COOKIE "cookie--"

enum noise_strings {
	NOISE_CONSTRUCTION_LEN = sizeof(NOISE_CONSTRUCTION) - 1, /* 37 */
	NOISE_IDENTIFIER_LEN = sizeof(NOISE_IDENTIFIER) - 1,	 /* 34 */
	COOKIE_LABEL_LEN = sizeof(COOKIE_LABEL_MAC1) - 1,	 /* 8 */
};

enum noise_lengths {
	NOISE_PUBLIC_KEY_LEN = CW_X25519_KEY_LEN,
	NOISE_PRIVATE_KEY_LEN = CW_X25519_KEY_LEN,
	NOISE_SYMMETRIC_KEY_LEN = CW_AEAD_KEY_LEN,
	NOISE_TIMESTAMP_LEN = CW_TAI64N_LEN, /* TAI64N: 8 bytes seconds, 4 bytes nanoseconds */
	NOISE_AUTHTAG_LEN = CW_AEAD_TAG_LEN,
	NOISE_HASH_LEN = CW_BLAKE2S_HASH_LEN,
};

/* AEAD output length of a plaintext of plain_len bytes. */
#define noise_encrypted_len(plain_len) ((plain_len) + NOISE_AUTHTAG_LEN)

enum cookie_values {
	COOKIE_SECRET_MAX_AGE_SECS = 2 * 60, /* the responder's cookie secret rotates this often */
	COOKIE_REFRESH_TIME_SECS = COOKIE_SECRET_MAX_AGE_SECS,
	COOKIE_SECRET_LATENCY_SECS = 5, /* a cookie is used for MAX_AGE - LATENCY only */
	COOKIE_NONCE_LEN = CW_XAEAD_NONCE_LEN,
	COOKIE_LEN = 16, /* also the length of mac1 and mac2 */
	COOKIE_SECRET_LEN = NOISE_HASH_LEN,
};

/*
 * The replay window is kept in 64-bit words; one word of the ring is always being recycled,
 * so the usable window is one word short of the total (as Linux on 64-bit machines).
 */
enum counter_values {
	COUNTER_BITS_TOTAL = 8192,
	COUNTER_REDUNDANT_BITS = 64,
	COUNTER_WINDOW_SIZE = COUNTER_BITS_TOTAL - COUNTER_REDUNDANT_BITS,
};

/* Message counters (64-bit, hence their own enum). */
enum message_limits {
	REKEY_AFTER_MESSAGES = 1ULL << 60,
	REJECT_AFTER_MESSAGES = UINT64_MAX - COUNTER_WINDOW_SIZE - 1,
};

enum limits {
	REKEY_TIMEOUT_SECS = 5,
	REKEY_TIMEOUT_JITTER_MAX_MS = 1000 / 3, /* Linux: HZ / 3 jiffies */
	REKEY_AFTER_TIME_SECS = 120,
	REJECT_AFTER_TIME_SECS = 180,
	REKEY_ATTEMPT_TIME_SECS = 90,
	KEEPALIVE_TIMEOUT_SECS = 10,
	/* Handshake retries before giving up (and dropping staged packets). */
	MAX_TIMER_HANDSHAKES = REKEY_ATTEMPT_TIME_SECS / REKEY_TIMEOUT_SECS,
	/* Key material is zeroed when no new handshake happened for this long. */
	ZERO_KEYS_AFTER_TIME_SECS = 3 * REJECT_AFTER_TIME_SECS,
	/* Data sent but nothing received for this long: start a new handshake. */
	NEW_HANDSHAKE_AFTER_TIME_SECS = KEEPALIVE_TIMEOUT_SECS + REKEY_TIMEOUT_SECS,
	/* An initiator receiving on a keypair older than this starts a new handshake. */
	REKEY_ON_RECEIVE_AFTER_TIME_SECS =
		REJECT_AFTER_TIME_SECS - KEEPALIVE_TIMEOUT_SECS - REKEY_TIMEOUT_SECS,
	/* At most this many initiations per second are consumed from one peer. */
	INITIATIONS_PER_SECOND = 50,
	MAX_PEERS = 1U << 20,
	MAX_QUEUED_INCOMING_HANDSHAKES = 4096,
	/* The responder is under load from this handshake queue length on... */
	UNDER_LOAD_QUEUE_LEN = MAX_QUEUED_INCOMING_HANDSHAKES / 8,
	/* ...and stays so for this long after the queue was last that long. */
	UNDER_LOAD_AFTER_TIME_SECS = 1,
	MAX_STAGED_PACKETS = 128,
	MAX_QUEUED_PACKETS = 1024,
};

/* The same durations in nanoseconds, the core's unit of time. */
enum limits_ns {
	REKEY_TIMEOUT_NS = REKEY_TIMEOUT_SECS * WG_NSEC_PER_SEC,
	REKEY_TIMEOUT_JITTER_MAX_NS = WG_NSEC_PER_SEC / 3,
	REKEY_AFTER_TIME_NS = REKEY_AFTER_TIME_SECS * WG_NSEC_PER_SEC,
	REJECT_AFTER_TIME_NS = REJECT_AFTER_TIME_SECS * WG_NSEC_PER_SEC,
	REKEY_ATTEMPT_TIME_NS = REKEY_ATTEMPT_TIME_SECS * WG_NSEC_PER_SEC,
	KEEPALIVE_TIMEOUT_NS = KEEPALIVE_TIMEOUT_SECS * WG_NSEC_PER_SEC,
	ZERO_KEYS_AFTER_TIME_NS = ZERO_KEYS_AFTER_TIME_SECS * WG_NSEC_PER_SEC,
	NEW_HANDSHAKE_AFTER_TIME_NS = NEW_HANDSHAKE_AFTER_TIME_SECS * WG_NSEC_PER_SEC,
	REKEY_ON_RECEIVE_AFTER_TIME_NS = REKEY_ON_RECEIVE_AFTER_TIME_SECS * WG_NSEC_PER_SEC,
	COOKIE_SECRET_MAX_AGE_NS = COOKIE_SECRET_MAX_AGE_SECS * WG_NSEC_PER_SEC,
	COOKIE_REFRESH_TIME_NS = COOKIE_REFRESH_TIME_SECS * WG_NSEC_PER_SEC,
	COOKIE_SECRET_LATENCY_NS = COOKIE_SECRET_LATENCY_SECS * WG_NSEC_PER_SEC,
	/* A received cookie is used for this long. */
	COOKIE_VALID_TIME_NS = COOKIE_SECRET_MAX_AGE_NS - COOKIE_SECRET_LATENCY_NS,
	/* The per-peer initiation flood guard: one initiation per this interval. */
	INITIATION_MIN_INTERVAL_NS = WG_NSEC_PER_SEC / INITIATIONS_PER_SECOND,
	UNDER_LOAD_AFTER_TIME_NS = UNDER_LOAD_AFTER_TIME_SECS * WG_NSEC_PER_SEC,
};

enum message_type {
	MESSAGE_INVALID = 0,
	MESSAGE_HANDSHAKE_INITIATION = 1,
	MESSAGE_HANDSHAKE_RESPONSE = 2,
	MESSAGE_HANDSHAKE_COOKIE = 3,
	MESSAGE_DATA = 4,
};

/*
 * The header is one type byte followed by three zero bytes. Read as a little-endian 32-bit
 * word it equals the type exactly when the reserved bytes are zero, so one comparison checks
 * both (the Linux driver's trick).
 */
struct message_header {
	uint8_t type_le[4];
} __attribute__((packed));

struct message_macs {
	uint8_t mac1[COOKIE_LEN];
	uint8_t mac2[COOKIE_LEN];
} __attribute__((packed));

struct message_handshake_initiation {
	struct message_header header;
	uint8_t sender_index[4];
	uint8_t unencrypted_ephemeral[NOISE_PUBLIC_KEY_LEN];
	uint8_t encrypted_static[noise_encrypted_len(NOISE_PUBLIC_KEY_LEN)];
	uint8_t encrypted_timestamp[noise_encrypted_len(NOISE_TIMESTAMP_LEN)];
	struct message_macs macs;
} __attribute__((packed));

struct message_handshake_response {
	struct message_header header;
	uint8_t sender_index[4];
	uint8_t receiver_index[4];
	uint8_t unencrypted_ephemeral[NOISE_PUBLIC_KEY_LEN];
	uint8_t encrypted_nothing[noise_encrypted_len(0)];
	struct message_macs macs;
} __attribute__((packed));

struct message_handshake_cookie {
	struct message_header header;
	uint8_t receiver_index[4];
	uint8_t nonce[COOKIE_NONCE_LEN];
	uint8_t encrypted_cookie[noise_encrypted_len(COOKIE_LEN)];
} __attribute__((packed));

struct message_data {
	struct message_header header;
	uint8_t key_idx[4]; /* the receiver's index */
	uint8_t counter[8];
	uint8_t encrypted_data[];
} __attribute__((packed));

/* Length on the wire of a data message carrying plain_len (already padded) bytes. */
#define message_data_len(plain_len) (noise_encrypted_len(plain_len) + sizeof(struct message_data))

enum message_lengths {
	MESSAGE_HANDSHAKE_INITIATION_LEN = 148,
	MESSAGE_HANDSHAKE_RESPONSE_LEN = 92,
	MESSAGE_HANDSHAKE_COOKIE_LEN = 64,
	MESSAGE_DATA_HEADER_LEN = 16,
	MESSAGE_PADDING_MULTIPLE = 16,
	MESSAGE_MINIMUM_LENGTH = MESSAGE_DATA_HEADER_LEN + NOISE_AUTHTAG_LEN, /* a keepalive */
	MESSAGE_MAXIMUM_LENGTH = 65535, /* the largest UDP payload */
	/* Room the datapath leaves around a plaintext so that encryption works in place. */
	DATA_HEADROOM_LEN = MESSAGE_DATA_HEADER_LEN,
	DATA_TAILROOM_LEN = (MESSAGE_PADDING_MULTIPLE - 1) + NOISE_AUTHTAG_LEN,
	/* UDP 8 + IPv6 40 + data header and tag 32: wg-quick's MTU is the link's minus this. */
	MESSAGE_OVERHEAD_IPV6_LEN = 40 + 8 + MESSAGE_MINIMUM_LENGTH,
	DEFAULT_MTU = 1500 - MESSAGE_OVERHEAD_IPV6_LEN, /* 1420 */
};

_Static_assert(sizeof(struct message_handshake_initiation) == MESSAGE_HANDSHAKE_INITIATION_LEN,
	       "initiation is 148 bytes");
_Static_assert(sizeof(struct message_handshake_response) == MESSAGE_HANDSHAKE_RESPONSE_LEN,
	       "response is 92 bytes");
_Static_assert(sizeof(struct message_handshake_cookie) == MESSAGE_HANDSHAKE_COOKIE_LEN,
	       "cookie reply is 64 bytes");
_Static_assert(sizeof(struct message_data) == MESSAGE_DATA_HEADER_LEN, "data header is 16 bytes");
_Static_assert(offsetof(struct message_handshake_initiation, macs) ==
		       MESSAGE_HANDSHAKE_INITIATION_LEN - 2 * COOKIE_LEN,
	       "macs close the initiation");
_Static_assert(DEFAULT_MTU == 1420, "wg-quick default MTU");

/* Outer DSCP of handshake messages: AF41, ECN bits zero. Data messages use 0 (no leak). */
enum { HANDSHAKE_DSCP = 0x88 };

static inline uint32_t wg_le32(const uint8_t p[4])
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t wg_le64(const uint8_t p[8])
{
	return (uint64_t)wg_le32(p) | (uint64_t)wg_le32(p + 4) << 32;
}

static inline void wg_put_le32(uint8_t p[4], uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void wg_put_le64(uint8_t p[8], uint64_t v)
{
	wg_put_le32(p, (uint32_t)v);
	wg_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* The message type of a received packet, or MESSAGE_INVALID if its length does not fit it. */
static inline enum message_type wg_message_type(const uint8_t *pkt, size_t len)
{
	if (len < sizeof(struct message_header))
		return MESSAGE_INVALID;
	switch (wg_le32(pkt)) {
	case MESSAGE_HANDSHAKE_INITIATION:
		return len == MESSAGE_HANDSHAKE_INITIATION_LEN ? MESSAGE_HANDSHAKE_INITIATION
							       : MESSAGE_INVALID;
	case MESSAGE_HANDSHAKE_RESPONSE:
		return len == MESSAGE_HANDSHAKE_RESPONSE_LEN ? MESSAGE_HANDSHAKE_RESPONSE
							     : MESSAGE_INVALID;
	case MESSAGE_HANDSHAKE_COOKIE:
		return len == MESSAGE_HANDSHAKE_COOKIE_LEN ? MESSAGE_HANDSHAKE_COOKIE
							   : MESSAGE_INVALID;
	case MESSAGE_DATA:
		return len >= MESSAGE_MINIMUM_LENGTH ? MESSAGE_DATA : MESSAGE_INVALID;
	default:
		return MESSAGE_INVALID;
	}
}

static inline void wg_message_header_set(struct message_header *h, enum message_type type)
{
	wg_put_le32(h->type_le, (uint32_t)type);
}

#endif
