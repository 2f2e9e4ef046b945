// SPDX-License-Identifier: GPL-2.0-only
/*
 * wg_icmp_error_build: the bytes of both errors, checked field by field and with the
 * naive sums of tests/support/pktbuild.h (not qdisc/csum.c), the quote's length at the
 * limits, and each packet an error must not answer.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "src/core/compiler.h"
#include "src/core/icmp_error.h"
#include "tests/support/pktbuild.h"

enum { PROTO_ICMP = 1, PROTO_ICMPV6 = 58, BUF = 70000 };

static uint8_t pkt[BUF], payload[BUF];

/* The TUN's addresses: 198.19.0.1 and fd00:19::1. */
static struct wg_ipaddr tun_addr(int family)
{
	struct wg_ipaddr a = {.family = (sa_family_t)family};

	inet_pton(family, family == AF_INET ? "198.19.0.1" : "fd00:19::1", a.bytes);
	return a;
}

/* A UDP packet from a host behind the TUN (198.19.0.1, fd00:19::1) to an unpeered one
 * (.99), with n bytes of UDP payload. */
static struct pb_pkt udp(uint8_t family, size_t n)
{
	struct pb_pkt d = {.family = family, .proto = PB_PROTO_UDP, .sport = 4000, .dport = 53,
			   .payload = payload, .payload_len = n};

	int af = family == 4 ? AF_INET : AF_INET6;

	for (size_t i = 0; i < n; i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	inet_pton(af, af == AF_INET ? "198.19.0.1" : "fd00:19::1", d.src);
	inet_pton(af, af == AF_INET ? "198.19.0.99" : "fd00:19::99", d.dst);
	return d;
}

static enum wg_icmp_error_verdict build(const struct pb_pkt *d, size_t *len, uint8_t *out,
					size_t *out_len)
{
	struct wg_ipaddr src = tun_addr(d->family == 4 ? AF_INET : AF_INET6);

	*len = pb_build(pkt, sizeof(pkt), d);
	cr_assert_gt(*len, 0);
	return wg_icmp_error_build(pkt, *len, &src, out, out_len);
}

static void expect_v4(const uint8_t *out, size_t out_len, size_t len, uint8_t tos)
{
	size_t quote = len < 548 ? len : 548;

	cr_assert_eq(out_len, 20 + 8 + quote);
	cr_expect_eq(out[0], 0x45);
	cr_expect_eq(out[1], tos);
	cr_expect_eq(pb_get16(out + 2), out_len);
	cr_expect_eq(pb_get32(out + 4), 0, "ID 0 (the kernel's), no DF");
	cr_expect_eq(out[8], 64);
	cr_expect_eq(out[9], PROTO_ICMP);
	cr_expect(pb_ipv4_csum_ok(out));
	cr_expect_arr_eq(out + 12, "\xc6\x13\x00\x01", 4, "from the TUN's address");
	cr_expect_arr_eq(out + 16, pkt + 12, 4, "to the packet's source");
	cr_expect_eq(out[20], 3, "destination unreachable");
	cr_expect_eq(out[21], 1, "host unreachable");
	cr_expect_eq(pb_get32(out + 24), 0, "unused");
	cr_expect_eq(pb_sum(out + 20, out_len - 20, 0), 0xffff, "ICMP checksum");
	cr_expect_arr_eq(out + 28, pkt, quote);
}

static void expect_v6(const uint8_t *out, size_t out_len, size_t len)
{
	uint8_t want_src[16];
	size_t quote = len < 1232 ? len : 1232;

	inet_pton(AF_INET6, "fd00:19::1", want_src);
	cr_assert_eq(out_len, 40 + 8 + quote);
	cr_expect_eq(pb_get32(out), 0x60000000u, "version 6, class and label 0");
	cr_expect_eq(pb_get16(out + 4), 8 + quote);
	cr_expect_eq(out[6], PROTO_ICMPV6);
	cr_expect_eq(out[7], 64);
	cr_expect_arr_eq(out + 8, want_src, 16);
	cr_expect_arr_eq(out + 24, pkt + 8, 16, "to the packet's source");
	cr_expect_eq(out[40], 1, "destination unreachable");
	cr_expect_eq(out[41], 3, "address unreachable");
	cr_expect_eq(pb_get32(out + 44), 0, "unused");
	cr_expect(pb_l4_csum_ok(out, out_len, 40, PROTO_ICMPV6), "checksum with pseudo-header");
	cr_expect_arr_eq(out + 48, pkt, quote);
}

Test(icmp_error, ipv4_bytes_and_checksums)
{
	uint8_t out[WG_ICMP_ERROR_MAX];
	struct pb_pkt d = udp(4, 100);
	size_t len, out_len;

	cr_assert_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
	expect_v4(out, out_len, len, 0xc0);
	d.tos = 0xb9; /* EF, ECT(1): the TOS bits 0x18 stay, DSCP and ECN go */
	cr_assert_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
	expect_v4(out, out_len, len, 0xd8);
}

Test(icmp_error, ipv6_bytes_and_checksums)
{
	uint8_t out[WG_ICMP_ERROR_MAX];
	struct pb_pkt d = udp(6, 100);
	size_t len, out_len;

	cr_assert_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
	expect_v6(out, out_len, len);
}

/* The quote: the whole packet up to 548 (IPv4: 576 in all) or 1232 bytes (IPv6: 1280),
 * never the bytes past the IP length. */
Test(icmp_error, truncation_lengths)
{
	static const size_t sizes[] = {0, 1, 519, 520, 521, 1000, 1184, 1185, 1186, 1472, 65000};
	uint8_t out[WG_ICMP_ERROR_MAX];
	size_t len, out_len;

	for (size_t i = 0; i < WG_ARRAY_SIZE(sizes); i++) {
		struct pb_pkt d4 = udp(4, sizes[i]), d6 = udp(6, sizes[i]);

		cr_assert_eq(build(&d4, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
		expect_v4(out, out_len, len, 0xc0);
		cr_expect_leq(out_len, 576);
		cr_assert_eq(build(&d6, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
		expect_v6(out, out_len, len);
		cr_expect_leq(out_len, 1280);
	}
	{
		struct pb_pkt d = udp(4, 40);
		struct wg_ipaddr src = tun_addr(AF_INET);

		len = pb_build(pkt, sizeof(pkt), &d);
		memset(pkt + len, 0xee, 30); /* bytes after the IP length: not quoted */
		cr_assert_eq(wg_icmp_error_build(pkt, len + 30, &src, out, &out_len),
			     WG_ICMP_ERROR_BUILT);
		cr_expect_eq(out_len, 28 + len);
	}
}

/* An ICMP (ICMPv6) message of `type` in a packet from the usual host. */
static enum wg_icmp_error_verdict icmp_of(uint8_t family, uint8_t type)
{
	uint8_t out[WG_ICMP_ERROR_MAX];
	struct pb_pkt d = udp(family, 36);
	size_t len, out_len;

	d.proto = family == 4 ? PROTO_ICMP : PROTO_ICMPV6;
	payload[0] = type;
	return build(&d, &len, out, &out_len);
}

Test(icmp_error, never_an_error_for_an_error)
{
	static const uint8_t v4_errors[] = {3, 4, 5, 11, 12, 19, 42, 255};
	static const uint8_t v4_info[] = {0, 8, 13, 14, 17, 18};
	static const uint8_t v6_errors[] = {0, 1, 2, 3, 4, 100, 127, 137};
	static const uint8_t v6_info[] = {128, 129, 133, 135, 136, 200};

	for (size_t i = 0; i < sizeof(v4_errors); i++)
		cr_expect_eq(icmp_of(4, v4_errors[i]), WG_ICMP_ERROR_REFUSED, "%u", v4_errors[i]);
	for (size_t i = 0; i < sizeof(v4_info); i++)
		cr_expect_eq(icmp_of(4, v4_info[i]), WG_ICMP_ERROR_BUILT, "%u", v4_info[i]);
	for (size_t i = 0; i < sizeof(v6_errors); i++)
		cr_expect_eq(icmp_of(6, v6_errors[i]), WG_ICMP_ERROR_REFUSED, "%u", v6_errors[i]);
	for (size_t i = 0; i < sizeof(v6_info); i++)
		cr_expect_eq(icmp_of(6, v6_info[i]), WG_ICMP_ERROR_BUILT, "%u", v6_info[i]);
}

/* An IPv6 fragment header for `next`, offset in 8-byte units. */
static struct pb_pkt frag6(uint8_t *ext, uint16_t off_units, bool more)
{
	struct pb_pkt d = udp(6, 200);

	memset(ext, 0, 8);
	ext[0] = PB_PROTO_UDP;
	pb_put16(ext + 2, (uint16_t)(off_units << 3 | (more ? 1 : 0)));
	d.ext = ext;
	d.ext_len = 8;
	d.ext_first = 44;
	return d;
}

Test(icmp_error, only_first_fragments)
{
	uint8_t out[WG_ICMP_ERROR_MAX], ext[8];
	struct pb_pkt d = udp(4, 200);
	size_t len, out_len;

	d.frag = PB_IPV4_MF; /* the first fragment */
	cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
	d.frag = PB_IPV4_MF | 185;
	cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_REFUSED);
	cr_expect_eq(out_len, 0);
	d.frag = 185; /* the last */
	cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_REFUSED);

	d = frag6(ext, 0, true);
	cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
	d = frag6(ext, 100, true);
	cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_REFUSED);
	d = frag6(ext, 100, false);
	cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_REFUSED);
}

/* Sources that name no single host and destinations of many. */
Test(icmp_error, addresses_of_no_single_host)
{
	static const struct {
		uint8_t family;
		bool source;
		const char *addr;
	} cases[] = {
		{4, true, "0.0.0.0"},	{4, true, "0.1.2.3"},	 {4, true, "127.0.0.1"},
		{4, true, "224.0.0.1"}, {4, true, "239.255.255.250"}, {4, true, "240.0.0.1"},
		{4, true, "255.255.255.255"}, {4, false, "224.0.0.1"},  {4, false, "239.1.2.3"},
		{4, false, "255.255.255.255"}, {6, true, "::"},	 {6, true, "::1"},
		{6, true, "ff02::1"},	{6, true, "ff0e::1"},	 {6, false, "ff02::1"},
		{6, false, "ff05::2"},
	};
	uint8_t out[WG_ICMP_ERROR_MAX];
	size_t len, out_len;

	for (size_t i = 0; i < WG_ARRAY_SIZE(cases); i++) {
		struct pb_pkt d = udp(cases[i].family, 10);

		cr_assert_eq(inet_pton(cases[i].family == 4 ? AF_INET : AF_INET6, cases[i].addr,
				       cases[i].source ? d.src : d.dst),
			     1);
		cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_REFUSED, "%s %s",
			     cases[i].source ? "from" : "to", cases[i].addr);
	}
	{
		struct pb_pkt d = udp(4, 10); /* another private source passes */

		inet_pton(AF_INET, "10.1.2.3", d.src);
		cr_expect_eq(build(&d, &len, out, &out_len), WG_ICMP_ERROR_BUILT);
	}
}

Test(icmp_error, malformed_gets_nothing)
{
	uint8_t out[WG_ICMP_ERROR_MAX];
	struct wg_ipaddr src4 = tun_addr(AF_INET), src6 = tun_addr(AF_INET6);
	struct pb_pkt d4 = udp(4, 50), d6 = udp(6, 50);
	size_t len4, len6, out_len = 1;

	len4 = pb_build(pkt, sizeof(pkt), &d4);
	cr_expect_eq(wg_icmp_error_build(pkt, 0, &src4, out, &out_len), WG_ICMP_ERROR_MALFORMED);
	cr_expect_eq(out_len, 0);
	cr_expect_eq(wg_icmp_error_build(pkt, 19, &src4, out, &out_len), WG_ICMP_ERROR_MALFORMED);
	cr_expect_eq(wg_icmp_error_build(pkt, len4 - 1, &src4, out, &out_len),
		     WG_ICMP_ERROR_MALFORMED, "the IP length runs past the bytes");
	pkt[0] = 0x44; /* IHL 16 bytes */
	cr_expect_eq(wg_icmp_error_build(pkt, len4, &src4, out, &out_len), WG_ICMP_ERROR_MALFORMED);
	pkt[0] = 0x55;
	cr_expect_eq(wg_icmp_error_build(pkt, len4, &src4, out, &out_len), WG_ICMP_ERROR_MALFORMED);
	d4.payload_len = 4; /* a UDP header cut short */
	d4.proto = PB_PROTO_UDP;
	len4 = pb_build(pkt, sizeof(pkt), &d4);
	pb_put16(pkt + 2, 24);
	cr_expect_eq(wg_icmp_error_build(pkt, 24, &src4, out, &out_len), WG_ICMP_ERROR_MALFORMED);

	len6 = pb_build(pkt, sizeof(pkt), &d6);
	cr_expect_eq(wg_icmp_error_build(pkt, 39, &src6, out, &out_len), WG_ICMP_ERROR_MALFORMED);
	cr_expect_eq(wg_icmp_error_build(pkt, len6 - 1, &src6, out, &out_len),
		     WG_ICMP_ERROR_MALFORMED);
	d6.proto = PROTO_ICMPV6; /* ICMPv6 without its type byte */
	d6.payload_len = 0;
	len6 = pb_build(pkt, sizeof(pkt), &d6);
	cr_expect_eq(wg_icmp_error_build(pkt, len6, &src6, out, &out_len), WG_ICMP_ERROR_MALFORMED);
	cr_expect_eq(out_len, 0);
}

Test(icmp_error, source_of_the_other_family_is_refused)
{
	uint8_t out[WG_ICMP_ERROR_MAX];
	struct wg_ipaddr src6 = tun_addr(AF_INET6);
	struct pb_pkt d = udp(4, 10);
	size_t len = pb_build(pkt, sizeof(pkt), &d), out_len;

	cr_expect_eq(wg_icmp_error_build(pkt, len, &src6, out, &out_len), WG_ICMP_ERROR_REFUSED);
	cr_expect_eq(wg_icmp_error_check(pkt, len), WG_ICMP_ERROR_BUILT);
}
