/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg showconf <interface>: the interface's configuration as a wg(8) file, in the
 * order wireguard-tools' showconf.c writes it, plus cakewg's `Cake =` and
 * `CakeIngress =` in [Interface] when the daemon reports CAKE options, and
 * `UnderlayLimit =` when its setting is not the default (auto). `wg setconf` takes the
 * output back once those cakewg-only lines are stripped.
 */
#include <stdio.h>
#include <string.h>

#include "crypto/ct.h"
#include "tools/cakewg/commands.h"
#include "tools/cakewg/show_device.h"
#include "tools/cakewg/show_print.h"

static void print_interface(const struct show_device *dev)
{
	const struct wg_devconf *conf = dev->conf;
	char b64[WG_ENCODING_KEY_B64_SIZE], limit[WG_DEVCONF_UNDERLAY_LIMIT_STRLEN];

	printf("[Interface]\n");
	if (conf->listen_port)
		printf("ListenPort = %u\n", conf->listen_port);
	if (conf->fwmark)
		printf("FwMark = 0x%x\n", conf->fwmark);
	if (conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY)
		printf("PrivateKey = %s\n", show_key(b64, conf->private_key));
	cw_memzero(b64, sizeof(b64));
	if (dev->has_cake && dev->cake.egress.options)
		printf("Cake = %s\n", dev->cake.egress.options);
	if (dev->has_cake && dev->cake.ingress.options)
		printf("CakeIngress = %s\n", dev->cake.ingress.options);
	if (dev->has_cake && dev->cake.has_underlay_limit_setting &&
	    dev->cake.underlay_limit_setting != WG_DEVCONF_UNDERLAY_LIMIT_AUTO)
		printf("UnderlayLimit = %s\n",
		       wg_devconf_underlay_limit_format(limit, dev->cake.underlay_limit_setting));
	printf("\n");
}

static void print_peer(const struct wg_devconf_peer *peer)
{
	char b64[WG_ENCODING_KEY_B64_SIZE], ip[INET6_ADDRSTRLEN], ep[512];

	printf("[Peer]\nPublicKey = %s\n", show_key(b64, peer->public_key));
	if (peer->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
		printf("PresharedKey = %s\n", show_key(b64, peer->preshared_key));
	cw_memzero(b64, sizeof(b64));
	if (peer->n_allowedips)
		printf("AllowedIPs = ");
	for (size_t i = 0; i < peer->n_allowedips; i++)
		printf("%s/%u%s", show_ip(ip, &peer->allowedips[i]),
		       peer->allowedips[i].prefix.cidr, i + 1 < peer->n_allowedips ? ", " : "\n");
	if (show_has_endpoint(peer)) {
		show_endpoint(ep, sizeof(ep), peer);
		printf("Endpoint = %s\n", ep);
	}
	if (peer->persistent_keepalive_secs)
		printf("PersistentKeepalive = %u\n", peer->persistent_keepalive_secs);
}

int showconf_main(int argc, char *argv[])
{
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
	print_interface(&dev);
	for (size_t i = 0; i < dev.conf->n_peers; i++) {
		print_peer(dev.conf->peers[i]);
		if (i + 1 < dev.conf->n_peers)
			printf("\n");
	}
	show_device_free(&dev);
	return 0;
}
