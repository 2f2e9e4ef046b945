/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The WireGuard handshake, Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s:
 *
 *   <- s
 *   ******
 *   -> e, es, s, ss, {t}
 *   <- e, ee, se, psk, {}
 *
 * and the rotation of the transport keypairs it yields (next, current, previous).
 *
 * The module never sees peer tables, index tables, clocks or an RNG (the OpenBSD
 * wg_noise.c pattern): the embedder answers through struct wg_noise_upcall, and time,
 * wall time and randomness are arguments. It is not thread-safe; the caller serialises.
 *
 * Receive path, as the embedder drives it:
 *   initiation: validate macs (cookie.h) -> wg_noise_consume_initiation ->
 *               wg_noise_create_response -> wg_noise_begin_session (keypair becomes "next")
 *   response:   index -> remote; validate macs -> wg_noise_consume_response ->
 *               wg_noise_begin_session (keypair becomes "current")
 *   data:       index -> keypair; wg_keypair_decrypt -> wg_noise_received_with_keypair
 */
#ifndef CAKEWG_SRC_CORE_NOISE_H
#define CAKEWG_SRC_CORE_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/clock.h"
#include "src/core/compiler.h"
#include "src/core/cookie.h"
#include "src/core/keypair.h"
#include "src/core/messages.h"
#include "src/core/rng.h"

struct wg_noise_remote;

/* What noise asks of its embedder. arg is passed back untouched. */
struct wg_noise_upcall {
	void *arg;
	/* The remote whose static public key this is, or NULL. Compare keys with
	 * cw_ct_equal. */
	struct wg_noise_remote *(*remote_get)(void *arg, const uint8_t pub[NOISE_PUBLIC_KEY_LEN]);
	/* A fresh receiver index, unique on the interface, for the remote's handshake.
	 * 0 or -errno (e.g. -ENOSPC when the table is full). */
	int (*index_alloc)(void *arg, struct wg_noise_remote *r, uint32_t *index);
	/* The handshake under index has become keypair kp (same index, same remote). */
	void (*index_replace)(void *arg, uint32_t index, struct wg_keypair *kp);
	/* The index is no longer used. */
	void (*index_drop)(void *arg, uint32_t index);
};

/* The interface's static identity. */
struct wg_noise_identity {
	uint8_t initial_chaining_key[NOISE_HASH_LEN]; /* HASH(construction) */
	uint8_t initial_hash[NOISE_HASH_LEN];	      /* HASH(that || identifier) */
	uint8_t static_private[NOISE_PRIVATE_KEY_LEN];
	uint8_t static_public[NOISE_PUBLIC_KEY_LEN];
	struct wg_cookie_keys cookie_keys; /* for checking mac1 and sealing cookie replies */
	bool has_identity;
	struct wg_noise_upcall upcall;
};

/* Where a peer's handshake stands; each state is the last thing that happened. */
enum wg_noise_handshake_state {
	HANDSHAKE_ZEROED,
	HANDSHAKE_CREATED_INITIATION,
	HANDSHAKE_CONSUMED_INITIATION,
	HANDSHAKE_CREATED_RESPONSE,
	HANDSHAKE_CONSUMED_RESPONSE,
};

struct wg_noise_handshake {
	enum wg_noise_handshake_state state;
	bool has_local_index;
	uint32_t local_index;
	uint32_t remote_index;
	uint8_t ephemeral_private[NOISE_PRIVATE_KEY_LEN];
	uint8_t remote_ephemeral[NOISE_PUBLIC_KEY_LEN];
	uint8_t hash[NOISE_HASH_LEN];
	uint8_t chaining_key[NOISE_HASH_LEN];
};

/* One peer as noise sees it. The embedder embeds it in its peer (container_of). */
struct wg_noise_remote {
	struct wg_noise_identity *local;
	uint8_t remote_static[NOISE_PUBLIC_KEY_LEN];
	uint8_t precomputed_static_static[NOISE_PUBLIC_KEY_LEN]; /* zero when unusable */
	uint8_t preshared_key[NOISE_SYMMETRIC_KEY_LEN];		 /* zero when none */
	struct wg_noise_handshake handshake;
	uint8_t latest_timestamp[NOISE_TIMESTAMP_LEN]; /* of the last accepted initiation */
	uint64_t last_initiation_consumption_ns;
	bool has_consumed_initiation;
	struct wg_cookie_maker cookie;
	struct wg_keypair *next, *current, *previous;
	struct wg_keypair keypairs[3];
};

/* Outcome of consuming a handshake message. */
enum wg_noise_verdict {
	NOISE_OK,
	NOISE_NO_IDENTITY,  /* we have no private key */
	NOISE_INVALID,	    /* fails to authenticate, or a zero DH result */
	NOISE_UNKNOWN_PEER, /* authentic static key of no configured peer */
	NOISE_REPLAYED,	    /* TAI64N timestamp not after the last accepted one */
	NOISE_FLOOD,	    /* within 1/INITIATIONS_PER_SECOND of the last accepted one */
	NOISE_UNEXPECTED,   /* no handshake waiting for it (wrong state or index) */
};

void wg_noise_identity_init(struct wg_noise_identity *id, const struct wg_noise_upcall *upcall);
/* Sets (and clamps) the private key. 0, or -EINVAL for an all-zero key (identity cleared).
 * Call wg_noise_remote_precompute() for every remote afterwards. */
int wg_noise_identity_set_private(struct wg_noise_identity *id,
				  const uint8_t priv[NOISE_PRIVATE_KEY_LEN]);
void wg_noise_identity_clear(struct wg_noise_identity *id);

/* psk may be NULL (none). */
void wg_noise_remote_init(struct wg_noise_remote *r, struct wg_noise_identity *local,
			  const uint8_t pub[NOISE_PUBLIC_KEY_LEN],
			  const uint8_t psk[NOISE_SYMMETRIC_KEY_LEN]);
void wg_noise_remote_set_psk(struct wg_noise_remote *r, const uint8_t psk[NOISE_SYMMETRIC_KEY_LEN]);
/* Recomputes the static-static DH after the identity changed; forgets any handshake. */
void wg_noise_remote_precompute(struct wg_noise_remote *r);
/* Forgets the handshake and every keypair, dropping their indices. */
void wg_noise_remote_clear(struct wg_noise_remote *r);
/* Clears the handshake and stops sending on the current and next keypairs (receiving goes
 * on), as Linux wg_noise_expire_current_peer_keypairs. */
void wg_noise_remote_expire_current(struct wg_noise_remote *r);
/* clear, and wipe every key. */
void wg_noise_remote_deinit(struct wg_noise_remote *r);

/* Writes a complete initiation (macs included). 0; -ENOKEY without identity or with an
 * unusable static-static DH; -errno from index_alloc. */
int wg_noise_create_initiation(struct wg_noise_remote *r, struct message_handshake_initiation *dst,
			       const struct wg_walltime *wall, const struct wg_rng *rng,
			       uint64_t now_ns);

/* Consumes an initiation whose macs the caller validated. On NOISE_OK *remote is the peer,
 * now in HANDSHAKE_CONSUMED_INITIATION. */
enum wg_noise_verdict wg_noise_consume_initiation(struct wg_noise_identity *id,
						  const struct message_handshake_initiation *src,
						  uint64_t now_ns, struct wg_noise_remote **remote);

/* Writes a complete response to the consumed initiation. 0; -EINVAL in the wrong state;
 * -ENOKEY on a zero DH; -errno from index_alloc. */
int wg_noise_create_response(struct wg_noise_remote *r, struct message_handshake_response *dst,
			     const struct wg_rng *rng, uint64_t now_ns);

/* Consumes a response, r being the remote its receiver index belongs to. */
enum wg_noise_verdict wg_noise_consume_response(struct wg_noise_remote *r,
						const struct message_handshake_response *src);

/* Derives the transport keypair after CREATED_RESPONSE (it becomes "next") or
 * CONSUMED_RESPONSE (it becomes "current"), and zeroes the handshake. 0 or -EINVAL; -ENOMEM
 * when its AEAD contexts cannot be made, which leaves the keypairs and the handshake as
 * they were (the device counts it in rx_handshake_bad). */
int wg_noise_begin_session(struct wg_noise_remote *r, uint64_t now_ns);

/* After kp authenticated a data message: if kp is the unconfirmed "next" keypair, it becomes
 * current (current becomes previous) and this returns true. */
WG_MUST_CHECK bool wg_noise_received_with_keypair(struct wg_noise_remote *r, struct wg_keypair *kp);

/* The keypair to send on now, or NULL: start a handshake. */
struct wg_keypair *wg_noise_keypair_for_send(struct wg_noise_remote *r, uint64_t now_ns);

#endif
