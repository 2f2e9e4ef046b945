/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg showconf <interface>: the interface's configuration as a wg(8) file, in the
 * order wireguard-tools' showconf.c writes it, plus cakewg's `Cake =` and
 * `CakeIngress =` in [Interface] when the daemon reports CAKE options, and
 * `UnderlayLimit =` when its setting is not the default (auto), and `AutorateProbe =`
 * when one is set. `wg setconf` takes the
 * output back once those cakewg-only lines are stripped.
 *
 * The text is the key table's file writer's (wg_wgconf_write, WG_WGCONF_SHOWCONF): the
 * get reply read as wg showconf says it, the cakewg_get reply's CAKE lines put in the
 * same devconf.
 */
#include <stdio.h>
#include <string.h>

#include "src/core/ipaddr.h"
#include "src/core/wgconf.h"
#include "tools/cakewg/commands.h"
#include "tools/cakewg/show_device.h"

/* The CAKE options, the underlay limit's setting and the probe, as the daemon runs them. */
static int add_cake(struct wg_devconf *conf, const struct wg_uapi_reply_cake *cake)
{
	const char *egress = cake->egress.options, *ingress = cake->ingress.options;
	int ret = 0;

	if (egress)
		ret = wg_devconf_set_string(&conf->cake, egress, strlen(egress));
	if (!ret && ingress)
		ret = wg_devconf_set_string(&conf->cake_ingress, ingress, strlen(ingress));
	if (cake->has_underlay_limit_setting &&
	    cake->underlay_limit_setting != WG_DEVCONF_UNDERLAY_LIMIT_AUTO) {
		conf->underlay_limit = cake->underlay_limit_setting;
		conf->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
	}
	if (cake->has_autorate_probe) {
		conf->autorate_probe = cake->autorate_probe;
		conf->flags |= WG_DEVCONF_HAS_AUTORATE_PROBE;
	}
	wg_uapi_reply_cake_names(cake, conf);
	return ret;
}

/*
 * An IPv6 endpoint's zone as wg shows it: getnameinfo names a link-local one by its
 * interface, which is I/O, so the name is looked up here and handed to the writer as
 * the host of the endpoint, as a daemon reporting a named zone says it.
 */
static void name_zone(struct wg_devconf_peer *peer)
{
	char text[WG_DEVCONF_HOST_SIZE + 16];
	const char *host, *port;
	size_t hl, pl;

	if (!(peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) ||
	    peer->endpoint.addr.sa_family != AF_INET6 || !peer->endpoint.addr6.sin6_scope_id)
		return;
	show_endpoint(text, sizeof(text), peer);
	if (wg_ipaddr_endpoint_split(text, strlen(text), &host, &hl, &port, &pl) !=
		    WG_IPADDR_ENDPOINT_SPLIT_OK ||
	    !wg_ipaddr_is_zoned_v6_name(host, hl) || hl >= sizeof(peer->endpoint_host))
		return;
	memcpy(peer->endpoint_host, host, hl);
	peer->endpoint_host[hl] = '\0';
	peer->endpoint_port = ntohs(peer->endpoint.addr6.sin6_port);
	peer->flags &= ~(uint32_t)WG_DEVCONF_PEER_HAS_ENDPOINT;
	peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
}

static int write_conf(struct show_device *dev, struct wg_devconf_buf *text)
{
	int ret = dev->has_cake ? add_cake(dev->conf, &dev->cake) : 0;

	wg_wgconf_from_get(dev->conf);
	for (size_t i = 0; i < dev->conf->n_peers; i++)
		name_zone(dev->conf->peers[i]);
	return ret ?: wg_wgconf_write(dev->conf, WG_WGCONF_SHOWCONF, text);
}

int showconf_main(int argc, char *argv[])
{
	struct wg_devconf_buf text = {0};
	struct show_device dev;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s %s <interface>\n", prog_name, argv[0]);
		return 1;
	}
	ret = show_device_get(&dev, argv[1], SHOW_WITH_CAKE);
	if (ret) {
		fprintf(stderr, "Unable to access interface: %s\n", strerror(-ret));
		return 1;
	}
	ret = write_conf(&dev, &text);
	if (ret)
		fprintf(stderr, "Unable to write the configuration of %s: %s\n", dev.name,
			strerror(-ret));
	else
		fwrite(text.data, 1, text.len, stdout);
	wg_devconf_buf_wipe(&text);
	show_device_free(&dev);
	return ret ? 1 : 0;
}
