/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When to resolve a peer's endpoint host name again: wireguard-tools'
 * contrib/reresolve-dns.sh rule, run by the daemon itself. A name is looked up again when
 * the peer's latest handshake is older than WG_RERESOLVE_AFTER_NS (135 s: a handshake
 * every REKEY_AFTER_TIME, 120 s, plus REKEY_TIMEOUT and some slack, so a working peer is
 * never asked about) and the last lookup of it is as old, so a peer that stays silent
 * has its name looked up once per period; a network change asks at once. A lookup that
 * fails is retried on src/core/backoff.h's schedule (1 s doubling to 60 s) for as long
 * as the handshake stays old: it never gives up, and the endpoint in use stays.
 *
 * One lookup per name is in flight at a time. Pure: the caller passes the time, and the
 * period (the daemon's test hook shortens it).
 */
#ifndef CAKEWG_SRC_CORE_RERESOLVE_H
#define CAKEWG_SRC_CORE_RERESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/backoff.h"
#include "src/core/clock.h"

#define WG_RERESOLVE_AFTER_NS (135 * WG_NSEC_PER_SEC)

struct wg_reresolve {
	uint64_t resolved_ns;	/* the name was set or last resolved then */
	struct wg_backoff backoff; /* while lookups fail */
	bool in_flight;
	bool forced; /* a network change: due at once */
	uint64_t lookups, failures, changes; /* counters for cakewg_get=1 */
};

/* A name set at now_ns (resolved then, or to be resolved at once when !resolved). */
void wg_reresolve_init(struct wg_reresolve *r, uint64_t now_ns, bool resolved);

/*
 * When the next lookup is due: UINT64_MAX while one is in flight, else the time (at or
 * before now means now). last_handshake_ns is the peer's latest handshake, 0 for none;
 * after_ns the period (WG_RERESOLVE_AFTER_NS unless a test shortens it).
 */
uint64_t wg_reresolve_due_ns(const struct wg_reresolve *r, uint64_t last_handshake_ns,
			     uint64_t after_ns);

/* A network change: the next lookup is due at once, whatever the backoff says. */
void wg_reresolve_network_changed(struct wg_reresolve *r);

/* True when a lookup is due at now_ns; then it counts as started (in flight). */
bool wg_reresolve_start(struct wg_reresolve *r, uint64_t now_ns, uint64_t last_handshake_ns,
			uint64_t after_ns);

/* The lookup failed. True for the first failure of a run: log it (and only it). */
bool wg_reresolve_failed(struct wg_reresolve *r, uint64_t now_ns);

/* The lookup answered; changed: to another address than the one in use. True when it
 * ends a run of failures: log the recovery. */
bool wg_reresolve_succeeded(struct wg_reresolve *r, uint64_t now_ns, bool changed);

#endif
