/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg's UAPI extension `cakewg_get=1`: what `wg show` cannot show — the counters of
 * src/core/counters.h (the daemon's, and the device's own: the shaper's lateness, the
 * drops by reason), the underlay's byte limit, the CAKE options and statistics (tc -s
 * qdisc's text, line by line, and tc -j's JSON), and the per-peer counters.
 */
#include "src/core/device.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake_print.h"
#include "src/core/device_conf.h"
#include "src/core/encoding.h"

enum {
	STATS_TEXT_BYTES = 8192,
};

/* Appends `key=line` for every line of text. */
static void put_lines(struct wg_devconf_buf *out, const char *key, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		wg_devconf_buf_printf(out, "%s=%.*s\n", key, (int)n, text);
		text += n + (nl ? 1 : 0);
	}
}

/* The instance's option, stats (st, its snapshot) and JSON lines. */
static int put_cake(struct wg_devconf_buf *out, const char *name, const struct wg_egress *eg,
		    const struct cake_stats *st)
{
	char *text = malloc(STATS_TEXT_BYTES);
	struct cake_options opts;
	struct cake_out co;
	char key[48];
	int ret = -ENOMEM;

	if (!text)
		return ret;
	cake_get_options(eg->q, &opts);
	opts.peer_isolation = eg->opts.peer_isolation;
	if (eg->opts.autorate) { /* the start rate and range; the rate in force is in st */
		opts.rate_bytes_per_sec = eg->opts.rate_bytes_per_sec;
		opts.autorate = true;
		opts.autorate_min = eg->opts.autorate_min;
		opts.autorate_max = eg->opts.autorate_max;
		opts.autorate_target_us = eg->opts.autorate_target_us;
	}
	cake_out_init(&co, text, STATS_TEXT_BYTES);
	if (cake_print_options(&co, &opts) || cake_out_status(&co))
		goto out;
	wg_devconf_buf_printf(out, "%s=%s\n", name, text);
	cake_out_init(&co, text, STATS_TEXT_BYTES);
	if (cake_print_stats(&co, st) || cake_out_status(&co))
		goto out;
	snprintf(key, sizeof(key), "%s_stats", name);
	put_lines(out, key, text);
	cake_out_init(&co, text, STATS_TEXT_BYTES);
	if (cake_print_json(&co, &opts, st) || cake_out_status(&co))
		goto out;
	wg_devconf_buf_printf(out, "%s_json=%s\n", name, text);
	ret = 0;
out:
	free(text);
	return ret;
}

/* The device's own counters: the egress shaper's lateness (egress: its stats; the
 * ingress instance's are not the device's), the ingress gulps, the drops by reason. */
static void device_counters(const struct wg_device *dev, const struct cake_stats *egress,
			    struct wg_device_counters *c)
{
	const struct wg_device_stats *s = &dev->stats;

	wg_device_counters_set(c, WG_COUNTER_SHAPER_LATE, egress->shaper_late);
	wg_device_counters_set(c, WG_COUNTER_SHAPER_LATE_NS, egress->shaper_late_ns);
	if (dev->ingress)
		wg_device_counters_set(c, WG_COUNTER_INGRESS_GULPS, dev->ingress->stats.gulps);
	wg_device_counters_set(c, WG_COUNTER_RX_MALFORMED, s->rx_malformed);
	wg_device_counters_set(c, WG_COUNTER_RX_INVALID_MAC, s->rx_invalid_mac);
	wg_device_counters_set(c, WG_COUNTER_RX_RATELIMITED, s->rx_ratelimited);
	wg_device_counters_set(c, WG_COUNTER_RX_HANDSHAKE_BAD, s->rx_handshake_bad);
	wg_device_counters_set(c, WG_COUNTER_RX_COOKIE_BAD, s->rx_cookie_bad);
	wg_device_counters_set(c, WG_COUNTER_RX_NO_KEYPAIR, s->rx_no_keypair);
	wg_device_counters_set(c, WG_COUNTER_RX_AUTH_FAILED, s->rx_auth_failed);
	wg_device_counters_set(c, WG_COUNTER_RX_REPLAYED, s->rx_replayed);
	wg_device_counters_set(c, WG_COUNTER_RX_BAD_SOURCE, s->rx_bad_source);
	wg_device_counters_set(c, WG_COUNTER_RX_BAD_INNER, s->rx_bad_inner);
	wg_device_counters_set(c, WG_COUNTER_RX_ECN_DROPS, s->rx_ecn_drops);
	wg_device_counters_set(c, WG_COUNTER_TX_NO_PEER, s->tx_no_peer);
	wg_device_counters_set(c, WG_COUNTER_TX_ICMP_UNREACH, s->tx_icmp_unreach);
	wg_device_counters_set(c, WG_COUNTER_TX_ROUTING_LOOP, s->tx_routing_loop);
	wg_device_counters_set(c, WG_COUNTER_TX_NO_ENDPOINT, s->tx_no_endpoint);
	wg_device_counters_set(c, WG_COUNTER_TX_BAD_PACKET, s->tx_bad_packet);
	wg_device_counters_set(c, WG_COUNTER_TX_NOMEM, s->tx_nomem);
	wg_device_counters_set(c, WG_COUNTER_COOKIE_REPLIES_SENT, s->cookie_replies_sent);
}

static void put_underlay_limit(struct wg_devconf_buf *out, const struct wg_device_ext *ext)
{
	char setting[WG_DEVCONF_UNDERLAY_LIMIT_STRLEN];

	wg_devconf_buf_printf(
		out, "underlay_limit=%u\nunderlay_drain_rate=%llu\nunderlay_limit_setting=%s\n",
		ext->underlay_limit, (unsigned long long)ext->underlay_drain_rate,
		wg_devconf_underlay_limit_format(setting, ext->underlay_limit_setting));
}

static void put_peer(struct wg_devconf_buf *out, const struct wg_peer *peer)
{
	struct wg_peer_counters c = {0};
	char hex[WG_ENCODING_KEY_HEX_SIZE];

	wg_encoding_key_to_hex(hex, peer->noise.remote_static);
	wg_devconf_buf_printf(out, "public_key=%s\n", hex);
	if (peer->endpoint_host[0]) {
		char name[WG_DEVCONF_ENDPOINT_HOST_STRLEN];

		wg_devconf_format_endpoint_host(name, peer->endpoint_host, peer->endpoint_port);
		wg_devconf_buf_printf(out, "endpoint_host=%s\n", name);
		wg_peer_counters_set(&c, WG_PEER_COUNTER_RESOLVE_LOOKUPS, peer->reresolve.lookups);
		wg_peer_counters_set(&c, WG_PEER_COUNTER_RESOLVE_FAILURES,
				     peer->reresolve.failures);
		wg_peer_counters_set(&c, WG_PEER_COUNTER_RESOLVE_CHANGES, peer->reresolve.changes);
	}
	wg_peer_counters_set(&c, WG_PEER_COUNTER_EGRESS_DROPS, peer->stats.egress_drops);
	wg_peer_counters_set(&c, WG_PEER_COUNTER_STAGED, peer->staged.len);
	wg_peer_counters_set(&c, WG_PEER_COUNTER_STAGED_DROPS, peer->stats.staged_drops);
	wg_peer_counters_set(&c, WG_PEER_COUNTER_ROAMS, peer->stats.roams);
	wg_peer_counters_set(&c, WG_PEER_COUNTER_HANDSHAKES_COMPLETED,
			     peer->stats.handshakes_completed);
	wg_counters_write(out, WG_COUNTER_SCOPE_PEER, c.has, c.v);
}

int wg_device_ext_get_head(const struct wg_device *dev, const struct wg_device_ext *ext,
			   struct wg_devconf_buf *out)
{
	struct wg_device_counters c = ext ? ext->counters : (struct wg_device_counters){0};
	struct cake_stats st;
	int ret;

	cake_get_stats(dev->egress.q, &st);
	wg_autorate_fill_stats(&dev->egress, &st, dev->now_ns);
	device_counters(dev, &st, &c);
	wg_counters_write(out, WG_COUNTER_SCOPE_DEVICE, c.has, c.v);
	if (ext && ext->has_underlay_limit)
		put_underlay_limit(out, ext);
	if (dev->autorate_probe.family) {
		char addr[WG_IPADDR_STRLEN];

		wg_ipaddr_format(addr, &dev->autorate_probe);
		wg_devconf_buf_printf(out, "autorate_probe=%s\n", addr);
	}
	ret = put_cake(out, "cake_egress", &dev->egress, &st);
	if (!ret && dev->ingress) {
		cake_get_stats(dev->ingress->q, &st);
		wg_autorate_fill_stats(dev->ingress, &st, dev->now_ns);
		ret = put_cake(out, "cake_ingress", dev->ingress, &st);
	}
	if (ret)
		return ret;
	return out->failed ? -ENOMEM : 0;
}

int wg_device_ext_get_peers(const struct wg_peer **next, unsigned int budget,
			    struct wg_devconf_buf *out)
{
	for (unsigned int used = 0; *next && used < budget; used += WG_DEVICE_CONF_UNITS_ITEM) {
		put_peer(out, *next);
		*next = (*next)->next;
	}
	if (out->failed)
		return -ENOMEM;
	return *next ? WG_DEVICE_CONF_MORE : 0;
}

int wg_device_ext_get_write(const struct wg_device *dev, const struct wg_device_ext *ext,
			    struct wg_devconf_buf *out)
{
	const struct wg_peer *next = dev->peers_head;
	int ret = wg_device_ext_get_head(dev, ext, out);

	return ret ? ret : wg_device_ext_get_peers(&next, UINT_MAX, out);
}
