/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wg-quick's firewall rules for a default route (add_default's nft part, and its
 * iptables-restore fallback), remove_firewall, and cakewg's kill switch. Which rules is
 * src/core/fwrules.c's decision; nf_tables is reached through src/edge/nft.c, in one
 * transaction that also replaces what a crashed run left. Without nf_tables, wg-quick's
 * rules go through iptables-restore / ip6tables-restore, one family after the other, the
 * first taken back if the second fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/fwrules.h"
#include "src/edge/nft.h"
#include "src/edge/wgquick_priv.h"

static const sa_family_t xt_families[WG_QUICK_FAMILIES] = {AF_INET, AF_INET6};
static const char *const xt_restore[WG_QUICK_FAMILIES] = {"iptables-restore",
							   "ip6tables-restore"};
static const char *const xt_save[WG_QUICK_FAMILIES] = {"iptables-save", "ip6tables-save"};

int wg_quick_check_kill_switch(struct wg_quick *q)
{
	if (q->conf->kill_switch_allow_lan && !q->conf->kill_switch)
		return wg_quick_fail(q, -EINVAL,
				     "KillSwitchAllowLAN = true needs KillSwitch = true");
	if (!q->conf->kill_switch)
		return 0;
	if (wg_quick_auto_table(q->conf) && wg_quick_has_default_route(q->conf))
		return 0;
	return wg_quick_fail(q, -EINVAL,
			     "KillSwitch = true needs a default route (AllowedIPs 0.0.0.0/0 or "
			     "::/0) and Table = auto");
}

/* Each line of an `nft -f` script as a command one could type: [#] nft 'LINE'. */
static void trace_script(const struct wg_quick *q, const char *text)
{
	while (text && *text) {
		size_t n = strcspn(text, "\n");

		wg_quick_trace(q, "nft '%.*s'", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

static void trace_deletes(const struct wg_quick *q, unsigned int present)
{
	char names[WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE];

	wg_fwrules_table_names(q->cfg.ifname, names);
	for (int i = 0; i < WG_FW_FAMILIES; i++)
		if (present & (1U << i))
			wg_quick_trace(q, "nft 'delete table %s %s'",
				       wg_fwrules_family_name((enum wg_fw_family)i), names[i]);
}

/* The interface's addresses, as `ip -o addr show dev IF` lists them to wg-quick. */
static int plan(struct wg_quick *q, struct wg_fw_plan *out)
{
	struct wg_nl_snapshot s = {0};
	struct wg_ipaddr *addrs = NULL;
	struct wg_fw_input in = {
		.ifname = q->cfg.ifname,
		.fwmark = q->table,
		.default_v4 = q->fw_families & (1U << WG_QUICK_V4),
		.default_v6 = q->fw_families & (1U << WG_QUICK_V6),
		.kill_switch = q->conf->kill_switch,
		.allow_lan = q->conf->kill_switch_allow_lan,
	};
	int ret = wg_netlink_snapshot(q->nl, &s);

	if (ret)
		return wg_quick_fail(q, ret, "cannot read the addresses: %s", strerror(-ret));
	addrs = calloc(s.n_addrs + 1, sizeof(*addrs));
	for (size_t i = 0; addrs && i < s.n_addrs; i++) {
		const struct wg_nl_addr_entry *a = &s.addrs[i];

		if (a->ifindex != q->ifindex)
			continue;
		addrs[in.n_addrs].family = a->p.family;
		memcpy(addrs[in.n_addrs].bytes, a->p.addr.bytes,
		       a->p.family == AF_INET ? 4 : 16);
		in.n_addrs++;
	}
	in.addrs = addrs;
	ret = addrs ? wg_fwrules_plan(out, &in) : -ENOMEM;
	free(addrs);
	wg_netlink_snapshot_free(&s);
	if (ret)
		return wg_quick_fail(q, ret, "cannot plan the firewall rules: %s", strerror(-ret));
	return 0;
}

/* Runs one of the iptables tools with input; 0, or a negative errno (-ECHILD: it failed). */
static int run_xt(const char *tool, const char *input, struct wg_devconf_buf *output)
{
	char path[PATH_MAX];
	char *restore_argv[] = {path, "-n", NULL};
	/* wg-quick's `$a-save 2>/dev/null` */
	char *save_argv[] = {"sh", "-c", "exec \"$0\" 2>/dev/null", path, NULL};
	int status = 0, ret;

	if (!wg_quick_find_program(tool, path, sizeof(path)))
		return -ENOENT;
	ret = wg_quick_run(output ? save_argv : restore_argv, input, output, &status);
	return ret ? ret : status ? -ECHILD : 0;
}

/* remove_firewall's iptables half: the rules carrying our markers, per family. Returns
 * how many it found. */
static size_t remove_iptables(struct wg_quick *q)
{
	size_t found = 0;

	for (int f = 0; f < WG_QUICK_FAMILIES; f++) {
		size_t n;
		struct wg_devconf_buf save = {0}, undo = {0};
		char path[PATH_MAX];

		if (!wg_quick_find_program(xt_restore[f], path, sizeof(path)) ||
		    run_xt(xt_save[f], NULL, &save) || !save.data)
			goto next;
		n = wg_fwrules_iptables_undo(save.data, save.len, q->cfg.ifname, &undo);
		found += n;
		if (n && !undo.failed) {
			wg_quick_trace(q, "%s -n", xt_restore[f]);
			(void)run_xt(xt_restore[f], undo.data, NULL);
		}
next:
		wg_devconf_buf_wipe(&save);
		wg_devconf_buf_wipe(&undo);
	}
	return found;
}

/* The fallback: wg-quick's iptables-restore input, per family; all or nothing. */
static int set_iptables(struct wg_quick *q, const struct wg_fw_plan *p, int why)
{
	struct wg_devconf_buf text[WG_QUICK_FAMILIES] = {0};
	char path[PATH_MAX];
	int ret = 0;

	for (int f = 0; !ret && f < WG_QUICK_FAMILIES; f++) {
		wg_fwrules_iptables_text(p, xt_families[f], &text[f]);
		if (text[f].failed)
			ret = wg_quick_fail(q, -ENOMEM, "out of memory");
		else if (text[f].data && !wg_quick_find_program(xt_restore[f], path, sizeof(path)))
			ret = wg_quick_fail(q, -ENOENT,
					    "cannot add the firewall rules: nf_tables is not "
					    "available (%s) and %s is not installed",
					    strerror(-why), xt_restore[f]);
	}
	for (int f = 0; !ret && f < WG_QUICK_FAMILIES; f++) {
		if (!text[f].data)
			continue;
		wg_quick_trace(q, "%s -n", xt_restore[f]);
		q->firewall = WG_QUICK_FW_IPTABLES;
		ret = run_xt(xt_restore[f], text[f].data, NULL);
		if (ret)
			ret = wg_quick_fail(q, ret, "%s -n failed: %s", xt_restore[f],
					    ret == -ECHILD ? "non-zero exit status" : strerror(-ret));
	}
	for (int f = 0; f < WG_QUICK_FAMILIES; f++)
		wg_devconf_buf_wipe(&text[f]);
	return ret;
}

int wg_quick_set_firewall(struct wg_quick *q)
{
	struct wg_devconf_buf script = {0};
	struct wg_fw_plan p;
	unsigned int present = 0;
	int ret;

	if (!q->fw_families)
		return 0;
	ret = plan(q, &p);
	if (ret)
		return ret;
	ret = wg_nft_find(q->cfg.ifname, &present);
	if (!ret) {
		/* What a crashed daemon's run left is replaced in the same transaction. */
		trace_deletes(q, present);
		wg_fwrules_nft_text(&p, &script);
		trace_script(q, script.data);
		ret = wg_nft_commit(q->cfg.ifname, present, &p);
		if (!ret)
			q->firewall = WG_QUICK_FW_NFT;
		else if (!wg_nft_unavailable(ret))
			wg_quick_fail(q, ret, "cannot add the nftables rules: %s", strerror(-ret));
	}
	if (wg_nft_unavailable(ret))
		ret = set_iptables(q, &p, ret);
	wg_devconf_buf_wipe(&script);
	wg_fwrules_free(&p);
	return ret;
}

int wg_quick_remove_firewall(struct wg_quick *q, bool *found, uint32_t *fwmark)
{
	unsigned int present = 0;
	int ret = wg_nft_find(q->cfg.ifname, &present);

	*found = present != 0;
	if (fwmark && (!present || wg_nft_fwmark(q->cfg.ifname, present, fwmark)))
		*fwmark = 0;
	if (wg_nft_unavailable(ret)) {
		*found = remove_iptables(q) > 0;
		return 0;
	}
	if (!ret && present) {
		trace_deletes(q, present);
		ret = wg_nft_commit(q->cfg.ifname, present, NULL);
	}
	return ret;
}

void wg_quick_undo_firewall(struct wg_quick *q)
{
	bool found;

	if (q->firewall == WG_QUICK_FW_IPTABLES)
		(void)remove_iptables(q);
	else if (q->firewall == WG_QUICK_FW_NFT)
		(void)wg_quick_remove_firewall(q, &found, NULL);
	q->firewall = WG_QUICK_FW_NONE;
}
