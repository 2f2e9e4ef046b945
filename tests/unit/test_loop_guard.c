// SPDX-License-Identifier: GPL-2.0-only
/* wg_loop_is_own_datagram: our own datagram to a peer, come back through the tunnel. */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "src/core/loop_guard.h"
#include "tests/support/pktbuild.h"

enum { PORT = 51820, PEER_PORT = 7 };

/* The peer's endpoint, 198.19.0.2 or fd00:19::2, port PEER_PORT. */
static struct wg_endpoint ep(int family)
{
	struct wg_endpoint e = {0};

	if (family == AF_INET) {
		e.remote.addr4.sin_family = AF_INET;
		e.remote.addr4.sin_port = htons(PEER_PORT);
		inet_pton(AF_INET, "198.19.0.2", &e.remote.addr4.sin_addr);
	} else {
		e.remote.addr6.sin6_family = AF_INET6;
		e.remote.addr6.sin6_port = htons(PEER_PORT);
		inet_pton(AF_INET6, "fd00:19::2", &e.remote.addr6.sin6_addr);
	}
	return e;
}

/* A UDP datagram from us (sport) to the endpoint's address (dst) and dport. */
static size_t udp(uint8_t *buf, uint8_t family, uint16_t sport, uint16_t dport, uint8_t proto)
{
	static const uint8_t payload[148];
	struct pb_pkt d = {.family = family, .proto = proto, .sport = sport, .dport = dport,
			   .payload = payload, .payload_len = sizeof(payload)};

	if (family == 4) {
		pb_addr4(d.src, 198, 19, 0, 1);
		pb_addr4(d.dst, 198, 19, 0, 2);
	} else {
		inet_pton(AF_INET6, "fd00:19::1", d.src);
		inet_pton(AF_INET6, "fd00:19::2", d.dst);
	}
	return pb_build(buf, 2048, &d);
}

Test(loop_guard, own_datagram_v4_and_v6)
{
	uint8_t b[2048];
	struct wg_endpoint e4 = ep(AF_INET), e6 = ep(AF_INET6);
	size_t n = udp(b, 4, PORT, PEER_PORT, PB_PROTO_UDP);

	cr_assert(wg_loop_is_own_datagram(b, n, PORT, &e4));
	cr_assert_not(wg_loop_is_own_datagram(b, n, PORT, &e6), "family differs");
	n = udp(b, 6, PORT, PEER_PORT, PB_PROTO_UDP);
	cr_assert(wg_loop_is_own_datagram(b, n, PORT, &e6));
	cr_assert_not(wg_loop_is_own_datagram(b, n, PORT, &e4), "family differs");
}

Test(loop_guard, other_traffic_is_not)
{
	uint8_t b[2048];
	struct wg_endpoint e = ep(AF_INET);
	size_t n;

	n = udp(b, 4, PORT + 1, PEER_PORT, PB_PROTO_UDP);
	cr_assert_not(wg_loop_is_own_datagram(b, n, PORT, &e), "another source port");
	n = udp(b, 4, PORT, PEER_PORT + 1, PB_PROTO_UDP);
	cr_assert_not(wg_loop_is_own_datagram(b, n, PORT, &e), "another destination port");
	n = udp(b, 4, PORT, PEER_PORT, PB_PROTO_TCP);
	cr_assert_not(wg_loop_is_own_datagram(b, n, PORT, &e), "TCP");
	n = udp(b, 4, PORT, PEER_PORT, PB_PROTO_UDP);
	cr_assert_not(wg_loop_is_own_datagram(b, n, 0, &e), "no listening port");
	inet_pton(AF_INET, "198.19.0.3", &e.remote.addr4.sin_addr);
	cr_assert_not(wg_loop_is_own_datagram(b, n, PORT, &e), "another destination address");
}

Test(loop_guard, truncated_or_fragmented_is_not)
{
	uint8_t b[2048];
	struct wg_endpoint e = ep(AF_INET);
	size_t n = udp(b, 4, PORT, PEER_PORT, PB_PROTO_UDP);

	for (size_t len = 0; len < PB_IPV4_HDR + PB_UDP_HDR; len++)
		cr_assert_not(wg_loop_is_own_datagram(b, len, PORT, &e), "%zu bytes", len);
	pb_put16(b + 6, PB_IPV4_MF | 1); /* a later fragment: its ports are payload */
	cr_assert_not(wg_loop_is_own_datagram(b, n, PORT, &e));
	e = ep(AF_INET6);
	n = udp(b, 6, PORT, PEER_PORT, PB_PROTO_UDP);
	for (size_t len = 0; len < PB_IPV6_HDR + PB_UDP_HDR; len++)
		cr_assert_not(wg_loop_is_own_datagram(b, len, PORT, &e), "%zu bytes", len);
}
