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
	struct wg_ipaddr dst = {.family = (sa_family_t)family};
	union wg_ipaddr_sockaddr sa;
	socklen_t sl;

	if (!family || o->fd[v6] < 0)
		return;
	memcpy(dst.bytes, pkt + (v6 ? WG_IPV6_DST_OFFSET : WG_IPV4_DST_OFFSET),
	       v6 ? WG_IPADDR_V6_LEN : WG_IPADDR_V4_LEN);
	sl = wg_ipaddr_to_sockaddr(&sa, &dst, 0, o->ifindex);
	if (sendto(o->fd[v6], pkt, len, 0, &sa.addr, sl) < 0 && errno != EAGAIN)
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
