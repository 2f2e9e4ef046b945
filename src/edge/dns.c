/* SPDX-License-Identifier: GPL-2.0-only */
/* `DNS =` through systemd-resolved when it runs, else resolvconf(8) (dns.h). */
#include "src/edge/dns.h"

#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
	RESOLVCONF_PREFIX_MAX = 64,
};

static const char interface_order[] = "/etc/resolvconf/interface-order";
/* systemd-resolved's RuntimeDirectory: there while it runs (and kept after a stop, when
 * resolvectl then fails and says so). */
static const char resolved_dir[] = "/run/systemd/resolve";
/* The routing domain that sends every query to the link (systemd-resolved(8)). */
static const char route_all[] = "~.";

bool wg_dns_wanted(const struct wg_devconf *conf)
{
	return conf->n_dns > 0;
}

void wg_dns_resolvconf_text(const struct wg_devconf *conf, struct wg_devconf_buf *out)
{
	char text[WG_IPADDR_STRLEN];

	for (size_t i = 0; i < conf->n_dns; i++) {
		wg_ipaddr_format(text, &conf->dns[i]);
		wg_devconf_buf_printf(out, "nameserver %s\n", text);
	}
	if (!conf->dns_search.n)
		return;
	wg_devconf_buf_printf(out, "search");
	for (size_t i = 0; i < conf->dns_search.n; i++)
		wg_devconf_buf_printf(out, " %s", conf->dns_search.v[i]);
	wg_devconf_buf_printf(out, "\n");
}

static void word(struct wg_dns_words *w, const char *s)
{
	wg_devconf_buf_append(&w->text, s, strlen(s) + 1); /* with its NUL */
	w->argc++;
}

int wg_dns_resolvectl_words(const struct wg_devconf *conf, const char *ifname, bool full_tunnel,
			    enum wg_dns_step step, struct wg_dns_words *out)
{
	static const char *const verbs[WG_DNS_STEPS] = {
		[WG_DNS_STEP_SERVERS] = "dns",
		[WG_DNS_STEP_DOMAINS] = "domain",
		[WG_DNS_STEP_DEFAULT_ROUTE] = "default-route",
	};
	char text[WG_IPADDR_STRLEN];
	const char *p;

	memset(out, 0, sizeof(*out));
	if ((step == WG_DNS_STEP_DOMAINS && !conf->dns_search.n && !full_tunnel) ||
	    (step == WG_DNS_STEP_DEFAULT_ROUTE && !full_tunnel))
		return 0;
	word(out, "resolvectl");
	word(out, verbs[step]);
	word(out, ifname);
	if (step == WG_DNS_STEP_SERVERS) {
		for (size_t i = 0; i < conf->n_dns; i++) {
			wg_ipaddr_format(text, &conf->dns[i]);
			word(out, text);
		}
	} else if (step == WG_DNS_STEP_DOMAINS) {
		for (size_t i = 0; i < conf->dns_search.n; i++)
			word(out, conf->dns_search.v[i]);
		if (full_tunnel)
			word(out, route_all);
	} else {
		word(out, "yes");
	}
	out->argv = out->text.failed ? NULL : calloc(out->argc + 1, sizeof(*out->argv));
	if (!out->argv)
		return -ENOMEM;
	p = out->text.data;
	for (size_t i = 0; i < out->argc; i++, p += strlen(p) + 1)
		out->argv[i] = (char *)p;
	return 0;
}

void wg_dns_words_free(struct wg_dns_words *w)
{
	free(w->argv);
	wg_devconf_buf_wipe(&w->text);
	memset(w, 0, sizeof(*w));
}

/* resolved runs: its directory is there, and resolvectl (path) in PATH. */
static bool resolved(char *path, size_t size)
{
	struct stat st;

	return !stat(resolved_dir, &st) && S_ISDIR(st.st_mode) &&
	       wg_quick_find_program("resolvectl", path, size);
}

/* Every query takes the tunnel when it holds a default route that up routes. */
static bool full_tunnel(const struct wg_quick *q)
{
	return q->live && q->conf->table_mode != WG_DEVCONF_TABLE_OFF &&
	       wg_quick_has_default_route(q->live);
}

/* Debian's resolvconf orders records by interface-order: wg-quick names its record
 * after the first "NAME*" pattern there ("tun." for "tun*"), unless resolvconf is a
 * symlink (to openresolv or systemd's resolvectl). */
static void resolvconf_name(const char *resolvconf, const char *ifname, char *out, size_t size)
{
	char line[RESOLVCONF_PREFIX_MAX + 2] = "";
	struct stat st;
	FILE *f;

	snprintf(out, size, "%s", ifname);
	if (lstat(resolvconf, &st) || S_ISLNK(st.st_mode))
		return;
	f = fopen(interface_order, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		size_t name = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					   "0123456789-");

		if (name && name + 1 == n && line[name] == '*') {
			snprintf(out, size, "%.*s.%s", (int)name, line, ifname);
			break;
		}
	}
	fclose(f);
}

int wg_dns_check(struct wg_quick *q)
{
	char path[PATH_MAX];

	if (wg_dns_wanted(q->conf) && !resolved(path, sizeof(path)) &&
	    !wg_quick_find_program("resolvconf", path, sizeof(path)))
		return wg_quick_fail(
			q, -ENOENT, "DNS is set, but resolvconf(8) is not installed (not in PATH)");
	return 0;
}

static int resolvconf(struct wg_quick *q, bool add, int *status)
{
	struct wg_devconf_buf text = {0};
	char path[PATH_MAX], name[IFNAMSIZ + RESOLVCONF_PREFIX_MAX + 2];
	char *add_argv[] = {path, "-a", name, "-m", "0", "-x", NULL};
	char *del_argv[] = {path, "-d", name, "-f", NULL};
	int ret;

	if (!wg_quick_find_program("resolvconf", path, sizeof(path)))
		return -ENOENT;
	resolvconf_name(path, q->cfg.ifname, name, sizeof(name));
	if (!add) {
		wg_quick_trace(q, "resolvconf -d %s -f", name);
		return wg_quick_run(del_argv, NULL, NULL, status);
	}
	wg_dns_resolvconf_text(q->conf, &text);
	wg_quick_trace(q, "resolvconf -a %s -m 0 -x", name);
	ret = text.failed ? -ENOMEM : wg_quick_run(add_argv, text.data, NULL, status);
	wg_devconf_buf_wipe(&text);
	return ret;
}

static int set_resolvconf(struct wg_quick *q)
{
	int status = 0, ret = resolvconf(q, true, &status);

	if (ret)
		return wg_quick_fail(q, ret, "cannot run resolvconf: %s", strerror(-ret));
	if (status)
		return wg_quick_fail(q, -ECHILD, "resolvconf -a failed with exit status %d",
				     status);
	q->have_dns = true;
	return 0;
}

/* Runs words (argv[0] resolvectl, found at path) with a trace line. */
static int run_resolvectl(struct wg_quick *q, const char *path, struct wg_dns_words *w, int *status)
{
	struct wg_devconf_buf line = {0};

	for (size_t i = 0; i < w->argc; i++)
		wg_devconf_buf_printf(&line, "%s%s", i ? " " : "", w->argv[i]);
	wg_quick_trace(q, "%s", line.failed ? w->argv[0] : line.data);
	wg_devconf_buf_wipe(&line);
	w->argv[0] = (char *)path;
	return wg_quick_run(w->argv, NULL, NULL, status);
}

static int set_resolved(struct wg_quick *q, const char *path)
{
	bool full = full_tunnel(q);

	q->have_dns = true; /* from the first step on, down's revert has something to do */
	for (int step = 0; step < WG_DNS_STEPS; step++) {
		struct wg_dns_words w;
		int status = 0, ret = wg_dns_resolvectl_words(q->conf, q->cfg.ifname, full,
							      (enum wg_dns_step)step, &w);
		const char *verb = w.argv ? w.argv[1] : "";

		if (!ret && w.argc)
			ret = run_resolvectl(q, path, &w, &status);
		if (ret)
			ret = wg_quick_fail(q, ret, "cannot run resolvectl: %s", strerror(-ret));
		else if (status)
			ret = wg_quick_fail(q, -ECHILD, "resolvectl %s failed with exit status %d",
					    verb, status);
		wg_dns_words_free(&w);
		if (ret)
			return ret;
	}
	return 0;
}

int wg_dns_set(struct wg_quick *q)
{
	char path[PATH_MAX];

	if (!wg_dns_wanted(q->conf))
		return 0;
	if (resolved(path, sizeof(path)))
		return set_resolved(q, path);
	return set_resolvconf(q);
}

/* resolved forgets a link's settings when the link goes: revert only one still there. */
static void unset_resolved(struct wg_quick *q, char *path)
{
	char *argv[] = {path, "revert", q->cfg.ifname, NULL};
	int status = 0, ret;

	if (!if_nametoindex(q->cfg.ifname))
		return;
	wg_quick_trace(q, "resolvectl revert %s", q->cfg.ifname);
	ret = wg_quick_run(argv, NULL, NULL, &status);
	if (q->opts->trace && (ret || status))
		fprintf(q->opts->trace, "Warning: resolvectl revert %s failed: %s\n", q->cfg.ifname,
			ret ? strerror(-ret) : "non-zero exit status");
}

void wg_dns_unset(struct wg_quick *q)
{
	char path[PATH_MAX];
	int status = 0, ret;

	q->have_dns = false;
	if (resolved(path, sizeof(path))) {
		unset_resolved(q, path);
		return;
	}
	ret = resolvconf(q, false, &status);
	if (q->opts->trace && (ret || status))
		fprintf(q->opts->trace, "Warning: resolvconf -d for %s failed: %s\n", q->cfg.ifname,
			ret ? strerror(-ret) : "non-zero exit status");
}
