/* SPDX-License-Identifier: GPL-2.0-only */
#include "tools/cakewg/show_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "src/core/counters.h"
#include "src/core/uapi_reply.h"
#include "tools/cakewg/show_print.h"

static void str(struct wg_devconf_buf *out, const char *s)
{
	wg_uapi_reply_json_string(out, s, strlen(s));
}

static void key(struct wg_devconf_buf *out, const uint8_t k[static WG_ENCODING_KEY_LEN])
{
	char b64[WG_ENCODING_KEY_B64_SIZE];

	str(out, show_key(b64, k));
}

static void maybe_u64(struct wg_devconf_buf *out, const char *name, bool have, uint64_t v)
{
	if (have)
		wg_devconf_buf_printf(out, "\"%s\":%" PRIu64, name, v);
	else
		wg_devconf_buf_printf(out, "\"%s\":null", name);
}

/* The underlay setting as its config word ("auto", "off" or bytes), or null. */
static void underlay_setting_json(struct wg_devconf_buf *out, const struct wg_uapi_reply_cake *cake)
{
	char text[WG_DEVCONF_UNDERLAY_LIMIT_STRLEN];

	wg_devconf_buf_printf(out, "\"underlay_limit_setting\":");
	if (cake->has_underlay_limit_setting)
		str(out, wg_devconf_underlay_limit_format(text, cake->underlay_limit_setting));
	else
		wg_devconf_buf_printf(out, "null");
}

static void peer_json(struct wg_devconf_buf *out, const struct wg_devconf_peer *peer)
{
	char text[512], ip[INET6_ADDRSTRLEN];

	wg_devconf_buf_printf(out, "{\"public_key\":");
	key(out, peer->public_key);
	wg_devconf_buf_printf(out, ",\"endpoint\":");
	if (show_has_endpoint(peer)) {
		show_endpoint(text, sizeof(text), peer);
		str(out, text);
	} else {
		wg_devconf_buf_printf(out, "null");
	}
	wg_devconf_buf_printf(out, ",\"allowed_ips\":[");
	for (size_t i = 0; i < peer->n_allowedips; i++) {
		snprintf(text, sizeof(text), "%s/%u", show_ip(ip, &peer->allowedips[i]),
			 peer->allowedips[i].prefix.cidr);
		if (i)
			wg_devconf_buf_append(out, ",", 1);
		str(out, text);
	}
	wg_devconf_buf_printf(out,
			      "],\"latest_handshake\":%lld,\"rx_bytes\":%" PRIu64
			      ",\"tx_bytes\":%" PRIu64 ",\"persistent_keepalive\":%u}",
			      (long long)peer->last_handshake_sec, peer->rx_bytes, peer->tx_bytes,
			      peer->persistent_keepalive_secs);
}

static void qdisc_json(struct wg_devconf_buf *out, const char *name,
		       const struct wg_uapi_reply_cake_qdisc *q)
{
	wg_devconf_buf_printf(out, "\"%s\":", name);
	if (!q->options && !q->json) {
		wg_devconf_buf_printf(out, "null");
		return;
	}
	wg_devconf_buf_printf(out, "{\"options\":");
	if (q->options)
		str(out, q->options);
	else
		wg_devconf_buf_printf(out, "null");
	/* The parser checked that this is one well-formed JSON object. */
	wg_devconf_buf_printf(out, ",\"stats\":%s}", q->json ? q->json : "null");
}

/* ,"<json key>":<n> | null for every counter of scope that has a JSON key. */
static void counters_json(struct wg_devconf_buf *out, enum wg_counter_scope scope, uint64_t has,
			  const uint64_t *v)
{
	unsigned int n;
	const struct wg_counter_def *defs = wg_counters_table(scope, &n);

	for (unsigned int i = 0; i < n; i++) {
		if (!defs[i].json)
			continue;
		wg_devconf_buf_printf(out, ",");
		maybe_u64(out, defs[i].json, has & (UINT64_C(1) << i), v[i]);
	}
}

static void cake_peer_json(struct wg_devconf_buf *out, const struct wg_uapi_reply_cake_peer *p)
{
	wg_devconf_buf_printf(out, "{\"public_key\":");
	key(out, p->public_key);
	counters_json(out, WG_COUNTER_SCOPE_PEER, p->counters.has, p->counters.v);
	wg_devconf_buf_printf(out, "}");
}

static void cake_json(struct wg_devconf_buf *out, const struct show_device *dev)
{
	const struct wg_uapi_reply_cake *cake = &dev->cake;

	if (!dev->has_cake) {
		wg_devconf_buf_printf(out, "null");
		return;
	}
	wg_devconf_buf_printf(out, "{");
	qdisc_json(out, "egress", &cake->egress);
	wg_devconf_buf_printf(out, ",");
	qdisc_json(out, "ingress", &cake->ingress);
	wg_devconf_buf_printf(out, ",");
	maybe_u64(out, "underlay_limit", cake->has_underlay_limit, cake->underlay_limit);
	wg_devconf_buf_printf(out, ",");
	maybe_u64(out, "underlay_drain_rate", cake->has_underlay_drain_rate,
		  cake->underlay_drain_rate);
	wg_devconf_buf_printf(out, ",");
	underlay_setting_json(out, cake);
	counters_json(out, WG_COUNTER_SCOPE_DEVICE, cake->counters.has, cake->counters.v);
	wg_devconf_buf_printf(out, ",\"peers\":[");
	for (size_t i = 0; i < cake->n_peers; i++) {
		if (i)
			wg_devconf_buf_append(out, ",", 1);
		cake_peer_json(out, &cake->peers[i]);
	}
	wg_devconf_buf_printf(out, "]}");
}

void show_json(struct wg_devconf_buf *out, const struct show_device *dev)
{
	const struct wg_devconf *conf = dev->conf;

	wg_devconf_buf_printf(out, "{\"interface\":");
	str(out, dev->name);
	wg_devconf_buf_printf(out, ",\"public_key\":");
	if (dev->has_public_key)
		key(out, dev->public_key);
	else
		wg_devconf_buf_printf(out, "null");
	wg_devconf_buf_printf(out, ",\"listen_port\":%u,\"fwmark\":%u,\"peers\":[",
			      conf->listen_port, conf->fwmark);
	for (size_t i = 0; i < conf->n_peers; i++) {
		if (i)
			wg_devconf_buf_append(out, ",", 1);
		peer_json(out, conf->peers[i]);
	}
	wg_devconf_buf_printf(out, "],\"cake\":");
	cake_json(out, dev);
	wg_devconf_buf_printf(out, "}");
}
