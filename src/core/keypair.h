/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Transport keypairs and data messages. A keypair is what a completed handshake leaves:
 * one key per direction, the send counter (the next nonce), the receive replay window,
 * the receiver indices of both sides and its birth time. Data messages are encrypted and
 * decrypted in place:
 *
 *   msg: | header 16 | plaintext, zero padded to 16 (not beyond the MTU) | tag 16 |
 *
 * so the sender leaves DATA_HEADROOM_LEN bytes before the plaintext and DATA_TAILROOM_LEN
 * after it. A keepalive is an empty plaintext.
 *
 * The raw keys stay beside the AEAD contexts made from them (wg_keypair_set_keys): the
 * contexts are what the data path uses; the bytes are for comparison (tests).
 */
#ifndef CAKEWG_SRC_CORE_KEYPAIR_H
#define CAKEWG_SRC_CORE_KEYPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/aead_key.h"
#include "src/core/compiler.h"
#include "src/core/messages.h"
#include "src/core/replay.h"

struct wg_noise_remote;

struct wg_keypair {
	struct wg_noise_remote *remote; /* the peer it belongs to */
	uint8_t send_key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t recv_key[NOISE_SYMMETRIC_KEY_LEN];
	struct cw_aead_key send_aead; /* made from send_key */
	struct cw_aead_key recv_aead; /* made from recv_key */
	uint64_t send_counter; /* the next nonce to use */
	struct wg_replay replay;
	uint64_t birthdate_ns;
	uint32_t local_index;  /* ours: data messages to us carry it */
	uint32_t remote_index; /* theirs: our data messages carry it */
	bool i_am_the_initiator;
	bool send_valid;
	bool recv_valid;
	bool in_use;
};

/* Outcome of decrypting a data message. */
enum wg_data_verdict {
	DATA_OK,
	DATA_MALFORMED,	      /* too short, or not a data message */
	DATA_KEYPAIR_INVALID, /* expired (REJECT_AFTER_TIME), used up, or invalidated */
	DATA_AUTH_FAILED,     /* wrong key or altered message */
	DATA_REPLAYED,	      /* authentic, but its counter was seen or is too old */
};

/*
 * Sets kp's two keys and their AEAD contexts; kp must hold none (zeroed or cleared). 0, or
 * -ENOMEM when a context cannot be made: kp then holds no key and no context.
 */
WG_MUST_CHECK int wg_keypair_set_keys(struct wg_keypair *kp,
				      const uint8_t send_key[NOISE_SYMMETRIC_KEY_LEN],
				      const uint8_t recv_key[NOISE_SYMMETRIC_KEY_LEN]);

/*
 * Plaintext length after padding: up to a multiple of MESSAGE_PADDING_MULTIPLE, but never
 * beyond mtu (0: no MTU limit). A plaintext longer than the MTU is padded as its last
 * MTU-sized unit would be (Linux calculate_skb_padding).
 */
size_t wg_keypair_padded_len(size_t plain_len, unsigned int mtu);

/*
 * Encrypts in place. The plaintext is plain_len bytes at msg + MESSAGE_DATA_HEADER_LEN;
 * msg has room for cap bytes. Writes the header, zero padding and tag, and sets *msg_len
 * to the length on the wire. 0; -ENOKEY when the keypair may not send (invalid, older than
 * REJECT_AFTER_TIME, or its counter reached REJECT_AFTER_MESSAGES, or its AEAD failed, which
 * invalidates it): stage the packet and start a handshake; -EMSGSIZE when cap is too small or the message would be too long.
 */
int wg_keypair_encrypt(struct wg_keypair *kp, uint8_t *msg, size_t plain_len, size_t cap,
		       unsigned int mtu, uint64_t now_ns, size_t *msg_len);

/*
 * Decrypts a data message in place (the caller found kp by the message's receiver index).
 * On DATA_OK the padded plaintext is *plain_len bytes at msg + MESSAGE_DATA_HEADER_LEN
 * (0 for a keepalive), and its counter has entered the replay window.
 */
enum wg_data_verdict wg_keypair_decrypt(struct wg_keypair *kp, uint8_t *msg, size_t msg_len,
					uint64_t now_ns, size_t *plain_len);

/* True when the sender should start a new handshake after sending on kp: its counter passed
 * REKEY_AFTER_MESSAGES, or we initiated it more than REKEY_AFTER_TIME ago. */
WG_MUST_CHECK bool wg_keypair_should_rekey_on_send(const struct wg_keypair *kp, uint64_t now_ns);

/* True when an initiator receiving on kp should start a new handshake: kp is older than
 * REJECT_AFTER_TIME - KEEPALIVE_TIMEOUT - REKEY_TIMEOUT. */
WG_MUST_CHECK bool wg_keypair_should_rekey_on_receive(const struct wg_keypair *kp, uint64_t now_ns);

/* True when kp may still send now. */
WG_MUST_CHECK bool wg_keypair_can_send(const struct wg_keypair *kp, uint64_t now_ns);

/* Wipes keys and contexts and marks the slot free. kp must be zeroed or initialised. */
void wg_keypair_clear(struct wg_keypair *kp);

#endif
