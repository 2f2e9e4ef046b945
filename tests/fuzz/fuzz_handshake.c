/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for every handshake message a peer can send us: the bytes go through
 * the type check, the mac check (with and without a cookie demanded), then noise or the
 * cookie maker. Each run starts from the same state: an initiator "a" that has just sent a
 * (deterministic) initiation to a responder "b", so that the seed corpus, made from that
 * exchange, reaches the code behind every AEAD.
 *
 * Building with -DFUZZ_WRITE_SEEDS instead gives a program that writes the seeds:
 *   clang -DFUZZ_WRITE_SEEDS -I. tests/fuzz/fuzz_handshake.c <core and crypto sources> -lsodium
 *   ./a.out tests/fuzz/corpus/fuzz_handshake
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/cookie.h"
#include "src/core/noise.h"
#include "tests/support/det_rng.h"

enum { SLOTS = 8, T0_NS = 3600 * WG_NSEC_PER_SEC };

struct side {
	struct wg_noise_identity id;
	struct wg_noise_remote peer;
	struct wg_cookie_checker checker;
	struct det_rng drng;
	struct wg_rng rng;
	uint32_t index[SLOTS];
	struct wg_keypair *kp[SLOTS];
	bool used[SLOTS];
};

static struct side a, b;
static const struct wg_walltime wall = {.sec = 1700000000, .nsec = 0};
static const struct wg_src_addr src = {WG_ADDR_IPV4, {203, 0, 113, 9}, 51820};
static struct message_handshake_initiation a_init; /* what a sent to b */

static struct wg_noise_remote *remote_get(void *arg, const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	struct side *s = arg;

	return cw_ct_equal(pub, s->peer.remote_static, NOISE_PUBLIC_KEY_LEN) ? &s->peer : NULL;
}

static int index_alloc(void *arg, struct wg_noise_remote *r, uint32_t *index)
{
	struct side *s = arg;

	(void)r;
	for (int i = 0; i < SLOTS; i++) {
		if (!s->used[i]) {
			s->used[i] = true;
			s->kp[i] = NULL;
			s->index[i] = *index = wg_rng_u32(&s->rng);
			return 0;
		}
	}
	return -1;
}

static int slot_of(struct side *s, uint32_t index)
{
	for (int i = 0; i < SLOTS; i++)
		if (s->used[i] && s->index[i] == index)
			return i;
	abort(); /* noise named an index it never got */
}

static void index_replace(void *arg, uint32_t index, struct wg_keypair *kp)
{
	struct side *s = arg;

	s->kp[slot_of(s, index)] = kp;
}

static void index_drop(void *arg, uint32_t index)
{
	struct side *s = arg;

	s->used[slot_of(s, index)] = false;
}

static void side_init(struct side *s, uint64_t seed)
{
	const struct wg_noise_upcall up = {s, remote_get, index_alloc, index_replace, index_drop};
	uint8_t priv[NOISE_PRIVATE_KEY_LEN];

	memset(s, 0, sizeof(*s));
	s->drng.state = seed;
	s->rng = det_rng_as_wg(&s->drng);
	wg_noise_identity_init(&s->id, &up);
	wg_rng_fill(&s->rng, priv, sizeof(priv));
	if (wg_noise_identity_set_private(&s->id, priv))
		abort();
	wg_cookie_checker_init(&s->checker, &s->id.cookie_keys, NULL, &s->rng, T0_NS);
}

/*
 * The same starting point for every input: built once, then restored by copy (the copies go
 * back to the same addresses, so the pointers inside them stay right).
 */
static void reset(void)
{
	static struct side a0, b0;
	static bool built;

	if (built) {
		/* Free the sessions the last input made (their AEAD contexts are allocated
		 * with OpenSSL) before the sides go back to their snapshot. */
		wg_noise_remote_clear(&a.peer);
		wg_noise_remote_clear(&b.peer);
		a = a0;
		b = b0;
		return;
	}
	side_init(&a, 1);
	side_init(&b, 2);
	wg_noise_remote_init(&a.peer, &a.id, b.id.static_public, NULL);
	wg_noise_remote_init(&b.peer, &b.id, a.id.static_public, NULL);
	if (wg_noise_create_initiation(&a.peer, &a_init, &wall, &a.rng, T0_NS))
		abort();
	a0 = a;
	b0 = b;
	built = true;
}

static void on_initiation(const uint8_t *data, size_t size)
{
	struct message_handshake_initiation msg;
	struct message_handshake_response resp;
	struct wg_noise_remote *r = NULL;

	memcpy(&msg, data, sizeof(msg));
	(void)wg_cookie_validate(&b.checker, data, size, true, &src, T0_NS);
	if (wg_cookie_validate(&b.checker, data, size, false, &src, T0_NS) == INVALID_MAC)
		return;
	if (wg_noise_consume_initiation(&b.id, &msg, T0_NS, &r) != NOISE_OK)
		return;
	if (r != &b.peer || wg_noise_create_response(r, &resp, &b.rng, T0_NS) ||
	    wg_noise_begin_session(r, T0_NS) || !r->next)
		abort();
}

static void on_response(const uint8_t *data, size_t size)
{
	struct message_handshake_response msg;

	memcpy(&msg, data, sizeof(msg));
	if (wg_cookie_validate(&a.checker, data, size, false, &src, T0_NS) == INVALID_MAC)
		return;
	if (wg_noise_consume_response(&a.peer, &msg) != NOISE_OK)
		return;
	if (wg_noise_begin_session(&a.peer, T0_NS) || !a.peer.current)
		abort();
}

static void on_cookie(const uint8_t *data)
{
	struct message_handshake_cookie msg;
	struct message_handshake_initiation again;

	memcpy(&msg, data, sizeof(msg));
	if (wg_cookie_maker_consume_reply(&a.peer.cookie, &msg, T0_NS))
		return;
	if (wg_noise_create_initiation(&a.peer, &again, &wall, &a.rng, T0_NS) ||
	    cw_is_zero(again.macs.mac2, COOKIE_LEN))
		abort(); /* a taken cookie must show up as mac2 */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reset();
	switch (wg_message_type(data, size)) {
	case MESSAGE_HANDSHAKE_INITIATION:
		on_initiation(data, size);
		break;
	case MESSAGE_HANDSHAKE_RESPONSE:
		on_response(data, size);
		break;
	case MESSAGE_HANDSHAKE_COOKIE:
		on_cookie(data);
		break;
	default:
		break;
	}
	return 0;
}

#ifdef FUZZ_WRITE_SEEDS
#include "tests/support/fuzz_seed.h"

int main(int argc, char **argv)
{
	struct message_handshake_response resp;
	struct message_handshake_cookie cookie;
	struct wg_noise_remote *r = NULL;

	if (argc != 2)
		return 2;
	reset();
	fuzz_seed_write(argv[1], "initiation", &a_init, sizeof(a_init));
	if (wg_noise_consume_initiation(&b.id, &a_init, T0_NS, &r) != NOISE_OK ||
	    wg_noise_create_response(r, &resp, &b.rng, T0_NS))
		abort();
	fuzz_seed_write(argv[1], "response", &resp, sizeof(resp));
	wg_cookie_reply_create(&b.checker, &cookie, (const uint8_t *)&a_init, sizeof(a_init),
			       wg_le32(a_init.sender_index), &src, T0_NS);
	fuzz_seed_write(argv[1], "cookie", &cookie, sizeof(cookie));
	return 0;
}
#endif
