// SPDX-License-Identifier: GPL-2.0-only
/* wg_tunaddr_pick: the ICMP errors' source among a link's addresses. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <linux/rtnetlink.h>

#include "src/edge/tunaddr.h"

static struct wg_nl_addr_entry entry(uint8_t family, const char *text, uint8_t scope)
{
	struct wg_nl_addr_entry e = {.ifindex = 7, .scope = scope};

	e.p.family = family;
	e.p.len = family == AF_INET ? 24 : 64;
	cr_assert_eq(inet_pton(family, text, e.p.addr.bytes), 1);
	return e;
}

Test(tunaddr, the_primary_of_the_widest_scope)
{
	struct wg_nl_addr_entry a[] = {
		entry(AF_INET6, "fe80::1", RT_SCOPE_LINK),
		entry(AF_INET, "10.0.0.1", RT_SCOPE_UNIVERSE),
		entry(AF_INET6, "fd00::1", RT_SCOPE_UNIVERSE),
		entry(AF_INET, "10.0.0.2", RT_SCOPE_UNIVERSE),
		entry(AF_INET6, "fd00::2", RT_SCOPE_UNIVERSE),
	};
	struct wg_ipaddr out, want;

	cr_assert(wg_tunaddr_pick(a, 5, AF_INET, &out));
	want = (struct wg_ipaddr){.family = AF_INET};
	inet_pton(AF_INET, "10.0.0.1", want.bytes);
	cr_expect_arr_eq(&out, &want, sizeof(out), "the first IPv4 address");
	cr_assert(wg_tunaddr_pick(a, 5, AF_INET6, &out));
	want = (struct wg_ipaddr){.family = AF_INET6};
	inet_pton(AF_INET6, "fd00::1", want.bytes);
	cr_expect_arr_eq(&out, &want, sizeof(out), "a global address before a link-local one");
	cr_assert(wg_tunaddr_pick(a, 1, AF_INET6, &out), "link-local when it is all there is");
	cr_expect_not(wg_tunaddr_pick(a, 1, AF_INET, &out), "no IPv4 address: none");
	cr_expect_not(wg_tunaddr_pick(a, 0, AF_INET6, &out));
}
