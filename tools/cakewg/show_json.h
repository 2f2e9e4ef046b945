/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `cakewg show --json`: one interface as one JSON object. Never holds a private or a
 * preshared key.
 *
 *   {"interface":"wg0","public_key":"<base64>"|null,"listen_port":51820,"fwmark":0,
 *    "peers":[{"public_key":"<base64>","endpoint":"192.0.2.1:51820"|null,
 *              "allowed_ips":["10.0.0.2/32"],"latest_handshake":<unix seconds, 0: never>,
 *              "rx_bytes":0,"tx_bytes":0,"persistent_keepalive":<seconds, 0: off>}],
 *    "cake":null | {"egress":null | {"options":"<tc-cake options>","stats":<tc -j object>
 *                                     | null},
 *                   "ingress":(the same),"underlay_limit":<n> | null,
 *                   "underlay_drain_rate":<n> | null,"underlay_limit_setting":"auto" |
 *                   "off" | "<bytes>" | null, then "<json key>":<n> | null for every
 *                   device counter of src/core/counters.h that has a JSON key,
 *                   "peers":[{"public_key":"<base64>", and the same for every peer
 *                             counter with a JSON key ("egress_drops", ...)}]}}
 *
 * Peers keep the daemon's order. "cake" is null when the daemon does not speak the
 * extension.
 */
#ifndef CAKEWG_TOOLS_CAKEWG_SHOW_JSON_H
#define CAKEWG_TOOLS_CAKEWG_SHOW_JSON_H

#include "src/core/devconf.h"
#include "tools/cakewg/show_device.h"

void show_json(struct wg_devconf_buf *out, const struct show_device *dev);

#endif
