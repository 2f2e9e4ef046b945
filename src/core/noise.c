/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Noise_IKpsk2 as the WireGuard paper (§5.4) and the Linux driver's noise.c specify it:
 *
 *   <- s
 *   ******
 *   -> e, es, s, ss, {t}
 *   <- e, ee, se, psk, {}
 *
 * Each step below is marked with its token. Secrets on the stack are wiped at the single
 * exit label of every function; a failed step leaves no half-made handshake behind.
 */
#include "src/core/noise.h"

#include <errno.h>
#include <string.h>

#include "crypto/aead.h"
#include "crypto/blake2s.h"
#include "crypto/ct.h"
#include "crypto/kdf.h"
#include "crypto/tai64n.h"
#include "crypto/x25519.h"
#include "src/core/clock.h"

/*
 * The timestamp's nanoseconds are rounded down to a power of two no longer than the
 * flood-guard interval, so that an initiation does not leak a precise clock (as Linux).
 */
enum { TIMESTAMP_NSEC_ROUND_BITS = 24 };
_Static_assert((1ULL << TIMESTAMP_NSEC_ROUND_BITS) <= INITIATION_MIN_INTERVAL_NS &&
		       INITIATION_MIN_INTERVAL_NS < (1ULL << (TIMESTAMP_NSEC_ROUND_BITS + 1)),
	       "largest power of two not above the initiation interval");
_Static_assert((int)NOISE_HASH_LEN == (int)CW_KDF_OUT_LEN &&
		       (int)NOISE_SYMMETRIC_KEY_LEN == (int)CW_KDF_OUT_LEN,
	       "the KDF yields chaining keys and symmetric keys");

static void mix_hash(uint8_t hash[NOISE_HASH_LEN], const uint8_t *src, size_t len)
{
	struct cw_blake2s s;

	cw_blake2s_init(&s, NOISE_HASH_LEN, NULL, 0);
	cw_blake2s_update(&s, hash, NOISE_HASH_LEN);
	cw_blake2s_update(&s, src, len);
	cw_blake2s_final(&s, hash);
}

/* ck, key = KDF2(ck, DH(priv, pub)); key may be NULL (ee, se). False on a zero result. */
static WG_MUST_CHECK bool mix_dh(uint8_t ck[NOISE_HASH_LEN], uint8_t *key,
				 const uint8_t priv[NOISE_PRIVATE_KEY_LEN],
				 const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	uint8_t dh[NOISE_PUBLIC_KEY_LEN];
	bool ok = cw_x25519(dh, priv, pub);

	if (ok)
		cw_kdf(ck, key, NULL, dh, sizeof(dh), ck);
	cw_memzero(dh, sizeof(dh));
	return ok;
}

/* The same with the precomputed static-static DH, zero when it was unusable. */
static WG_MUST_CHECK bool mix_precomputed_dh(uint8_t ck[NOISE_HASH_LEN],
					     uint8_t key[NOISE_SYMMETRIC_KEY_LEN],
					     const uint8_t ss[NOISE_PUBLIC_KEY_LEN])
{
	if (cw_is_zero(ss, NOISE_PUBLIC_KEY_LEN))
		return false;
	cw_kdf(ck, key, NULL, ss, NOISE_PUBLIC_KEY_LEN, ck);
	return true;
}

/* ck, tau, key = KDF3(ck, psk); h = HASH(h || tau). */
static void mix_psk(uint8_t ck[NOISE_HASH_LEN], uint8_t hash[NOISE_HASH_LEN],
		    uint8_t key[NOISE_SYMMETRIC_KEY_LEN],
		    const uint8_t psk[NOISE_SYMMETRIC_KEY_LEN])
{
	uint8_t tau[NOISE_HASH_LEN];

	cw_kdf(ck, tau, key, psk, NOISE_SYMMETRIC_KEY_LEN, ck);
	mix_hash(hash, tau, sizeof(tau));
	cw_memzero(tau, sizeof(tau));
}

/* ck = HASH(construction); h = HASH(HASH(ck || identifier) || responder's static public). */
static void handshake_init(const struct wg_noise_identity *id, uint8_t ck[NOISE_HASH_LEN],
			   uint8_t hash[NOISE_HASH_LEN],
			   const uint8_t responder_static[NOISE_PUBLIC_KEY_LEN])
{
	memcpy(ck, id->initial_chaining_key, NOISE_HASH_LEN);
	memcpy(hash, id->initial_hash, NOISE_HASH_LEN);
	mix_hash(hash, responder_static, NOISE_PUBLIC_KEY_LEN);
}

/* AEAD with key, nonce 0 and h as associated data; then h = HASH(h || ciphertext). */
static void message_encrypt(uint8_t *dst, const uint8_t *src, size_t len,
			    const uint8_t key[NOISE_SYMMETRIC_KEY_LEN],
			    uint8_t hash[NOISE_HASH_LEN])
{
	cw_aead_encrypt(dst, src, len, hash, NOISE_HASH_LEN, 0, key);
	mix_hash(hash, dst, noise_encrypted_len(len));
}

static WG_MUST_CHECK bool message_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
					  const uint8_t key[NOISE_SYMMETRIC_KEY_LEN],
					  uint8_t hash[NOISE_HASH_LEN])
{
	if (!cw_aead_decrypt(dst, src, src_len, hash, NOISE_HASH_LEN, 0, key))
		return false;
	mix_hash(hash, src, src_len);
	return true;
}

/* h = HASH(h || e); ck = KDF1(ck, e). */
static void message_ephemeral(uint8_t dst[NOISE_PUBLIC_KEY_LEN],
			      const uint8_t src[NOISE_PUBLIC_KEY_LEN], uint8_t ck[NOISE_HASH_LEN],
			      uint8_t hash[NOISE_HASH_LEN])
{
	if (dst != src)
		memcpy(dst, src, NOISE_PUBLIC_KEY_LEN);
	mix_hash(hash, src, NOISE_PUBLIC_KEY_LEN);
	cw_kdf(ck, NULL, NULL, src, NOISE_PUBLIC_KEY_LEN, ck);
}

/* A fresh ephemeral key pair. */
static WG_MUST_CHECK bool make_ephemeral(uint8_t priv[NOISE_PRIVATE_KEY_LEN],
					 uint8_t pub[NOISE_PUBLIC_KEY_LEN],
					 const struct wg_rng *rng)
{
	wg_rng_fill(rng, priv, NOISE_PRIVATE_KEY_LEN);
	cw_x25519_clamp(priv);
	return cw_x25519_public(pub, priv);
}

static void handshake_index_drop(struct wg_noise_remote *r)
{
	const struct wg_noise_upcall *u = &r->local->upcall;

	if (r->handshake.has_local_index)
		u->index_drop(u->arg, r->handshake.local_index);
	r->handshake.has_local_index = false;
}

static int handshake_index_new(struct wg_noise_remote *r)
{
	const struct wg_noise_upcall *u = &r->local->upcall;
	int ret;

	handshake_index_drop(r);
	ret = u->index_alloc(u->arg, r, &r->handshake.local_index);
	if (!ret)
		r->handshake.has_local_index = true;
	return ret;
}

/* Forgets the handshake and its secrets, and drops its index. */
static void handshake_clear(struct wg_noise_remote *r)
{
	handshake_index_drop(r);
	cw_memzero(&r->handshake, sizeof(r->handshake));
	r->handshake.state = HANDSHAKE_ZEROED;
}

void wg_noise_identity_init(struct wg_noise_identity *id, const struct wg_noise_upcall *upcall)
{
	struct cw_blake2s s;

	memset(id, 0, sizeof(*id));
	id->upcall = *upcall;
	cw_blake2s(id->initial_chaining_key, NOISE_HASH_LEN, (const uint8_t *)NOISE_CONSTRUCTION,
		   NOISE_CONSTRUCTION_LEN, NULL, 0);
	cw_blake2s_init(&s, NOISE_HASH_LEN, NULL, 0);
	cw_blake2s_update(&s, id->initial_chaining_key, NOISE_HASH_LEN);
	cw_blake2s_update(&s, (const uint8_t *)NOISE_IDENTIFIER, NOISE_IDENTIFIER_LEN);
	cw_blake2s_final(&s, id->initial_hash);
}

int wg_noise_identity_set_private(struct wg_noise_identity *id,
				  const uint8_t priv[NOISE_PRIVATE_KEY_LEN])
{
	if (cw_is_zero(priv, NOISE_PRIVATE_KEY_LEN)) {
		wg_noise_identity_clear(id);
		return -EINVAL;
	}
	memcpy(id->static_private, priv, NOISE_PRIVATE_KEY_LEN);
	cw_x25519_clamp(id->static_private);
	id->has_identity = cw_x25519_public(id->static_public, id->static_private);
	if (!id->has_identity) {
		wg_noise_identity_clear(id);
		return -EINVAL;
	}
	wg_cookie_keys_init(&id->cookie_keys, id->static_public);
	return 0;
}

void wg_noise_identity_clear(struct wg_noise_identity *id)
{
	cw_memzero(id->static_private, sizeof(id->static_private));
	cw_memzero(id->static_public, sizeof(id->static_public));
	cw_memzero(&id->cookie_keys, sizeof(id->cookie_keys));
	id->has_identity = false;
}

void wg_noise_remote_init(struct wg_noise_remote *r, struct wg_noise_identity *local,
			  const uint8_t pub[NOISE_PUBLIC_KEY_LEN],
			  const uint8_t psk[NOISE_SYMMETRIC_KEY_LEN])
{
	memset(r, 0, sizeof(*r));
	r->local = local;
	memcpy(r->remote_static, pub, NOISE_PUBLIC_KEY_LEN);
	if (psk)
		memcpy(r->preshared_key, psk, NOISE_SYMMETRIC_KEY_LEN);
	wg_cookie_maker_init(&r->cookie, pub);
	wg_noise_remote_precompute(r);
}

void wg_noise_remote_set_psk(struct wg_noise_remote *r, const uint8_t psk[NOISE_SYMMETRIC_KEY_LEN])
{
	if (psk)
		memcpy(r->preshared_key, psk, NOISE_SYMMETRIC_KEY_LEN);
	else
		cw_memzero(r->preshared_key, NOISE_SYMMETRIC_KEY_LEN);
}

void wg_noise_remote_precompute(struct wg_noise_remote *r)
{
	const struct wg_noise_identity *id = r->local;

	if (!id->has_identity ||
	    !cw_x25519(r->precomputed_static_static, id->static_private, r->remote_static))
		cw_memzero(r->precomputed_static_static, NOISE_PUBLIC_KEY_LEN);
	handshake_clear(r);
}

static void keypair_free(struct wg_noise_remote *r, struct wg_keypair *kp)
{
	const struct wg_noise_upcall *u = &r->local->upcall;

	if (!kp)
		return;
	u->index_drop(u->arg, kp->local_index);
	wg_keypair_clear(kp);
}

void wg_noise_remote_clear(struct wg_noise_remote *r)
{
	handshake_clear(r);
	keypair_free(r, r->next);
	keypair_free(r, r->current);
	keypair_free(r, r->previous);
	r->next = r->current = r->previous = NULL;
}

void wg_noise_remote_expire_current(struct wg_noise_remote *r)
{
	handshake_clear(r);
	if (r->next)
		r->next->send_valid = false;
	if (r->current)
		r->current->send_valid = false;
}

void wg_noise_remote_deinit(struct wg_noise_remote *r)
{
	wg_noise_remote_clear(r);
	wg_cookie_maker_deinit(&r->cookie);
	cw_memzero(r, sizeof(*r));
}

int wg_noise_create_initiation(struct wg_noise_remote *r, struct message_handshake_initiation *dst,
			       const struct wg_walltime *wall, const struct wg_rng *rng,
			       uint64_t now_ns)
{
	const struct wg_noise_identity *id = r->local;
	struct wg_noise_handshake *hs = &r->handshake;
	uint8_t timestamp[NOISE_TIMESTAMP_LEN];
	uint8_t key[NOISE_SYMMETRIC_KEY_LEN];
	int ret = -ENOKEY;

	handshake_clear(r);
	if (!id->has_identity)
		goto out;
	memset(dst, 0, sizeof(*dst));
	wg_message_header_set(&dst->header, MESSAGE_HANDSHAKE_INITIATION);
	handshake_init(id, hs->chaining_key, hs->hash, r->remote_static);

	/* e */
	if (!make_ephemeral(hs->ephemeral_private, dst->unencrypted_ephemeral, rng))
		goto fail;
	message_ephemeral(dst->unencrypted_ephemeral, dst->unencrypted_ephemeral, hs->chaining_key,
			  hs->hash);
	/* es */
	if (!mix_dh(hs->chaining_key, key, hs->ephemeral_private, r->remote_static))
		goto fail;
	/* s */
	message_encrypt(dst->encrypted_static, id->static_public, NOISE_PUBLIC_KEY_LEN, key,
			hs->hash);
	/* ss */
	if (!mix_precomputed_dh(hs->chaining_key, key, r->precomputed_static_static))
		goto fail;
	/* {t} */
	cw_tai64n_encode(timestamp, wall->sec,
			 wall->nsec & ~((1U << TIMESTAMP_NSEC_ROUND_BITS) - 1));
	message_encrypt(dst->encrypted_timestamp, timestamp, NOISE_TIMESTAMP_LEN, key, hs->hash);

	ret = handshake_index_new(r);
	if (ret)
		goto fail;
	wg_put_le32(dst->sender_index, hs->local_index);
	hs->state = HANDSHAKE_CREATED_INITIATION;
	wg_cookie_add_macs(&r->cookie, (uint8_t *)dst, sizeof(*dst), now_ns);
	goto out;
fail:
	handshake_clear(r);
out:
	cw_memzero(key, sizeof(key));
	cw_memzero(timestamp, sizeof(timestamp));
	return ret;
}

/* Replay and flood checks of an authentic initiation (Linux noise.c). */
static enum wg_noise_verdict initiation_is_fresh(const struct wg_noise_remote *r,
						 const uint8_t t[NOISE_TIMESTAMP_LEN],
						 uint64_t now_ns)
{
	if (!cw_tai64n_after(t, r->latest_timestamp))
		return NOISE_REPLAYED;
	if (r->has_consumed_initiation && !wg_clock_has_expired(r->last_initiation_consumption_ns,
								INITIATION_MIN_INTERVAL_NS, now_ns))
		return NOISE_FLOOD;
	return NOISE_OK;
}

/* The accepted initiation becomes the peer's handshake. */
static void initiation_accept(struct wg_noise_remote *r, const uint8_t e[NOISE_PUBLIC_KEY_LEN],
			      const uint8_t t[NOISE_TIMESTAMP_LEN],
			      const uint8_t ck[NOISE_HASH_LEN], const uint8_t hash[NOISE_HASH_LEN],
			      uint32_t sender_index, uint64_t now_ns)
{
	struct wg_noise_handshake *hs = &r->handshake;

	handshake_clear(r);
	memcpy(hs->remote_ephemeral, e, NOISE_PUBLIC_KEY_LEN);
	memcpy(hs->chaining_key, ck, NOISE_HASH_LEN);
	memcpy(hs->hash, hash, NOISE_HASH_LEN);
	hs->remote_index = sender_index;
	hs->state = HANDSHAKE_CONSUMED_INITIATION;
	memcpy(r->latest_timestamp, t, NOISE_TIMESTAMP_LEN);
	r->last_initiation_consumption_ns = now_ns;
	r->has_consumed_initiation = true;
}

enum wg_noise_verdict wg_noise_consume_initiation(struct wg_noise_identity *id,
						  const struct message_handshake_initiation *src,
						  uint64_t now_ns, struct wg_noise_remote **remote)
{
	enum wg_noise_verdict ret = NOISE_NO_IDENTITY;
	struct wg_noise_remote *r;
	uint8_t key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t ck[NOISE_HASH_LEN];
	uint8_t hash[NOISE_HASH_LEN];
	uint8_t s[NOISE_PUBLIC_KEY_LEN];
	uint8_t e[NOISE_PUBLIC_KEY_LEN];
	uint8_t t[NOISE_TIMESTAMP_LEN];

	if (!id->has_identity)
		goto out;
	ret = NOISE_INVALID;
	handshake_init(id, ck, hash, id->static_public);

	/* e */
	message_ephemeral(e, src->unencrypted_ephemeral, ck, hash);
	/* es */
	if (!mix_dh(ck, key, id->static_private, e))
		goto out;
	/* s */
	if (!message_decrypt(s, src->encrypted_static, sizeof(src->encrypted_static), key, hash))
		goto out;
	r = id->upcall.remote_get(id->upcall.arg, s);
	if (!r) {
		ret = NOISE_UNKNOWN_PEER;
		goto out;
	}
	/* ss */
	if (!mix_precomputed_dh(ck, key, r->precomputed_static_static))
		goto out;
	/* {t} */
	if (!message_decrypt(t, src->encrypted_timestamp, sizeof(src->encrypted_timestamp), key,
			     hash))
		goto out;

	ret = initiation_is_fresh(r, t, now_ns);
	if (ret != NOISE_OK)
		goto out;
	initiation_accept(r, e, t, ck, hash, wg_le32(src->sender_index), now_ns);
	*remote = r;
out:
	cw_memzero(key, sizeof(key));
	cw_memzero(ck, sizeof(ck));
	cw_memzero(hash, sizeof(hash));
	cw_memzero(s, sizeof(s));
	cw_memzero(e, sizeof(e));
	cw_memzero(t, sizeof(t));
	return ret;
}

int wg_noise_create_response(struct wg_noise_remote *r, struct message_handshake_response *dst,
			     const struct wg_rng *rng, uint64_t now_ns)
{
	struct wg_noise_handshake *hs = &r->handshake;
	uint8_t key[NOISE_SYMMETRIC_KEY_LEN];
	int ret = -EINVAL;

	if (!r->local->has_identity || hs->state != HANDSHAKE_CONSUMED_INITIATION)
		goto out;
	ret = -ENOKEY;
	memset(dst, 0, sizeof(*dst));
	wg_message_header_set(&dst->header, MESSAGE_HANDSHAKE_RESPONSE);
	wg_put_le32(dst->receiver_index, hs->remote_index);

	/* e */
	if (!make_ephemeral(hs->ephemeral_private, dst->unencrypted_ephemeral, rng))
		goto fail;
	message_ephemeral(dst->unencrypted_ephemeral, dst->unencrypted_ephemeral, hs->chaining_key,
			  hs->hash);
	/* ee */
	if (!mix_dh(hs->chaining_key, NULL, hs->ephemeral_private, hs->remote_ephemeral))
		goto fail;
	/* se */
	if (!mix_dh(hs->chaining_key, NULL, hs->ephemeral_private, r->remote_static))
		goto fail;
	/* psk */
	mix_psk(hs->chaining_key, hs->hash, key, r->preshared_key);
	/* {} */
	message_encrypt(dst->encrypted_nothing, dst->encrypted_nothing, 0, key, hs->hash);

	ret = handshake_index_new(r);
	if (ret)
		goto fail;
	wg_put_le32(dst->sender_index, hs->local_index);
	hs->state = HANDSHAKE_CREATED_RESPONSE;
	wg_cookie_add_macs(&r->cookie, (uint8_t *)dst, sizeof(*dst), now_ns);
	goto out;
fail:
	handshake_clear(r);
out:
	cw_memzero(key, sizeof(key));
	return ret;
}

enum wg_noise_verdict wg_noise_consume_response(struct wg_noise_remote *r,
						const struct message_handshake_response *src)
{
	const struct wg_noise_identity *id = r->local;
	struct wg_noise_handshake *hs = &r->handshake;
	enum wg_noise_verdict ret = NOISE_NO_IDENTITY;
	uint8_t key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t ck[NOISE_HASH_LEN];
	uint8_t hash[NOISE_HASH_LEN];
	uint8_t e[NOISE_PUBLIC_KEY_LEN];
	uint8_t nothing[1];

	if (!id->has_identity)
		goto out;
	ret = NOISE_UNEXPECTED;
	if (hs->state != HANDSHAKE_CREATED_INITIATION || !hs->has_local_index ||
	    hs->local_index != wg_le32(src->receiver_index))
		goto out;
	/* Work on copies: a forged response must not spoil the handshake in flight. */
	ret = NOISE_INVALID;
	memcpy(ck, hs->chaining_key, sizeof(ck));
	memcpy(hash, hs->hash, sizeof(hash));

	/* e */
	message_ephemeral(e, src->unencrypted_ephemeral, ck, hash);
	/* ee */
	if (!mix_dh(ck, NULL, hs->ephemeral_private, e))
		goto out;
	/* se */
	if (!mix_dh(ck, NULL, id->static_private, e))
		goto out;
	/* psk */
	mix_psk(ck, hash, key, r->preshared_key);
	/* {} */
	if (!message_decrypt(nothing, src->encrypted_nothing, sizeof(src->encrypted_nothing), key,
			     hash))
		goto out;

	memcpy(hs->remote_ephemeral, e, NOISE_PUBLIC_KEY_LEN);
	memcpy(hs->chaining_key, ck, NOISE_HASH_LEN);
	memcpy(hs->hash, hash, NOISE_HASH_LEN);
	hs->remote_index = wg_le32(src->sender_index);
	hs->state = HANDSHAKE_CONSUMED_RESPONSE;
	ret = NOISE_OK;
out:
	cw_memzero(key, sizeof(key));
	cw_memzero(ck, sizeof(ck));
	cw_memzero(hash, sizeof(hash));
	cw_memzero(e, sizeof(e));
	return ret;
}

static struct wg_keypair *keypair_slot(struct wg_noise_remote *r)
{
	size_t i;

	for (i = 0; i < WG_ARRAY_SIZE(r->keypairs); i++)
		if (!r->keypairs[i].in_use)
			return &r->keypairs[i];
	return NULL;
}

/*
 * Makes room for a new keypair as the paper's rotation wants it. The initiator's keypair is
 * confirmed by the response, so it becomes current at once: a pending next (unconfirmed)
 * keypair moves to previous and the old current goes, or else current moves to previous.
 * The responder's keypair waits as next until the initiator's first data message: the old
 * next and the previous go.
 */
static void rotate_for_new(struct wg_noise_remote *r, bool initiator)
{
	struct wg_keypair *old_previous = r->previous;

	if (initiator) {
		if (r->next) {
			r->previous = r->next;
			r->next = NULL;
			keypair_free(r, r->current);
		} else {
			r->previous = r->current;
		}
		r->current = NULL;
	} else {
		keypair_free(r, r->next);
		r->next = NULL;
		r->previous = NULL;
	}
	keypair_free(r, old_previous);
}

int wg_noise_begin_session(struct wg_noise_remote *r, uint64_t now_ns)
{
	struct wg_noise_handshake *hs = &r->handshake;
	const struct wg_noise_upcall *u = &r->local->upcall;
	uint8_t first[NOISE_SYMMETRIC_KEY_LEN], second[NOISE_SYMMETRIC_KEY_LEN];
	struct wg_keypair fresh = {0}, *kp;
	bool initiator;
	int err;

	if ((hs->state != HANDSHAKE_CREATED_RESPONSE && hs->state != HANDSHAKE_CONSUMED_RESPONSE) ||
	    !hs->has_local_index)
		return -EINVAL;
	initiator = hs->state == HANDSHAKE_CONSUMED_RESPONSE;
	/* T_send, T_recv = KDF2(ck, empty): the initiator sends with the first. The keys and
	 * their contexts are made before the rotation, so that a failure changes nothing. */
	cw_kdf(first, second, NULL, hs->hash, 0, hs->chaining_key);
	err = initiator ? wg_keypair_set_keys(&fresh, first, second)
			: wg_keypair_set_keys(&fresh, second, first);
	cw_memzero(first, sizeof(first));
	cw_memzero(second, sizeof(second));
	if (err)
		return err;
	rotate_for_new(r, initiator);
	kp = keypair_slot(r); /* three slots: the rotation always leaves one free */
	if (!kp) {
		wg_keypair_clear(&fresh);
		return -ENOSPC;
	}
	wg_keypair_clear(kp);
	*kp = fresh; /* kp owns the contexts now */
	cw_memzero(&fresh, sizeof(fresh));
	kp->remote = r;
	kp->in_use = true;
	kp->i_am_the_initiator = initiator;
	wg_replay_init(&kp->replay);
	kp->birthdate_ns = now_ns;
	kp->send_valid = kp->recv_valid = true;
	kp->local_index = hs->local_index;
	kp->remote_index = hs->remote_index;
	if (initiator)
		r->current = kp;
	else
		r->next = kp;
	/* The handshake's index now names the keypair. */
	u->index_replace(u->arg, hs->local_index, kp);
	hs->has_local_index = false;
	handshake_clear(r);
	return 0;
}

bool wg_noise_received_with_keypair(struct wg_noise_remote *r, struct wg_keypair *kp)
{
	if (!kp || kp != r->next)
		return false;
	keypair_free(r, r->previous);
	r->previous = r->current;
	r->current = r->next;
	r->next = NULL;
	return true;
}

struct wg_keypair *wg_noise_keypair_for_send(struct wg_noise_remote *r, uint64_t now_ns)
{
	return wg_keypair_can_send(r->current, now_ns) ? r->current : NULL;
}
