/* SPDX-License-Identifier: GPL-2.0-only */
/* The firewall rules of `cakewg up` as data, and their texts (fwrules.h). */
#include "src/core/fwrules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/devconf.h"

static const char quick_prefix[] = "wg-quick-";
static const char kill_prefix[] = "cakewg-killswitch-";
static const char *const family_names[WG_FW_FAMILIES] = {"ip", "ip6", "inet"};

enum quick_chain { PRERAW, PREMANGLE, POSTMANGLE };

/* wg-quick's three chains, in the order it adds them. */
static const struct wg_fw_chain quick_chains[] = {
	[PRERAW] = {"preraw", WG_FW_HOOK_PREROUTING, WG_FW_PRIO_RAW},
	[PREMANGLE] = {"premangle", WG_FW_HOOK_PREROUTING, WG_FW_PRIO_MANGLE},
	[POSTMANGLE] = {"postmangle", WG_FW_HOOK_POSTROUTING, WG_FW_PRIO_MANGLE},
};

static const struct wg_fw_chain kill_chains[] = {
	{"output", WG_FW_HOOK_OUTPUT, WG_FW_PRIO_FILTER},
};

#define V4(a, b, c, d, bits) {.addr = {.family = AF_INET, .bytes = {a, b, c, d}}, .cidr = bits}
#define V6(a, b, bits)	     {.addr = {.family = AF_INET6, .bytes = {a, b}}, .cidr = bits}

/* What KillSwitchAllowLAN lets pass: the local networks, as "allow LAN" in VPN clients. */
static const struct wg_ipaddr_prefix lan_ranges[] = {
	V4(10, 0, 0, 0, 8),	    /* RFC 1918 private */
	V4(172, 16, 0, 0, 12),	    /* RFC 1918 private */
	V4(192, 168, 0, 0, 16),	    /* RFC 1918 private */
	V4(169, 254, 0, 0, 16),	    /* RFC 3927 link-local */
	V4(224, 0, 0, 0, 4),	    /* RFC 5771 multicast */
	V4(255, 255, 255, 255, 32), /* RFC 919 limited broadcast (DHCP) */
	V6(0xfe, 0x80, 10),	    /* RFC 4291 link-local */
	V6(0xfc, 0x00, 7),	    /* RFC 4193 unique local */
	V6(0xff, 0x00, 8),	    /* RFC 4291 multicast */
};

static const char *const hook_names[] = {
	[WG_FW_HOOK_PREROUTING] = "prerouting",
	[WG_FW_HOOK_POSTROUTING] = "postrouting",
	[WG_FW_HOOK_OUTPUT] = "output",
};

const char *wg_fwrules_family_name(enum wg_fw_family family)
{
	return family_names[family];
}

void wg_fwrules_table_names(const char *ifname,
			    char names[static WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE])
{
	snprintf(names[WG_FW_IP], WG_FW_TABLE_NAME_SIZE, "%s%s", quick_prefix, ifname);
	snprintf(names[WG_FW_IP6], WG_FW_TABLE_NAME_SIZE, "%s%s", quick_prefix, ifname);
	snprintf(names[WG_FW_INET], WG_FW_TABLE_NAME_SIZE, "%s%s", kill_prefix, ifname);
}

static size_t add_table(struct wg_fw_plan *plan, enum wg_fw_family family, const char *name,
			const struct wg_fw_chain *chains, size_t n_chains)
{
	struct wg_fw_table *t = &plan->tables[plan->n_tables];

	t->family = family;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->chains = chains;
	t->n_chains = n_chains;
	return plan->n_tables++;
}

static struct wg_fw_rule *add_rule(struct wg_fw_plan *plan, size_t table, size_t chain,
				   enum wg_fw_rule_kind kind, const struct wg_ipaddr *addr)
{
	struct wg_fw_rule *r = &plan->rules[plan->n_rules++];

	memset(r, 0, sizeof(*r));
	r->table = table;
	r->chain = chain;
	r->kind = kind;
	if (addr)
		r->addr = *addr;
	return r;
}

/* add_default for one family: the table, its chains, a drop per address, save, restore. */
static void add_quick(struct wg_fw_plan *plan, const struct wg_fw_input *in,
		      enum wg_fw_family family, const char *name)
{
	sa_family_t af = family == WG_FW_IP ? AF_INET : AF_INET6;
	size_t t = add_table(plan, family, name, quick_chains, WG_ARRAY_SIZE(quick_chains));

	for (size_t i = 0; i < in->n_addrs; i++)
		if (in->addrs[i].family == af)
			add_rule(plan, t, PRERAW, WG_FW_DROP_SPOOFED, &in->addrs[i]);
	add_rule(plan, t, POSTMANGLE, WG_FW_SAVE_MARK, NULL);
	add_rule(plan, t, PREMANGLE, WG_FW_RESTORE_MARK, NULL);
}

int wg_fwrules_plan(struct wg_fw_plan *plan, const struct wg_fw_input *in)
{
	char names[WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE];
	bool any = in->default_v4 || in->default_v6;
	/* per family: the drops, save and restore; the kill switch's three and the LAN's */
	size_t cap = 2 * (in->n_addrs + 2) + 3 + WG_ARRAY_SIZE(lan_ranges);

	memset(plan, 0, sizeof(*plan));
	if ((in->kill_switch && !any) || (in->allow_lan && !in->kill_switch))
		return -EINVAL;
	if (strlen(in->ifname) >= sizeof(plan->ifname))
		return -EINVAL;
	snprintf(plan->ifname, sizeof(plan->ifname), "%s", in->ifname);
	plan->fwmark = in->fwmark;
	if (!any)
		return 0;
	plan->rules = calloc(cap, sizeof(*plan->rules));
	if (!plan->rules)
		return -ENOMEM;
	wg_fwrules_table_names(in->ifname, names);
	if (in->default_v4)
		add_quick(plan, in, WG_FW_IP, names[WG_FW_IP]);
	if (in->default_v6)
		add_quick(plan, in, WG_FW_IP6, names[WG_FW_IP6]);
	if (in->kill_switch) {
		size_t t = add_table(plan, WG_FW_INET, names[WG_FW_INET], kill_chains,
				     WG_ARRAY_SIZE(kill_chains));

		add_rule(plan, t, 0, WG_FW_KS_LOOPBACK, NULL);
		add_rule(plan, t, 0, WG_FW_KS_NEIGHBOUR, NULL);
		for (size_t i = 0; in->allow_lan && i < WG_ARRAY_SIZE(lan_ranges); i++)
			add_rule(plan, t, 0, WG_FW_KS_LAN, &lan_ranges[i].addr)->cidr =
				lan_ranges[i].cidr;
		add_rule(plan, t, 0, WG_FW_KS_REJECT, NULL);
	}
	return 0;
}

void wg_fwrules_free(struct wg_fw_plan *plan)
{
	free(plan->rules);
	plan->rules = NULL;
	plan->n_rules = 0;
	plan->n_tables = 0;
}

/* A WG_FW_KS_LAN rule's network, "addr/cidr". */
static void lan_text(const struct wg_fw_rule *r, char out[static WG_IPADDR_PREFIX_STRLEN])
{
	struct wg_ipaddr_prefix p = {.addr = r->addr, .cidr = r->cidr};

	wg_ipaddr_prefix_format(out, &p);
}

void wg_fwrules_rule_text(const struct wg_fw_plan *plan, const struct wg_fw_rule *r,
			  struct wg_devconf_buf *out)
{
	const char *fam = family_names[plan->tables[r->table].family];
	char addr[WG_IPADDR_STRLEN], net[WG_IPADDR_PREFIX_STRLEN];

	switch (r->kind) {
	case WG_FW_DROP_SPOOFED:
		wg_ipaddr_format(addr, &r->addr);
		wg_devconf_buf_printf(out, "iifname != \"%s\" %s daddr %s fib saddr type != local drop",
				      plan->ifname, fam, addr);
		break;
	case WG_FW_SAVE_MARK:
		wg_devconf_buf_printf(out, "meta l4proto udp mark %u ct mark set mark", plan->fwmark);
		break;
	case WG_FW_RESTORE_MARK:
		wg_devconf_buf_printf(out, "meta l4proto udp meta mark set ct mark");
		break;
	case WG_FW_KS_LOOPBACK:
		wg_devconf_buf_printf(out, "oifname \"lo\" accept");
		break;
	case WG_FW_KS_NEIGHBOUR:
		wg_devconf_buf_printf(out, "icmpv6 type %d-%d accept", WG_FW_ICMPV6_ND_FIRST,
				      WG_FW_ICMPV6_ND_LAST);
		break;
	case WG_FW_KS_LAN:
		lan_text(r, net);
		wg_devconf_buf_printf(out, "%s daddr %s accept",
				      r->addr.family == AF_INET ? "ip" : "ip6", net);
		break;
	case WG_FW_KS_REJECT:
		wg_devconf_buf_printf(
			out, "oifname != \"%s\" meta mark != %u fib daddr type != local reject",
			plan->ifname, plan->fwmark);
		break;
	}
}

void wg_fwrules_nft_text(const struct wg_fw_plan *plan, struct wg_devconf_buf *out)
{
	for (size_t i = 0; i < plan->n_tables; i++) {
		const struct wg_fw_table *t = &plan->tables[i];
		const char *fam = family_names[t->family];

		wg_devconf_buf_printf(out, "add table %s %s\n", fam, t->name);
		for (size_t c = 0; c < t->n_chains; c++)
			wg_devconf_buf_printf(
				out, "add chain %s %s %s { type filter hook %s priority %d; }\n",
				fam, t->name, t->chains[c].name, hook_names[t->chains[c].hook],
				(int)t->chains[c].priority);
	}
	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct wg_fw_rule *r = &plan->rules[i];
		const struct wg_fw_table *t = &plan->tables[r->table];

		wg_devconf_buf_printf(out, "add rule %s %s %s ", family_names[t->family], t->name,
				      t->chains[r->chain].name);
		wg_fwrules_rule_text(plan, r, out);
		wg_devconf_buf_printf(out, "\n");
	}
}

/* --- the iptables-restore fallback --- */

void wg_fwrules_iptables_marker(const char *ifname, bool kill_switch, char *out, size_t size)
{
	snprintf(out, size, kill_switch ? "cakewg kill switch for %s" : "wg-quick(8) rule for %s",
		 ifname);
}

/* The iptables table a rule goes into; rules are inserted (-I) at the chain's head, so
 * the kill switch's, whose order matters, are written last first. */
enum xt_table { XT_RAW, XT_MANGLE, XT_FILTER, XT_TABLES };

static const char *const xt_names[XT_TABLES] = {"raw", "mangle", "filter"};

static enum xt_table xt_table_of(enum wg_fw_rule_kind kind)
{
	switch (kind) {
	case WG_FW_DROP_SPOOFED:
		return XT_RAW;
	case WG_FW_SAVE_MARK:
	case WG_FW_RESTORE_MARK:
		return XT_MANGLE;
	default:
		return XT_FILTER;
	}
}

static void xt_rule(const struct wg_fw_plan *plan, const struct wg_fw_rule *r,
		    struct wg_devconf_buf *out)
{
	char marker[64], addr[WG_IPADDR_STRLEN], net[WG_IPADDR_PREFIX_STRLEN];

	wg_fwrules_iptables_marker(plan->ifname, xt_table_of(r->kind) == XT_FILTER, marker,
				   sizeof(marker));
	switch (r->kind) {
	case WG_FW_DROP_SPOOFED:
		wg_ipaddr_format(addr, &r->addr);
		wg_devconf_buf_printf(out,
				      "-I PREROUTING ! -i %s -d %s -m addrtype ! --src-type LOCAL "
				      "-j DROP",
				      plan->ifname, addr);
		break;
	case WG_FW_SAVE_MARK:
		wg_devconf_buf_printf(out,
				      "-I POSTROUTING -m mark --mark %u -p udp -j CONNMARK "
				      "--save-mark",
				      plan->fwmark);
		break;
	case WG_FW_RESTORE_MARK:
		wg_devconf_buf_printf(out, "-I PREROUTING -p udp -j CONNMARK --restore-mark");
		break;
	case WG_FW_KS_LOOPBACK:
		wg_devconf_buf_printf(out, "-I OUTPUT -o lo -j ACCEPT");
		break;
	case WG_FW_KS_NEIGHBOUR:
		for (int type = WG_FW_ICMPV6_ND_LAST; type >= WG_FW_ICMPV6_ND_FIRST; type--)
			wg_devconf_buf_printf(out,
					      "-I OUTPUT -p ipv6-icmp --icmpv6-type %d -j ACCEPT "
					      "-m comment --comment \"%s\"%s",
					      type, marker, type > WG_FW_ICMPV6_ND_FIRST ? "\n" : "");
		wg_devconf_buf_printf(out, "\n");
		return;
	case WG_FW_KS_LAN:
		lan_text(r, net);
		wg_devconf_buf_printf(out, "-I OUTPUT -d %s -j ACCEPT", net);
		break;
	case WG_FW_KS_REJECT:
		wg_devconf_buf_printf(out,
				      "-I OUTPUT ! -o %s -m mark ! --mark %u -m addrtype ! "
				      "--dst-type LOCAL -j REJECT",
				      plan->ifname, plan->fwmark);
		break;
	}
	wg_devconf_buf_printf(out, " -m comment --comment \"%s\"\n", marker);
}

static bool xt_applies(const struct wg_fw_plan *plan, const struct wg_fw_rule *r,
		       sa_family_t family)
{
	enum wg_fw_family f = plan->tables[r->table].family;

	if (f != WG_FW_INET)
		return f == (family == AF_INET ? WG_FW_IP : WG_FW_IP6);
	switch (r->kind) {
	case WG_FW_KS_NEIGHBOUR:
		return family == AF_INET6;
	case WG_FW_KS_LAN:
		return r->addr.family == family;
	default:
		return true;
	}
}

void wg_fwrules_iptables_text(const struct wg_fw_plan *plan, sa_family_t family,
			      struct wg_devconf_buf *out)
{
	for (int x = 0; x < XT_TABLES; x++) {
		bool opened = false;

		for (size_t k = 0; k < plan->n_rules; k++) {
			/* filter: last first, so that -I leaves them in the plan's order */
			size_t i = x == XT_FILTER ? plan->n_rules - 1 - k : k;
			const struct wg_fw_rule *r = &plan->rules[i];

			if (xt_table_of(r->kind) != (enum xt_table)x || !xt_applies(plan, r, family))
				continue;
			if (!opened)
				wg_devconf_buf_printf(out, "*%s\n", xt_names[x]);
			opened = true;
			xt_rule(plan, r, out);
		}
		if (opened)
			wg_devconf_buf_printf(out, "COMMIT\n");
	}
}

static bool has_marker(const char *line, size_t len, const char *marker)
{
	char quoted[80];
	size_t n = (size_t)snprintf(quoted, sizeof(quoted), "-m comment --comment \"%s\"", marker);

	for (size_t i = 0; n < sizeof(quoted) && i + n <= len; i++)
		if (!memcmp(line + i, quoted, n))
			return true;
	return false;
}

size_t wg_fwrules_iptables_undo(const char *save, size_t len, const char *ifname,
				struct wg_devconf_buf *out)
{
	char quick[64], kill[64];
	size_t found = 0;

	wg_fwrules_iptables_marker(ifname, false, quick, sizeof(quick));
	wg_fwrules_iptables_marker(ifname, true, kill, sizeof(kill));
	while (len) {
		const char *nl = memchr(save, '\n', len);
		size_t n = nl ? (size_t)(nl - save) : len;

		if (n && save[0] == '*')
			wg_devconf_buf_printf(out, "%.*s\n", (int)n, save);
		else if (n == 6 && !memcmp(save, "COMMIT", 6))
			wg_devconf_buf_printf(out, "COMMIT\n");
		else if (n > 3 && !memcmp(save, "-A ", 3) &&
			 (has_marker(save, n, quick) || has_marker(save, n, kill))) {
			wg_devconf_buf_printf(out, "-D%.*s\n", (int)(n - 2), save + 2);
			found++;
		}
		save += nl ? n + 1 : n;
		len -= nl ? n + 1 : n;
	}
	return found;
}
