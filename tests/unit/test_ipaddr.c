/* SPDX-License-Identifier: GPL-2.0-only */
/* wg_ipaddr_to_sockaddr: the one place an address becomes a socket address. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "src/core/ipaddr.h"

static struct wg_ipaddr addr(const char *s)
{
	struct wg_ipaddr a;

	cr_assert(wg_ipaddr_parse(&a, s, strlen(s)), "%s", s);
	return a;
}

Test(ipaddr, ipv4_socket_address)
{
	struct wg_ipaddr a = addr("198.19.0.1");
	union wg_ipaddr_sockaddr sa;

	cr_assert_eq(wg_ipaddr_to_sockaddr(&sa, &a, 51820, 7), sizeof(struct sockaddr_in));
	cr_assert_eq(sa.addr4.sin_family, AF_INET);
	cr_assert_eq(ntohs(sa.addr4.sin_port), 51820);
	cr_assert_eq(sa.addr4.sin_addr.s_addr, htonl(0xc6130001));
}

Test(ipaddr, ipv6_socket_address_zone_only_when_link_local)
{
	struct wg_ipaddr g = addr("fd00:19::1"), l = addr("fe80::1");
	union wg_ipaddr_sockaddr sa;

	cr_assert_eq(wg_ipaddr_to_sockaddr(&sa, &g, 0, 7), sizeof(struct sockaddr_in6));
	cr_assert_eq(sa.addr6.sin6_family, AF_INET6);
	cr_assert_eq(sa.addr6.sin6_port, 0);
	cr_assert_eq(sa.addr6.sin6_scope_id, 0);
	cr_assert_eq(memcmp(&sa.addr6.sin6_addr, g.bytes, 16), 0);
	cr_assert_eq(wg_ipaddr_to_sockaddr(&sa, &l, 0, 7), sizeof(struct sockaddr_in6));
	cr_assert_eq(sa.addr6.sin6_scope_id, 7);
}

Test(ipaddr, no_socket_address_without_a_family)
{
	struct wg_ipaddr none = {0};
	union wg_ipaddr_sockaddr sa;

	cr_assert_eq(wg_ipaddr_to_sockaddr(&sa, &none, 1, 1), 0);
}
