/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/gso.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/pktbuild.h"

enum { BIG = 70000 };

static uint8_t super[BIG], seg[BIG], want[BIG], payload[BIG];

static void init_payload(void)
{
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 131 + (i >> 8));
}

TestSuite(gso, .init = init_payload);

static struct pb_pkt tcp_desc(uint8_t family, size_t plen)
{
	struct pb_pkt d = {.family = family,
			   .proto = PB_PROTO_TCP,
			   .sport = 443,
			   .dport = 51000,
			   .seq = 0xfffff000,
			   .ack = 0x01020304,
			   .tcp_flags = PB_TCP_ACK,
			   .window = 501,
			   .ip_id = 0xfff0,
			   .frag = PB_IPV4_DF,
			   .tos = 0x02,
			   .payload = payload,
			   .payload_len = plen};

	if (family == 4) {
		pb_addr4(d.src, 192, 168, 1, 2);
		pb_addr4(d.dst, 192, 168, 1, 3);
	} else {
		pb_addr6(d.src, 0x2001, 0x11);
		pb_addr6(d.dst, 0x2001, 0x22);
	}
	return d;
}

static struct pb_pkt udp_desc(uint8_t family, size_t plen)
{
	struct pb_pkt d = tcp_desc(family, plen);

	d.proto = PB_PROTO_UDP;
	d.sport = 4433;
	d.dport = 51820;
	return d;
}

static struct cake_vnet_hdr vnet(const struct pb_pkt *d, uint8_t type, uint16_t mss)
{
	uint16_t l4 = (uint16_t)pb_ip_hdr_len(d);

	return (struct cake_vnet_hdr){.flags = d->partial_csum ? CAKE_VNET_F_NEEDS_CSUM : 0,
				      .gso_type = type,
				      .gso_size = mss,
				      .hdr_len = (uint16_t)(l4 + pb_l4_hdr_len(d)),
				      .csum_start = l4,
				      .csum_offset = d->proto == PB_PROTO_TCP ? 16 : 6};
}

/*
 * The expected segment i, described field by field from the super-packet's description
 * and built by pktbuild (its own checksums), never by the segmenter.
 */
static size_t expected(const struct pb_pkt *d, uint16_t mss, uint32_t i, uint32_t n)
{
	struct pb_pkt e = *d;
	size_t off = (size_t)i * mss;

	e.payload = d->payload + off;
	e.payload_len = i + 1 < n ? mss : d->payload_len - off;
	e.partial_csum = false;
	e.no_l4_csum = false;
	e.ip_id = (uint16_t)(d->ip_id + i);
	e.seq = d->seq + (uint32_t)off;
	if (i > 0)
		e.tcp_flags &= (uint8_t)~PB_TCP_CWR;
	if (i + 1 < n)
		e.tcp_flags &= (uint8_t) ~(PB_TCP_FIN | PB_TCP_PSH);
	return pb_build(want, sizeof(want), &e);
}

static uint32_t check_segments(const struct pb_pkt *d, uint8_t type, uint16_t mss)
{
	struct cake_vnet_hdr vh = vnet(d, type, mss);
	size_t len = pb_build(super, sizeof(super), d);
	size_t l4 = pb_ip_hdr_len(d), hdrs = l4 + pb_l4_hdr_len(d);
	uint32_t n = (uint32_t)((d->payload_len + mss - 1) / mss);
	struct cake_gso_plan plan;

	cr_assert_gt(len, 0);
	cr_assert_eq(cake_gso_plan(super, (uint32_t)len, &vh, &plan), 0);
	cr_assert_eq(plan.segs, n);
	cr_assert_eq(plan.hdr_len, hdrs);
	cr_assert_eq(plan.max_seg_len, hdrs + mss);
	for (uint32_t i = 0; i < n; i++) {
		size_t wlen = expected(d, mss, i, n);
		int got = cake_gso_segment(super, (uint32_t)len, &plan, i, seg, sizeof(seg));

		cr_assert_eq(got, (int)wlen, "segment %u of %u", i, n);
		cr_assert_eq(cake_gso_seg_len(&plan, i), wlen);
		for (size_t b = 0; b < wlen; b++)
			cr_assert_eq(seg[b], want[b], "segment %u of %u differs at byte %zu", i, n,
				     b);
		if (d->family == 4)
			cr_assert(pb_ipv4_csum_ok(seg), "segment %u", i);
		cr_assert(pb_l4_csum_ok(seg, wlen, l4, d->proto), "segment %u", i);
	}
	return n;
}

static const uint8_t tcp_opts[12] = {1, 1, 8, 10, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};

Test(gso, tso_ipv4_64k)
{
	for (int opts = 0; opts < 2; opts++) {
		struct pb_pkt d = tcp_desc(4, 65535 - 40 - (opts ? 12 : 0));

		d.partial_csum = true;
		d.tcp_flags = PB_TCP_ACK | PB_TCP_PSH | PB_TCP_FIN | PB_TCP_CWR | PB_TCP_ECE;
		if (opts) {
			d.tcp_opts = tcp_opts;
			d.tcp_opts_len = sizeof(tcp_opts);
		}
		cr_expect_eq(check_segments(&d, CAKE_VNET_GSO_TCPV4 | CAKE_VNET_GSO_ECN,
					    (uint16_t)(1448 - (opts ? 12 : 0))),
			     46);
	}
}

Test(gso, tso_ipv4_ids_increment_and_wrap)
{
	struct pb_pkt d = tcp_desc(4, 20000);

	d.partial_csum = true;
	d.ip_id = 0xfffe;
	d.frag = 0; /* DF clear: still +1 per segment */
	check_segments(&d, CAKE_VNET_GSO_TCPV4, 1000);
}

Test(gso, tso_ipv6_64k)
{
	for (int opts = 0; opts < 2; opts++) {
		struct pb_pkt d = tcp_desc(6, 65535 - 20 - (opts ? 12 : 0));

		d.partial_csum = true;
		d.tcp_flags = PB_TCP_ACK | PB_TCP_PSH | PB_TCP_FIN | PB_TCP_CWR;
		if (opts) {
			d.tcp_opts = tcp_opts;
			d.tcp_opts_len = sizeof(tcp_opts);
		}
		check_segments(&d, CAKE_VNET_GSO_TCPV6, 1428);
	}
}

Test(gso, tso_ipv4_options_and_ipv6_extension_header)
{
	static const uint8_t ipopts[8] = {1, 1, 1, 1, 1, 1, 1, 0};
	static const uint8_t hbh[8] = {6, 0, 1, 4, 0, 0, 0, 0};
	struct pb_pkt d4 = tcp_desc(4, 9000), d6 = tcp_desc(6, 9000);

	d4.ip_opts = ipopts;
	d4.ip_opts_len = sizeof(ipopts);
	d4.partial_csum = true;
	d4.tcp_flags |= PB_TCP_URG;
	d4.urg_ptr = 7;
	check_segments(&d4, CAKE_VNET_GSO_TCPV4, 1400);
	d6.ext = hbh;
	d6.ext_len = sizeof(hbh);
	d6.ext_first = 0;
	d6.partial_csum = true;
	check_segments(&d6, CAKE_VNET_GSO_TCPV6, 1400);
}

Test(gso, tso_without_needs_csum)
{
	struct pb_pkt d4 = tcp_desc(4, 30001), d6 = tcp_desc(6, 30001);

	d4.tcp_flags |= PB_TCP_PSH;
	check_segments(&d4, CAKE_VNET_GSO_TCPV4, 1460);
	d6.no_l4_csum = true; /* whatever the field holds, it is recomputed */
	check_segments(&d6, CAKE_VNET_GSO_TCPV6, 1440);
}

Test(gso, tail_shorter_and_exact_multiple)
{
	static const size_t plens[] = {2 * 1000 + 1, 3 * 1000, 1001};

	for (size_t i = 0; i < 3; i++) {
		struct pb_pkt d = tcp_desc(i & 1 ? 6 : 4, plens[i]);

		d.partial_csum = true;
		check_segments(&d, i & 1 ? CAKE_VNET_GSO_TCPV6 : CAKE_VNET_GSO_TCPV4, 1000);
	}
}

Test(gso, uso_ipv4_ipv6)
{
	struct pb_pkt d4 = udp_desc(4, 65535 - 28), d6 = udp_desc(6, 65535 - 8);

	d4.partial_csum = true;
	d6.partial_csum = true;
	cr_expect_eq(check_segments(&d4, CAKE_VNET_GSO_UDP_L4, 1000), 66);
	cr_expect_eq(check_segments(&d6, CAKE_VNET_GSO_UDP_L4, 1232), 54);
}

Test(gso, uso_zero_checksum_sent_as_ffff)
{
	/* Choose segment 1's first payload word so that its UDP checksum computes to 0. */
	struct pb_pkt d = udp_desc(4, 100);
	size_t l;
	uint32_t s;

	memset(payload, 0, 200);
	d.payload = payload + 100;
	d.no_l4_csum = true;
	l = pb_build(want, sizeof(want), &d); /* segment 1 with its field zero */
	s = pb_sum(want + 20, l - 20, pb_pseudo(want, 17, (uint32_t)(l - 20)));
	pb_put16(payload + 100, (uint16_t)~s);
	d = udp_desc(4, 200);
	d.partial_csum = true;
	check_segments(&d, CAKE_VNET_GSO_UDP_L4, 100);
	cr_expect_eq(pb_get16(seg + 26), 0xffff, "the last segment written is segment 1");
	init_payload();
}

Test(gso, not_really_gso_is_one_packet)
{
	struct pb_pkt d = tcp_desc(4, 1000);
	struct cake_vnet_hdr vh;
	struct cake_gso_plan plan;
	struct cake_pkt p = {0};
	size_t len, wlen;

	d.partial_csum = true;
	len = pb_build(super, sizeof(super), &d);
	vh = vnet(&d, CAKE_VNET_GSO_TCPV4, 1000);
	cr_assert_eq(cake_gso_plan(super, (uint32_t)len, &vh, &plan), 0);
	cr_expect_eq(plan.segs, 1);
	cr_expect_eq(plan.type, CAKE_GSO_NONE);
	cake_gso_fill_pkt(&p, &plan);
	cr_expect_eq(p.gso_type, CAKE_GSO_NONE);
	cr_expect_eq(p.gso_size, 0);
	cr_expect_eq(p.gso_segs, 1);
	d.partial_csum = false;
	wlen = pb_build(want, sizeof(want), &d);
	cr_assert_eq(cake_gso_segment(super, (uint32_t)len, &plan, 0, seg, sizeof(seg)), (int)wlen);
	cr_expect_eq(memcmp(seg, want, wlen), 0);
}

Test(gso, plain_packet_with_partial_checksum)
{
	struct pb_pkt d = udp_desc(6, 333);
	struct cake_vnet_hdr vh;
	struct cake_gso_plan plan;
	size_t len, wlen;

	d.partial_csum = true;
	len = pb_build(super, sizeof(super), &d);
	vh = vnet(&d, CAKE_VNET_GSO_NONE, 0);
	cr_assert_eq(cake_gso_plan(super, (uint32_t)len, &vh, &plan), 0);
	cr_expect_eq(plan.segs, 1);
	d.partial_csum = false;
	wlen = pb_build(want, sizeof(want), &d);
	cr_assert_eq(cake_gso_segment(super, (uint32_t)len, &plan, 0, seg, sizeof(seg)), (int)wlen);
	cr_expect_eq(memcmp(seg, want, wlen), 0);

	vh.flags = 0; /* nothing to do: copied as is */
	cr_assert_eq(cake_gso_plan(super, (uint32_t)len, &vh, &plan), 0);
	cr_assert_eq(cake_gso_segment(super, (uint32_t)len, &plan, 0, seg, sizeof(seg)), (int)len);
	cr_expect_eq(memcmp(seg, super, len), 0);
}

Test(gso, fill_pkt_and_buffer_errors)
{
	struct pb_pkt d = tcp_desc(6, 5000);
	struct cake_vnet_hdr vh;
	struct cake_gso_plan plan;
	struct cake_pkt p = {0};
	size_t len;

	d.partial_csum = true;
	len = pb_build(super, sizeof(super), &d);
	vh = vnet(&d, CAKE_VNET_GSO_TCPV6, 1220);
	cr_assert_eq(cake_gso_plan(super, (uint32_t)len, &vh, &plan), 0);
	cake_gso_fill_pkt(&p, &plan);
	cr_expect_eq(p.gso_type, CAKE_GSO_TCPV6);
	cr_expect_eq(p.gso_size, 1220);
	cr_expect_eq(p.gso_segs, 5);
	cr_expect_eq(cake_gso_segment(super, (uint32_t)len, &plan, 5, seg, sizeof(seg)), -ERANGE);
	cr_expect_eq(cake_gso_seg_len(&plan, 5), 0);
	cr_expect_eq(cake_gso_segment(super, (uint32_t)len, &plan, 0, seg, 60 + 1219), -ENOSPC);
	cr_expect_eq(cake_gso_segment(super, (uint32_t)len, &plan, 4, seg, 60 + 120), 180);
	cr_expect_eq(cake_gso_segment(super, (uint32_t)len - 1, &plan, 0, seg, sizeof(seg)),
		     -EINVAL);
}

/* Fields that lie: every case must be refused, and no read may leave the packet. */
Test(gso, lying_fields_are_refused)
{
	struct pb_pkt t4 = tcp_desc(4, 3000), u6 = udp_desc(6, 3000);
	uint8_t *p4, *p6;
	size_t l4len, l6len;
	struct cake_gso_plan plan;
	struct {
		int pkt; /* 4: TCPv4 packet, 6: UDPv6 packet, 0: zero bytes */
		struct cake_vnet_hdr vh;
		int err;
	} t[] = {
		{4, {1, CAKE_VNET_GSO_TCPV4, 54, 0, 20, 16}, -EINVAL},	     /* gso_size 0 */
		{4, {1, CAKE_VNET_GSO_TCPV4, 60000, 1000, 20, 16}, -EINVAL}, /* hdr_len > len */
		{4, {1, CAKE_VNET_GSO_TCPV4, 54, 1000, 21, 16}, -EINVAL},    /* csum_start */
		{4, {1, CAKE_VNET_GSO_TCPV4, 54, 1000, 20, 6}, -EINVAL},     /* csum_offset */
		{4, {1, CAKE_VNET_GSO_TCPV6, 54, 1000, 20, 16}, -EINVAL},    /* not IPv6 */
		{4, {1, CAKE_VNET_GSO_UDP_L4, 54, 1000, 20, 6}, -EINVAL},    /* not UDP */
		{4, {1, CAKE_VNET_GSO_UDP, 54, 1000, 20, 6}, -EOPNOTSUPP},   /* UFO */
		{4, {1, 2, 54, 1000, 20, 16}, -EINVAL},			     /* unknown type */
		{4, {1, CAKE_VNET_GSO_NONE, 0, 0, 3039, 0}, -EINVAL},	     /* field past end */
		{4, {1, CAKE_VNET_GSO_NONE, 0, 0, 3000, 39}, -EINVAL},
		{0, {0, CAKE_VNET_GSO_NONE, 0, 0, 0, 0}, -EINVAL},	  /* empty */
		{6, {1, CAKE_VNET_GSO_TCPV6, 48, 1000, 40, 16}, -EINVAL}, /* not TCP */
		{6, {1, CAKE_VNET_GSO_TCPV4, 48, 1000, 40, 6}, -EINVAL},
		{6, {0, CAKE_VNET_GSO_UDP_L4, 48, 1000, 40, 6}, -EINVAL}, /* USO w/o csum */
		{6, {1, CAKE_VNET_GSO_UDP_L4, 48, 23, 40, 6}, -EINVAL},	  /* > 128 segs */
		{6, {1, CAKE_VNET_GSO_UDP_L4, 48, 24, 40, 6}, 0},	  /* 125 segs */
		{4, {1, CAKE_VNET_GSO_TCPV4, 0, 1000, 20, 16}, 0},	  /* hdr_len hint */
		{4, {1, CAKE_VNET_GSO_TCPV4, 3040, 1000, 20, 16}, 0},
	};

	t4.partial_csum = true;
	u6.partial_csum = true;
	l4len = pb_build(super, sizeof(super), &t4);
	p4 = malloc(l4len);
	memcpy(p4, super, l4len);
	l6len = pb_build(super, sizeof(super), &u6);
	p6 = malloc(l6len);
	memcpy(p6, super, l6len);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t *p = t[i].pkt == 4 ? p4 : p6;
		uint32_t len = (uint32_t)(t[i].pkt == 4 ? l4len : t[i].pkt == 6 ? l6len : 0);

		cr_expect_eq(cake_gso_plan(p, len, &t[i].vh, &plan), t[i].err, "case %zu", i);
	}
	/* Packet-side lies: IPv4 fragment, truncated total length, UDP length. */
	{
		struct cake_vnet_hdr vh = vnet(&t4, CAKE_VNET_GSO_TCPV4, 1000);

		p4[6] |= 0x20; /* MF */
		cr_expect_eq(cake_gso_plan(p4, (uint32_t)l4len, &vh, &plan), -EINVAL);
		p4[6] &= (uint8_t)~0x20;
		cr_expect_eq(cake_gso_plan(p4, (uint32_t)l4len - 1, &vh, &plan), -EINVAL);
		cr_expect_eq(cake_gso_plan(p4, 30, &vh, &plan), -EINVAL);
		vh = vnet(&u6, CAKE_VNET_GSO_UDP_L4, 1000);
		p6[44]++;
		cr_expect_eq(cake_gso_plan(p6, (uint32_t)l6len, &vh, &plan), -EINVAL);
	}
	free(p4);
	free(p6);
}
