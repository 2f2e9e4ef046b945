/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The firewall rules of `cakewg up`, decided from the configuration and nothing else:
 * wg-quick's rules for a default route (wireguard-tools src/wg-quick/linux.bash,
 * add_default) and cakewg's kill switch. Pure: the plan is data, and its texts (the
 * `nft -f` script, iptables-restore input) are written into buffers. src/edge/nft.c
 * turns a plan into one nf_tables transaction; src/edge/wgquick_fw.c runs the
 * iptables-restore fallback.
 *
 * For each family with a default route through the interface (Table auto), a table
 * `ip wg-quick-IF` / `ip6 wg-quick-IF`:
 *
 *   chain preraw     { type filter hook prerouting  priority -300; }
 *   chain premangle  { type filter hook prerouting  priority -150; }
 *   chain postmangle { type filter hook postrouting priority -150; }
 *   preraw:     iifname != "IF" ip daddr ADDR fib saddr type != local drop  (per address)
 *   postmangle: meta l4proto udp mark FWMARK ct mark set mark
 *   premangle:  meta l4proto udp meta mark set ct mark
 *
 * The first drops packets to the interface's own addresses that arrive elsewhere; the
 * other two keep the fwmark of the tunnel's UDP in conntrack and put it back on the
 * replies, so that strict reverse-path filtering finds the underlay. With KillSwitch,
 * also a table `inet cakewg-killswitch-IF` whose output chain rejects what would leave
 * by another interface than the tunnel, unless it is the tunnel's own (marked) UDP or
 * goes to a local address; loopback and IPv6 neighbour discovery (ICMPv6 133-137, which
 * the underlay itself needs) pass, and with KillSwitchAllowLAN the local networks
 * (fwrules.c's lan_ranges: RFC 1918, link-local, ULA, multicast, broadcast):
 *
 *   chain output { type filter hook output priority 0; }
 *   oifname "lo" accept
 *   icmpv6 type 133-137 accept
 *   ip daddr 10.0.0.0/8 accept     (KillSwitchAllowLAN: one rule per range, both families)
 *   oifname != "IF" meta mark != FWMARK fib daddr type != local reject
 *
 * The LAN's accept changes no route: what the routing sends into the tunnel (a LAN range
 * inside AllowedIPs without a more specific route of its own) still goes there. Nothing
 * inbound is filtered, so no input rule is needed: a LAN host's packets arrive, and the
 * replies pass this output chain by the same accept.
 */
#ifndef CAKEWG_SRC_CORE_FWRULES_H
#define CAKEWG_SRC_CORE_FWRULES_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/compiler.h"
#include "src/core/ipaddr.h"

struct wg_devconf_buf;

enum wg_fw_family {
	WG_FW_IP,   /* nft family ip (NFPROTO_IPV4) */
	WG_FW_IP6,  /* ip6 (NFPROTO_IPV6) */
	WG_FW_INET, /* inet (NFPROTO_INET): both */
	WG_FW_FAMILIES,
};

enum wg_fw_hook {
	WG_FW_HOOK_PREROUTING,
	WG_FW_HOOK_POSTROUTING,
	WG_FW_HOOK_OUTPUT,
};

enum wg_fw_rule_kind {
	WG_FW_DROP_SPOOFED,  /* preraw: iifname != IF ip daddr ADDR fib saddr type != local drop */
	WG_FW_SAVE_MARK,     /* postmangle: meta l4proto udp mark FWMARK ct mark set mark */
	WG_FW_RESTORE_MARK,  /* premangle: meta l4proto udp meta mark set ct mark */
	WG_FW_KS_LOOPBACK,   /* output: oifname "lo" accept */
	WG_FW_KS_NEIGHBOUR,  /* output: icmpv6 type 133-137 accept */
	WG_FW_KS_LAN,	     /* output: ip daddr ADDR/CIDR accept (ip6 for IPv6) */
	WG_FW_KS_REJECT,     /* output: oifname != IF meta mark != FWMARK fib daddr type != local
				reject */
};

enum wg_fw_values {
	/* wg-quick's priorities (NF_IP_PRI_RAW, NF_IP_PRI_MANGLE) and the filter's */
	WG_FW_PRIO_RAW = -300,
	WG_FW_PRIO_MANGLE = -150,
	WG_FW_PRIO_FILTER = 0,
	/* ICMPv6 router solicitation .. redirect: neighbour discovery */
	WG_FW_ICMPV6_ND_FIRST = 133,
	WG_FW_ICMPV6_ND_LAST = 137,
	WG_FW_TABLES_MAX = WG_FW_FAMILIES,
	/* "cakewg-killswitch-" + an interface name + NUL */
	WG_FW_TABLE_NAME_SIZE = 18 + IFNAMSIZ,
};

struct wg_fw_chain {
	const char *name;
	enum wg_fw_hook hook;
	int32_t priority;
};

struct wg_fw_table {
	enum wg_fw_family family;
	char name[WG_FW_TABLE_NAME_SIZE];
	const struct wg_fw_chain *chains;
	size_t n_chains;
};

struct wg_fw_rule {
	size_t table;	       /* index into plan->tables */
	size_t chain;	       /* index into that table's chains */
	enum wg_fw_rule_kind kind;
	struct wg_ipaddr addr; /* WG_FW_DROP_SPOOFED; WG_FW_KS_LAN: the network */
	uint8_t cidr;	       /* WG_FW_KS_LAN: the network's prefix length */
};

/* What the rules are made from. */
struct wg_fw_input {
	const char *ifname;
	uint32_t fwmark;
	bool default_v4, default_v6; /* a default route via the interface, Table auto */
	const struct wg_ipaddr *addrs; /* the interface's addresses, both families */
	size_t n_addrs;
	bool kill_switch;
	bool allow_lan; /* KillSwitchAllowLAN: the kill switch lets the local networks pass */
};

struct wg_fw_plan {
	char ifname[IFNAMSIZ];
	uint32_t fwmark;
	struct wg_fw_table tables[WG_FW_TABLES_MAX];
	size_t n_tables;
	struct wg_fw_rule *rules; /* in the order they are added */
	size_t n_rules;
};

/* The nft name of a family ("ip", "ip6", "inet"). */
const char *wg_fwrules_family_name(enum wg_fw_family family);

/* The tables `cakewg up` may make for ifname, whether or not it did: what down removes.
 * names[i] belongs to family i. */
void wg_fwrules_table_names(const char *ifname,
			    char names[static WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE]);

/* Builds the plan (empty when no family has a default route). Returns 0 or -ENOMEM /
 * -EINVAL (a kill switch without a default route, allow_lan without a kill switch, a name
 * too long). */
WG_MUST_CHECK int wg_fwrules_plan(struct wg_fw_plan *plan, const struct wg_fw_input *in);
void wg_fwrules_free(struct wg_fw_plan *plan);

/* One rule as nft writes it, after its chain ("iifname != ... drop"). */
void wg_fwrules_rule_text(const struct wg_fw_plan *plan, const struct wg_fw_rule *r,
			  struct wg_devconf_buf *out);
/* The plan as an `nft -f` script, one command a line: tables, chains, then rules, as
 * wg-quick writes its nftcmd. */
void wg_fwrules_nft_text(const struct wg_fw_plan *plan, struct wg_devconf_buf *out);

/* The comment that marks each iptables rule, as wg-quick's ("wg-quick(8) rule for IF"),
 * and cakewg's for the kill switch. */
void wg_fwrules_iptables_marker(const char *ifname, bool kill_switch, char *out, size_t size);
/* iptables-restore -n input for one family (AF_INET: iptables, AF_INET6: ip6tables):
 * wg-quick's rules for that family and the kill switch's; empty when there are none. */
void wg_fwrules_iptables_text(const struct wg_fw_plan *plan, sa_family_t family,
			      struct wg_devconf_buf *out);
/*
 * wg-quick's remove_firewall over iptables-save output: the table lines, COMMIT, and each
 * "-A" rule carrying one of ifname's markers as "-D". Returns the number of rules found
 * (0: nothing to restore).
 */
size_t wg_fwrules_iptables_undo(const char *save, size_t len, const char *ifname,
				struct wg_devconf_buf *out);

#endif
