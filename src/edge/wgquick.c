/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `cakewg up` and `cakewg down`: wg-quick's parse_options, cmd_up, cmd_down and del_if
 * (wireguard-tools src/wg-quick/linux.bash), composed from the steps in wgquick_*.c.
 */
#include "src/edge/wgquick.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto/ct.h"
#include "src/core/conf_keys.h"
#include "src/core/wgconf.h"
#include "src/edge/dns.h"
#include "src/edge/wgquick_priv.h"

enum {
	/* A wg-quick file is a few kilobytes; this bounds a mistaken argument. */
	CONFIG_MAX_BYTES = 16 << 20,
	WORLD_BITS = 0007,
};

static const char conf_suffix[] = ".conf";

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '=' || c == '+' || c == '.' || c == '-';
}

bool wg_quick_ifname_valid(const char *name, size_t len)
{
	if (len < 1 || len > WG_QUICK_IFNAME_MAX_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(name[i]))
			return false;
	return true;
}

__attribute__((format(printf, 3, 4))) static int say(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return 0;
}

/* The name before ".conf" in the last path component, or false. */
static bool ifname_from_path(const char *path, char ifname[IFNAMSIZ])
{
	const char *base = strrchr(path, '/');
	size_t len, sl = sizeof(conf_suffix) - 1;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len <= sl || strcmp(base + len - sl, conf_suffix))
		return false;
	len -= sl;
	if (!wg_quick_ifname_valid(base, len))
		return false;
	memcpy(ifname, base, len);
	ifname[len] = '\0';
	return true;
}

/* wg-quick's warning when others may read the file (the private key). */
static void warn_world_accessible(const struct wg_quick_config *cfg, FILE *trace)
{
	char dir[PATH_MAX];
	struct stat f, d;

	snprintf(dir, sizeof(dir), "%s", cfg->real_path);
	if (!trace || stat(cfg->real_path, &f) || stat(dirname(dir), &d))
		return;
	if (f.st_mode & d.st_mode & WORLD_BITS)
		fprintf(trace, "Warning: `%s' is world accessible\n", cfg->real_path);
}

int wg_quick_locate(const char *arg, const struct wg_quick_opts *opts, struct wg_quick_config *out,
		    char *err, size_t err_size)
{
	const char *dir = opts->config_dir ? opts->config_dir : "/etc/wireguard";
	struct stat st;
	int n;

	memset(out, 0, sizeof(*out));
	if (wg_quick_ifname_valid(arg, strlen(arg)))
		n = snprintf(out->path, sizeof(out->path), "%s/%s%s", dir, arg, conf_suffix);
	else
		n = snprintf(out->path, sizeof(out->path), "%s", arg);
	if (n < 0 || (size_t)n >= sizeof(out->path)) {
		say(err, err_size, "`%.64s...' is too long a path", arg);
		return -ENAMETOOLONG;
	}
	if (stat(out->path, &st)) {
		say(err, err_size, "`%s' does not exist", out->path);
		return -ENOENT;
	}
	if (!ifname_from_path(out->path, out->ifname)) {
		say(err, err_size,
		    "The config file must be a valid interface name, followed by .conf");
		return -EINVAL;
	}
	if (!realpath(out->path, out->real_path)) {
		n = -errno;
		say(err, err_size, "`%s': %s", out->path, strerror(-n));
		return n;
	}
	warn_world_accessible(out, opts->trace);
	return 0;
}

int wg_quick_fail(struct wg_quick *q, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (q->ret)
		return err; /* keep the first reason */
	q->ret = err;
	n = snprintf(q->err, q->err_size, "%s: ", q->cfg.path);
	if (n < 0 || (size_t)n >= q->err_size)
		return err;
	va_start(ap, fmt);
	vsnprintf(q->err + n, q->err_size - (size_t)n, fmt, ap);
	va_end(ap);
	return err;
}

void wg_quick_trace(const struct wg_quick *q, const char *fmt, ...)
{
	va_list ap;

	if (!q->opts->trace)
		return;
	fputs("[#] ", q->opts->trace);
	va_start(ap, fmt);
	vfprintf(q->opts->trace, fmt, ap);
	va_end(ap);
	fputc('\n', q->opts->trace);
	fflush(q->opts->trace);
}

int wg_quick_check_interrupt(struct wg_quick *q)
{
	if (q->opts->interrupted && *q->opts->interrupted)
		return wg_quick_fail(q, -EINTR, "interrupted");
	return 0;
}

static int read_file(struct wg_quick *q, struct wg_devconf_buf *text)
{
	int fd = open(q->cfg.real_path, O_RDONLY | O_CLOEXEC);
	char chunk[4096];
	ssize_t n;

	if (fd < 0)
		return wg_quick_fail(q, -errno, "cannot open: %s", strerror(errno));
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || text->len + (size_t)n > CONFIG_MAX_BYTES)
			break;
		wg_devconf_buf_append(text, chunk, (size_t)n);
	}
	cw_memzero(chunk, sizeof(chunk));
	close(fd);
	if (n < 0)
		return wg_quick_fail(q, -EIO, "cannot read: %s", strerror(errno));
	if (n > 0)
		return wg_quick_fail(q, -EFBIG, "larger than %d bytes", CONFIG_MAX_BYTES);
	return text->failed ? wg_quick_fail(q, -ENOMEM, "out of memory") : 0;
}

/* The tc-cake strings are checked before anything is done, so they fail like a typo. */
static int check_cake(struct wg_quick *q, const char *key, const char *value)
{
	struct cake_parse_err perr;

	if (!value)
		return 0;
	if (wg_conf_cake_check(value, &perr))
		return wg_quick_fail(q, -EINVAL, "%s = `%s': %s", key, value, perr.msg);
	return 0;
}

/* parse_options: locate the file and read it as `wg addconf` plus the wg-quick keys. */
static int load(struct wg_quick *q, const char *arg)
{
	struct wg_devconf_buf text = {0};
	int ret = wg_quick_locate(arg, q->opts, &q->cfg, q->err, q->err_size);

	if (ret)
		return q->ret = ret;
	ret = read_file(q, &text);
	if (!ret) {
		ret = wg_wgconf_parse(q->cfg.path, text.data ? text.data : "", text.len,
				      WG_WGCONF_APPEND, &q->conf, q->err, q->err_size);
		if (ret)
			q->ret = ret;
	}
	wg_devconf_buf_wipe(&text);
	if (!ret)
		ret = check_cake(q, "Cake", q->conf->cake);
	if (!ret)
		ret = check_cake(q, "CakeIngress", q->conf->cake_ingress);
	return ret;
}

static int begin(struct wg_quick *q, const struct wg_quick_opts *opts, const char *arg, char *err,
		 size_t err_size)
{
	int ret;

	memset(q, 0, sizeof(*q));
	q->opts = opts;
	q->err = err;
	q->err_size = err_size;
	if (err_size)
		err[0] = '\0';
	ret = load(q, arg);
	if (ret)
		return ret;
	ret = wg_netlink_open(&q->nl);
	if (ret)
		return wg_quick_fail(q, ret, "cannot open rtnetlink: %s", strerror(-ret));
	return 0;
}

static void end(struct wg_quick *q)
{
	wg_devconf_free(q->conf);
	wg_devconf_free(q->live);
	wg_netlink_close(q->nl);
	q->conf = q->live = NULL;
	q->nl = NULL;
}

/* up's trap: del_if, for whatever up got done. */
static void undo_up(struct wg_quick *q)
{
	if (q->have_dns)
		wg_dns_unset(q);
	wg_quick_undo_firewall(q);
	wg_quick_undo_rules(q);
	if (q->have_if)
		(void)wg_quick_delete_link(q);
}

static int refuse_existing(struct wg_quick *q)
{
	struct wg_nl_link link;
	int ret = wg_netlink_link_get(q->nl, q->cfg.ifname, &link);

	if (!ret)
		return wg_quick_fail(q, -EEXIST, "`%s' already exists", q->cfg.ifname);
	if (ret != -ENODEV)
		return wg_quick_fail(q, ret, "cannot look up `%s': %s", q->cfg.ifname,
				     strerror(-ret));
	return 0;
}

static int up_steps(struct wg_quick *q)
{
	int ret = wg_dns_check(q);

	ret = ret ?: wg_quick_check_kill_switch(q);
	ret = ret ?: refuse_existing(q);
	ret = ret ?: wg_quick_start_daemon(q);
	ret = ret ?: wg_quick_check_interrupt(q);
	ret = ret ?: wg_quick_run_hooks(q, &q->conf->pre_up, "PreUp");
	ret = ret ?: wg_quick_check_interrupt(q);
	ret = ret ?: wg_quick_set_config(q);
	ret = ret ?: wg_quick_get_live(q);
	ret = ret ?: wg_quick_add_addresses(q);
	ret = ret ?: wg_quick_set_mtu_up(q);
	ret = ret ?: wg_dns_set(q);
	ret = ret ?: wg_quick_check_interrupt(q);
	ret = ret ?: wg_quick_add_routes(q);
	ret = ret ?: wg_quick_set_firewall(q);
	ret = ret ?: wg_quick_check_interrupt(q);
	ret = ret ?: wg_quick_run_hooks(q, &q->conf->post_up, "PostUp");
	return ret;
}

int wg_quick_up(const char *arg, const struct wg_quick_opts *opts, char *err, size_t err_size)
{
	struct wg_quick q;
	int ret = begin(&q, opts, arg, err, err_size);

	if (!ret) {
		ret = up_steps(&q);
		if (ret)
			undo_up(&q);
	}
	end(&q);
	return ret;
}

/* cmd_down's check: a UAPI socket that answers, for a link in this namespace. */
static int require_wireguard(struct wg_quick *q)
{
	struct wg_nl_link link;
	int ret = wg_netlink_link_get(q->nl, q->cfg.ifname, &link);

	if (!ret) {
		q->ifindex = link.ifindex;
		ret = wg_quick_get_live(q);
	}
	if (ret) {
		q->ret = 0; /* the reason is this one */
		return wg_quick_fail(q, -ENODEV, "`%s' is not a WireGuard interface",
				     q->cfg.ifname);
	}
	return 0;
}

bool wg_quick_auto_table(const struct wg_devconf *conf)
{
	return conf->table_mode == WG_DEVCONF_TABLE_UNSET ||
	       conf->table_mode == WG_DEVCONF_TABLE_AUTO;
}

/* remove_firewall, wg-quick's `|| true`: a failure is a warning. */
static void remove_firewall(struct wg_quick *q, bool *found, uint32_t *fwmark)
{
	int ret = wg_quick_remove_firewall(q, found, fwmark);

	if (ret && q->opts->trace)
		fprintf(q->opts->trace, "Warning: cannot delete the firewall rules of %s: %s\n",
			q->cfg.ifname, strerror(-ret));
}

/* The interface is gone (its daemon died), but its firewall rules, kernel state, are
 * not (a kill switch must outlast the daemon): down takes them away, with the policy
 * rules of the fwmark they name, and only then is a missing interface not an error. */
static int down_leftovers(struct wg_quick *q, int err)
{
	uint32_t fwmark = 0;
	bool found = false;

	remove_firewall(q, &found, &fwmark);
	if (!found)
		return err;
	if (fwmark)
		wg_quick_delete_rules(q, fwmark);
	if (q->opts->trace)
		fprintf(q->opts->trace, "Warning: `%s' is gone; removed the firewall rules it left\n",
			q->cfg.ifname);
	q->ret = 0;
	q->err[0] = '\0';
	return 0;
}

static int down_steps(struct wg_quick *q)
{
	const struct wg_devconf *live;
	bool found;
	int ret = require_wireguard(q);

	if (ret)
		return down_leftovers(q, ret);
	ret = wg_quick_run_hooks(q, &q->conf->pre_down, "PreDown");
	if (!ret && q->conf->save_config)
		ret = wg_quick_save_config(q);
	if (ret)
		return ret;
	live = q->live;
	if (wg_quick_auto_table(q->conf) && (live->flags & WG_DEVCONF_HAS_FWMARK) && live->fwmark &&
	    wg_quick_has_default_route(live))
		wg_quick_delete_rules(q, live->fwmark);
	ret = wg_quick_delete_link(q);
	if (ret)
		return ret;
	if (wg_dns_wanted(q->conf))
		wg_dns_unset(q);
	remove_firewall(q, &found, NULL);
	return wg_quick_run_hooks(q, &q->conf->post_down, "PostDown");
}

int wg_quick_down(const char *arg, const struct wg_quick_opts *opts, char *err, size_t err_size)
{
	struct wg_quick q;
	int ret = begin(&q, opts, arg, err, err_size);

	if (!ret)
		ret = down_steps(&q);
	end(&q);
	return ret;
}

int wg_quick_strip(const char *arg, const struct wg_quick_opts *opts, FILE *out, char *err,
		   size_t err_size)
{
	struct wg_quick_config cfg;
	bool in_interface = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int ret = wg_quick_locate(arg, opts, &cfg, err, err_size);

	if (ret)
		return ret;
	f = fopen(cfg.real_path, "re");
	if (!f) {
		ret = -errno;
		say(err, err_size, "%s: cannot open: %s", cfg.path, strerror(-ret));
		return ret;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		const char *s = line;
		size_t len = (size_t)n;

		/* `read -r line` drops the blanks at both ends. */
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n'))
			len--;
		while (len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		if (wg_quick_strip_line(s, len, &in_interface))
			fprintf(out, "%.*s\n", (int)len, s);
	}
	/* wg-quick's `echo "$WG_CONFIG"` ends with one more newline. */
	fputc('\n', out);
	if (line)
		cw_memzero(line, cap);
	free(line);
	fclose(f);
	return 0;
}
