/* SPDX-License-Identifier: GPL-2.0-only */
/* A devconf as a UAPI `set=1` request, the inverse of uapi.c's set parser. */
#include "src/core/uapi_set_write.h"

#include <errno.h>
#include <string.h>

#include "src/core/ipaddr.h"
#include "src/core/uapi.h"

/* A value is one line: the request reader cuts at '\n' and a NUL ends the string. */
static bool one_line(const char *s)
{
	return !strpbrk(s, "\r\n");
}

/*
 * The cakewg lines (CAKE, underlay limit) come first: wireguard-go applies each line as it
 * reads it, so it refuses a request that asks for them before it changed anything.
 */
static int put_device(struct wg_devconf_buf *out, const struct wg_devconf *conf)
{
	char limit[WG_DEVCONF_UNDERLAY_LIMIT_STRLEN];

	if ((conf->cake && !one_line(conf->cake)) ||
	    (conf->cake_ingress && !one_line(conf->cake_ingress)) ||
	    ((conf->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT) &&
	     !wg_devconf_underlay_limit_valid(conf->underlay_limit)))
		return -EINVAL;
	if (conf->cake)
		wg_devconf_buf_printf(out, "cake=%s\n", conf->cake);
	if (conf->cake_ingress)
		wg_devconf_buf_printf(out, "cake_ingress=%s\n", conf->cake_ingress);
	if (conf->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT)
		wg_devconf_buf_printf(
			out, "underlay_limit=%s\n",
			wg_devconf_underlay_limit_format(limit, conf->underlay_limit));
	if (conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY)
		wg_uapi_key_write(out, "private_key", conf->private_key);
	if (conf->flags & WG_DEVCONF_HAS_LISTEN_PORT)
		wg_devconf_buf_printf(out, "listen_port=%u\n", conf->listen_port);
	if (conf->flags & WG_DEVCONF_HAS_FWMARK)
		wg_devconf_buf_printf(out, "fwmark=%u\n", conf->fwmark);
	if (conf->flags & WG_DEVCONF_REPLACE_PEERS)
		wg_devconf_buf_printf(out, "replace_peers=true\n");
	return 0;
}

static int put_endpoint(struct wg_devconf_buf *out, const struct wg_devconf_peer *peer)
{
	char text[WG_IPADDR_ENDPOINT_STRLEN];

	if (peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) {
		if (!wg_ipaddr_endpoint_is_set(&peer->endpoint))
			return -EINVAL;
		wg_ipaddr_endpoint_format(text, &peer->endpoint);
		wg_devconf_buf_printf(out, "endpoint=%s\n", text);
		return 0;
	}
	if (peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST)
		return -EDESTADDRREQ;
	return 0;
}

static void put_allowedips(struct wg_devconf_buf *out, const struct wg_devconf_peer *peer)
{
	char text[WG_IPADDR_PREFIX_STRLEN];

	if (peer->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS)
		wg_devconf_buf_printf(out, "replace_allowed_ips=true\n");
	for (size_t i = 0; i < peer->n_allowedips; i++) {
		const struct wg_devconf_allowedip *aip = &peer->allowedips[i];

		wg_ipaddr_prefix_format(text, &aip->prefix);
		wg_devconf_buf_printf(out, "allowed_ip=%s%s\n",
				      aip->flags & WG_DEVCONF_AIP_REMOVE_ME ? "-" : "", text);
	}
}

static int put_peer(struct wg_devconf_buf *out, const struct wg_devconf_peer *peer)
{
	int ret;

	if (!(peer->flags & WG_DEVCONF_PEER_HAS_PUBLIC_KEY))
		return -EINVAL;
	wg_uapi_key_write(out, "public_key", peer->public_key);
	if (peer->flags & WG_DEVCONF_PEER_REMOVE_ME) {
		wg_devconf_buf_printf(out, "remove=true\n");
		return 0;
	}
	if (peer->flags & WG_DEVCONF_PEER_UPDATE_ONLY)
		wg_devconf_buf_printf(out, "update_only=true\n");
	if (peer->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
		wg_uapi_key_write(out, "preshared_key", peer->preshared_key);
	ret = put_endpoint(out, peer);
	if (ret)
		return ret;
	if (peer->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE)
		wg_devconf_buf_printf(out, "persistent_keepalive_interval=%u\n",
				      peer->persistent_keepalive_secs);
	put_allowedips(out, peer);
	return 0;
}

int wg_uapi_set_write(const struct wg_devconf *conf, struct wg_devconf_buf *out)
{
	int ret;

	wg_devconf_buf_printf(out, "set=1\n");
	ret = put_device(out, conf);
	for (size_t i = 0; !ret && i < conf->n_peers; i++)
		ret = put_peer(out, conf->peers[i]);
	if (ret)
		return ret;
	wg_devconf_buf_printf(out, "\n");
	return out->failed ? -ENOMEM : 0;
}
