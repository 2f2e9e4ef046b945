/* SPDX-License-Identifier: GPL-2.0-only */
/* The key table: every configuration key once, and the walks over it (conf_keys.h). */
#include "src/core/conf_keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "src/core/compiler.h"
#include "src/core/conf_values.h"

#define DEV(f)	  offsetof(struct wg_devconf, f)
#define PEER(f)	  offsetof(struct wg_devconf_peer, f)
#define MSGS(...) ((const struct wg_conf_msg[]){__VA_ARGS__, {0, 0, NULL}})

/* wg's words, the same in a file and on `wg set`'s command line */
#define KEY_MSG	     "Key is not the correct length or format: `%v'"
#define SECRET_MSG   "Key is not the correct length or format: `<%n characters, not shown>'"
#define KEY_FILE_MSG "Key is not the correct length or format in key file: `%v'"
#define ADDR_MSG     "Unable to parse IP address: `%v'"
#define BOOL_MSG     "`%v' is neither true nor false"

/*
 * The order of the rows is the UAPI's (wireguard-tools' userspace_set_device, and
 * wireguard-go's IpcGetOperation for get), with cakewg's device keys ahead of wg's
 * (wireguard-go refuses them before it applied anything); a file is written in
 * file_pos order (wg-quick keys first, as wg-quick's save_config).
 */
const struct wg_conf_key wg_conf_keys[] = {
	/* [Interface]: wg-quick's keys */
	{.file = "Address",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK,
	 .type = &wg_conf_type_address,
	 .offset = DEV(addresses),
	 .file_pos = 1,
	 .msgs = MSGS(
		 {WG_CONF_E_ADDR, WG_CONF_FILE, ADDR_MSG},
		 {WG_CONF_E_CIDR, WG_CONF_FILE, "Address is not in the correct format: `%v'"})},
	{.file = "DNS",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK,
	 .type = &wg_conf_type_dns,
	 .offset = DEV(dns),
	 .file_pos = 2,
	 .msgs = MSGS(
		 {WG_CONF_E_DNS_ADDR, WG_CONF_FILE, "Unable to parse DNS server address: `%v'"},
		 {WG_CONF_E_DNS_NAME, WG_CONF_FILE,
		  "DNS search domain is not a valid name: `%v'"})},
	{.file = "MTU",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK,
	 .type = &wg_conf_type_mtu,
	 .offset = DEV(mtu),
	 .file_pos = 3,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE, "MTU is neither empty nor %r: `%v'"})},
	{.file = "Table",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK,
	 .type = &wg_conf_type_table,
	 .offset = DEV(table_mode),
	 .file_pos = 4,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE,
		       "Table is neither auto, off, main, local, default nor 1-4294967295: `%v'"})},
	{.file = "SaveConfig",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK,
	 .type = &wg_conf_type_bool,
	 .offset = DEV(save_config),
	 .file_pos = 5,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE, BOOL_MSG})},
	{.file = "PreUp",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_RAW,
	 .type = &wg_conf_type_hook,
	 .offset = DEV(pre_up),
	 .file_pos = 6},
	{.file = "PostUp",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_RAW,
	 .type = &wg_conf_type_hook,
	 .offset = DEV(post_up),
	 .file_pos = 7},
	{.file = "PreDown",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_RAW,
	 .type = &wg_conf_type_hook,
	 .offset = DEV(pre_down),
	 .file_pos = 8},
	{.file = "PostDown",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_RAW,
	 .type = &wg_conf_type_hook,
	 .offset = DEV(post_down),
	 .file_pos = 9},

	/* [Interface]: cakewg's keys, which `cakewg set` takes anywhere */
	{.file = "Cake",
	 .uapi = "cake",
	 .arg = "cake",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_CAKEWG | WG_CONF_KEY_ARG_ANYWHERE,
	 .type = &wg_conf_type_cake,
	 .offset = DEV(cake),
	 .file_pos = 10,
	 .arg_form = WG_CONF_ARG_WORDS,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_SET | WG_CONF_ARG, "%e"})},
	{.file = "CakeIngress",
	 .uapi = "cake_ingress",
	 .arg = "cake-ingress",
	 .arg_alias = "ingress",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_CAKEWG | WG_CONF_KEY_ARG_ANYWHERE,
	 .type = &wg_conf_type_cake,
	 .offset = DEV(cake_ingress),
	 .file_pos = 11,
	 .arg_form = WG_CONF_ARG_WORDS,
	 .off_word = WG_DEVCONF_CAKE_INGRESS_OFF,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_SET | WG_CONF_ARG, "%e"})},
	{.file = "UnderlayLimit",
	 .uapi = "underlay_limit",
	 .arg = "underlay-limit",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_CAKEWG | WG_CONF_KEY_ARG_ANYWHERE,
	 .type = &wg_conf_type_underlay_limit,
	 .offset = DEV(underlay_limit),
	 .has = WG_DEVCONF_HAS_UNDERLAY_LIMIT,
	 .file_pos = 12,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE,
		       "UnderlayLimit is neither auto, off nor %r bytes: `%v'"},
		      {WG_CONF_E_VALUE, WG_CONF_SET,
		       "failed to set underlay_limit: `%v' is neither auto, off nor %r bytes"},
		      {WG_CONF_E_VALUE, WG_CONF_ARG,
		       "Underlay limit is neither auto, off nor %r bytes: `%v'"})},
	{.file = "AutorateProbe",
	 .uapi = "autorate_probe",
	 .arg = "autorate-probe",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_CAKEWG | WG_CONF_KEY_ARG_ANYWHERE,
	 .type = &wg_conf_type_ipaddr,
	 .offset = DEV(autorate_probe),
	 .has = WG_DEVCONF_HAS_AUTORATE_PROBE,
	 .file_pos = 16,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE,
		       "AutorateProbe is neither off nor an IP address: `%v'"},
		      {WG_CONF_E_VALUE, WG_CONF_SET,
		       "failed to set autorate_probe: `%v' is neither off nor an IP address"},
		      {WG_CONF_E_VALUE, WG_CONF_ARG,
		       "Autorate probe is neither off nor an IP address: `%v'"})},

	{.file = "KillSwitch",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_CAKEWG,
	 .type = &wg_conf_type_bool,
	 .offset = DEV(kill_switch),
	 .file_pos = 17,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE, BOOL_MSG})},
	{.file = "KillSwitchAllowLAN",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE,
	 .out = WG_CONF_FILE,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_CAKEWG,
	 .type = &wg_conf_type_bool,
	 .offset = DEV(kill_switch_allow_lan),
	 .file_pos = 18,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE, BOOL_MSG})},

	/* [Interface]: wg's keys */
	{.file = "PrivateKey",
	 .uapi = "private_key",
	 .arg = "private-key",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .flags = WG_CONF_KEY_SECRET | WG_CONF_KEY_ZERO_UNSET,
	 .type = &wg_conf_type_key,
	 .offset = DEV(private_key),
	 .has = WG_DEVCONF_HAS_PRIVATE_KEY,
	 .file_pos = 15,
	 .arg_form = WG_CONF_ARG_KEY_FILE,
	 .msgs = MSGS(
		 {WG_CONF_E_VALUE, WG_CONF_FILE, SECRET_MSG},
		 {WG_CONF_E_VALUE, WG_CONF_SET, "failed to set private_key: not 64 hex digits"},
		 {WG_CONF_E_VALUE, WG_CONF_ARG, KEY_FILE_MSG})},
	{.file = "ListenPort",
	 .uapi = "listen_port",
	 .arg = "listen-port",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .flags = WG_CONF_KEY_ZERO_UNSET,
	 .type = &wg_conf_type_port,
	 .offset = DEV(listen_port),
	 .has = WG_DEVCONF_HAS_LISTEN_PORT,
	 .file_pos = 13,
	 .arg_form = WG_CONF_ARG_SERVICE,
	 .msgs = MSGS(
		 {WG_CONF_E_VALUE, WG_CONF_FILE, "ListenPort is not a number in 0-65535: `%v'"},
		 {WG_CONF_E_VALUE, WG_CONF_SET, "failed to parse listen_port"},
		 {WG_CONF_E_VALUE, WG_CONF_ARG, "Port is not in 0-65535: `%v'"})},
	{.file = "FwMark",
	 .uapi = "fwmark",
	 .arg = "fwmark",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .flags = WG_CONF_KEY_ZERO_UNSET,
	 .type = &wg_conf_type_fwmark,
	 .offset = DEV(fwmark),
	 .has = WG_DEVCONF_HAS_FWMARK,
	 .file_pos = 14,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE | WG_CONF_ARG,
		       "Fwmark is neither 0/off nor 0-0xffffffff: `%v'"},
		      {WG_CONF_E_VALUE, WG_CONF_SET, "invalid fwmark"})},
	{.uapi = "replace_peers",
	 .section = WG_CONF_INTERFACE,
	 .in = WG_CONF_SET,
	 .out = WG_CONF_SET,
	 .type = &wg_conf_type_true,
	 .has = WG_DEVCONF_REPLACE_PEERS,
	 .msgs = MSGS(
		 {WG_CONF_E_VALUE, WG_CONF_SET, "failed to set replace_peers, invalid value"})},

	/* [Peer] */
	{.file = "PublicKey",
	 .uapi = "public_key",
	 .arg = "peer",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .flags = WG_CONF_KEY_STARTS_PEER | WG_CONF_KEY_REQUIRED,
	 .type = &wg_conf_type_key,
	 .offset = PEER(public_key),
	 .has = WG_DEVCONF_PEER_HAS_PUBLIC_KEY,
	 .file_pos = 1,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_FILE | WG_CONF_ARG, KEY_MSG},
		      {WG_CONF_E_VALUE, WG_CONF_SET,
		       "failed to get peer by public key: not 64 hex digits"})},
	{.uapi = "remove",
	 .arg = "remove",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_SET | WG_CONF_ARG,
	 .out = WG_CONF_SET,
	 .flags = WG_CONF_KEY_ENDS_RECORD,
	 .type = &wg_conf_type_true,
	 .has = WG_DEVCONF_PEER_REMOVE_ME,
	 .arg_form = WG_CONF_ARG_FLAG,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_SET, "failed to set remove, invalid value"})},
	{.uapi = "update_only",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_SET,
	 .out = WG_CONF_SET,
	 .type = &wg_conf_type_true,
	 .has = WG_DEVCONF_PEER_UPDATE_ONLY,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_SET, "failed to set update only, invalid value"})},
	{.file = "PresharedKey",
	 .uapi = "preshared_key",
	 .arg = "preshared-key",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .flags = WG_CONF_KEY_SECRET,
	 .type = &wg_conf_type_key,
	 .offset = PEER(preshared_key),
	 .has = WG_DEVCONF_PEER_HAS_PRESHARED_KEY,
	 .file_pos = 2,
	 .arg_form = WG_CONF_ARG_KEY_FILE,
	 .msgs = MSGS(
		 {WG_CONF_E_VALUE, WG_CONF_FILE, SECRET_MSG},
		 {WG_CONF_E_VALUE, WG_CONF_SET, "failed to set preshared key: not 64 hex digits"},
		 {WG_CONF_E_VALUE, WG_CONF_ARG, KEY_FILE_MSG})},
	{.uapi = "protocol_version",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_SET | WG_CONF_GET,
	 .out = WG_CONF_GET,
	 .type = &wg_conf_type_protocol_version,
	 .offset = PEER(protocol_version),
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_SET, "invalid protocol version"})},
	{.file = "Endpoint",
	 .uapi = "endpoint",
	 .arg = "endpoint",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .type = &wg_conf_type_endpoint,
	 .offset = PEER(endpoint),
	 .has = WG_DEVCONF_PEER_HAS_ENDPOINT,
	 .file_pos = 4,
	 .arg_form = WG_CONF_ARG_HOST,
	 .msgs = MSGS({WG_CONF_E_ENDPOINT_BRACE, WG_CONF_FILE | WG_CONF_ARG,
		       "Unable to find matching brace of endpoint: `%v'"},
		      {WG_CONF_E_ENDPOINT_NO_PORT, WG_CONF_FILE | WG_CONF_ARG,
		       "Unable to find port of endpoint: `%v'"},
		      {WG_CONF_E_ENDPOINT_PORT, WG_CONF_FILE,
		       "Endpoint port is not a number in 0-65535: `%v'"},
		      {WG_CONF_E_ENDPOINT_HOST, WG_CONF_FILE,
		       "Endpoint host is neither an IP address nor a host name: `%v'"},
		      {WG_CONF_E_VALUE, WG_CONF_SET, "failed to set endpoint"},
		      {WG_CONF_E_VALUE, WG_CONF_ARG, "Neither IPv4 nor IPv6 address found: `%v'"})},
	/* cakewg: the host name of the endpoint above, for the daemon to resolve again; a
	 * request that sets an endpoint without it makes the daemon forget the name */
	{.uapi = "endpoint_host",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_SET,
	 .out = WG_CONF_SET,
	 .flags = WG_CONF_KEY_QUICK | WG_CONF_KEY_CAKEWG,
	 .type = &wg_conf_type_endpoint_host,
	 .offset = PEER(endpoint_host),
	 .has = WG_DEVCONF_PEER_HAS_ENDPOINT_HOST,
	 .msgs = MSGS({WG_CONF_E_VALUE, WG_CONF_SET,
		       "failed to set endpoint_host: `%v' is not a host name and port"})},
	{.uapi = "last_handshake_time_sec",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_GET,
	 .out = WG_CONF_GET,
	 .type = &wg_conf_type_time,
	 .offset = PEER(last_handshake_sec)},
	{.uapi = "last_handshake_time_nsec",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_GET,
	 .out = WG_CONF_GET,
	 .type = &wg_conf_type_time,
	 .offset = PEER(last_handshake_nsec)},
	{.uapi = "tx_bytes",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_GET,
	 .out = WG_CONF_GET,
	 .type = &wg_conf_type_counter,
	 .offset = PEER(tx_bytes)},
	{.uapi = "rx_bytes",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_GET,
	 .out = WG_CONF_GET,
	 .type = &wg_conf_type_counter,
	 .offset = PEER(rx_bytes)},
	{.file = "PersistentKeepalive",
	 .uapi = "persistent_keepalive_interval",
	 .arg = "persistent-keepalive",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .type = &wg_conf_type_keepalive,
	 .offset = PEER(persistent_keepalive_secs),
	 .has = WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE,
	 .file_pos = 5,
	 .msgs = MSGS(
		 {WG_CONF_E_VALUE, WG_CONF_FILE | WG_CONF_ARG,
		  "Persistent keepalive interval is neither 0/off nor 1-65535: `%v'"},
		 {WG_CONF_E_VALUE, WG_CONF_SET, "failed to set persistent keepalive interval"})},
	{.uapi = "replace_allowed_ips",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_SET,
	 .out = WG_CONF_SET,
	 .type = &wg_conf_type_replace,
	 .has = WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS,
	 .msgs = MSGS(
		 {WG_CONF_E_VALUE, WG_CONF_SET, "failed to replace allowedips, invalid value"})},
	{.file = "AllowedIPs",
	 .uapi = "allowed_ip",
	 .arg = "allowed-ips",
	 .section = WG_CONF_PEER,
	 .in = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET | WG_CONF_ARG,
	 .out = WG_CONF_FILE | WG_CONF_SET | WG_CONF_GET,
	 .type = &wg_conf_type_allowedips,
	 .offset = PEER(allowedips),
	 .file_pos = 3,
	 .arg_form = WG_CONF_ARG_LIST,
	 .msgs = MSGS({WG_CONF_E_ADDR, WG_CONF_FILE | WG_CONF_ARG, ADDR_MSG},
		      {WG_CONF_E_CIDR, WG_CONF_FILE | WG_CONF_ARG,
		       "AllowedIP is not in the correct format: `%v'"},
		      {WG_CONF_E_VALUE, WG_CONF_SET, "failed to set allowed ip"},
		      {WG_CONF_W_HOST_BITS, WG_CONF_FILE, "AllowedIP has nonzero host part: `%v'"},
		      {WG_CONF_W_HOST_BITS, WG_CONF_ARG,
		       "Warning: AllowedIP has nonzero host part: %v"})},
};

const size_t wg_conf_n_keys = WG_ARRAY_SIZE(wg_conf_keys);

const char *wg_conf_key_name(const struct wg_conf_key *key, enum wg_conf_surface s)
{
	switch (s) {
	case WG_CONF_FILE:
		return key->file;
	case WG_CONF_ARG:
		return key->arg;
	case WG_CONF_SET:
	case WG_CONF_GET:
		break;
	}
	return key->uapi;
}

static bool name_is(const char *kn, enum wg_conf_surface s, const char *name, size_t len)
{
	if (!kn || strlen(kn) != len)
		return false;
	return s == WG_CONF_FILE ? !strncasecmp(kn, name, len) : !memcmp(kn, name, len);
}

static bool in_section(const struct wg_conf_key *k, enum wg_conf_surface s,
		       enum wg_conf_section sec)
{
	if (k->section == sec)
		return true;
	if (s != WG_CONF_FILE && (k->flags & WG_CONF_KEY_STARTS_PEER))
		return true;
	return s == WG_CONF_ARG && (k->flags & WG_CONF_KEY_ARG_ANYWHERE);
}

const struct wg_conf_key *wg_conf_key_find(enum wg_conf_surface s, enum wg_conf_section sec,
					   const char *name, size_t len, unsigned int skip)
{
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];

		if (!(k->in & s) || (k->flags & skip) || !in_section(k, s, sec))
			continue;
		if (name_is(wg_conf_key_name(k, s), s, name, len) ||
		    (s == WG_CONF_ARG && name_is(k->arg_alias, s, name, len)))
			return k;
	}
	return NULL;
}

bool wg_conf_arg_is_anywhere(const char *word)
{
	const struct wg_conf_key *k =
		wg_conf_key_find(WG_CONF_ARG, WG_CONF_INTERFACE, word, strlen(word), 0);

	return k && (k->flags & WG_CONF_KEY_ARG_ANYWHERE) && !strcmp(k->arg, word);
}

int wg_conf_key_parse(const struct wg_conf_key *key, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	r->err = WG_CONF_OK;
	r->at = v;
	r->at_len = n;
	r->detail[0] = '\0';
	if (!(key->in & s) || !key->type->parse)
		return r->err = WG_CONF_E_VALUE;
	return key->type->parse(key, t, s, v, n, r);
}

static int print_key(const struct wg_conf_key *k, const struct wg_conf_target *t,
		     enum wg_conf_surface s, unsigned int need, unsigned int skip,
		     struct wg_devconf_buf *out)
{
	if (!(k->out & s) || (k->flags & need) != need || (k->flags & skip))
		return 0;
	return k->type->print(k, t, s, out);
}

int wg_conf_section_write(const struct wg_conf_target *t, enum wg_conf_surface s,
			  enum wg_conf_section sec, unsigned int need, unsigned int skip,
			  struct wg_devconf_buf *out)
{
	/* a file goes by file_pos, the UAPI by the table's order */
	size_t rounds = s == WG_CONF_FILE ? wg_conf_n_keys : 1;

	for (size_t pos = 1; pos <= rounds; pos++) {
		for (size_t i = 0; i < wg_conf_n_keys; i++) {
			const struct wg_conf_key *k = &wg_conf_keys[i];
			int ret;

			if (k->section != sec || (s == WG_CONF_FILE && k->file_pos != pos))
				continue;
			ret = print_key(k, t, s, need, skip, out);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static const char *find_msg(const struct wg_conf_key *key, enum wg_conf_surface s, int code)
{
	for (const struct wg_conf_msg *m = key->msgs; m && m->text; m++) {
		if (m->code == code && (m->surfaces & s))
			return m->text;
	}
	return NULL;
}

/* Appends up to n bytes of s to buf (size, used so far *len), always NUL-terminated. */
static void append(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
	size_t room = size - 1 - *len;

	if (n > room)
		n = room;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
}

void wg_conf_key_message(const struct wg_conf_key *key, enum wg_conf_surface s, int code,
			 const struct wg_conf_result *r, const char *shown, char *buf, size_t size)
{
	const char *text = find_msg(key, s, code);
	char word[WG_CONF_RANGE_SIZE];
	size_t len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	if (!text)
		text = "Invalid value: `%v'";
	for (const char *p = text; *p; p++) {
		const char *sub = NULL;

		if (p[0] == '%' && p[1]) {
			switch (*++p) {
			case 'v':
				sub = shown;
				break;
			case 'n':
				snprintf(word, sizeof(word), "%zu", r->at_len);
				sub = word;
				break;
			case 'r':
				word[0] = '\0';
				if (key->type->range)
					key->type->range(word);
				sub = word;
				break;
			case 'e':
				sub = r->detail;
				break;
			default:
				append(buf, size, &len, p - 1, 2);
				continue;
			}
			append(buf, size, &len, sub, strlen(sub));
			continue;
		}
		append(buf, size, &len, p, 1);
	}
}
