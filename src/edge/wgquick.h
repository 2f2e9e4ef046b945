/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `cakewg up`, `cakewg down` and `cakewg strip`: wg-quick(8)'s semantics (wireguard-tools
 * src/wg-quick/linux.bash) in C, with rtnetlink through libmnl instead of ip(8) and the
 * UAPI instead of wg(8).
 *
 * up, in wg-quick's order: refuse an existing interface; start the daemon (this same
 * binary, as `cakewg IFNAME`, the wireguard-go invocation) and wait until it is ready;
 * PreUp hooks; one UAPI `set=1` with the file's wg(8) keys, endpoints resolved with
 * getaddrinfo (WG_ENDPOINT_RESOLUTION_RETRIES as wg(8)), plus `cake=`/`cake_ingress=`;
 * every Address; the MTU (given, or the smallest MTU of the routes to the endpoints, else
 * of the default route, else 1500, minus 80) and link up; DNS through
 * `resolvconf -a [PREFIX]IFNAME -m 0 -x`; one route per allowed IP, longest prefix
 * first (Table = off: none; Table = N: into table N; otherwise the main table, where a /0
 * gets wg-quick's fwmark policy routing); for those /0s wg-quick's nftables rules and,
 * with KillSwitch, the kill switch (with KillSwitchAllowLAN, open to the LAN), in one
 * transaction (src/core/fwrules.h; without nf_tables through iptables-restore); PostUp
 * hooks. Any failure undoes what was done (DNS, firewall, rules, sysctl, the interface
 * with its addresses and routes).
 *
 * down: PreDown hooks; SaveConfig; the policy rules (every rule that looks the fwmark
 * table up, and every `table main suppress_prefixlength 0` rule, as wg-quick's del_if);
 * the interface, whose daemon then exits; `resolvconf -d`; the firewall rules
 * (remove_firewall); PostDown hooks. When the interface is gone but its firewall rules
 * are not (the daemon died: a kill switch outlives it), down removes those and the
 * policy rules of the fwmark they name, and succeeds.
 */
#ifndef CAKEWG_SRC_EDGE_WGQUICK_H
#define CAKEWG_SRC_EDGE_WGQUICK_H

#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "src/core/compiler.h"

enum wg_quick_limits {
	/* wg-quick: an interface name is [a-zA-Z0-9_=+.-]{1,15} */
	WG_QUICK_IFNAME_MAX_LEN = IFNAMSIZ - 1,
	/* Room for one error line: a path, a quoted value and the reason. */
	WG_QUICK_MSG_SIZE = PATH_MAX + 512,
	/* Automatic MTU: the underlay's MTU minus the largest encapsulation (IPv6 40 +
	 * UDP 8 + WireGuard data header 16 + tag 16), or 1500 minus that when unknown. */
	WG_QUICK_MTU_OVERHEAD_BYTES = 80,
	WG_QUICK_MTU_FALLBACK_BYTES = 1500,
};

struct wg_quick_opts {
	/* The daemon, started as `<daemon_exe> IFNAME` (argv[0] "cakewg"). */
	const char *daemon_exe;
	/* Where a bare interface name is looked up ("/etc/wireguard"). */
	const char *config_dir;
	/* wg-quick's "[#] ..." lines and warnings go here; NULL: quiet. */
	FILE *trace;
	/* Set (by a signal handler) to stop: up undoes what it did, as wg-quick's trap. */
	volatile sig_atomic_t *interrupted;
};

/* Where a CONFIG_FILE | INTERFACE argument leads, by wg-quick's rules. */
struct wg_quick_config {
	char path[PATH_MAX];	  /* as named, for messages */
	char real_path[PATH_MAX]; /* symlinks resolved: SaveConfig writes here */
	char ifname[IFNAMSIZ];
};

/* True when name (len bytes) is a wg-quick interface name: [a-zA-Z0-9_=+.-]{1,15}. */
WG_MUST_CHECK bool wg_quick_ifname_valid(const char *name, size_t len);

/*
 * Resolves arg as wg-quick's parse_options: a valid interface name means
 * CONFIG_DIR/arg.conf; the file must exist and be named IFNAME.conf (IFNAME valid).
 * Warns on trace when the file is world accessible. Returns 0, or -ENOENT / -EINVAL
 * with a one-line message in err.
 */
int wg_quick_locate(const char *arg, const struct wg_quick_opts *opts, struct wg_quick_config *out,
		    char *err, size_t err_size);

/* Each returns 0, or a negative errno with a one-line message in err. */
int wg_quick_up(const char *arg, const struct wg_quick_opts *opts, char *err, size_t err_size);
int wg_quick_down(const char *arg, const struct wg_quick_opts *opts, char *err, size_t err_size);

/*
 * Writes the file without the wg-quick and cakewg keys of [Interface] (Address, DNS, MTU,
 * Table, the hooks, SaveConfig, Cake, CakeIngress, UnderlayLimit, KillSwitch,
 * KillSwitchAllowLAN), as `wg-quick strip` does, for
 * `wg setconf` and `wg syncconf`.
 */
int wg_quick_strip(const char *arg, const struct wg_quick_opts *opts, FILE *out, char *err,
		   size_t err_size);

#endif
