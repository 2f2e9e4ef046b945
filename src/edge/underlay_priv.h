/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals shared by underlay.c (data batches, receive) and underlay_ctl.c (the control
 * queue). Not part of the edge's API.
 */
#ifndef CAKEWG_SRC_EDGE_UNDERLAY_PRIV_H
#define CAKEWG_SRC_EDGE_UNDERLAY_PRIV_H

#include "src/edge/underlay.h"

/* Sends f's waiting control messages, oldest first: 0 when none are left, -EAGAIN when
 * the socket filled up (blocked_fd names it). */
int wg_underlay_ctl_flush(struct wg_underlay *u, enum wg_udp_family f);
/* Drops every waiting control message, counted (the sockets close or move). */
void wg_underlay_ctl_drop_all(struct wg_underlay *u);

#endif
