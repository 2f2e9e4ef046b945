/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wg-quick files: the writer (SaveConfig, showconf), the inverse of wgconf.c's parser.
 * The keys and how each is written come from the key table (src/core/conf_keys.h).
 */
#include "src/core/wgconf.h"

#include <errno.h>

#include "src/core/conf_keys.h"

/* [Interface]'s keys: a file's in file_pos order; showconf's wg's first, then cakewg's. */
static int write_interface(const struct wg_conf_target *t, unsigned int flags,
			   struct wg_devconf_buf *out)
{
	unsigned int skip =
		flags & (WG_WGCONF_WG_ONLY | WG_WGCONF_SHOWCONF) ? WG_CONF_KEY_QUICK : 0;
	int ret;

	wg_devconf_buf_printf(out, "[Interface]\n");
	ret = wg_conf_section_write(t, WG_CONF_FILE, WG_CONF_INTERFACE, 0, skip, out);
	if (!ret && (flags & WG_WGCONF_SHOWCONF))
		ret = wg_conf_section_write(t, WG_CONF_FILE, WG_CONF_INTERFACE, WG_CONF_KEY_CAKEWG,
					    0, out);
	return ret;
}

int wg_wgconf_write(const struct wg_devconf *conf, unsigned int flags, struct wg_devconf_buf *out)
{
	bool show = flags & WG_WGCONF_SHOWCONF;
	struct wg_conf_target t = {
		.conf = (struct wg_devconf *)conf,
		.addr_text = show ? WG_IPADDR_TEXT_NTOP : WG_IPADDR_TEXT_RFC5952,
	};
	/* a file puts a blank line before each [Peer]; showconf after [Interface] and
	 * between peers */
	const char *blank = show ? "" : "\n";
	int ret = write_interface(&t, flags, out);

	if (show)
		wg_devconf_buf_printf(out, "\n");
	for (size_t i = 0; !ret && i < conf->n_peers; i++) {
		t.peer = conf->peers[i];
		/* Peers to be removed cannot be said in a file: they are left out. */
		if (t.peer->flags & WG_DEVCONF_PEER_REMOVE_ME)
			continue;
		wg_devconf_buf_printf(out, "%s[Peer]\n", blank);
		blank = "\n";
		ret = wg_conf_section_write(&t, WG_CONF_FILE, WG_CONF_PEER, 0, 0, out);
	}
	if (!ret && out->failed)
		ret = -ENOMEM;
	return ret;
}

void wg_wgconf_from_get(struct wg_devconf *conf)
{
	for (size_t i = 0; i < conf->n_peers; i++) {
		struct wg_devconf_peer *peer = conf->peers[i];

		peer->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
		if (!peer->persistent_keepalive_secs)
			peer->flags &= ~(uint32_t)WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE;
	}
}
