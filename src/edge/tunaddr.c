/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/edge/tunaddr.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/device_icmp.h"
#include "src/edge/log.h"

/* RT_SCOPE_* grow narrower: universe 0, site 200, link 253, host 254. */
bool wg_tunaddr_pick(const struct wg_nl_addr_entry *a, size_t n, uint8_t family,
		     struct wg_ipaddr *out)
{
	const struct wg_nl_addr_entry *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (a[i].p.family == family && (!best || a[i].scope < best->scope))
			best = &a[i];
	if (!best)
		return false;
	memset(out, 0, sizeof(*out));
	out->family = family;
	memcpy(out->bytes, best->p.addr.bytes, family == AF_INET6 ? WG_IPADDR_V6_LEN
								 : WG_IPADDR_V4_LEN);
	return true;
}

int wg_tunaddr_learn(struct wg_nl *nl, uint32_t ifindex, struct wg_device *dev)
{
	static const uint8_t families[] = {AF_INET, AF_INET6};
	struct wg_nl_addr_entry *a;
	size_t n;
	int ret = wg_netlink_addr_dump(nl, ifindex, &a, &n);

	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(families); i++) {
		struct wg_ipaddr src;
		bool has = wg_tunaddr_pick(a, n, families[i], &src);
		char text[WG_IPADDR_STRLEN];

		if (!wg_device_set_icmp_source(dev, families[i], has ? &src : NULL))
			continue;
		if (has)
			wg_ipaddr_format(text, &src);
		wg_log_debug("ICMP%s errors: %s", families[i] == AF_INET6 ? "v6" : "",
			     has ? text : "none (no address)");
	}
	free(a);
	return 0;
}
