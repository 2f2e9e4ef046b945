/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/probe.h"

#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qdisc/csum.h"
#include "src/edge/log.h"

enum {
	PROBE_LEN = 16,	     /* an 8-byte header and 8 bytes of payload, as small as useful */
	ICMP_FILTER_OPT = 1, /* linux/icmp.h's ICMP_FILTER, for SOL_RAW */
	DRAIN_MAX = 64,
};

void wg_probe_init(struct wg_probe *p, const char *ifname, uint16_t id)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
	p->fd[0] = p->fd[1] = -1;
	p->id = id;
}

static int open_socket(struct wg_probe *p, int v6, bool raw)
{
	int family = v6 ? AF_INET6 : AF_INET, proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	int fd =
		socket(family, (raw ? SOCK_RAW : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, p->ifname, (socklen_t)strlen(p->ifname))) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (raw && !v6) {
		uint32_t block_all = ~0u;

		(void)setsockopt(fd, SOL_RAW, ICMP_FILTER_OPT, &block_all, sizeof(block_all));
	} else if (raw) {
		struct icmp6_filter f;

		ICMP6_FILTER_SETBLOCKALL(&f);
		(void)setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f));
	}
	return fd;
}

/* One family's socket now: a ping socket, else a raw one; -errno when neither opens. */
static int open_any(struct wg_probe *p, int v6)
{
	int fd = open_socket(p, v6, false);

	p->raw[v6] = fd < 0;
	if (fd < 0)
		fd = open_socket(p, v6, true);
	return fd;
}

void wg_probe_open(struct wg_probe *p)
{
	for (int v6 = 0; v6 < 2; v6++) {
		if (p->fd[v6] < 0) {
			int fd = open_any(p, v6);

			p->fd[v6] = fd < 0 ? -1 : fd;
		}
	}
}

/* The socket for the family, opened on first use: ping socket, else raw. One that
 * failed to open is tried again when p->retry says so (the cause may pass: EMFILE,
 * ENOBUFS, the TUN not up yet), -1 until then. */
static int socket_for(struct wg_probe *p, int v6, uint64_t now_ns)
{
	const char *family = v6 ? "v6" : "";
	int fd;

	if (p->fd[v6] >= 0 || !wg_backoff_due(&p->retry[v6], now_ns))
		return p->fd[v6];
	fd = open_any(p, v6);
	if (fd < 0) {
		if (wg_backoff_failed(&p->retry[v6], now_ns))
			wg_log_err("autorate probes: no ICMP%s socket on %s: %s", family, p->ifname,
				   strerror(-fd));
		return -1;
	}
	if (wg_backoff_succeeded(&p->retry[v6]))
		wg_log_info("autorate probes: ICMP%s socket on %s open", family, p->ifname);
	p->fd[v6] = fd;
	return fd;
}

void wg_probe_send(struct wg_probe *p, const struct wg_ipaddr *dst, uint64_t now_ns)
{
	int v6 = dst->family == AF_INET6, fd = socket_for(p, v6, now_ns);
	uint8_t msg[PROBE_LEN] = {0};
	union wg_ipaddr_sockaddr sa;
	socklen_t sl;

	if (fd < 0)
		return;
	for (int i = 0; i < DRAIN_MAX && recv(fd, msg, sizeof(msg), MSG_DONTWAIT) >= 0; i++)
		; /* a ping socket queues the replies: the extractor has seen them already */
	memset(msg, 0, sizeof(msg));
	msg[0] = v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
	cake_put_be16(msg + 4, p->id); /* a ping socket puts its own identifier here */
	cake_put_be16(msg + 6, ++p->seq);
	memcpy(msg + 8, "cakewg-a", 8);
	if (p->raw[v6] && !v6) /* ICMPv6's the kernel computes; a ping socket's too */
		cake_put_be16(msg + 2, cake_csum_finish(cake_csum_partial(msg, sizeof(msg), 0)));
	sl = wg_ipaddr_to_sockaddr(&sa, dst, 0, 0);
	if (sendto(fd, msg, sizeof(msg), 0, &sa.addr, sl) < 0 && errno != EAGAIN)
		wg_log_debug("autorate probe: %s", strerror(errno));
}

void wg_probe_close(struct wg_probe *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->fd[i] >= 0)
			close(p->fd[i]);
		p->fd[i] = -1;
	}
}
