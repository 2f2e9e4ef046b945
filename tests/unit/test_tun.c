/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUN device, each test in its own network namespace: open with and without the
 * virtio header, offloads, packets written into the TUN reaching a UDP socket, packets
 * sent by a UDP socket read back from the TUN (with their virtio header: checksum
 * offload and UDP segmentation), and the header codec on its own.
 */
#define _GNU_SOURCE /* unshare() */
#include "src/edge/tun.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "src/edge/netlink.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

enum {
	WAIT_MS = 5000,
	PORT = 4242,
	IPV4_HDR = 20,
	IPV6_HDR = 40,
	UDP_HDR = 8,
};

static struct wg_nl *nl;

/* No IPv6 link-local addresses: no router solicitations in the way of our packets. */
static void no_link_local(void)
{
	FILE *f = fopen("/proc/sys/net/ipv6/conf/default/addr_gen_mode", "w");

	cr_assert(f, "addr_gen_mode: %s", strerror(errno));
	cr_assert_gt(fputs("1\n", f), 0);
	cr_assert_eq(fclose(f), 0);
}

static void enter_netns(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root for unshare(CLONE_NEWNET)");
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %s", strerror(errno));
	no_link_local();
	cr_assert_eq(wg_netlink_open(&nl), 0);
	cr_assert_eq(wg_netlink_link_set_up(nl, 1, true), 0);
}

static void leave_netns(void)
{
	wg_netlink_close(nl);
}

TestSuite(tun, .init = enter_netns, .fini = leave_netns);

static bool wait_fd(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};

	return poll(&p, 1, WAIT_MS) == 1;
}

static struct wg_nl_prefix pfx(int family, const char *addr, uint8_t len)
{
	struct wg_nl_prefix p = {.family = (uint8_t)family, .len = len};

	cr_assert_eq(inet_pton(family, addr, p.addr.bytes), 1);
	return p;
}

/*
 * Waits until addr is a local address of ours: an IPv6 address's local route is put in
 * by a kernel workqueue after the address, so wait for its RTM_NEWROUTE.
 */
static void wait_local(const struct wg_nl_prefix *addr, struct mnl_socket *ev)
{
	static uint8_t buf[8192];
	struct wg_nl_route_info info;

	while (wg_netlink_route_get(nl, addr, 0, &info) != 0 || info.type != RTN_LOCAL) {
		cr_assert(wait_fd(mnl_socket_get_fd(ev), POLLIN), "address never became local");
		cr_assert_gt(mnl_socket_recvfrom(ev, buf, sizeof(buf)), 0);
	}
}

/* A TUN, up, MTU 1420, with 10.50.0.1/24 and fd00:50::1/64. */
static uint32_t tun_setup(struct wg_tun *tun, unsigned int flags)
{
	struct wg_nl_link l;
	struct wg_nl_prefix a4 = pfx(AF_INET, "10.50.0.1", 24),
			    a6 = pfx(AF_INET6, "fd00:50::1", 64);
	struct mnl_socket *ev = mnl_socket_open(NETLINK_ROUTE);

	cr_assert(ev && mnl_socket_bind(ev, RTMGRP_IPV6_ROUTE, MNL_SOCKET_AUTOPID) == 0);
	cr_assert_eq(wg_tun_open(tun, NULL, flags), 0);
	cr_assert_eq(wg_netlink_link_get(nl, tun->name, &l), 0);
	cr_assert_eq(wg_netlink_link_set_mtu(nl, l.ifindex, 1420), 0);
	cr_assert_eq(wg_netlink_link_set_up(nl, l.ifindex, true), 0);
	cr_assert_eq(wg_netlink_addr_add(nl, l.ifindex, &a4, 0), 0);
	cr_assert_eq(wg_netlink_addr_add(nl, l.ifindex, &a6, WG_NL_ADDR_NODAD), 0);
	a6.len = 128;
	wait_local(&a6, ev);
	mnl_socket_close(ev);
	return l.ifindex;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	return sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* UDP header + payload at udp, with the checksum over the pseudo-header (or partial). */
static void put_udp(uint8_t *udp, size_t len, const uint8_t *src, const uint8_t *dst, size_t alen,
		    bool partial)
{
	uint32_t sum;

	put16(udp, 5555);
	put16(udp + 2, PORT);
	put16(udp + 4, (uint16_t)len);
	put16(udp + 6, 0);
	sum = sum16(src, alen, 0);
	sum = sum16(dst, alen, sum) + IPPROTO_UDP + (uint32_t)len;
	/* A partial checksum holds the pseudo-header sum; the device completes it. */
	put16(udp + 6, partial ? fold(sum) : (uint16_t)~fold(sum16(udp, len, sum)));
}

/* An IPv4 or IPv6 UDP packet from .2 to .1 of the TUN's subnets; returns its length. */
static size_t build_packet(uint8_t *buf, int family, const char *payload, bool partial)
{
	size_t plen = strlen(payload), ulen = UDP_HDR + plen;
	uint8_t *ip = buf;

	memset(buf, 0, IPV6_HDR + ulen);
	if (family == AF_INET) {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(IPV4_HDR + ulen));
		ip[8] = 64;
		ip[9] = IPPROTO_UDP;
		cr_assert_eq(inet_pton(AF_INET, "10.50.0.2", ip + 12), 1);
		cr_assert_eq(inet_pton(AF_INET, "10.50.0.1", ip + 16), 1);
		put16(ip + 10, (uint16_t)~fold(sum16(ip, IPV4_HDR, 0)));
		memcpy(ip + IPV4_HDR + UDP_HDR, payload, plen);
		put_udp(ip + IPV4_HDR, ulen, ip + 12, ip + 16, 4, partial);
		return IPV4_HDR + ulen;
	}
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)ulen);
	ip[6] = IPPROTO_UDP;
	ip[7] = 64;
	cr_assert_eq(inet_pton(AF_INET6, "fd00:50::2", ip + 8), 1);
	cr_assert_eq(inet_pton(AF_INET6, "fd00:50::1", ip + 24), 1);
	memcpy(ip + IPV6_HDR + UDP_HDR, payload, plen);
	put_udp(ip + IPV6_HDR, ulen, ip + 8, ip + 24, 16, partial);
	return IPV6_HDR + ulen;
}

static int udp_socket(int family, const char *addr, uint16_t port)
{
	struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	struct sockaddr_in sa4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	cr_assert_geq(fd, 0);
	if (family == AF_INET) {
		cr_assert_eq(inet_pton(AF_INET, addr, &sa4.sin_addr), 1);
		cr_assert_eq(bind(fd, (struct sockaddr *)&sa4, sizeof(sa4)), 0, "%s",
			     strerror(errno));
	} else {
		cr_assert_eq(inet_pton(AF_INET6, addr, &sa6.sin6_addr), 1);
		cr_assert_eq(bind(fd, (struct sockaddr *)&sa6, sizeof(sa6)), 0, "%s",
			     strerror(errno));
	}
	return fd;
}

Test(tun, open_names_and_flags)
{
	struct wg_tun a, b, c;
	int fl;

	cr_assert_eq(wg_tun_open(&a, NULL, 0), 0);
	cr_assert_eq(strncmp(a.name, "tun", 3), 0, "kernel-chosen name %s", a.name);
	cr_assert_not(a.vnet_hdr);
	cr_assert_eq(a.offloads, 0);
	fl = fcntl(a.fd, F_GETFL);
	cr_assert(fl & O_NONBLOCK);
	cr_assert_eq(wg_tun_open(&b, "cw%d", 0), 0);
	cr_assert_str_eq(b.name, "cw0");
	cr_assert_eq(wg_tun_open(&c, "cw0", 0), -EBUSY, "the name is taken");
	cr_assert_eq(c.fd, -1);
	cr_assert_eq(wg_tun_open(&c, "a-name-too-long-for-ifnamsiz", 0), -EINVAL);
	cr_assert_eq(wg_tun_open(&c, "x", 0x80), -EINVAL);
	cr_assert_eq(wg_tun_read(&a, NULL, (uint8_t[64]){0}, 64), -EAGAIN);
	cr_assert_eq(wg_tun_set_txqlen(&b, 2000), 0);
	{
		struct wg_nl_link l;

		cr_assert_eq(wg_netlink_link_get(nl, "cw0", &l), 0);
		cr_assert_eq(l.txqlen, 2000);
	}
	wg_tun_close(&a);
	wg_tun_close(&b);
}

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	cr_assert_eq(uname(&u), 0);
	cr_assert_eq(sscanf(u.release, "%d.%d", &ma, &mi), 2);
	return ma > major || (ma == major && mi >= minor);
}

Test(tun, open_vnet_hdr_offloads)
{
	struct wg_tun t;
	struct ifreq ifr;
	int hdr_len = 0;
	unsigned int tcp = WG_TUN_F_CSUM | WG_TUN_F_TSO4 | WG_TUN_F_TSO6;

	cr_assert_eq(wg_tun_open(&t, "cwv0", WG_TUN_VNET_HDR), 0);
	cr_assert(t.vnet_hdr);
	cr_assert_eq(t.offloads & tcp, tcp, "offloads %#x", t.offloads);
	if (kernel_at_least(6, 2))
		cr_assert(t.offloads & WG_TUN_F_USO4 && t.offloads & WG_TUN_F_USO6);
	memset(&ifr, 0, sizeof(ifr));
	cr_assert_eq(ioctl(t.fd, TUNGETIFF, &ifr), 0);
	cr_assert(ifr.ifr_flags & IFF_VNET_HDR);
	cr_assert(ifr.ifr_flags & IFF_NO_PI);
	cr_assert_eq(ioctl(t.fd, TUNGETVNETHDRSZ, &hdr_len), 0);
	cr_assert_eq(hdr_len, WG_VNET_HDR_LEN);
	wg_tun_close(&t);
}

/* Packets written into the TUN reach a socket bound to the TUN's address. */
static void write_into(int family, unsigned int flags)
{
	struct wg_tun t;
	uint8_t pkt[256], got[64];
	struct wg_vnet_hdr partial = {.flags = WG_VNET_HDR_F_NEEDS_CSUM};
	size_t len, l3 = family == AF_INET ? IPV4_HDR : IPV6_HDR;
	int fd;

	tun_setup(&t, flags);
	fd = udp_socket(family, family == AF_INET ? "10.50.0.1" : "fd00:50::1", PORT);
	len = build_packet(pkt, family, "hello", false);
	cr_assert_eq(wg_tun_write(&t, NULL, pkt, len), 0);
	cr_assert(wait_fd(fd, POLLIN), "the packet never reached the socket");
	cr_assert_eq(recv(fd, got, sizeof(got), 0), 5);
	cr_assert_eq(memcmp(got, "hello", 5), 0);
	if (t.vnet_hdr) {
		/* A partial checksum is completed by the "device": the socket accepts it. */
		len = build_packet(pkt, family, "partial", true);
		partial.csum_start = (uint16_t)l3;
		partial.csum_offset = 6;
		cr_assert_eq(wg_tun_write(&t, &partial, pkt, len), 0);
		cr_assert(wait_fd(fd, POLLIN));
		cr_assert_eq(recv(fd, got, sizeof(got), 0), 7);
		cr_assert_eq(memcmp(got, "partial", 7), 0);
		/* The kernel refuses a header that points outside the packet. */
		partial.csum_start = (uint16_t)len;
		cr_assert_eq(wg_tun_write(&t, &partial, pkt, len), -EINVAL);
	}
	close(fd);
	wg_tun_close(&t);
}

Test(tun, write_reaches_socket_v4)
{
	write_into(AF_INET, 0);
}

Test(tun, write_reaches_socket_v6)
{
	write_into(AF_INET6, 0);
}

Test(tun, write_reaches_socket_v4_vnet)
{
	write_into(AF_INET, WG_TUN_VNET_HDR);
}

Test(tun, write_reaches_socket_v6_vnet)
{
	write_into(AF_INET6, WG_TUN_VNET_HDR);
}

/* Reads from the TUN until a UDP packet to PORT shows up; returns its L3 length. */
static size_t read_udp(const struct wg_tun *t, struct wg_vnet_hdr *hdr, uint8_t *buf, size_t cap)
{
	for (;;) {
		ssize_t n = wg_tun_read(t, hdr, buf, cap);
		size_t l3;

		if (n == -EAGAIN) {
			cr_assert(wait_fd(t->fd, POLLIN), "nothing came out of the TUN");
			continue;
		}
		cr_assert_gt(n, 0, "read: %s", strerror((int)-n));
		l3 = (buf[0] >> 4) == 4 ? IPV4_HDR : IPV6_HDR;
		if ((size_t)n < l3 + UDP_HDR)
			continue;
		if (buf[(buf[0] >> 4) == 4 ? 9 : 6] != IPPROTO_UDP) /* MLD, ICMP: not ours */
			continue;
		if ((buf[l3 + 2] << 8 | buf[l3 + 3]) != PORT)
			continue;
		return (size_t)n;
	}
}

static void send_to(int fd, int family, const char *addr, const void *data, size_t len,
		    uint16_t segment)
{
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(sizeof(uint16_t))];
	} ctl;
	struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6, .sin6_port = htons(PORT)};
	struct sockaddr_in sa4 = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (family == AF_INET) {
		cr_assert_eq(inet_pton(AF_INET, addr, &sa4.sin_addr), 1);
		mh.msg_name = &sa4;
		mh.msg_namelen = sizeof(sa4);
	} else {
		cr_assert_eq(inet_pton(AF_INET6, addr, &sa6.sin6_addr), 1);
		mh.msg_name = &sa6;
		mh.msg_namelen = sizeof(sa6);
	}
	if (segment) {
		memset(&ctl, 0, sizeof(ctl));
		ctl.c.cmsg_level = IPPROTO_UDP;
		ctl.c.cmsg_type = UDP_SEGMENT;
		ctl.c.cmsg_len = CMSG_LEN(sizeof(segment));
		memcpy(CMSG_DATA(&ctl.c), &segment, sizeof(segment));
		mh.msg_control = &ctl;
		mh.msg_controllen = sizeof(ctl);
	}
	cr_assert_eq(sendmsg(fd, &mh, 0), (ssize_t)len, "sendmsg: %s", strerror(errno));
}

/* A socket's datagram routed into the TUN comes out of its fd, whole. */
static void read_out(int family, unsigned int flags)
{
	static uint8_t buf[WG_TUN_MAX_PACKET_BYTES];
	const char *peer = family == AF_INET ? "10.50.0.9" : "fd00:50::9";
	size_t l3 = family == AF_INET ? IPV4_HDR : IPV6_HDR, n;
	struct wg_vnet_hdr hdr;
	struct wg_tun t;
	int fd;

	tun_setup(&t, flags);
	fd = udp_socket(family, family == AF_INET ? "10.50.0.1" : "fd00:50::1", 5555);
	send_to(fd, family, peer, "outbound", 8, 0);
	n = read_udp(&t, &hdr, buf, sizeof(buf));
	cr_assert_eq(n, l3 + UDP_HDR + 8);
	cr_assert_eq(memcmp(buf + l3 + UDP_HDR, "outbound", 8), 0);
	if (t.vnet_hdr) {
		cr_assert_eq(hdr.gso_type, WG_VNET_HDR_GSO_NONE);
		/* With TUN_F_CSUM on, the stack leaves the UDP checksum to us. */
		cr_assert(hdr.flags & WG_VNET_HDR_F_NEEDS_CSUM);
		cr_assert_eq(hdr.csum_start, l3);
		cr_assert_eq(hdr.csum_offset, 6);
	}
	close(fd);
	wg_tun_close(&t);
}

Test(tun, read_from_socket_v4)
{
	read_out(AF_INET, 0);
}

Test(tun, read_from_socket_v6)
{
	read_out(AF_INET6, 0);
}

Test(tun, read_from_socket_v4_vnet)
{
	read_out(AF_INET, WG_TUN_VNET_HDR);
}

Test(tun, read_from_socket_v6_vnet)
{
	read_out(AF_INET6, WG_TUN_VNET_HDR);
}

/* With USO on, a UDP_SEGMENT send arrives as one super-packet described by its header. */
static void read_uso(int family)
{
	enum { SEG = 500, SEGS = 5 };
	static uint8_t buf[WG_TUN_MAX_PACKET_BYTES], data[SEG * SEGS];
	const char *peer = family == AF_INET ? "10.50.0.9" : "fd00:50::9";
	size_t l3 = family == AF_INET ? IPV4_HDR : IPV6_HDR, n, i;
	struct wg_vnet_hdr hdr;
	struct wg_tun t;
	int fd;

	tun_setup(&t, WG_TUN_VNET_HDR);
	if (!(t.offloads & (family == AF_INET ? WG_TUN_F_USO4 : WG_TUN_F_USO6)))
		cr_skip_test("no USO on this kernel");
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	fd = udp_socket(family, family == AF_INET ? "10.50.0.1" : "fd00:50::1", 5555);
	send_to(fd, family, peer, data, sizeof(data), SEG);
	n = read_udp(&t, &hdr, buf, sizeof(buf));
	cr_assert_eq(n, l3 + UDP_HDR + sizeof(data), "one super-packet, not segments");
	cr_assert_eq(hdr.gso_type, WG_VNET_HDR_GSO_UDP_L4);
	cr_assert_eq(hdr.gso_size, SEG);
	cr_assert(hdr.flags & WG_VNET_HDR_F_NEEDS_CSUM);
	cr_assert_eq(hdr.csum_start, l3);
	cr_assert_eq(hdr.csum_offset, 6);
	cr_assert_eq(memcmp(buf + l3 + UDP_HDR, data, sizeof(data)), 0);
	close(fd);
	wg_tun_close(&t);
}

Test(tun, uso_super_packet_v4)
{
	read_uso(AF_INET);
}

Test(tun, uso_super_packet_v6)
{
	read_uso(AF_INET6);
}

Test(tun, batches)
{
	enum { N = 5 };
	static uint8_t bufs[N + 3][2048], pkt[N][256];
	struct wg_tun_pkt pkts[N + 3];
	struct wg_tun t;
	unsigned int i, written, bad = 0;
	int fd, got;

	tun_setup(&t, 0);
	fd = udp_socket(AF_INET, "10.50.0.1", PORT);
	for (i = 0; i < N; i++) {
		char payload[16];

		snprintf(payload, sizeof(payload), "batch-%u", i);
		pkts[i] = (struct wg_tun_pkt){.buf = pkt[i]};
		pkts[i].len = build_packet(pkt[i], AF_INET, payload, false);
	}
	cr_assert_eq(wg_tun_write_batch(&t, pkts, N, &written), 0);
	cr_assert_eq(written, N);
	for (i = 0; i < N; i++) {
		char got_buf[16] = {0};

		cr_assert(wait_fd(fd, POLLIN));
		cr_assert_eq(recv(fd, got_buf, sizeof(got_buf), 0), 7);
		cr_assert_eq(got_buf[6], '0' + (char)i, "in order");
	}
	/* The other way: N datagrams routed into the TUN, read in one batch call. */
	for (i = 0; i < N; i++)
		send_to(fd, AF_INET, "10.50.0.9", "x", 1, 0);
	cr_assert(wait_fd(t.fd, POLLIN));
	for (i = 0; i < N + 3; i++)
		pkts[i] = (struct wg_tun_pkt){.buf = bufs[i], .cap = sizeof(bufs[i])};
	got = wg_tun_read_batch(&t, pkts, N + 3, &bad);
	cr_assert_eq(got, N, "read %d", got);
	cr_assert_eq(bad, 0);
	for (i = 0; i < N; i++)
		cr_assert_eq(pkts[i].len, IPV4_HDR + UDP_HDR + 1);
	cr_assert_eq(wg_tun_read_batch(&t, pkts, N, &bad), 0, "empty now");
	close(fd);
	wg_tun_close(&t);
}

/* The codec on its own: the wire layout, and what a malformed header looks like. */
struct hdr_case {
	struct wg_vnet_hdr h;
	size_t pkt_len;
	int want;
};

static const struct hdr_case hdr_cases[] = {
	{{0}, 60, 0},
	{{.flags = 1, .csum_start = 20, .csum_offset = 6}, 28, 0},
	{{.flags = 1, .csum_start = 20, .csum_offset = 6}, 27, -EBADMSG}, /* past the end */
	{{.flags = 1, .csum_start = 0xffff, .csum_offset = 0xffff}, 60000, -EBADMSG},
	{{.flags = 2}, 60, 0},
	{{.flags = 4}, 60, -EBADMSG}, /* RSC_INFO: not from a TUN */
	{{.flags = 1,
	  .gso_type = 1,
	  .hdr_len = 54,
	  .gso_size = 1448,
	  .csum_start = 20,
	  .csum_offset = 16},
	 64000,
	 0},
	{{.gso_type = 4 | 0x80, .hdr_len = 74, .gso_size = 1428}, 64000, 0},
	{{.gso_type = 5, .hdr_len = 28, .gso_size = 1392}, 20000, 0},
	{{.gso_type = 5 | 0x80, .gso_size = 1392}, 20000, -EBADMSG}, /* ECN is TCP's */
	{{.gso_type = 0x80}, 60, -EBADMSG},
	{{.gso_type = 3, .gso_size = 1000}, 20000, -EBADMSG}, /* UFO: never enabled */
	{{.gso_type = 1, .gso_size = 0}, 20000, -EBADMSG},
	{{.gso_type = 1, .gso_size = 100, .hdr_len = 200}, 150, -EBADMSG},
};

Test(vnet_hdr, codec)
{
	size_t i;

	for (i = 0; i < WG_ARRAY_SIZE(hdr_cases); i++) {
		const struct hdr_case *c = &hdr_cases[i];
		uint8_t raw[WG_VNET_HDR_LEN];
		struct wg_vnet_hdr back;

		wg_vnet_hdr_encode(&c->h, raw);
		cr_assert_eq(wg_vnet_hdr_decode(&back, raw, c->pkt_len), c->want, "case %zu", i);
		if (c->want == 0)
			cr_assert_eq(memcmp(&back, &c->h, sizeof(back)), 0, "case %zu round trip",
				     i);
	}
}

Test(vnet_hdr, little_endian_layout)
{
	struct wg_vnet_hdr h = {.flags = 1,
				.gso_type = 4,
				.hdr_len = 0x0102,
				.gso_size = 0x0304,
				.csum_start = 0x0506,
				.csum_offset = 0x0708};
	static const uint8_t want[WG_VNET_HDR_LEN] = {1, 4, 2, 1, 4, 3, 6, 5, 8, 7};
	uint8_t raw[WG_VNET_HDR_LEN];

	wg_vnet_hdr_encode(&h, raw);
	cr_assert_eq(memcmp(raw, want, sizeof(raw)), 0);
}

/* wg_tun_read_split: the packet fills the first buffer, then runs on into the spill. */
Test(tun, read_split_joins_to_the_packet)
{
	enum { SEG = 500, SEGS = 5, HEAD = 100 };
	static uint8_t head[HEAD], spill[WG_TUN_MAX_PACKET_BYTES], data[SEG * SEGS];
	struct wg_vnet_hdr hdr;
	struct wg_tun t;
	ssize_t n;
	int fd;

	tun_setup(&t, WG_TUN_VNET_HDR);
	if (!(t.offloads & WG_TUN_F_USO4))
		cr_skip_test("no USO on this kernel");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	fd = udp_socket(AF_INET, "10.50.0.1", 5555);
	send_to(fd, AF_INET, "10.50.0.9", data, sizeof(data), SEG);
	for (;;) {
		n = wg_tun_read_split(&t, &hdr, head, sizeof(head), spill, sizeof(spill));
		if (n == -EAGAIN) {
			cr_assert(wait_fd(t.fd, POLLIN), "nothing came out of the TUN");
			continue;
		}
		cr_assert_gt(n, 0);
		if (head[9] == IPPROTO_UDP && (head[IPV4_HDR + 2] << 8 | head[IPV4_HDR + 3]) == PORT)
			break;
	}
	cr_assert_eq((size_t)n, IPV4_HDR + UDP_HDR + sizeof(data));
	cr_assert_eq(hdr.gso_size, SEG);
	cr_assert_eq(memcmp(head + IPV4_HDR + UDP_HDR, data, HEAD - IPV4_HDR - UDP_HDR), 0);
	cr_assert_eq(memcmp(spill, data + HEAD - IPV4_HDR - UDP_HDR,
			    sizeof(data) - (HEAD - IPV4_HDR - UDP_HDR)),
		     0, "the rest continues in the spill buffer");
	close(fd);
	wg_tun_close(&t);
}
