/* SPDX-License-Identifier: GPL-2.0-only */
/* The send path's entry points shared with the receive path and configuration. */
#ifndef CAKEWG_SRC_CORE_SEND_H
#define CAKEWG_SRC_CORE_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wg_device;
struct wg_peer;

/* Sends a handshake or keepalive message to the peer now, counted in its transfer. */
void wg_device_send_control(struct wg_device *dev, struct wg_peer *peer, const uint8_t *msg,
			    size_t len);
/* Sends an initiation unless one went out less than REKEY_TIMEOUT ago. */
void wg_device_send_initiation(struct wg_device *dev, struct wg_peer *peer, bool is_retry,
			       uint64_t now_ns);
/* Sends an empty data message (or starts a handshake when no session exists). */
void wg_device_send_keepalive(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns);
/* Files the peer in the timer queue under its earliest deadline: call it after any
 * wg_timers_event_*() or wg_timers_run() on the peer. O(1) when that did not move. */
void wg_device_timers_update(struct wg_device *dev, struct wg_peer *peer);
/* Moves staged packets to the egress queue once the peer has a session. */
void wg_device_flush_staged(struct wg_device *dev, struct wg_peer *peer, uint64_t now_ns);

#endif
