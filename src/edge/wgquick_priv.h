/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of `cakewg up/down` shared by wgquick.c (the two sequences and the undo),
 * wgquick_if.c (daemon and UAPI), wgquick_route.c (addresses, MTU, routes, rules),
 * wgquick_run.c (hooks, child processes), dns.c (DNS =) and wgquick_save.c (SaveConfig).
 * Not part of the edge's API; the pure helpers are declared here so tests can reach them.
 */
#ifndef CAKEWG_SRC_EDGE_WGQUICK_PRIV_H
#define CAKEWG_SRC_EDGE_WGQUICK_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/devconf.h"
#include "src/core/ipaddr.h"
#include "src/core/uapi_reply.h"
#include "src/edge/netlink.h"
#include "src/edge/wgquick.h"

enum wg_quick_rule_kind {
	WG_QUICK_RULE_NOT_FWMARK,    /* not fwmark T table T */
	WG_QUICK_RULE_SUPPRESS_MAIN, /* table main suppress_prefixlength 0 */
	WG_QUICK_RULE_KINDS,
};

enum wg_quick_family_slot {
	WG_QUICK_V4,
	WG_QUICK_V6,
	WG_QUICK_FAMILIES,
};

enum wg_quick_firewall {
	WG_QUICK_FW_NONE,
	WG_QUICK_FW_NFT,      /* one nf_tables transaction (src/edge/nft.c) */
	WG_QUICK_FW_IPTABLES, /* the fallback: iptables-restore, ip6tables-restore */
};

/* One run of up or down. */
struct wg_quick {
	const struct wg_quick_opts *opts;
	struct wg_quick_config cfg;
	struct wg_devconf *conf; /* the file, as `wg addconf` and wg-quick read it */
	struct wg_devconf *live; /* the daemon's answer to get=1 */
	struct wg_nl *nl;
	uint32_t ifindex;
	char *err;
	size_t err_size;
	int ret; /* the first error */

	/* What up did, so that a failure can undo it. */
	bool have_if;
	bool have_dns;
	bool set_src_valid_mark;
	uint32_t table; /* the policy-routing table (= fwmark), 0 when none */
	unsigned int fw_families; /* 1 << WG_QUICK_V4|V6: add_default ran for the family */
	enum wg_quick_firewall firewall; /* how the firewall rules were set */
	unsigned int rules[WG_QUICK_FAMILIES][WG_QUICK_RULE_KINDS];
};

/* Records the first error as "CONFIG: message" and returns err (negative). */
int wg_quick_fail(struct wg_quick *q, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A "[#] ..." line on the trace stream, as wg-quick's cmd(). */
void wg_quick_trace(const struct wg_quick *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A signal asked us to stop: fails with -EINTR. */
int wg_quick_check_interrupt(struct wg_quick *q);

/* wgquick_if.c: the daemon and its UAPI socket */
int wg_quick_start_daemon(struct wg_quick *q);
int wg_quick_set_config(struct wg_quick *q);
int wg_quick_get_live(struct wg_quick *q);
int wg_quick_set_fwmark(struct wg_quick *q, uint32_t fwmark);
/* cakewg's `cakewg_get=1` (the CAKE options now). Quiet: returns 0 or a negative errno,
 * e.g. from a daemon without the extension. *out must be freed in any case. */
int wg_quick_cake_get(struct wg_quick *q, struct wg_uapi_reply_cake *out);
/* Deletes the link and waits (briefly) until its daemon has let go of the socket. */
int wg_quick_delete_link(struct wg_quick *q);
/*
 * wg(8)'s resolution of "host:port" endpoints: getaddrinfo, retried on temporary
 * failures up to `retries` times (-1: forever). Returns 0 or a negative errno with
 * the message in q.
 */
int wg_quick_resolve_endpoints(struct wg_quick *q, int retries);
/* WG_ENDPOINT_RESOLUTION_RETRIES: unset 15, "infinity" -1, else 0..INT_MAX. */
int wg_quick_parse_retries(const char *env, int *retries);

/* wgquick_route.c */
int wg_quick_add_addresses(struct wg_quick *q);
int wg_quick_set_mtu_up(struct wg_quick *q);
int wg_quick_add_routes(struct wg_quick *q);
/* up's undo: the rules it added, and src_valid_mark if it set it. */
void wg_quick_undo_rules(struct wg_quick *q);
/* down: every rule of the fwmark table and every suppress-main rule, per family. */
void wg_quick_delete_rules(struct wg_quick *q, uint32_t table);
/* Table unset or auto: wg-quick's fwmark policy routing for a /0. */
WG_MUST_CHECK bool wg_quick_auto_table(const struct wg_devconf *conf);
/* True when the live configuration routes a /0 through the interface. */
WG_MUST_CHECK bool wg_quick_has_default_route(const struct wg_devconf *live);
/*
 * The allowed IPs of every peer as routes: masked, longest prefix first (then in
 * configuration order), as wg-quick's `sort -nr -k 2 -t /`. *out is malloc'ed.
 */
int wg_quick_route_prefixes(const struct wg_devconf *live, struct wg_ipaddr_prefix **out,
			    size_t *n);
/* Whether a route of the main table through ifindex covers p (`ip route show dev IF
 * match P` is not empty). */
WG_MUST_CHECK bool wg_quick_main_route_covers(const struct wg_nl_snapshot *s, uint32_t ifindex,
					      const struct wg_ipaddr_prefix *p);
struct wg_nl_prefix wg_quick_nl_prefix(const struct wg_ipaddr_prefix *p);
/* The automatic MTU from the smallest underlay MTU found (0: none found). */
uint32_t wg_quick_auto_mtu(uint32_t smallest_underlay_mtu);

/* wgquick_run.c */
/*
 * Runs argv[0] (searched in PATH) with input on its stdin when non-NULL, stdout
 * captured into output when non-NULL. Returns 0 with the exit status in *status
 * (128 + signal when killed), or a negative errno when it could not run (-ENOENT).
 */
int wg_quick_run(char *const argv[], const char *input, struct wg_devconf_buf *output, int *status);
/* The full path of a program found in PATH. */
WG_MUST_CHECK bool wg_quick_find_program(const char *name, char *path, size_t size);
/* hook with every "%i" replaced by ifname (malloc'ed; NULL when out of memory). */
char *wg_quick_hook_expand(const char *hook, const char *ifname);
/* Runs each hook with `bash -e -o pipefail -c`, as wg-quick's (eval) under set -e. */
int wg_quick_run_hooks(struct wg_quick *q, const struct wg_devconf_strlist *hooks,
		       const char *phase);

/* wgquick_fw.c: wg-quick's firewall rules for a default route, and the kill switch */
/* Fails early (before anything is done) on a KillSwitch without a default route, or a
 * KillSwitchAllowLAN without a KillSwitch. */
int wg_quick_check_kill_switch(struct wg_quick *q);
/* After the routes: the rules for the families add_default saw, kill switch included,
 * in one nf_tables transaction, else through iptables-restore. */
int wg_quick_set_firewall(struct wg_quick *q);
/* up's undo: what wg_quick_set_firewall did. */
void wg_quick_undo_firewall(struct wg_quick *q);
/* down (remove_firewall): every table or iptables rule of the interface's, whether this
 * or an earlier (crashed) run made it; *found tells whether there was any, and *fwmark
 * (when not NULL) the fwmark of its nftables rules, 0 when unknown. Returns 0 or a
 * negative errno; it records no error in q. */
int wg_quick_remove_firewall(struct wg_quick *q, bool *found, uint32_t *fwmark);

/* wgquick_save.c: SaveConfig, the running configuration written back to the file. */
int wg_quick_save_config(struct wg_quick *q);

/* wgquick_strip.c: the pure line filter behind `strip` (and the test of it). */
WG_MUST_CHECK bool wg_quick_strip_line(const char *line, size_t len, bool *in_interface);

#endif
