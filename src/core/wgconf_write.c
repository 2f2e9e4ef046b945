/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wg-quick files: the writer (SaveConfig, showconf), the inverse of wgconf.c's parser.
 * The keys and how each is written come from the key table (src/core/conf_keys.h).
 */
#include "src/core/wgconf.h"

#include <errno.h>

#include "src/core/conf_keys.h"

int wg_wgconf_write(const struct wg_devconf *conf, unsigned int flags, struct wg_devconf_buf *out)
{
	unsigned int skip = flags & WG_WGCONF_WG_ONLY ? WG_CONF_KEY_QUICK : 0;
	struct wg_conf_target t = {(struct wg_devconf *)conf, NULL};
	int ret;

	wg_devconf_buf_printf(out, "[Interface]\n");
	ret = wg_conf_section_write(&t, WG_CONF_FILE, WG_CONF_INTERFACE, skip, out);
	for (size_t i = 0; !ret && i < conf->n_peers; i++) {
		t.peer = conf->peers[i];
		/* Peers to be removed cannot be said in a file: they are left out. */
		if (t.peer->flags & WG_DEVCONF_PEER_REMOVE_ME)
			continue;
		wg_devconf_buf_printf(out, "\n[Peer]\n");
		ret = wg_conf_section_write(&t, WG_CONF_FILE, WG_CONF_PEER, 0, out);
	}
	if (!ret && out->failed)
		ret = -ENOMEM;
	return ret;
}
