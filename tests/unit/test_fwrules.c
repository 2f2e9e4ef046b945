/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/core/fwrules.c: which firewall rules `cakewg up` sets, as wg-quick's add_default
 * writes them (its nft script and its iptables-restore input, compared as text), the
 * kill switch, and remove_firewall's filter over iptables-save. The kernel side is
 * tests/netns/test-firewall.sh.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/fwrules.h"

static struct wg_ipaddr addr(const char *s)
{
	struct wg_ipaddr a;

	cr_assert(wg_ipaddr_parse(&a, s, strlen(s)), "%s", s);
	return a;
}

static struct wg_ipaddr addrs[3];

static struct wg_fw_input input(bool v4, bool v6, bool kill)
{
	addrs[0] = addr("10.0.0.2");
	addrs[1] = addr("fd00::2");
	addrs[2] = addr("10.9.9.9");
	return (struct wg_fw_input){.ifname = "wg0",
				    .fwmark = 51820,
				    .default_v4 = v4,
				    .default_v6 = v6,
				    .addrs = addrs,
				    .n_addrs = 3,
				    .kill_switch = kill};
}

static void expect_nft(const struct wg_fw_input *in, const char *want)
{
	struct wg_devconf_buf out = {0};
	struct wg_fw_plan plan;

	cr_assert_eq(wg_fwrules_plan(&plan, in), 0);
	wg_fwrules_nft_text(&plan, &out);
	cr_assert_str_eq(out.data ? out.data : "", want);
	wg_devconf_buf_wipe(&out);
	wg_fwrules_free(&plan);
}

/* wg-quick's nftcmd for `AllowedIPs = 0.0.0.0/0` on wg0 with two IPv4 addresses. */
static const char quick_v4[] =
	"add table ip wg-quick-wg0\n"
	"add chain ip wg-quick-wg0 preraw { type filter hook prerouting priority -300; }\n"
	"add chain ip wg-quick-wg0 premangle { type filter hook prerouting priority -150; }\n"
	"add chain ip wg-quick-wg0 postmangle { type filter hook postrouting priority -150; }\n"
	"add rule ip wg-quick-wg0 preraw iifname != \"wg0\" ip daddr 10.0.0.2 fib saddr type != "
	"local drop\n"
	"add rule ip wg-quick-wg0 preraw iifname != \"wg0\" ip daddr 10.9.9.9 fib saddr type != "
	"local drop\n"
	"add rule ip wg-quick-wg0 postmangle meta l4proto udp mark 51820 ct mark set mark\n"
	"add rule ip wg-quick-wg0 premangle meta l4proto udp meta mark set ct mark\n";

Test(fwrules, wg_quick_ipv4)
{
	struct wg_fw_input in = input(true, false, false);

	expect_nft(&in, quick_v4);
}

Test(fwrules, wg_quick_both_families)
{
	struct wg_fw_input in = input(true, true, false);
	struct wg_fw_plan plan;

	cr_assert_eq(wg_fwrules_plan(&plan, &in), 0);
	cr_assert_eq(plan.n_tables, 2);
	cr_assert_eq(plan.tables[1].family, WG_FW_IP6);
	cr_assert_str_eq(plan.tables[1].name, "wg-quick-wg0");
	/* v4: two drops, save, restore; v6: one drop, save, restore */
	cr_assert_eq(plan.n_rules, 7);
	wg_fwrules_free(&plan);
	in.default_v4 = false;
	expect_nft(&in,
		   "add table ip6 wg-quick-wg0\n"
		   "add chain ip6 wg-quick-wg0 preraw { type filter hook prerouting priority -300; }\n"
		   "add chain ip6 wg-quick-wg0 premangle { type filter hook prerouting priority -150; "
		   "}\n"
		   "add chain ip6 wg-quick-wg0 postmangle { type filter hook postrouting priority "
		   "-150; }\n"
		   "add rule ip6 wg-quick-wg0 preraw iifname != \"wg0\" ip6 daddr fd00::2 fib saddr "
		   "type != local drop\n"
		   "add rule ip6 wg-quick-wg0 postmangle meta l4proto udp mark 51820 ct mark set "
		   "mark\n"
		   "add rule ip6 wg-quick-wg0 premangle meta l4proto udp meta mark set ct mark\n");
}

Test(fwrules, no_default_route_no_rules)
{
	struct wg_fw_input in = input(false, false, false);
	struct wg_fw_plan plan;

	expect_nft(&in, "");
	in.kill_switch = true;
	cr_assert_eq(wg_fwrules_plan(&plan, &in), -EINVAL);
	in.kill_switch = false;
	in.default_v4 = true;
	in.allow_lan = true; /* the LAN's accepts without a kill switch */
	cr_assert_eq(wg_fwrules_plan(&plan, &in), -EINVAL);
	in.allow_lan = false;
	in.ifname = "a-name-too-long0";
	cr_assert_eq(wg_fwrules_plan(&plan, &in), -EINVAL);
}

Test(fwrules, kill_switch)
{
	struct wg_fw_input in = input(true, false, true);
	struct wg_devconf_buf out = {0};
	struct wg_fw_plan plan;
	const char *ks;

	cr_assert_eq(wg_fwrules_plan(&plan, &in), 0);
	cr_assert_eq(plan.n_tables, 2);
	cr_assert_eq(plan.tables[1].family, WG_FW_INET);
	wg_fwrules_nft_text(&plan, &out);
	cr_assert(!strncmp(out.data, quick_v4, strlen("add table ip wg-quick-wg0\n")));
	ks = strstr(out.data, "add table inet cakewg-killswitch-wg0\n"
			      "add chain inet cakewg-killswitch-wg0 output { type filter hook "
			      "output priority 0; }\n");
	cr_assert(ks, "%s", out.data);
	cr_assert(strstr(out.data,
			 "add rule inet cakewg-killswitch-wg0 output oifname \"lo\" accept\n"
			 "add rule inet cakewg-killswitch-wg0 output icmpv6 type 133-137 accept\n"
			 "add rule inet cakewg-killswitch-wg0 output oifname != \"wg0\" meta mark != "
			 "51820 fib daddr type != local reject\n"),
		  "%s", out.data);
	wg_devconf_buf_wipe(&out);
	wg_fwrules_free(&plan);
}

/* KillSwitchAllowLAN: each local network accepted after the neighbour discovery, before
 * the reject. */
Test(fwrules, kill_switch_allow_lan)
{
	struct wg_fw_input in = input(false, true, true);
	struct wg_devconf_buf out = {0};
	struct wg_fw_plan plan;
	const char *ks;

	in.allow_lan = true;
	cr_assert_eq(wg_fwrules_plan(&plan, &in), 0);
	/* v6: one drop, save, restore; the kill switch's three and nine networks */
	cr_assert_eq(plan.n_rules, 3 + 3 + 9);
	wg_fwrules_nft_text(&plan, &out);
	ks = strstr(out.data, "add rule inet cakewg-killswitch-wg0");
	cr_assert(ks, "%s", out.data);
	cr_assert_str_eq(
		ks,
		"add rule inet cakewg-killswitch-wg0 output oifname \"lo\" accept\n"
		"add rule inet cakewg-killswitch-wg0 output icmpv6 type 133-137 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip daddr 10.0.0.0/8 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip daddr 172.16.0.0/12 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip daddr 192.168.0.0/16 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip daddr 169.254.0.0/16 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip daddr 224.0.0.0/4 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip daddr 255.255.255.255/32 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip6 daddr fe80::/10 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip6 daddr fc00::/7 accept\n"
		"add rule inet cakewg-killswitch-wg0 output ip6 daddr ff00::/8 accept\n"
		"add rule inet cakewg-killswitch-wg0 output oifname != \"wg0\" meta mark != 51820 "
		"fib daddr type != local reject\n");
	wg_devconf_buf_wipe(&out);
	wg_fwrules_free(&plan);
}

Test(fwrules, table_names)
{
	char names[WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE];

	wg_fwrules_table_names("123456789012345", names);
	cr_assert_str_eq(names[WG_FW_IP], "wg-quick-123456789012345");
	cr_assert_str_eq(names[WG_FW_IP6], "wg-quick-123456789012345");
	cr_assert_str_eq(names[WG_FW_INET], "cakewg-killswitch-123456789012345");
	cr_assert_str_eq(wg_fwrules_family_name(WG_FW_INET), "inet");
}

static void expect_iptables(const struct wg_fw_input *in, sa_family_t family, const char *want)
{
	struct wg_devconf_buf out = {0};
	struct wg_fw_plan plan;

	cr_assert_eq(wg_fwrules_plan(&plan, in), 0);
	wg_fwrules_iptables_text(&plan, family, &out);
	cr_assert_str_eq(out.data ? out.data : "", want);
	wg_devconf_buf_wipe(&out);
	wg_fwrules_free(&plan);
}

#define QUICK_MARK " -m comment --comment \"wg-quick(8) rule for wg0\"\n"
#define KILL_MARK  " -m comment --comment \"cakewg kill switch for wg0\"\n"

Test(fwrules, iptables_restore_as_wg_quick)
{
	struct wg_fw_input in = input(true, false, false);

	expect_iptables(&in, AF_INET,
			"*raw\n"
			"-I PREROUTING ! -i wg0 -d 10.0.0.2 -m addrtype ! --src-type LOCAL -j "
			"DROP" QUICK_MARK
			"-I PREROUTING ! -i wg0 -d 10.9.9.9 -m addrtype ! --src-type LOCAL -j "
			"DROP" QUICK_MARK "COMMIT\n"
			"*mangle\n"
			"-I POSTROUTING -m mark --mark 51820 -p udp -j CONNMARK --save-mark" QUICK_MARK
			"-I PREROUTING -p udp -j CONNMARK --restore-mark" QUICK_MARK "COMMIT\n");
	expect_iptables(&in, AF_INET6, "");
}

Test(fwrules, iptables_kill_switch_both_families)
{
	struct wg_fw_input in = input(false, true, true);

	/* -I puts each at the head: written last first, they end in the plan's order */
	expect_iptables(&in, AF_INET,
			"*filter\n"
			"-I OUTPUT ! -o wg0 -m mark ! --mark 51820 -m addrtype ! --dst-type LOCAL "
			"-j REJECT" KILL_MARK "-I OUTPUT -o lo -j ACCEPT" KILL_MARK "COMMIT\n");
	expect_iptables(&in, AF_INET6,
			"*raw\n"
			"-I PREROUTING ! -i wg0 -d fd00::2 -m addrtype ! --src-type LOCAL -j "
			"DROP" QUICK_MARK "COMMIT\n"
			"*mangle\n"
			"-I POSTROUTING -m mark --mark 51820 -p udp -j CONNMARK --save-mark" QUICK_MARK
			"-I PREROUTING -p udp -j CONNMARK --restore-mark" QUICK_MARK "COMMIT\n"
			"*filter\n"
			"-I OUTPUT ! -o wg0 -m mark ! --mark 51820 -m addrtype ! --dst-type LOCAL "
			"-j REJECT" KILL_MARK
			"-I OUTPUT -p ipv6-icmp --icmpv6-type 137 -j ACCEPT" KILL_MARK
			"-I OUTPUT -p ipv6-icmp --icmpv6-type 136 -j ACCEPT" KILL_MARK
			"-I OUTPUT -p ipv6-icmp --icmpv6-type 135 -j ACCEPT" KILL_MARK
			"-I OUTPUT -p ipv6-icmp --icmpv6-type 134 -j ACCEPT" KILL_MARK
			"-I OUTPUT -p ipv6-icmp --icmpv6-type 133 -j ACCEPT" KILL_MARK
			"-I OUTPUT -o lo -j ACCEPT" KILL_MARK "COMMIT\n");
}

Test(fwrules, iptables_kill_switch_allow_lan)
{
	struct wg_fw_input in = input(false, true, true);
	struct wg_devconf_buf out = {0};
	struct wg_fw_plan plan;

	in.allow_lan = true;
	/* each family its own networks, last first as every filter rule; no IPv4 default
	 * route, so IPv4 has the kill switch alone */
	expect_iptables(&in, AF_INET,
			"*filter\n"
			"-I OUTPUT ! -o wg0 -m mark ! --mark 51820 -m addrtype ! --dst-type LOCAL "
			"-j REJECT" KILL_MARK "-I OUTPUT -d 255.255.255.255/32 -j ACCEPT" KILL_MARK
			"-I OUTPUT -d 224.0.0.0/4 -j ACCEPT" KILL_MARK
			"-I OUTPUT -d 169.254.0.0/16 -j ACCEPT" KILL_MARK
			"-I OUTPUT -d 192.168.0.0/16 -j ACCEPT" KILL_MARK
			"-I OUTPUT -d 172.16.0.0/12 -j ACCEPT" KILL_MARK
			"-I OUTPUT -d 10.0.0.0/8 -j ACCEPT" KILL_MARK
			"-I OUTPUT -o lo -j ACCEPT" KILL_MARK "COMMIT\n");
	cr_assert_eq(wg_fwrules_plan(&plan, &in), 0);
	wg_fwrules_iptables_text(&plan, AF_INET6, &out);
	cr_assert(strstr(out.data, "-j REJECT" KILL_MARK "-I OUTPUT -d ff00::/8 -j ACCEPT" KILL_MARK
				   "-I OUTPUT -d fc00::/7 -j ACCEPT" KILL_MARK
				   "-I OUTPUT -d fe80::/10 -j ACCEPT" KILL_MARK
				   "-I OUTPUT -p ipv6-icmp --icmpv6-type 137 "),
		  "%s", out.data);
	cr_assert_null(strstr(out.data, "-d 10.0.0.0/8"), "%s", out.data);
	wg_devconf_buf_wipe(&out);
	wg_fwrules_free(&plan);
}

Test(fwrules, iptables_undo_takes_only_ours)
{
	static const char save[] =
		"# Generated by iptables-save v1.8.9 (nf_tables)\n"
		"*raw\n"
		":PREROUTING ACCEPT [0:0]\n"
		"-A PREROUTING -d 10.0.0.2/32 ! -i wg0 -m addrtype ! --src-type LOCAL -m comment "
		"--comment \"wg-quick(8) rule for wg0\" -j DROP\n"
		"-A PREROUTING -d 10.0.0.3/32 ! -i wg01 -m addrtype ! --src-type LOCAL -m comment "
		"--comment \"wg-quick(8) rule for wg01\" -j DROP\n"
		"COMMIT\n"
		"*filter\n"
		"-A OUTPUT -o lo -m comment --comment \"cakewg kill switch for wg0\" -j ACCEPT\n"
		"-A INPUT -p tcp --dport 22 -j ACCEPT\n"
		"COMMIT";
	struct wg_devconf_buf out = {0};

	cr_assert_eq(wg_fwrules_iptables_undo(save, strlen(save), "wg0", &out), 2);
	cr_assert_str_eq(out.data,
			 "*raw\n"
			 "-D PREROUTING -d 10.0.0.2/32 ! -i wg0 -m addrtype ! --src-type LOCAL -m "
			 "comment --comment \"wg-quick(8) rule for wg0\" -j DROP\n"
			 "COMMIT\n"
			 "*filter\n"
			 "-D OUTPUT -o lo -m comment --comment \"cakewg kill switch for wg0\" -j "
			 "ACCEPT\n"
			 "COMMIT\n");
	wg_devconf_buf_wipe(&out);
	cr_assert_eq(wg_fwrules_iptables_undo(save, strlen(save), "wg1", &out), 0);
	wg_devconf_buf_wipe(&out);
}
