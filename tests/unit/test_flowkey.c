/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/flowkey.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/pktbuild.h"

static const struct cake_siphash_key key = {.k = {0x0123456789abcdefULL, 0x1122334455667788ULL}};

static uint8_t buf[2048];

static struct pb_pkt tcp4(void)
{
	struct pb_pkt d = {.family = 4,
			   .proto = PB_PROTO_TCP,
			   .sport = 40000,
			   .dport = 443,
			   .seq = 1000,
			   .ack = 2000,
			   .tcp_flags = PB_TCP_ACK,
			   .tos = 0xb8 | 2};

	pb_addr4(d.src, 10, 0, 0, 1);
	pb_addr4(d.dst, 192, 0, 2, 7);
	return d;
}

static struct pb_pkt tcp6(void)
{
	struct pb_pkt d = {.family = 6,
			   .proto = PB_PROTO_TCP,
			   .sport = 50000,
			   .dport = 22,
			   .seq = 1,
			   .ack = 2,
			   .tcp_flags = PB_TCP_ACK,
			   .tos = 0x28 | 1};

	pb_addr6(d.src, 0x2001, 1);
	pb_addr6(d.dst, 0x2001, 2);
	return d;
}

static enum cake_flowkey_verdict parse(const struct pb_pkt *d, struct cake_pkt *p, size_t *len)
{
	*len = pb_build(buf, sizeof(buf), d);
	cr_assert_gt(*len, 0);
	memset(p, 0, sizeof(*p));
	return cake_flowkey_parse(p, buf, (uint32_t)*len, &key);
}

/* The hash layout flowkey.h documents, computed here from the description. */
static uint32_t want_flow(const struct pb_pkt *d, uint8_t proto, bool ports)
{
	uint8_t k[38];
	size_t alen = d->family == 4 ? 4 : 16;

	k[0] = d->family;
	k[1] = proto;
	pb_put16(k + 2, ports ? d->sport : 0);
	pb_put16(k + 4, ports ? d->dport : 0);
	memcpy(k + 6, d->src, alen);
	memcpy(k + 6 + alen, d->dst, alen);
	return (uint32_t)cake_siphash(&key, k, 6 + 2 * alen);
}

static uint32_t want_host(uint8_t family, const uint8_t *addr)
{
	uint8_t k[17];
	size_t alen = family == 4 ? 4 : 16;

	k[0] = family;
	memcpy(k + 1, addr, alen);
	return (uint32_t)cake_siphash(&key, k, 1 + alen);
}

Test(flowkey, ipv4_tcp_fields)
{
	static const uint8_t opts[12] = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
	struct pb_pkt d = tcp4();
	struct cake_pkt p;
	size_t len;

	d.tcp_opts = opts;
	d.tcp_opts_len = sizeof(opts);
	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.data, buf);
	cr_expect_eq(p.len, len);
	cr_expect_eq(p.flags, CAKE_PKT_IPV4 | CAKE_PKT_TCP | CAKE_PKT_PURE_ACK);
	cr_expect_eq(p.dscp, 46);
	cr_expect_eq(p.ecn, 2);
	cr_expect_eq(p.l4_offset, 20);
	cr_expect_eq(p.l4_hdr_len, 32);
	cr_expect_eq(p.flow_hash, want_flow(&d, 6, true));
	cr_expect_eq(p.src_hash, want_host(4, d.src));
	cr_expect_eq(p.dst_hash, want_host(4, d.dst));
}

Test(flowkey, ipv4_options_move_l4)
{
	uint8_t opts[40];

	memset(opts, 1, sizeof(opts)); /* NOPs */
	for (size_t n = 0; n <= 40; n += 4) {
		struct pb_pkt d = tcp4();
		struct cake_pkt p;
		size_t len;

		d.ip_opts = opts;
		d.ip_opts_len = n;
		d.proto = PB_PROTO_UDP;
		cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK, "opts %zu", n);
		cr_expect_eq(p.l4_offset, 20 + n);
		cr_expect_eq(p.l4_hdr_len, 8);
		cr_expect_eq(p.flags, CAKE_PKT_IPV4 | CAKE_PKT_UDP);
		cr_expect_eq(p.flow_hash, want_flow(&d, 17, true));
	}
}

Test(flowkey, ipv6_tcp_udp_fields)
{
	struct pb_pkt d = tcp6();
	struct cake_pkt p;
	size_t len;

	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.flags, CAKE_PKT_IPV6 | CAKE_PKT_TCP | CAKE_PKT_PURE_ACK);
	cr_expect_eq(p.dscp, 10);
	cr_expect_eq(p.ecn, 1);
	cr_expect_eq(p.l4_offset, 40);
	cr_expect_eq(p.l4_hdr_len, 20);
	cr_expect_eq(p.flow_hash, want_flow(&d, 6, true));
	cr_expect_eq(p.src_hash, want_host(6, d.src));
	cr_expect_eq(p.dst_hash, want_host(6, d.dst));

	d.proto = PB_PROTO_UDP;
	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.flags, CAKE_PKT_IPV6 | CAKE_PKT_UDP);
	cr_expect_eq(p.l4_hdr_len, 8);
	cr_expect_eq(p.flow_hash, want_flow(&d, 17, true));
}

Test(flowkey, tos_every_value)
{
	for (int tos = 0; tos < 256; tos++) {
		struct pb_pkt d4 = tcp4(), d6 = tcp6();
		struct cake_pkt p;
		size_t len;

		d4.tos = (uint8_t)tos;
		d6.tos = (uint8_t)tos;
		cr_assert_eq(parse(&d4, &p, &len), CAKE_FLOWKEY_OK);
		cr_expect_eq(p.dscp, tos >> 2);
		cr_expect_eq(p.ecn, tos & 3);
		cr_assert_eq(parse(&d6, &p, &len), CAKE_FLOWKEY_OK);
		cr_expect_eq(p.dscp, tos >> 2, "v6 tos %d", tos);
		cr_expect_eq(p.ecn, tos & 3);
	}
}

Test(flowkey, hash_properties)
{
	struct pb_pkt a = tcp4(), b = tcp4(), r = tcp4();
	struct cake_pkt pa, pb, pr;
	struct cake_siphash_key k2 = key;
	size_t len;

	b.sport++;
	cr_assert_eq(parse(&a, &pa, &len), CAKE_FLOWKEY_OK);
	cr_assert_eq(parse(&b, &pb, &len), CAKE_FLOWKEY_OK);
	cr_expect_neq(pa.flow_hash, pb.flow_hash, "ports are in the flow hash");
	cr_expect_eq(pa.src_hash, pb.src_hash, "host hashes ignore ports");
	cr_expect_eq(pa.dst_hash, pb.dst_hash);

	/* The reverse direction: a different flow, host hashes swap. */
	memcpy(r.src, a.dst, 16);
	memcpy(r.dst, a.src, 16);
	r.sport = a.dport;
	r.dport = a.sport;
	cr_assert_eq(parse(&r, &pr, &len), CAKE_FLOWKEY_OK);
	cr_expect_neq(pr.flow_hash, pa.flow_hash);
	cr_expect_eq(pr.src_hash, pa.dst_hash);
	cr_expect_eq(pr.dst_hash, pa.src_hash);

	/* Another instance key gives other hashes. */
	k2.k[1] ^= 1;
	len = pb_build(buf, sizeof(buf), &a);
	cake_flowkey_parse(&pb, buf, (uint32_t)len, &k2);
	cr_expect_neq(pb.flow_hash, pa.flow_hash);
	cr_expect_neq(pb.src_hash, pa.src_hash);
}

/* What the header walk says of d's packet: a fragment after the first? */
static bool later_fragment(const struct pb_pkt *d)
{
	uint8_t b[256];
	size_t len = pb_build(b, sizeof(b), d);
	struct cake_flowkey_hdrs h;

	(void)cake_flowkey_dissect(b, (uint32_t)len, &h);
	return h.later_fragment;
}

Test(flowkey, ipv4_fragments_hash_on_addresses)
{
	static const uint16_t frags[] = {PB_IPV4_MF, PB_IPV4_MF | 185, 185, PB_IPV4_DF | 1};
	struct pb_pkt d = tcp4();
	struct cake_pkt p;
	size_t len;

	d.proto = PB_PROTO_UDP;
	for (size_t i = 0; i < sizeof(frags) / sizeof(frags[0]); i++) {
		d.frag = frags[i];
		cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
		cr_expect_eq(p.flags, CAKE_PKT_IPV4 | CAKE_PKT_FRAGMENT, "frag %#x", frags[i]);
		cr_expect_eq(p.l4_offset, 0);
		cr_expect_eq(p.flow_hash, want_flow(&d, 17, false));
		cr_expect_eq(p.src_hash, want_host(4, d.src));
		cr_expect_eq(later_fragment(&d), i > 0, "frag %#x", frags[i]); /* offset != 0 */
	}
	d.frag = PB_IPV4_DF; /* DF alone is no fragment */
	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.flags, CAKE_PKT_IPV4 | CAKE_PKT_UDP);
}

/* Appends an options-style extension header of n bytes (n multiple of 8). */
static size_t ext_opts(uint8_t *e, uint8_t next, size_t n)
{
	memset(e, 0, n);
	e[0] = next;
	e[1] = (uint8_t)(n / 8 - 1);
	if (n > 2) {
		e[2] = 1; /* PadN covering the rest */
		e[3] = (uint8_t)(n - 4);
	}
	return n;
}

static size_t ext_frag(uint8_t *e, uint8_t next, uint16_t off_units, bool more)
{
	memset(e, 0, 8);
	e[0] = next;
	pb_put16(e + 2, (uint16_t)(off_units << 3 | (more ? 1 : 0)));
	pb_put32(e + 4, 0xdeadbeef);
	return 8;
}

Test(flowkey, ipv6_extension_chain)
{
	uint8_t ext[128];
	struct pb_pkt d = tcp6();
	struct cake_pkt p;
	size_t n = 0, len;

	/* hop-by-hop -> destination options -> routing -> AH -> TCP */
	n += ext_opts(ext + n, 60, 8);
	n += ext_opts(ext + n, 43, 16);
	n += ext_opts(ext + n, 51, 24);
	memset(ext + n, 0, 16); /* AH: payload len in 4-byte units minus 2 */
	ext[n] = 6;
	ext[n + 1] = 2;
	n += 16;
	d.ext = ext;
	d.ext_len = n;
	d.ext_first = 0;
	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.l4_offset, 40 + n);
	cr_expect_eq(p.flags, CAKE_PKT_IPV6 | CAKE_PKT_TCP | CAKE_PKT_PURE_ACK);
	cr_expect_eq(p.flow_hash, want_flow(&d, 6, true));
}

Test(flowkey, ipv6_fragments)
{
	uint8_t ext[16];
	struct pb_pkt d = tcp6();
	struct cake_pkt p;
	size_t len;

	d.proto = PB_PROTO_UDP;
	d.ext = ext;
	d.ext_first = 44;
	d.ext_len = ext_frag(ext, 17, 0, true); /* first fragment */
	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.flags, CAKE_PKT_IPV6 | CAKE_PKT_FRAGMENT);
	cr_expect_eq(p.flow_hash, want_flow(&d, 17, false));
	cr_expect_not(later_fragment(&d));

	d.ext_len = ext_frag(ext, 17, 100, false); /* last fragment */
	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.flags, CAKE_PKT_IPV6 | CAKE_PKT_FRAGMENT);
	cr_expect_eq(p.flow_hash, want_flow(&d, 17, false));
	cr_expect(later_fragment(&d));

	d.ext_len = ext_frag(ext, 17, 0, false); /* atomic: RFC 6946, parse through */
	cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.flags, CAKE_PKT_IPV6 | CAKE_PKT_UDP);
	cr_expect_eq(p.l4_offset, 48);
	cr_expect_eq(p.flow_hash, want_flow(&d, 17, true));
}

Test(flowkey, no_port_protocols)
{
	static const uint8_t stop[] = {1, 58, 50, 59, 47, 253}; /* ICMP, ICMPv6, ESP, none */
	uint8_t raw[64];
	struct pb_pkt d = tcp6();
	struct cake_pkt p;
	size_t len;

	memset(raw, 0xab, sizeof(raw));
	d.payload = raw;
	d.payload_len = sizeof(raw);
	for (size_t i = 0; i < sizeof(stop); i++) {
		d.proto = stop[i];
		cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK, "proto %u", stop[i]);
		cr_expect_eq(p.flags, CAKE_PKT_IPV6);
		cr_expect_eq(p.l4_offset, 0);
		cr_expect_eq(p.flow_hash, want_flow(&d, stop[i], false));
	}
}

Test(flowkey, other_port_protocols)
{
	static const struct {
		uint8_t proto;
		size_t min;
	} t[] = {
		{136, 8},  /* UDP-Lite */
		{132, 12}, /* SCTP */
		{33, 12},  /* DCCP */
	};
	uint8_t raw[16] = {0x12, 0x34, 0x56, 0x78};
	struct pb_pkt d = tcp4();
	struct cake_pkt p;
	size_t len;

	d.sport = 0x1234;
	d.dport = 0x5678;
	d.payload = raw;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		d.proto = t[i].proto;
		d.payload_len = t[i].min;
		cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
		cr_expect_eq(p.flags, CAKE_PKT_IPV4);
		cr_expect_eq(p.flow_hash, want_flow(&d, t[i].proto, true), "proto %u", t[i].proto);
		d.payload_len = t[i].min - 1;
		cr_expect_eq(parse(&d, &p, &len), CAKE_FLOWKEY_BAD_L4);
		cr_expect_eq(p.flow_hash, want_flow(&d, t[i].proto, false));
	}
}

Test(flowkey, pure_ack_table)
{
	static const uint8_t payload[5] = "hello";
	static const struct {
		uint8_t flags;
		size_t plen;
		bool pure;
	} t[] = {
		{PB_TCP_ACK, 0, true},
		{PB_TCP_ACK | PB_TCP_ECE, 0, true},
		{PB_TCP_ACK | PB_TCP_PSH, 0, true},
		{PB_TCP_ACK, 5, false},
		{PB_TCP_ACK | PB_TCP_SYN, 0, false},
		{PB_TCP_ACK | PB_TCP_FIN, 0, false},
		{PB_TCP_ACK | PB_TCP_RST, 0, false},
		{PB_TCP_SYN, 0, false},
		{0, 0, false},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pb_pkt d = i & 1 ? tcp6() : tcp4();
		struct cake_pkt p;
		size_t len;

		d.tcp_flags = t[i].flags;
		d.payload = payload;
		d.payload_len = t[i].plen;
		cr_assert_eq(parse(&d, &p, &len), CAKE_FLOWKEY_OK);
		cr_expect_eq(!!(p.flags & CAKE_PKT_PURE_ACK), t[i].pure, "case %zu", i);
		cr_expect(p.flags & CAKE_PKT_TCP);
	}
}

Test(flowkey, trailing_bytes_after_ip_length)
{
	struct pb_pkt d = tcp4();
	struct cake_pkt p;
	size_t len = pb_build(buf, sizeof(buf), &d);

	memset(buf + len, 0x55, 6);
	cr_assert_eq(cake_flowkey_parse(&p, buf, (uint32_t)len + 6, &key), CAKE_FLOWKEY_OK);
	cr_expect_eq(p.len, len + 6);
	cr_expect(p.flags & CAKE_PKT_PURE_ACK, "the IP length, not the buffer, bounds payload");
}

/* Length fields that lie, one byte patched in a valid packet. */
Test(flowkey, lying_headers)
{
	struct pb_pkt d4 = tcp4(), d6 = tcp6();
	struct cake_pkt p;
	size_t len4, len6;
	uint8_t ext[8];

	len4 = pb_build(buf, sizeof(buf), &d4);
	buf[0] = 0x44; /* IHL 4 */
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len4, &key), CAKE_FLOWKEY_BAD);
	buf[0] = 0x4f; /* IHL 15 > total length 40 */
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len4, &key), CAKE_FLOWKEY_BAD);
	buf[0] = 0x45;
	pb_put16(buf + 2, (uint16_t)(len4 + 1)); /* total length past the buffer */
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len4, &key), CAKE_FLOWKEY_BAD);
	cr_expect_eq(p.flags, CAKE_PKT_IPV4, "addresses still usable");
	cr_expect_eq(p.src_hash, want_host(4, d4.src));
	pb_put16(buf + 2, (uint16_t)len4);
	buf[20 + 12] = 0x40; /* doff 4 */
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len4, &key), CAKE_FLOWKEY_BAD_L4);
	cr_expect_eq(p.flow_hash, want_flow(&d4, 6, false));
	cr_expect_eq(p.l4_offset, 0);
	buf[20 + 12] = 0x60; /* doff 6, past the end */
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len4, &key), CAKE_FLOWKEY_BAD_L4);
	buf[0] = 0x55; /* version 5 */
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len4, &key), CAKE_FLOWKEY_NOT_IP);
	cr_expect_eq(p.flags, 0);
	cr_expect_eq(cake_flowkey_parse(&p, buf, 0, &key), CAKE_FLOWKEY_BAD);

	d6.ext = ext;
	d6.ext_len = ext_opts(ext, 6, 8);
	d6.ext_first = 0;
	len6 = pb_build(buf, sizeof(buf), &d6);
	buf[40 + 1] = 3; /* hop-by-hop claims 32 bytes */
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len6, &key), CAKE_FLOWKEY_BAD_L4);
	cr_expect_eq(p.flags, CAKE_PKT_IPV6);
	cr_expect_eq(p.dst_hash, want_host(6, d6.dst));
	buf[40 + 1] = 0;
	pb_put16(buf + 4, (uint16_t)(len6 - 40 + 1));
	cr_expect_eq(cake_flowkey_parse(&p, buf, (uint32_t)len6, &key), CAKE_FLOWKEY_BAD);
}

/* A chain of hop-by-hop headers longer than the walk allows. */
Test(flowkey, endless_extension_chain)
{
	uint8_t ext[8 * 40];
	struct pb_pkt d = tcp6();
	struct cake_pkt p;
	size_t len;

	for (int i = 0; i < 40; i++)
		ext_opts(ext + 8 * i, i == 39 ? 6 : 60, 8);
	d.ext = ext;
	d.ext_len = sizeof(ext);
	d.ext_first = 60;
	cr_expect_eq(parse(&d, &p, &len), CAKE_FLOWKEY_BAD_L4);
}

/* Every truncation of valid packets, each in an exact-size heap copy for ASan. */
Test(flowkey, truncation_never_reads_past_len)
{
	uint8_t ext[24], opts[8] = {1, 1, 1, 1, 1, 1, 1, 0};
	struct pb_pkt samples[4] = {tcp4(), tcp6(), tcp4(), tcp6()};
	uint8_t payload[3] = {1, 2, 3};

	samples[0].ip_opts = opts;
	samples[0].ip_opts_len = 8;
	samples[1].ext = ext;
	samples[1].ext_len = ext_opts(ext, 44, 16) + ext_frag(ext + 16, 6, 0, false);
	samples[1].ext_first = 0;
	samples[2].proto = PB_PROTO_UDP;
	samples[3].payload = payload;
	samples[3].payload_len = sizeof(payload);
	for (size_t s = 0; s < 4; s++) {
		size_t full = pb_build(buf, sizeof(buf), &samples[s]);
		struct cake_pkt p;

		cr_assert_eq(cake_flowkey_parse(&p, buf, (uint32_t)full, &key), CAKE_FLOWKEY_OK);
		for (size_t l = 0; l < full; l++) {
			uint8_t *copy = malloc(l ? l : 1);

			memcpy(copy, buf, l);
			cr_expect_eq(cake_flowkey_parse(&p, copy, (uint32_t)l, &key),
				     CAKE_FLOWKEY_BAD, "sample %zu truncated to %zu", s, l);
			cr_expect_eq(p.l4_offset, 0);
			cr_expect_eq(p.flags & (CAKE_PKT_TCP | CAKE_PKT_UDP | CAKE_PKT_PURE_ACK),
				     0);
			free(copy);
		}
	}
}
