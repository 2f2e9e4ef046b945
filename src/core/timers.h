/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-peer protocol timers as a pure state machine (Linux drivers/net/wireguard/timers.c,
 * with the kernel timers replaced by deadlines). The datapath reports what happened through
 * wg_timers_event_*(); the loop sleeps until wg_timers_next_deadline() and then calls
 * wg_timers_run(), which returns what to do now as a set of enum wg_timers_action bits.
 * Nothing here sends, logs or reads a clock.
 *
 * The five timers (deadlines in monotonic ns, 0 = disarmed):
 * - retransmit handshake: REKEY_TIMEOUT + jitter after an initiation is sent, unless the
 *   handshake completes. It fires at most MAX_TIMER_HANDSHAKES + 1 times in a row; the
 *   next expiry gives up (MAX_TIMER_HANDSHAKES + 2 initiations in all, about 100 s).
 * - send keepalive: KEEPALIVE_TIMEOUT after data is received, if nothing was sent since.
 * - new handshake: KEEPALIVE_TIMEOUT + REKEY_TIMEOUT + jitter after data is sent, if
 *   nothing was received since.
 * - zero key material: 3 * REJECT_AFTER_TIME after the last session was derived.
 * - persistent keepalive: the user's interval after any authenticated packet in either
 *   direction.
 * Jitter is uniform in [0, REKEY_TIMEOUT_JITTER_MAX_NS) and comes from struct wg_rng.
 */
#ifndef CAKEWG_SRC_CORE_TIMERS_H
#define CAKEWG_SRC_CORE_TIMERS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/compiler.h"
#include "src/core/rng.h"

enum wg_timers_id {
	WG_TIMER_RETRANSMIT_HANDSHAKE,
	WG_TIMER_SEND_KEEPALIVE,
	WG_TIMER_NEW_HANDSHAKE,
	WG_TIMER_ZERO_KEY_MATERIAL,
	WG_TIMER_PERSISTENT_KEEPALIVE,
	WG_TIMER_COUNT,
};

/* What wg_timers_run() asks the caller to do; several may come at once. */
enum wg_timers_action {
	/* Send an initiation again: the last one went unanswered (Linux is_retry = true). */
	WG_TIMERS_RETRY_HANDSHAKE = 1U << 0,
	/* Send a fresh initiation: data went out and nothing came back (is_retry = false). */
	WG_TIMERS_NEW_HANDSHAKE = 1U << 1,
	/* Forget the cached local source address of the endpoint (it may be the trouble). */
	WG_TIMERS_CLEAR_ENDPOINT_SRC = 1U << 2,
	/* Send an empty data packet: we received data and had nothing to answer with. */
	WG_TIMERS_SEND_KEEPALIVE = 1U << 3,
	/* Send an empty data packet: the persistent-keepalive interval passed quietly. */
	WG_TIMERS_SEND_PERSISTENT_KEEPALIVE = 1U << 4,
	/* Wipe the handshake state and every keypair of the peer. */
	WG_TIMERS_ZERO_KEY_MATERIAL = 1U << 5,
	/* The handshake failed for good: drop the packets staged for it. */
	WG_TIMERS_GIVE_UP = 1U << 6,

	/* Either reason to send an initiation (the sender's rate limit still applies). */
	WG_TIMERS_SEND_HANDSHAKE = WG_TIMERS_RETRY_HANDSHAKE | WG_TIMERS_NEW_HANDSHAKE,
	/* Either reason to send a keepalive. */
	WG_TIMERS_SEND_ANY_KEEPALIVE =
		WG_TIMERS_SEND_KEEPALIVE | WG_TIMERS_SEND_PERSISTENT_KEEPALIVE,
};

struct wg_timers {
	uint64_t deadline_ns[WG_TIMER_COUNT]; /* indexed by enum wg_timers_id; 0 = disarmed */
	uint64_t last_handshake_ns;	      /* when the last handshake completed; 0 = never */
	unsigned int handshake_attempts;      /* retransmissions of the current handshake */
	uint16_t persistent_keepalive_interval_secs; /* 0 = off */
	bool need_another_keepalive;
	/*
	 * Set by the receive path when it starts a handshake because the current keypair is
	 * about to expire (Linux keep_key_fresh on receive); cleared when a handshake
	 * completes.
	 */
	bool sent_lastminute_handshake;
};

void wg_timers_init(struct wg_timers *t);
/* Disarms every timer (peer removed, device down); the interval setting stays. */
void wg_timers_stop(struct wg_timers *t);

/* After an authenticated data packet (not a keepalive) is sent. */
void wg_timers_event_data_sent(struct wg_timers *t, uint64_t now_ns, const struct wg_rng *rng);
/* After an authenticated data packet (not a keepalive) is received. */
void wg_timers_event_data_received(struct wg_timers *t, uint64_t now_ns);
/* After any authenticated packet is sent: keepalive, data or handshake. */
void wg_timers_event_any_authenticated_packet_sent(struct wg_timers *t);
/* After any authenticated packet is received: keepalive, data or handshake. */
void wg_timers_event_any_authenticated_packet_received(struct wg_timers *t);
/* Before any authenticated packet is sent, or after one is received. */
void wg_timers_event_any_authenticated_packet_traversal(struct wg_timers *t, uint64_t now_ns);
/*
 * When the caller decides on its own to start a handshake (data waiting without a keypair,
 * a keypair due for rekeying): a fresh handshake, so the attempt count restarts. Timer-driven
 * retries do not call this.
 */
void wg_timers_event_handshake_requested(struct wg_timers *t);
/* After an initiation is sent. */
void wg_timers_event_handshake_initiated(struct wg_timers *t, uint64_t now_ns,
					 const struct wg_rng *rng);
/* After a response is consumed, or the first data packet confirms the responder's keys. */
void wg_timers_event_handshake_complete(struct wg_timers *t, uint64_t now_ns);
/* After a session's keys are derived (before sending a response, after consuming one). */
void wg_timers_event_session_derived(struct wg_timers *t, uint64_t now_ns);
/*
 * The user set the persistent-keepalive interval (0 = off). Returns the actions due now:
 * WG_TIMERS_SEND_PERSISTENT_KEEPALIVE when the setting turns on, as Linux sends one at once.
 */
WG_MUST_CHECK unsigned int wg_timers_event_persistent_keepalive_set(struct wg_timers *t,
								    uint16_t interval_secs);

/* The earliest armed deadline, or 0 if nothing is armed. */
uint64_t wg_timers_next_deadline(const struct wg_timers *t);

/*
 * Fires every timer due at now_ns, earliest first, and returns the union of their actions
 * (0 when nothing was due). Act on them in this order: ZERO_KEY_MATERIAL, GIVE_UP, then
 * sends. Sending then reports its own events (traversal, sent, handshake_initiated), which
 * re-arm what Linux's send path re-arms.
 */
WG_MUST_CHECK unsigned int wg_timers_run(struct wg_timers *t, uint64_t now_ns);

#endif
