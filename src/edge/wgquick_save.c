/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SaveConfig, as wg-quick's save_config: `wg showconf` (here: UAPI get=1 and the
 * wg-quick writer of src/core/wgconf.h) with the [Interface] lines wg-quick adds:
 * the interface's addresses now, DNS, MTU (the link's, when the file sets one), Table,
 * SaveConfig, the hooks, and cakewg's Cake and CakeIngress. The file is replaced
 * atomically (a private temporary file next to it, created exclusively by mkostemp,
 * synced, then renamed).
 *
 * Cake and CakeIngress keep the file's wording while the daemon runs the same options
 * (`cakewg_get=1`), and become the daemon's option string once they differ (after a
 * `cakewg set IF cake ...`).
 *
 * Differences from wg-quick: DNS lines come from the file (wg-quick asks
 * `resolvconf -l`, which returns what up gave it, minus the search domains), and IPv6
 * link-local addresses are left out (a TUN device gets one by itself; saving it would
 * make the next up fail on a duplicate address).
 */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qdisc/cake_parse.h"
#include "src/core/wgconf.h"
#include "src/edge/wgquick_priv.h"

static int copy_list(struct wg_devconf_strlist *to, const struct wg_devconf_strlist *from)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < from->n; i++)
		ret = wg_devconf_strlist_add(to, from->v[i], strlen(from->v[i]));
	return ret;
}

static int copy_string(char **to, const char *from)
{
	return from ? wg_devconf_set_string(to, from, strlen(from)) : 0;
}

/* `ip -brief address show dev IF`, without the automatic link-local ones. */
static int add_addresses(struct wg_quick *q, struct wg_devconf *out)
{
	struct wg_nl_snapshot s = {0};
	int ret = wg_netlink_snapshot(q->nl, &s);

	for (size_t i = 0; !ret && i < s.n_addrs; i++) {
		const struct wg_nl_addr_entry *a = &s.addrs[i];
		struct wg_ipaddr_prefix p = {.addr.family = a->p.family, .cidr = a->p.len};

		if (a->ifindex != q->ifindex ||
		    (a->p.family == AF_INET6 && a->scope == RT_SCOPE_LINK))
			continue;
		memcpy(p.addr.bytes, a->p.addr.bytes, a->p.family == AF_INET ? 4 : 16);
		ret = wg_devconf_add_address(out, &p);
	}
	wg_netlink_snapshot_free(&s);
	return ret;
}

/* The file's string while it means what the daemon runs, else the daemon's. */
static const char *pick_cake(const char *file, const char *live)
{
	struct cake_options a, b;
	struct cake_parse_err err;

	if (!live)
		return file;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (cake_options_parse(file ? file : "", &a, &err) || cake_options_parse(live, &b, &err))
		return file;
	return cake_options_equal(&a, &b) ? file : live;
}

static int add_cake(struct wg_quick *q, struct wg_devconf *out)
{
	struct wg_uapi_reply_cake live;
	const char *egress = q->conf->cake, *ingress = q->conf->cake_ingress;
	int ret;

	/* The limit and the probe as running (a `cakewg set` since `up` wins), else as in
	 * the file. */
	if (q->conf->flags & WG_DEVCONF_HAS_AUTORATE_PROBE) {
		out->flags |= WG_DEVCONF_HAS_AUTORATE_PROBE;
		out->autorate_probe = q->conf->autorate_probe;
	}
	if (q->conf->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT) {
		out->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
		out->underlay_limit = q->conf->underlay_limit;
	}
	if (!wg_quick_cake_get(q, &live)) {
		egress = pick_cake(egress, live.egress.options);
		ingress = pick_cake(ingress, live.ingress.options);
		if (live.has_underlay_limit_setting &&
		    (live.underlay_limit_setting != WG_DEVCONF_UNDERLAY_LIMIT_AUTO ||
		     (out->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT))) {
			out->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
			out->underlay_limit = live.underlay_limit_setting;
		}
		/* cakewg reports a probe it has; none reported is none set. */
		out->flags &= ~(uint32_t)WG_DEVCONF_HAS_AUTORATE_PROBE;
		if (live.has_autorate_probe) {
			out->flags |= WG_DEVCONF_HAS_AUTORATE_PROBE;
			out->autorate_probe = live.autorate_probe;
		}
		wg_uapi_reply_cake_names(&live, out); /* Endpoint = the name, not the address */
	}
	ret = copy_string(&out->cake, egress);
	ret = ret ?: copy_string(&out->cake_ingress, ingress);
	wg_uapi_reply_cake_free(&live);
	return ret;
}

/* The wg-quick part of the running configuration, from the file and the link. */
static int add_quick(struct wg_quick *q, struct wg_devconf *out)
{
	const struct wg_devconf *file = q->conf;
	struct wg_nl_link link;
	int ret = add_addresses(q, out);

	for (size_t i = 0; !ret && i < file->n_dns; i++)
		ret = wg_devconf_add_dns(out, &file->dns[i]);
	ret = ret ?: copy_list(&out->dns_search, &file->dns_search);
	if (!ret && file->mtu) {
		ret = wg_netlink_link_get_index(q->nl, q->ifindex, &link);
		if (!ret)
			out->mtu = link.mtu;
	}
	out->table_mode = file->table_mode;
	out->table_id = file->table_id;
	out->save_config = true;
	out->kill_switch = file->kill_switch;
	out->kill_switch_allow_lan = file->kill_switch_allow_lan;
	ret = ret ?: copy_list(&out->pre_up, &file->pre_up);
	ret = ret ?: copy_list(&out->post_up, &file->post_up);
	ret = ret ?: copy_list(&out->pre_down, &file->pre_down);
	ret = ret ?: copy_list(&out->post_down, &file->post_down);
	return ret ?: add_cake(q, out);
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static int replace_file(struct wg_quick *q, const struct wg_devconf_buf *text)
{
	char tmp[PATH_MAX + 8];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", q->cfg.real_path) >= (int)sizeof(tmp))
		return wg_quick_fail(q, -ENAMETOOLONG, "Could not write configuration file");
	/* A new file of mode 0600 (O_CREAT | O_EXCL): never one that an attacker placed
	 * or linked there before us. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return wg_quick_fail(q, -errno, "Could not write configuration file: %s",
				     strerror(errno));
	ret = write_all(fd, text->data, text->len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, q->cfg.real_path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return wg_quick_fail(q, ret, "Could not write configuration file: %s",
				     strerror(-ret));
	}
	return 0;
}

int wg_quick_save_config(struct wg_quick *q)
{
	struct wg_devconf_buf text = {0};
	int ret;

	wg_quick_trace(q, "wg showconf %s", q->cfg.ifname);
	wg_wgconf_from_get(q->live);
	ret = add_quick(q, q->live);
	if (ret)
		return wg_quick_fail(q, ret, "cannot collect the configuration: %s",
				     strerror(-ret));
	ret = wg_wgconf_write(q->live, 0, &text);
	if (ret)
		wg_quick_fail(q, ret, "cannot write the configuration back: %s", strerror(-ret));
	else
		ret = replace_file(q, &text);
	wg_devconf_buf_wipe(&text);
	return ret;
}
