/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/device_icmp.h"

#include <string.h>

#include "src/core/device.h"
#include "src/core/icmp_error.h"

bool wg_device_set_icmp_source(struct wg_device *dev, int family, const struct wg_ipaddr *addr)
{
	struct wg_ipaddr *src = family == AF_INET6 ? &dev->icmp_src6 : &dev->icmp_src4;
	struct wg_ipaddr next;

	memset(&next, 0, sizeof(next));
	if (addr && addr->family == family)
		next = *addr;
	if (!memcmp(src, &next, sizeof(next)))
		return false;
	*src = next;
	return true;
}

void wg_device_icmp_unreach(struct wg_device *dev, const uint8_t *ip, size_t len, uint64_t now_ns)
{
	int family = wg_ip_family(ip, len);
	const struct wg_ipaddr *src = family == AF_INET6 ? &dev->icmp_src6 : &dev->icmp_src4;
	struct cake_flowkey_hdrs h;
	uint8_t out[WG_ICMP_ERROR_MAX];
	size_t out_len;

	if (!dev->ops.send_icmp || !family || src->family != family)
		return;
	/* the bucket is asked only for a packet that may be answered: a flood of refused
	 * ones leaves the errors of others alone */
	if (wg_icmp_error_judge(ip, len, &h) != WG_ICMP_ERROR_BUILT ||
	    !wg_icmp_ratelimit_allow(&dev->icmp_rl, now_ns))
		return;
	if (wg_icmp_error_write(ip, &h, src, out, &out_len) != WG_ICMP_ERROR_BUILT)
		return;
	dev->stats.tx_icmp_unreach++;
	dev->ops.send_icmp(dev->ops.ctx, out, out_len);
}
