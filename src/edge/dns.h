/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `DNS =` for `cakewg up/down`. When systemd-resolved runs (its runtime directory
 * /run/systemd/resolve exists and resolvectl is in PATH), the servers and search
 * domains go to the interface's own link in resolved, with the routing domain `~.` and
 * the DNS default route when the tunnel holds a default route (so that every query
 * takes the tunnel), and `down` reverts the link. Otherwise resolvconf(8) gets them,
 * as wg-quick calls it. Part of up/down (struct wg_quick); the pure helpers are
 * declared here so tests can reach them.
 */
#ifndef CAKEWG_SRC_EDGE_DNS_H
#define CAKEWG_SRC_EDGE_DNS_H

#include <stdbool.h>
#include <stddef.h>

#include "src/core/devconf.h"
#include "src/edge/wgquick_priv.h"

/* The resolvectl commands of up, in order. */
enum wg_dns_step {
	WG_DNS_STEP_SERVERS,	   /* resolvectl dns IF A... */
	WG_DNS_STEP_DOMAINS,	   /* resolvectl domain IF D... [~.] */
	WG_DNS_STEP_DEFAULT_ROUTE, /* resolvectl default-route IF yes (a full tunnel) */
	WG_DNS_STEPS,
};

/* A command's words: argv (NULL-terminated) points into text. */
struct wg_dns_words {
	struct wg_devconf_buf text;
	char **argv;
	size_t argc; /* 0: the step has nothing to say */
};

/* True when DNS = names a server: wg-quick calls resolvconf only then. */
WG_MUST_CHECK bool wg_dns_wanted(const struct wg_devconf *conf);
/* resolvconf's input: "nameserver A" lines, then one "search" line. */
void wg_dns_resolvconf_text(const struct wg_devconf *conf, struct wg_devconf_buf *out);
/*
 * The words of up's step for systemd-resolved, argv[0] being resolvectl: the servers,
 * the search domains (and `~.` when full_tunnel), the default route (full_tunnel only).
 * Returns 0 or -ENOMEM; free with wg_dns_words_free() in any case.
 */
int wg_dns_resolvectl_words(const struct wg_devconf *conf, const char *ifname, bool full_tunnel,
			    enum wg_dns_step step, struct wg_dns_words *out);
void wg_dns_words_free(struct wg_dns_words *w);

/* Fails early (before anything is done) when DNS is set and neither resolved nor
 * resolvconf is there. */
int wg_dns_check(struct wg_quick *q);
int wg_dns_set(struct wg_quick *q);
/* Undoes wg_dns_set; failures are reported on the trace stream only (wg-quick's
 * `|| true`). */
void wg_dns_unset(struct wg_quick *q);

#endif
