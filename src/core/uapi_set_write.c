/* SPDX-License-Identifier: GPL-2.0-only */
/* A devconf as a UAPI `set=1` request, the inverse of uapi.c's set parser. */
#include "src/core/uapi_set_write.h"

#include <errno.h>

#include "src/core/conf_keys.h"

/*
 * The key table (src/core/conf_keys.h) is in the request's order: cakewg's lines (CAKE,
 * underlay limit) first, since wireguard-go applies each line as it reads it and so
 * refuses a request that asks for them before it changed anything.
 */
int wg_uapi_set_write(const struct wg_devconf *conf, struct wg_devconf_buf *out)
{
	struct wg_conf_target t = {.conf = (struct wg_devconf *)conf};
	int ret;

	wg_devconf_buf_printf(out, "set=1\n");
	ret = wg_conf_section_write(&t, WG_CONF_SET, WG_CONF_INTERFACE, 0, 0, out);
	for (size_t i = 0; !ret && i < conf->n_peers; i++) {
		t.peer = conf->peers[i];
		/* remove=true ends a record */
		ret = wg_conf_section_write(&t, WG_CONF_SET, WG_CONF_PEER, 0, 0, out);
		if (ret == WG_CONF_PRINT_END)
			ret = 0;
	}
	if (ret)
		return ret;
	wg_devconf_buf_printf(out, "\n");
	return out->failed ? -ENOMEM : 0;
}
