/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg's UAPI extension `cakewg_get=1`: what `wg show` cannot show — the CAKE options
 * and statistics (tc -s qdisc's text, line by line, and tc -j's JSON), the per-peer
 * queue counters and the device's drop counters by reason.
 */
#include "src/core/device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake_print.h"
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

/* The instance's option, stats and JSON lines; for the egress instance (lag) also the
 * shaper's late counters, which are device keys: written once, whatever the modes. */
static int put_cake(struct wg_devconf_buf *out, const char *name, const struct wg_egress *eg,
		    bool lag)
{
	char *text = malloc(STATS_TEXT_BYTES);
	struct cake_stats st;
	struct cake_options opts;
	struct cake_out co;
	char key[48];
	int ret = -ENOMEM;

	if (!text)
		return ret;
	cake_get_options(eg->q, &opts);
	opts.peer_isolation = eg->opts.peer_isolation;
	cake_get_stats(eg->q, &st);
	cake_out_init(&co, text, STATS_TEXT_BYTES);
	if (cake_print_options(&co, &opts) || cake_out_status(&co))
		goto out;
	wg_devconf_buf_printf(out, "%s=%s\n", name, text);
	cake_out_init(&co, text, STATS_TEXT_BYTES);
	if (cake_print_stats(&co, &st) || cake_out_status(&co))
		goto out;
	snprintf(key, sizeof(key), "%s_stats", name);
	put_lines(out, key, text);
	cake_out_init(&co, text, STATS_TEXT_BYTES);
	if (cake_print_json(&co, &opts, &st) || cake_out_status(&co))
		goto out;
	wg_devconf_buf_printf(out, "%s_json=%s\n", name, text);
	if (lag)
		wg_devconf_buf_printf(out, "shaper_late=%llu\nshaper_late_ns=%llu\n",
				      (unsigned long long)st.shaper_late,
				      (unsigned long long)st.shaper_late_ns);
	ret = 0;
out:
	free(text);
	return ret;
}

int wg_device_ext_get_write(const struct wg_device *dev, struct wg_devconf_buf *out)
{
	const struct wg_device_stats *s = &dev->stats;
	const struct wg_peer *peer;
	int ret = put_cake(out, "cake_egress", &dev->egress, true);

	if (!ret && dev->ingress)
		ret = put_cake(out, "cake_ingress", dev->ingress, false);
	if (ret)
		return ret;
	if (dev->ingress)
		wg_devconf_buf_printf(out, "ingress_gulps=%llu\n",
				      (unsigned long long)dev->ingress->stats.gulps);
	wg_devconf_buf_printf(out,
			      "rx_malformed=%llu\nrx_invalid_mac=%llu\nrx_ratelimited=%llu\n"
			      "rx_handshake_bad=%llu\nrx_cookie_bad=%llu\nrx_no_keypair=%llu\n"
			      "rx_auth_failed=%llu\nrx_replayed=%llu\nrx_bad_source=%llu\n"
			      "rx_bad_inner=%llu\nrx_ecn_drops=%llu\ntx_no_peer=%llu\n"
			      "tx_no_endpoint=%llu\ntx_bad_packet=%llu\ntx_nomem=%llu\ncookie_replies_sent=%llu\n",
			      (unsigned long long)s->rx_malformed, (unsigned long long)s->rx_invalid_mac,
			      (unsigned long long)s->rx_ratelimited,
			      (unsigned long long)s->rx_handshake_bad,
			      (unsigned long long)s->rx_cookie_bad, (unsigned long long)s->rx_no_keypair,
			      (unsigned long long)s->rx_auth_failed, (unsigned long long)s->rx_replayed,
			      (unsigned long long)s->rx_bad_source, (unsigned long long)s->rx_bad_inner,
			      (unsigned long long)s->rx_ecn_drops, (unsigned long long)s->tx_no_peer,
			      (unsigned long long)s->tx_no_endpoint, (unsigned long long)s->tx_bad_packet,
			      (unsigned long long)s->tx_nomem,
			      (unsigned long long)s->cookie_replies_sent);
	for (peer = dev->peers_head; peer; peer = peer->next) {
		char hex[WG_ENCODING_KEY_HEX_SIZE];

		wg_encoding_key_to_hex(hex, peer->noise.remote_static);
		wg_devconf_buf_printf(out,
				      "public_key=%s\negress_drops=%llu\nstaged=%u\nstaged_drops=%llu\n"
				      "roams=%llu\nhandshakes_completed=%llu\n",
				      hex, (unsigned long long)peer->stats.egress_drops,
				      peer->staged.len, (unsigned long long)peer->stats.staged_drops,
				      (unsigned long long)peer->stats.roams,
				      (unsigned long long)peer->stats.handshakes_completed);
	}
	return out->failed ? -ENOMEM : 0;
}
