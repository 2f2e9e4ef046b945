/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/edge/netwatch.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/device_netchange.h"
#include "src/core/reresolve.h"
#include "src/edge/log.h"
#include "src/edge/tunaddr.h"

enum { TEST_RERESOLVE_MAX_SECS = 86400 };

static uint64_t now(struct wg_netwatch *w)
{
	w->tick(w->tick_ctx);
	return w->dev->now_ns;
}

static void arm(struct wg_netwatch *w, ev_timer *t, uint64_t at_ns, uint64_t now_ns)
{
	ev_timer_stop(w->loop, t);
	if (at_ns == UINT64_MAX)
		return;
	ev_timer_set(t, at_ns > now_ns ? (double)(at_ns - now_ns) / 1e9 : 0., 0.);
	ev_timer_start(w->loop, t);
}

static uint64_t last_handshake(const struct wg_peer *peer)
{
	return peer->has_handshake ? peer->last_handshake_ns : 0;
}

static struct wg_path route_to(struct wg_netwatch *w, const struct wg_endpoint *ep);

/* --- names --- */

/* Starts the lookups that are due and sleeps until the next one is. */
static void run_names(struct wg_netwatch *w, uint64_t now_ns)
{
	uint64_t next = UINT64_MAX;

	for (struct wg_peer *peer = w->dev->peers_head; peer; peer = peer->next) {
		uint64_t due;

		if (!peer->endpoint_host[0])
			continue;
		if (wg_reresolve_start(&peer->reresolve, now_ns, last_handshake(peer),
				       w->after_ns)) {
			int ret = wg_resolver_ask(w->resolver, peer->id, peer->endpoint_host,
						  peer->endpoint_port);

			if (ret)
				wg_device_endpoint_resolve_failed(w->dev, peer, strerror(-ret),
								  now_ns);
		}
		due = wg_reresolve_due_ns(&peer->reresolve, last_handshake(peer), w->after_ns);
		if (due < next)
			next = due;
	}
	arm(w, &w->names_w, next, now_ns);
}

static void names_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct wg_netwatch *w = t->data;

	(void)loop;
	(void)revents;
	run_names(w, now(w));
}

static void answer(void *ctx, const struct wg_resolver_answer *a)
{
	struct wg_netwatch *w = ctx;
	uint64_t now_ns = now(w);
	struct wg_peer *peer;

	for (peer = w->dev->peers_head; peer && peer->id != a->tag; peer = peer->next)
		;
	/* Removed, or given another name since: the answer is stale. */
	if (!peer || !peer->reresolve.in_flight || strcmp(peer->endpoint_host, a->host) ||
	    peer->endpoint_port != a->port)
		return;
	if (a->gai) {
		char why[WG_RESOLVER_REASON_SIZE];

		wg_device_endpoint_resolve_failed(w->dev, peer, wg_resolver_reason(a, why), now_ns);
	} else if (wg_device_endpoint_resolved(w->dev, peer, &a->addr, now_ns)) {
		struct wg_path p = route_to(w, &peer->endpoint);

		peer->has_path = false; /* another address: a new baseline */
		(void)wg_device_peer_path_note(peer, &p);
	}
	run_names(w, now_ns);
}

/* --- routes --- */

static struct wg_path route_to(struct wg_netwatch *w, const struct wg_endpoint *ep)
{
	struct wg_nl_prefix dst = {0};
	struct wg_nl_route_info info;
	struct wg_path p;

	memset(&p, 0, sizeof(p));
	if (ep->remote.addr.sa_family == AF_INET) {
		dst.family = AF_INET;
		dst.len = 32;
		dst.addr.v4 = ep->remote.addr4.sin_addr;
	} else {
		dst.family = AF_INET6;
		dst.len = 128;
		dst.addr.v6 = ep->remote.addr6.sin6_addr;
	}
	p.err = wg_netlink_route_get(w->nl, &dst, w->dev->fwmark, &info);
	if (!p.err) {
		p.oif = info.oif;
		memcpy(p.src, info.src, sizeof(p.src));
		memcpy(p.gateway, info.gateway, sizeof(p.gateway));
	}
	return p;
}

static void burst(struct wg_netwatch *w, uint64_t now_ns)
{
	unsigned int moved = 0, handshakes = 0;

	for (struct wg_peer *peer = w->dev->peers_head; peer; peer = peer->next) {
		struct wg_path p;

		if (!wg_endpoint_is_set(&peer->endpoint))
			continue;
		p = route_to(w, &peer->endpoint);
		if (!wg_device_peer_path_note(peer, &p))
			continue;
		moved++;
		handshakes += wg_device_peer_path_changed(w->dev, peer, now_ns);
	}
	if (!moved)
		return;
	w->acted++;
	wg_log_info("Network changed: the route to %u peer%s moved, %u handshake%s started",
		    moved, moved == 1 ? "" : "s", handshakes, handshakes == 1 ? "" : "s");
	wg_device_autorate_path_reset(w->dev, now_ns);
	run_names(w, now_ns);
}

static void change_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct wg_netwatch *w = t->data;
	uint64_t now_ns = now(w);

	(void)loop;
	(void)revents;
	if (wg_netchange_take(&w->change, now_ns))
		burst(w, now_ns);
	arm(w, &w->change_w, wg_netchange_due_ns(&w->change), now_ns);
}

/* The ICMP errors' sources (src/edge/tunaddr.h): kept as they were when the dump fails. */
static void tun_addresses(struct wg_netwatch *w)
{
	int ret = wg_tunaddr_learn(w->nl, w->own_ifindex, w->dev);

	if (ret)
		wg_log_err("Unable to read the addresses of the tunnel: %s", strerror(-ret));
}

void wg_netwatch_net_event(void *ctx, const struct wg_nl_net_event *e)
{
	struct wg_netwatch *w = ctx;
	uint64_t now_ns;

	if (e->ifindex && e->ifindex == w->own_ifindex) {
		if (e->type == RTM_NEWADDR || e->type == RTM_DELADDR)
			tun_addresses(w);
		return;
	}
	now_ns = now(w);
	wg_netchange_event(&w->change, now_ns);
	arm(w, &w->change_w, wg_netchange_due_ns(&w->change), now_ns);
}

void wg_netwatch_events_lost(struct wg_netwatch *w)
{
	tun_addresses(w);
	wg_netwatch_net_event(w, &(struct wg_nl_net_event){.ifindex = 0});
}

void wg_netwatch_configured(struct wg_netwatch *w)
{
	uint64_t now_ns = now(w);
	/* `up` sets the fwmark after the peers: the routes change with it, not the path */
	bool again = w->fwmark != w->dev->fwmark;

	w->fwmark = w->dev->fwmark;
	for (struct wg_peer *peer = w->dev->peers_head; peer; peer = peer->next) {
		struct wg_path p;

		if ((peer->has_path && !again) || !wg_endpoint_is_set(&peer->endpoint))
			continue;
		p = route_to(w, &peer->endpoint);
		(void)wg_device_peer_path_note(peer, &p); /* the baseline */
	}
	run_names(w, now_ns);
}

void wg_netwatch_report(const struct wg_netwatch *w, struct wg_device_counters *c)
{
	wg_device_counters_set(c, WG_COUNTER_NETWORK_CHANGES, w->acted);
}

/* CAKEWG_TEST_RERESOLVE_SECS: a test hook, 1..86400 seconds instead of 135. */
static uint64_t period_from_env(void)
{
	const char *env = getenv("CAKEWG_TEST_RERESOLVE_SECS");
	char *end;
	unsigned long v;

	if (!env)
		return WG_RERESOLVE_AFTER_NS;
	errno = 0;
	v = strtoul(env, &end, 10);
	if (!*env || *end || errno || !v || v > TEST_RERESOLVE_MAX_SECS || *env == '-' ||
	    *env == '+' || *env == ' ') {
		wg_log_err("CAKEWG_TEST_RERESOLVE_SECS=%s is not 1..%u seconds: 135 s it is", env,
			   (unsigned int)TEST_RERESOLVE_MAX_SECS);
		return WG_RERESOLVE_AFTER_NS;
	}
	wg_log_info("Test hook: host names resolved again after %lu s, not 135 s", v);
	return (uint64_t)v * WG_NSEC_PER_SEC;
}

int wg_netwatch_start(struct wg_netwatch *w, struct ev_loop *loop, struct wg_device *dev,
		      uint32_t own_ifindex, void (*tick)(void *ctx), void *tick_ctx)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->loop = loop;
	w->dev = dev;
	w->own_ifindex = own_ifindex;
	w->tick = tick;
	w->tick_ctx = tick_ctx;
	w->after_ns = period_from_env();
	ev_timer_init(&w->change_w, change_cb, 0., 0.);
	ev_timer_init(&w->names_w, names_cb, 0., 0.);
	w->change_w.data = w->names_w.data = w;
	ret = wg_netlink_open(&w->nl);
	if (!ret)
		tun_addresses(w);
	return ret;
}

int wg_netwatch_run(struct wg_netwatch *w)
{
	return wg_resolver_start(&w->resolver, w->loop, answer, w);
}

void wg_netwatch_stop(struct wg_netwatch *w)
{
	if (!w->loop)
		return;
	ev_timer_stop(w->loop, &w->change_w);
	ev_timer_stop(w->loop, &w->names_w);
	wg_resolver_stop(w->resolver);
	w->resolver = NULL;
	if (w->nl)
		wg_netlink_close(w->nl);
	w->nl = NULL;
	w->loop = NULL;
}
