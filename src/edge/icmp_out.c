/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/icmp_out.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/core/pkt.h"
#include "src/edge/log.h"

void wg_icmp_out_init(struct wg_icmp_out *o, uint32_t ifindex)
{
	o->fd[0] = o->fd[1] = -1;
	o->ifindex = ifindex;
}

void wg_icmp_out_open(struct wg_icmp_out *o)
{
	for (int v6 = 0; v6 < 2; v6++) {
		if (o->fd[v6] >= 0)
			continue;
		o->fd[v6] = socket(v6 ? AF_INET6 : AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
				   IPPROTO_RAW);
		if (o->fd[v6] < 0)
			wg_log_err("ICMP%s errors for addresses no peer holds are off: %s",
				   v6 ? "v6" : "", strerror(errno));
	}
}

void wg_icmp_out_send(struct wg_icmp_out *o, const uint8_t *pkt, size_t len)
{
	int family = wg_ip_family(pkt, len), v6 = family == AF_INET6;
	struct sockaddr_storage ss = {0};
	socklen_t sl;

	if (!family || o->fd[v6] < 0)
		return;
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		memcpy(&a->sin6_addr, pkt + WG_IPV6_DST_OFFSET, sizeof(a->sin6_addr));
		if (IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr))
			a->sin6_scope_id = o->ifindex;
		sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		memcpy(&a->sin_addr, pkt + WG_IPV4_DST_OFFSET, sizeof(a->sin_addr));
		sl = sizeof(*a);
	}
	if (sendto(o->fd[v6], pkt, len, 0, (struct sockaddr *)&ss, sl) < 0 && errno != EAGAIN)
		wg_log_debug("ICMP error: %s", strerror(errno));
}

void wg_icmp_out_close(struct wg_icmp_out *o)
{
	for (int i = 0; i < 2; i++) {
		if (o->fd[i] >= 0)
			close(o->fd[i]);
		o->fd[i] = -1;
	}
}
