/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The value types of the key table (conf_keys.h), for conf_keys.c's rows: wg's values in
 * conf_values.c, the lists (allowed IPs, wg-quick's Address, DNS and hooks) and wg-quick's
 * scalars in conf_lists.c.
 */
#ifndef CAKEWG_SRC_CORE_CONF_VALUES_H
#define CAKEWG_SRC_CORE_CONF_VALUES_H

#include "src/core/conf_keys.h"

extern const struct wg_conf_type wg_conf_type_key;
extern const struct wg_conf_type wg_conf_type_port;
extern const struct wg_conf_type wg_conf_type_fwmark;
extern const struct wg_conf_type wg_conf_type_keepalive;
extern const struct wg_conf_type wg_conf_type_endpoint;
extern const struct wg_conf_type wg_conf_type_endpoint_host;
extern const struct wg_conf_type wg_conf_type_cake;
extern const struct wg_conf_type wg_conf_type_underlay_limit;
extern const struct wg_conf_type wg_conf_type_ipaddr;
extern const struct wg_conf_type wg_conf_type_true;
extern const struct wg_conf_type wg_conf_type_replace;
extern const struct wg_conf_type wg_conf_type_protocol_version;
extern const struct wg_conf_type wg_conf_type_counter;
extern const struct wg_conf_type wg_conf_type_time;

extern const struct wg_conf_type wg_conf_type_allowedips;
extern const struct wg_conf_type wg_conf_type_address;
extern const struct wg_conf_type wg_conf_type_dns;
extern const struct wg_conf_type wg_conf_type_mtu;
extern const struct wg_conf_type wg_conf_type_table;
extern const struct wg_conf_type wg_conf_type_bool;
extern const struct wg_conf_type wg_conf_type_hook;

/* Shared by the type files. */
void *wg_conf_field(const struct wg_conf_key *k, const struct wg_conf_target *t);
int wg_conf_fail(struct wg_conf_result *r, int err, const char *at, size_t len);
void wg_conf_put(struct wg_devconf_buf *out, const struct wg_conf_key *k, enum wg_conf_surface s,
		 const char *value);
bool wg_conf_file_writable(const char *s, bool hash_ok);

#endif
