/* SPDX-License-Identifier: GPL-2.0-only */
/* The text outputs of `cakewg show`, as wireguard-tools' show.c prints them. */
#ifndef CAKEWG_TOOLS_CAKEWG_SHOW_PRINT_H
#define CAKEWG_TOOLS_CAKEWG_SHOW_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/devconf.h"
#include "tools/cakewg/show_device.h"

struct show_style {
	bool color;	  /* WG_COLOR_MODE, else whether stdout is a terminal */
	bool reveal_keys; /* WG_HIDE_KEYS=never */
	int64_t now_sec;  /* wall clock, for "latest handshake: ... ago" */
};

/* The style wg would use now, from the environment and stdout. */
void show_style_init(struct show_style *st);

/* The human-readable block (sorts the peers first, as wg does), CAKE section included. */
void show_pretty(struct show_device *dev, const struct show_style *st);

/* One of wg's machine-readable fields ("public-key" ... "dump"), tab-separated and
 * prefixed with the interface name when with_interface. False for an unknown field
 * (nothing printed). */
bool show_field(const struct show_device *dev, const char *field, bool with_interface);

/* The base64 form of key into b64 (WG_ENCODING_KEY_B64_SIZE bytes), returned. */
const char *show_key(char *b64, const uint8_t key[static WG_ENCODING_KEY_LEN]);

#endif
