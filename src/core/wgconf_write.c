/* SPDX-License-Identifier: GPL-2.0-only */
/* wg-quick files: the writer (SaveConfig, showconf), the inverse of wgconf.c's parser. */
#include "src/core/wgconf.h"

#include <errno.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

#define COMMENT_CHAR '#'

/* True when s can be written as a value: one line, and no comment where one would cut it. */
static bool writable(const char *s, bool hash_ok)
{
	return !strchr(s, '\n') && (hash_ok || !strchr(s, COMMENT_CHAR));
}

static int write_list(struct wg_devconf_buf *out, const char *key,
		      const struct wg_devconf_strlist *list, bool hash_ok)
{
	for (size_t i = 0; i < list->n; i++) {
		if (!writable(list->v[i], hash_ok))
			return -EINVAL;
		wg_devconf_buf_printf(out, "%s = %s\n", key, list->v[i]);
	}
	return 0;
}

static void write_table(struct wg_devconf_buf *out, const struct wg_devconf *conf)
{
	switch (conf->table_mode) {
	case WG_DEVCONF_TABLE_UNSET:
		return;
	case WG_DEVCONF_TABLE_AUTO:
		wg_devconf_buf_printf(out, "Table = auto\n");
		return;
	case WG_DEVCONF_TABLE_OFF:
		wg_devconf_buf_printf(out, "Table = off\n");
		return;
	case WG_DEVCONF_TABLE_ID:
		break;
	}
	if (wg_devconf_table_name(conf->table_id))
		wg_devconf_buf_printf(out, "Table = %s\n", wg_devconf_table_name(conf->table_id));
	else
		wg_devconf_buf_printf(out, "Table = %u\n", conf->table_id);
}

static int write_quick(struct wg_devconf_buf *out, const struct wg_devconf *conf)
{
	char text[WG_IPADDR_PREFIX_STRLEN], limit[WG_DEVCONF_UNDERLAY_LIMIT_STRLEN];
	int ret;

	for (size_t i = 0; i < conf->n_addresses; i++) {
		wg_ipaddr_prefix_format(text, &conf->addresses[i]);
		wg_devconf_buf_printf(out, "Address = %s\n", text);
	}
	for (size_t i = 0; i < conf->n_dns; i++) {
		wg_ipaddr_format(text, &conf->dns[i]);
		wg_devconf_buf_printf(out, "DNS = %s\n", text);
	}
	for (size_t i = 0; i < conf->dns_search.n; i++) {
		if (!wg_ipaddr_is_host_name(conf->dns_search.v[i], strlen(conf->dns_search.v[i])))
			return -EINVAL;
		wg_devconf_buf_printf(out, "DNS = %s\n", conf->dns_search.v[i]);
	}
	if (conf->mtu)
		wg_devconf_buf_printf(out, "MTU = %u\n", conf->mtu);
	write_table(out, conf);
	if (conf->save_config)
		wg_devconf_buf_printf(out, "SaveConfig = true\n");
	ret = write_list(out, "PreUp", &conf->pre_up, true);
	ret = ret ?: write_list(out, "PostUp", &conf->post_up, true);
	ret = ret ?: write_list(out, "PreDown", &conf->pre_down, true);
	ret = ret ?: write_list(out, "PostDown", &conf->post_down, true);
	if (ret)
		return ret;
	if (conf->cake && !writable(conf->cake, false))
		return -EINVAL;
	if (conf->cake_ingress && !writable(conf->cake_ingress, false))
		return -EINVAL;
	if ((conf->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT) &&
	    !wg_devconf_underlay_limit_valid(conf->underlay_limit))
		return -EINVAL;
	if (conf->cake)
		wg_devconf_buf_printf(out, "Cake = %s\n", conf->cake);
	if (conf->cake_ingress)
		wg_devconf_buf_printf(out, "CakeIngress = %s\n", conf->cake_ingress);
	/* auto is the default: a file says it only when it said so */
	if (conf->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT)
		wg_devconf_buf_printf(
			out, "UnderlayLimit = %s\n",
			wg_devconf_underlay_limit_format(limit, conf->underlay_limit));
	return 0;
}

static void write_key(struct wg_devconf_buf *out, const char *name,
		      const uint8_t key[static WG_ENCODING_KEY_LEN])
{
	char b64[WG_ENCODING_KEY_B64_SIZE];

	wg_encoding_key_to_base64(b64, key);
	wg_devconf_buf_printf(out, "%s = %s\n", name, b64);
	cw_memzero(b64, sizeof(b64));
}

static bool same_masked(const struct wg_ipaddr_prefix *a, const struct wg_ipaddr_prefix *b)
{
	struct wg_ipaddr_prefix ma = *a, mb = *b;

	wg_ipaddr_prefix_mask(&ma);
	wg_ipaddr_prefix_mask(&mb);
	return ma.cidr == mb.cidr && wg_ipaddr_equal(&ma.addr, &mb.addr);
}

/*
 * Whether entry i is written. A replacing list starts from nothing, so its removals
 * only cancel earlier additions of the same prefix: write what remains, all plain
 * (a '-' would turn the line incremental). An incremental list is written as it is.
 */
static bool entry_written(const struct wg_devconf_peer *peer, size_t i)
{
	const struct wg_devconf_allowedip *aip = peer->allowedips;

	if (!(peer->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS))
		return true;
	if (aip[i].flags & WG_DEVCONF_AIP_REMOVE_ME)
		return false;
	for (size_t j = i + 1; j < peer->n_allowedips; j++) {
		if ((aip[j].flags & WG_DEVCONF_AIP_REMOVE_ME) &&
		    same_masked(&aip[i].prefix, &aip[j].prefix))
			return false;
	}
	return true;
}

static void write_allowedips(struct wg_devconf_buf *out, const struct wg_devconf_peer *peer)
{
	/* Without replace, plain entries need '+' to stay incremental. */
	const char *add = peer->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS ? "" : "+";
	char text[WG_IPADDR_PREFIX_STRLEN];
	bool first = true;

	for (size_t i = 0; i < peer->n_allowedips; i++) {
		const struct wg_devconf_allowedip *aip = &peer->allowedips[i];

		if (!entry_written(peer, i))
			continue;
		wg_ipaddr_prefix_format(text, &aip->prefix);
		wg_devconf_buf_printf(out, "%s%s%s", first ? "AllowedIPs = " : ", ",
				      aip->flags & WG_DEVCONF_AIP_REMOVE_ME ? "-" : add, text);
		first = false;
	}
	if (!first)
		wg_devconf_buf_printf(out, "\n");
}

static int write_peer(struct wg_devconf_buf *out, const struct wg_devconf_peer *peer)
{
	char ep[WG_IPADDR_ENDPOINT_STRLEN];

	if (!(peer->flags & WG_DEVCONF_PEER_HAS_PUBLIC_KEY))
		return -EINVAL;
	wg_devconf_buf_printf(out, "\n[Peer]\n");
	write_key(out, "PublicKey", peer->public_key);
	if (peer->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
		write_key(out, "PresharedKey", peer->preshared_key);
	write_allowedips(out, peer);
	if (peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) {
		wg_ipaddr_endpoint_format(ep, &peer->endpoint);
		wg_devconf_buf_printf(out, "Endpoint = %s\n", ep);
	} else if (peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST) {
		size_t n = strnlen(peer->endpoint_host, sizeof(peer->endpoint_host));

		if (n == sizeof(peer->endpoint_host) ||
		    (!wg_ipaddr_is_host_name(peer->endpoint_host, n) &&
		     !wg_ipaddr_is_zoned_v6_name(peer->endpoint_host, n)))
			return -EINVAL;
		wg_devconf_buf_printf(out,
				      strchr(peer->endpoint_host, ':') ? "Endpoint = [%s]:%u\n"
								       : "Endpoint = %s:%u\n",
				      peer->endpoint_host, peer->endpoint_port);
	}
	if (peer->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE) {
		if (peer->persistent_keepalive_secs)
			wg_devconf_buf_printf(out, "PersistentKeepalive = %u\n",
					      peer->persistent_keepalive_secs);
		else
			wg_devconf_buf_printf(out, "PersistentKeepalive = off\n");
	}
	return 0;
}

int wg_wgconf_write(const struct wg_devconf *conf, unsigned int flags, struct wg_devconf_buf *out)
{
	int ret = 0;

	wg_devconf_buf_printf(out, "[Interface]\n");
	if (!(flags & WG_WGCONF_WG_ONLY))
		ret = write_quick(out, conf);
	if ((conf->flags & WG_DEVCONF_HAS_LISTEN_PORT) && conf->listen_port)
		wg_devconf_buf_printf(out, "ListenPort = %u\n", conf->listen_port);
	if ((conf->flags & WG_DEVCONF_HAS_FWMARK) && conf->fwmark)
		wg_devconf_buf_printf(out, "FwMark = 0x%x\n", conf->fwmark);
	if ((conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY) &&
	    !cw_is_zero(conf->private_key, sizeof(conf->private_key)))
		write_key(out, "PrivateKey", conf->private_key);
	for (size_t i = 0; !ret && i < conf->n_peers; i++) {
		if (!(conf->peers[i]->flags & WG_DEVCONF_PEER_REMOVE_ME))
			ret = write_peer(out, conf->peers[i]);
	}
	if (!ret && out->failed)
		ret = -ENOMEM;
	return ret;
}
