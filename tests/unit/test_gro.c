/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/gro.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "qdisc/csum.h"
#include "qdisc/gso.h"
#include "tests/support/pktbuild.h"

enum {
	BIG = 70000,
	SEG_CAP = 2048,
	MAX_SEGS = 200,
	MAX_OUT = 4,
	TS_MSS4 = 1448, /* MTU 1500 with timestamps */
	TS_MSS6 = 1428,
};

struct out_pkt {
	uint32_t len;
	uint16_t segs;
	struct cake_vnet_hdr vh;
};

static uint8_t super[BIG], full[BIG], payload[BIG], scratch[BIG];
static uint8_t segs[MAX_SEGS][SEG_CAP];
static uint32_t seg_lens[MAX_SEGS];
static uint8_t gbuf[MAX_OUT][BIG];
static struct out_pkt out[MAX_OUT];

/* NOP, NOP, timestamps (TSval, TSecr). */
static const uint8_t ts_opts[12] = {1, 1, 8, 10, 0, 1, 0xe2, 0x40, 0x7f, 0x00, 0x12, 0x34};

static void init_payload(void)
{
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 167 + (i >> 9));
}

TestSuite(gro, .init = init_payload);

static struct pb_pkt tcp_desc(uint8_t family, size_t plen)
{
	struct pb_pkt d = {.family = family,
			   .proto = PB_PROTO_TCP,
			   .sport = 5201,
			   .dport = 40312,
			   .seq = 0xffff8000, /* wraps inside a 64 KiB super-packet */
			   .ack = 0x0badcafe,
			   .tcp_flags = PB_TCP_ACK,
			   .window = 1234,
			   .ip_id = 0xffe0, /* so does the IPv4 ID */
			   .frag = PB_IPV4_DF,
			   .tos = 0x02, /* ECT(0) */
			   .ttl = 63,
			   .flow_label = 0xabcde,
			   .tcp_opts = ts_opts,
			   .tcp_opts_len = sizeof(ts_opts),
			   .payload = payload,
			   .payload_len = plen};

	if (family == 4) {
		pb_addr4(d.src, 10, 7, 0, 2);
		pb_addr4(d.dst, 10, 7, 0, 1);
	} else {
		pb_addr6(d.src, 0xfd07, 2);
		pb_addr6(d.dst, 0xfd07, 1);
	}
	return d;
}

/* Cuts the TSO packet d (built with a partial checksum) into segs[first...]. */
static uint32_t cut(struct pb_pkt *d, uint16_t mss, uint32_t first)
{
	uint16_t l4 = (uint16_t)pb_ip_hdr_len(d);
	struct cake_vnet_hdr vh = {.flags = CAKE_VNET_F_NEEDS_CSUM,
				   .gso_type = d->family == 4 ? CAKE_VNET_GSO_TCPV4
							      : CAKE_VNET_GSO_TCPV6,
				   .gso_size = mss,
				   .hdr_len = (uint16_t)(l4 + pb_l4_hdr_len(d)),
				   .csum_start = l4,
				   .csum_offset = 16};
	struct cake_gso_plan plan;
	size_t len;

	d->partial_csum = true;
	len = pb_build(super, sizeof(super), d);
	cr_assert_gt(len, 0);
	cr_assert_eq(cake_gso_plan(super, (uint32_t)len, &vh, &plan), 0);
	cr_assert_leq(first + plan.segs, MAX_SEGS);
	for (uint32_t i = 0; i < plan.segs; i++) {
		int n = cake_gso_segment(super, (uint32_t)len, &plan, i, segs[first + i], SEG_CAP);

		cr_assert_gt(n, 0);
		seg_lens[first + i] = (uint32_t)n;
	}
	return plan.segs;
}

static void emit(struct cake_gro *g, unsigned int *outs)
{
	out[*outs].segs = g->segs;
	out[*outs].len = cake_gro_finish(g, &out[*outs].vh);
	cr_assert_eq(g->buf, gbuf[*outs]);
	(*outs)++;
}

/* Feeds segs[0..n) to one coalescer as the TUN batcher would; returns the writes. */
static unsigned int coalesce(uint32_t n)
{
	unsigned int outs = 0;
	bool open = false;
	struct cake_gro g;

	for (uint32_t i = 0; i < n; i++) {
		struct cake_gro_seg s;

		cr_assert_eq(cake_gro_classify(segs[i], seg_lens[i], &s), CAKE_GRO_CANDIDATE,
			     "segment %u", i);
		if (open) {
			enum cake_gro_add_result r = cake_gro_try_add(&g, segs[i], seg_lens[i], &s);

			if (r == CAKE_GRO_MERGED) {
				if (g.closed) {
					emit(&g, &outs);
					open = false;
				}
				continue;
			}
			cr_assert_eq(r, CAKE_GRO_CANNOT_JOIN, "segment %u", i);
			emit(&g, &outs);
		}
		cr_assert_lt(outs, MAX_OUT);
		cr_assert_eq(cake_gro_start(&g, gbuf[outs], BIG, segs[i], seg_lens[i], &s), 0);
		open = !g.closed;
		if (g.closed)
			emit(&g, &outs);
	}
	if (open)
		emit(&g, &outs);
	return outs;
}

/* Cutting output k again gives back segs[first..] byte for byte; returns the count. */
static uint32_t recut_matches(unsigned int k, uint32_t first)
{
	struct cake_gso_plan plan;

	if (out[k].segs == 1) {
		cr_assert_eq(out[k].len, seg_lens[first]);
		cr_assert_eq(memcmp(gbuf[k], segs[first], out[k].len), 0);
		cr_assert_eq(out[k].vh.gso_type, CAKE_VNET_GSO_NONE);
		cr_assert_eq(out[k].vh.flags, 0);
		return 1;
	}
	cr_assert_eq(cake_gso_plan(gbuf[k], out[k].len, &out[k].vh, &plan), 0, "output %u", k);
	cr_assert_eq(plan.segs, out[k].segs, "output %u", k);
	for (uint32_t i = 0; i < plan.segs; i++) {
		int n = cake_gso_segment(gbuf[k], out[k].len, &plan, i, scratch, sizeof(scratch));

		cr_assert_eq(n, (int)seg_lens[first + i], "output %u segment %u", k, i);
		cr_assert_eq(memcmp(scratch, segs[first + i], (size_t)n), 0, "output %u segment %u",
			     k, i);
	}
	return plan.segs;
}

static void check_vnet(const struct out_pkt *o, const struct pb_pkt *d, uint16_t mss)
{
	uint16_t l4 = (uint16_t)pb_ip_hdr_len(d);

	cr_expect_eq(o->vh.flags, CAKE_VNET_F_NEEDS_CSUM);
	cr_expect_eq(o->vh.gso_type, d->family == 4 ? CAKE_VNET_GSO_TCPV4 : CAKE_VNET_GSO_TCPV6);
	cr_expect_eq(o->vh.gso_size, mss);
	cr_expect_eq(o->vh.hdr_len, l4 + pb_l4_hdr_len(d));
	cr_expect_eq(o->vh.csum_start, l4);
	cr_expect_eq(o->vh.csum_offset, 16);
}

/*
 * A 64 KiB TSO packet cut by cake_gso and coalesced again is the original: the same
 * bytes (the TCP field holds the pseudo-header sum both times), and once its checksum
 * is completed, the packet pktbuild computes with a full checksum.
 */
static void check_roundtrip(struct pb_pkt d, uint16_t mss)
{
	uint32_t n = cut(&d, mss, 0);
	size_t len = pb_build(super, sizeof(super), &d), flen;

	cr_assert_gt(n, 1);
	cr_assert_eq(coalesce(n), 1);
	cr_assert_eq(out[0].len, len);
	cr_assert_eq(out[0].segs, n);
	cr_expect_eq(memcmp(gbuf[0], super, len), 0);
	check_vnet(&out[0], &d, mss);
	cr_assert_eq(cake_csum_complete_partial(gbuf[0], out[0].len, out[0].vh.csum_start,
						out[0].vh.csum_offset),
		     0);
	d.partial_csum = false;
	flen = pb_build(full, sizeof(full), &d);
	cr_assert_eq(flen, len);
	cr_expect_eq(memcmp(gbuf[0], full, len), 0);
	cr_expect(pb_l4_csum_ok(gbuf[0], len, pb_ip_hdr_len(&d), PB_PROTO_TCP));
	if (d.family == 4)
		cr_expect(pb_ipv4_csum_ok(gbuf[0]));
}

Test(gro, roundtrip_ipv4_64k_timestamps)
{
	struct pb_pkt d = tcp_desc(4, 65535 - 20 - 32);

	d.tcp_flags |= PB_TCP_PSH; /* on the last segment only; merged back onto the whole */
	check_roundtrip(d, TS_MSS4);
}

Test(gro, roundtrip_ipv6_64k_timestamps)
{
	struct pb_pkt d = tcp_desc(6, 65535 - 40 - 32);

	d.tcp_flags |= PB_TCP_PSH;
	check_roundtrip(d, TS_MSS6);
}

Test(gro, roundtrip_exact_multiple_without_psh)
{
	struct pb_pkt d4 = tcp_desc(4, 40 * 1000), d6 = tcp_desc(6, 3 * 536);

	d4.frag = 0; /* DF clear: IDs must still be consecutive, and are */
	d4.tos = 0xb8;
	check_roundtrip(d4, 1000);
	d6.tcp_opts_len = 0;
	d6.flow_label = 0;
	check_roundtrip(d6, 536);
}

/* Two TSO packets back to back: the 65535-byte limit ends the first super-packet. */
Test(gro, limit_ends_super_packet_ipv4)
{
	struct pb_pkt a = tcp_desc(4, 40 * TS_MSS4), b = tcp_desc(4, 40 * TS_MSS4);
	uint32_t n, per = (65535 - 52) / TS_MSS4;

	n = cut(&a, TS_MSS4, 0);
	b.seq = a.seq + 40 * TS_MSS4;
	b.ip_id = (uint16_t)(a.ip_id + 40);
	n += cut(&b, TS_MSS4, n);
	cr_assert_eq(n, 80);
	cr_assert_eq(coalesce(n), 2);
	cr_expect_eq(out[0].segs, per);
	cr_expect_eq(out[0].len, 52 + per * TS_MSS4);
	cr_expect_leq(out[0].len, 65535);
	cr_expect_eq(out[1].segs, 80 - per);
	cr_expect_eq(recut_matches(0, 0), per);
	cr_expect_eq(recut_matches(1, per), 80 - per);
}

/* A TSO6 packet of 65575 bytes (payload length 65535) comes back as two writes. */
Test(gro, limit_ipv6_jumbo_tso)
{
	struct pb_pkt d = tcp_desc(6, 65535 - 32);
	uint32_t n = cut(&d, TS_MSS6, 0);
	uint32_t per = (65535 - 72) / TS_MSS6;

	cr_assert_eq(n, per + 1);
	cr_assert_eq(coalesce(n), 2);
	cr_expect_eq(out[0].segs, per);
	cr_expect_eq(recut_matches(0, 0), per);
	cr_expect_eq(recut_matches(1, per), 1);
}

/* A CE-marked segment in the middle goes out alone, its mark intact. */
Test(gro, ce_mark_splits_and_survives)
{
	struct pb_pkt d = tcp_desc(4, 10 * 1000);
	uint32_t n = cut(&d, 1000, 0);

	segs[4][1] |= 3; /* CE */
	cake_csum_ipv4_header_set(segs[4], 20);
	cr_assert_eq(coalesce(n), 3);
	cr_expect_eq(recut_matches(0, 0), 4);
	cr_expect_eq(recut_matches(1, 4), 1);
	cr_expect_eq(gbuf[1][1] & 3, 3);
	cr_expect_eq(recut_matches(2, 5), 5);
}

/* --- one rule at a time: segment 1 differs from segment 0 in one respect --- */

static void m_none(struct pb_pkt *d)
{
	(void)d;
}
static void m_dport(struct pb_pkt *d)
{
	d->dport++;
}
static void m_saddr(struct pb_pkt *d)
{
	d->src[d->family == 4 ? 3 : 15] ^= 1;
}
static void m_ecn_ce(struct pb_pkt *d)
{
	d->tos |= 3;
}
static void m_dscp(struct pb_pkt *d)
{
	d->tos = (uint8_t)(0x20 | (d->tos & 3));
}
static void m_ttl(struct pb_pkt *d)
{
	d->ttl--;
}
static void m_df(struct pb_pkt *d)
{
	d->frag = 0;
}
static void m_fixed_id(struct pb_pkt *d)
{
	d->ip_id--;
}
static void m_id_gap(struct pb_pkt *d)
{
	d->ip_id++;
}
static void m_flow_label(struct pb_pkt *d)
{
	d->flow_label ^= 0x100;
}
static void m_ack(struct pb_pkt *d)
{
	d->ack += 1448;
}
static void m_window(struct pb_pkt *d)
{
	d->window++;
}
static void m_urg_ptr(struct pb_pkt *d)
{
	d->urg_ptr = 1; /* URG clear, but the field would be copied to every segment */
}
static void m_tsval(struct pb_pkt *d)
{
	static const uint8_t later[12] = {1, 1, 8, 10, 0, 1, 0xe2, 0x41, 0x7f, 0x00, 0x12, 0x34};

	d->tcp_opts = later;
}
static void m_no_opts(struct pb_pkt *d)
{
	d->tcp_opts_len = 0;
}
static void m_seq_gap(struct pb_pkt *d)
{
	d->seq += 1;
}
static void m_seq_retransmit(struct pb_pkt *d)
{
	d->seq -= 1000;
}
static void m_longer(struct pb_pkt *d)
{
	d->payload_len++;
}
static void m_shorter(struct pb_pkt *d)
{
	d->payload_len = 10;
}
static void m_psh(struct pb_pkt *d)
{
	d->tcp_flags |= PB_TCP_PSH;
}

struct join_case {
	const char *name;
	uint8_t families; /* bit 0: IPv4, bit 1: IPv6 */
	void (*mod)(struct pb_pkt *d);
	enum cake_gro_add_result res;
	bool closed; /* after a merge */
};

static const struct join_case join_cases[] = {
	{"next in line", 3, m_none, CAKE_GRO_MERGED, false},
	{"other port", 3, m_dport, CAKE_GRO_OTHER_FLOW, false},
	{"other source address", 3, m_saddr, CAKE_GRO_OTHER_FLOW, false},
	{"ECN CE", 3, m_ecn_ce, CAKE_GRO_CANNOT_JOIN, false},
	{"DSCP", 3, m_dscp, CAKE_GRO_CANNOT_JOIN, false},
	{"TTL / hop limit", 3, m_ttl, CAKE_GRO_CANNOT_JOIN, false},
	{"DF", 1, m_df, CAKE_GRO_CANNOT_JOIN, false},
	{"fixed IPv4 ID", 1, m_fixed_id, CAKE_GRO_CANNOT_JOIN, false},
	{"IPv4 ID gap", 1, m_id_gap, CAKE_GRO_CANNOT_JOIN, false},
	{"IPv4 ID is no IPv6 field", 2, m_id_gap, CAKE_GRO_MERGED, false},
	{"flow label", 2, m_flow_label, CAKE_GRO_CANNOT_JOIN, false},
	{"ack number", 3, m_ack, CAKE_GRO_CANNOT_JOIN, false},
	{"window", 3, m_window, CAKE_GRO_CANNOT_JOIN, false},
	{"urgent pointer", 3, m_urg_ptr, CAKE_GRO_CANNOT_JOIN, false},
	{"option bytes", 3, m_tsval, CAKE_GRO_CANNOT_JOIN, false},
	{"TCP header length", 3, m_no_opts, CAKE_GRO_CANNOT_JOIN, false},
	{"sequence gap", 3, m_seq_gap, CAKE_GRO_CANNOT_JOIN, false},
	{"retransmission", 3, m_seq_retransmit, CAKE_GRO_CANNOT_JOIN, false},
	{"longer than gso_size", 3, m_longer, CAKE_GRO_CANNOT_JOIN, false},
	{"shorter: merges, ends", 3, m_shorter, CAKE_GRO_MERGED, true},
	{"PSH: merges, ends", 3, m_psh, CAKE_GRO_MERGED, true},
};

static uint32_t build_seg(uint8_t *buf, struct pb_pkt d, uint32_t i)
{
	d.payload = payload + i * 1000;
	d.seq += i * 1000;
	d.ip_id = (uint16_t)(d.ip_id + i);
	return (uint32_t)pb_build(buf, SEG_CAP, &d);
}

Test(gro, join_rules)
{
	for (size_t c = 0; c < sizeof(join_cases) / sizeof(join_cases[0]); c++) {
		const struct join_case *jc = &join_cases[c];

		for (uint8_t fam = 4; fam <= 6; fam += 2) {
			struct pb_pkt d = tcp_desc(fam, 1000), d1;
			struct cake_gro_seg s0, s1, s2;
			struct cake_gro g;
			uint32_t l0, l1, l2;

			if (!(jc->families & (fam == 4 ? 1 : 2)))
				continue;
			l0 = build_seg(segs[0], d, 0);
			d1 = d;
			jc->mod(&d1);
			l1 = build_seg(segs[1], d1, 1);
			l2 = build_seg(segs[2], d, 2);
			cr_assert_eq(cake_gro_classify(segs[0], l0, &s0), CAKE_GRO_CANDIDATE);
			cr_assert_eq(cake_gro_classify(segs[1], l1, &s1), CAKE_GRO_CANDIDATE,
				     "%s (IPv%u)", jc->name, fam);
			cr_assert_eq(cake_gro_start(&g, gbuf[0], BIG, segs[0], l0, &s0), 0);
			cr_assert_not(g.closed);
			cr_expect_eq(cake_gro_try_add(&g, segs[1], l1, &s1), jc->res, "%s (IPv%u)",
				     jc->name, fam);
			if (jc->res != CAKE_GRO_MERGED) {
				cr_expect_eq(g.len, l0, "%s: unchanged", jc->name);
				cr_expect_eq(g.segs, 1);
				continue;
			}
			cr_expect_eq(g.closed, jc->closed, "%s (IPv%u)", jc->name, fam);
			cr_assert_eq(cake_gro_classify(segs[2], l2, &s2), CAKE_GRO_CANDIDATE);
			if (jc->closed)
				cr_expect_eq(cake_gro_try_add(&g, segs[2], l2, &s2),
					     CAKE_GRO_CANNOT_JOIN, "%s: nothing after it",
					     jc->name);
		}
	}
}

/* --- what may not even start a super-packet --- */

enum pkt_mod {
	PM_NONE,
	PM_FLAGS, /* tcp_flags = arg */
	PM_NO_PAYLOAD,
	PM_IP_OPTS,
	PM_FRAG,      /* frag = arg */
	PM_IPV6_EXT,  /* destination options header */
	PM_IPV6_FRAG, /* fragment header with offset arg */
	PM_BAD_IPV4_CSUM,
	PM_TRAILER,  /* bytes after the IP length */
	PM_TRUNCATE, /* cut to arg bytes */
	PM_UDP,
	PM_VERSION, /* version nibble 5 */
};

struct class_case {
	const char *name;
	uint8_t family;
	enum pkt_mod mod;
	uint16_t arg;
	enum cake_gro_class want;
};

static const struct class_case class_cases[] = {
	{"ACK", 4, PM_NONE, 0, CAKE_GRO_CANDIDATE},
	{"ACK|PSH", 6, PM_FLAGS, PB_TCP_ACK | PB_TCP_PSH, CAKE_GRO_CANDIDATE},
	{"SYN|ACK", 4, PM_FLAGS, PB_TCP_SYN | PB_TCP_ACK, CAKE_GRO_TCP_FLOW},
	{"FIN|ACK", 6, PM_FLAGS, PB_TCP_FIN | PB_TCP_ACK, CAKE_GRO_TCP_FLOW},
	{"RST|ACK", 4, PM_FLAGS, PB_TCP_RST | PB_TCP_ACK, CAKE_GRO_TCP_FLOW},
	{"URG|ACK", 4, PM_FLAGS, PB_TCP_URG | PB_TCP_ACK, CAKE_GRO_TCP_FLOW},
	{"CWR|ACK", 6, PM_FLAGS, PB_TCP_CWR | PB_TCP_ACK, CAKE_GRO_TCP_FLOW},
	{"ECE|ACK", 4, PM_FLAGS, PB_TCP_ECE | PB_TCP_ACK, CAKE_GRO_TCP_FLOW},
	{"no ACK", 4, PM_FLAGS, PB_TCP_PSH, CAKE_GRO_TCP_FLOW},
	{"pure ACK", 6, PM_NO_PAYLOAD, 0, CAKE_GRO_TCP_FLOW},
	{"IPv4 options", 4, PM_IP_OPTS, 0, CAKE_GRO_TCP_FLOW},
	{"IPv4 bad header checksum", 4, PM_BAD_IPV4_CSUM, 0, CAKE_GRO_TCP_FLOW},
	{"IPv4 padding after the IP length", 4, PM_TRAILER, 0, CAKE_GRO_TCP_FLOW},
	{"IPv6 padding after the IP length", 6, PM_TRAILER, 0, CAKE_GRO_TCP_FLOW},
	{"IPv6 extension header", 6, PM_IPV6_EXT, 0, CAKE_GRO_TCP_FLOW},
	{"IPv4 MF", 4, PM_FRAG, PB_IPV4_MF, CAKE_GRO_TCP_OTHER},
	{"IPv4 fragment offset", 4, PM_FRAG, 100, CAKE_GRO_TCP_OTHER},
	{"IPv6 fragment", 6, PM_IPV6_FRAG, 8, CAKE_GRO_TCP_OTHER},
	{"truncated TCP header", 4, PM_TRUNCATE, 30, CAKE_GRO_TCP_OTHER},
	{"UDP", 4, PM_UDP, 0, CAKE_GRO_NOT_TCP},
	{"UDP over IPv6", 6, PM_UDP, 0, CAKE_GRO_NOT_TCP},
	{"not IP", 4, PM_VERSION, 0, CAKE_GRO_NOT_TCP},
	{"empty", 4, PM_TRUNCATE, 0, CAKE_GRO_NOT_TCP},
};

static uint32_t build_class_case(const struct class_case *cc, uint8_t *buf)
{
	static const uint8_t ipopts[4] = {1, 1, 1, 0};
	static const uint8_t dstopts[8] = {PB_PROTO_TCP, 0, 1, 4, 0, 0, 0, 0};
	uint8_t frag6[8] = {PB_PROTO_TCP, 0, 0, 0, 0, 0, 0, 1};
	struct pb_pkt d = tcp_desc(cc->family, 700);
	uint32_t len;

	switch (cc->mod) {
	case PM_FLAGS:
		d.tcp_flags = (uint8_t)cc->arg;
		break;
	case PM_NO_PAYLOAD:
		d.payload_len = 0;
		break;
	case PM_IP_OPTS:
		d.ip_opts = ipopts;
		d.ip_opts_len = sizeof(ipopts);
		break;
	case PM_FRAG:
		d.frag = cc->arg;
		break;
	case PM_IPV6_EXT:
		d.ext = dstopts;
		d.ext_len = sizeof(dstopts);
		d.ext_first = 60;
		break;
	case PM_IPV6_FRAG:
		pb_put16(frag6 + 2, cc->arg);
		d.ext = frag6;
		d.ext_len = sizeof(frag6);
		d.ext_first = 44;
		break;
	case PM_UDP:
		d.proto = PB_PROTO_UDP;
		break;
	default:
		break;
	}
	len = (uint32_t)pb_build(buf, SEG_CAP, &d);
	if (cc->mod == PM_BAD_IPV4_CSUM)
		buf[10] ^= 0x40;
	if (cc->mod == PM_TRAILER)
		buf[len++] = 0;
	if (cc->mod == PM_TRUNCATE) {
		len = cc->arg;
		if (len >= 4)
			pb_put16(buf + 2, (uint16_t)len);
	}
	if (cc->mod == PM_VERSION)
		buf[0] = (uint8_t)(0x50 | (buf[0] & 0x0f));
	return len;
}

Test(gro, classify_table)
{
	for (size_t c = 0; c < sizeof(class_cases) / sizeof(class_cases[0]); c++) {
		const struct class_case *cc = &class_cases[c];
		uint32_t len = build_class_case(cc, segs[0]);
		struct cake_gro_seg s;
		struct cake_gro g;
		enum cake_gro_class got = cake_gro_classify(segs[0], len, &s);

		cr_expect_eq(got, cc->want, "%s: got %d", cc->name, got);
		if (got == CAKE_GRO_TCP_FLOW || got == CAKE_GRO_CANDIDATE) {
			cr_expect_eq(s.flow.family, cc->family, "%s", cc->name);
			cr_expect_eq(s.flow.sport, 5201, "%s", cc->name);
			cr_expect_eq(s.flow.dport, 40312, "%s", cc->name);
		}
		if (got != CAKE_GRO_CANDIDATE)
			cr_expect_eq(cake_gro_start(&g, gbuf[0], BIG, segs[0], len, &s), -EINVAL,
				     "%s", cc->name);
	}
}

Test(gro, flow_key_addresses_and_ports)
{
	struct pb_pkt d = tcp_desc(4, 100), e = tcp_desc(6, 100);
	struct cake_gro_seg a, b;
	uint32_t la = (uint32_t)pb_build(segs[0], SEG_CAP, &d);
	uint32_t lb = (uint32_t)pb_build(segs[1], SEG_CAP, &e);

	cr_assert_eq(cake_gro_classify(segs[0], la, &a), CAKE_GRO_CANDIDATE);
	cr_assert_eq(cake_gro_classify(segs[1], lb, &b), CAKE_GRO_CANDIDATE);
	cr_expect_eq(memcmp(a.flow.addrs, d.src, 4), 0);
	cr_expect_eq(memcmp(a.flow.addrs + 4, d.dst, 4), 0);
	cr_expect_eq(memcmp(b.flow.addrs, e.src, 16), 0);
	cr_expect_eq(memcmp(b.flow.addrs + 16, e.dst, 16), 0);
	cr_expect_not(cake_gro_flow_equal(&a.flow, &b.flow));
	cr_expect(cake_gro_flow_equal(&a.flow, &a.flow));
	d.sport = 40312;
	d.dport = 5201; /* the reverse direction is another flow */
	la = (uint32_t)pb_build(segs[2], SEG_CAP, &d);
	cr_assert_eq(cake_gro_classify(segs[2], la, &b), CAKE_GRO_CANDIDATE);
	cr_expect_not(cake_gro_flow_equal(&a.flow, &b.flow));
}

/* --- buffers, in-place start, finish of a single segment --- */

Test(gro, single_segment_written_untouched)
{
	struct pb_pkt d = tcp_desc(6, 1200);
	struct cake_gro_seg s;
	struct cake_vnet_hdr vh;
	struct cake_gro g;
	uint32_t len;

	d.no_l4_csum = true; /* whatever the field holds stays */
	len = (uint32_t)pb_build(segs[0], SEG_CAP, &d);
	memcpy(full, segs[0], len);
	cr_assert_eq(cake_gro_classify(segs[0], len, &s), CAKE_GRO_CANDIDATE);
	cr_assert_eq(cake_gro_start(&g, segs[0], len, segs[0], len, &s), 0);
	memset(&vh, 0xa5, sizeof(vh));
	cr_expect_eq(cake_gro_finish(&g, &vh), len);
	cr_expect_eq(memcmp(segs[0], full, len), 0);
	cr_expect_eq(vh.flags, 0);
	cr_expect_eq(vh.gso_type, 0);
	cr_expect_eq(vh.gso_size, 0);
	cr_expect_eq(vh.hdr_len, 0);
	cr_expect_eq(vh.csum_start, 0);
	cr_expect_eq(vh.csum_offset, 0);
}

Test(gro, in_place_start_then_move_on_no_room)
{
	struct pb_pkt d = tcp_desc(4, 3 * 1000);
	uint32_t n = cut(&d, 1000, 0);
	struct cake_gro_seg s;
	struct cake_gro g;

	cr_assert_eq(n, 3);
	cr_assert_eq(cake_gro_classify(segs[0], seg_lens[0], &s), CAKE_GRO_CANDIDATE);
	cr_assert_eq(cake_gro_start(&g, segs[0], seg_lens[0], segs[0], seg_lens[0], &s), 0);
	cr_assert_eq(cake_gro_classify(segs[1], seg_lens[1], &s), CAKE_GRO_CANDIDATE);
	cr_expect_eq(cake_gro_try_add(&g, segs[1], seg_lens[1], &s), CAKE_GRO_NO_ROOM);
	cr_expect_eq(g.len, seg_lens[0]);
	cr_expect_eq(cake_gro_move(&g, gbuf[0], seg_lens[0] - 1), -ENOSPC);
	cr_expect_eq(g.buf, segs[0]);
	cr_assert_eq(cake_gro_move(&g, gbuf[0], BIG), 0);
	cr_expect_eq(memcmp(gbuf[0], segs[0], seg_lens[0]), 0);
	cr_expect_eq(cake_gro_try_add(&g, segs[1], seg_lens[1], &s), CAKE_GRO_MERGED);
	cr_assert_eq(cake_gro_classify(segs[2], seg_lens[2], &s), CAKE_GRO_CANDIDATE);
	cr_expect_eq(cake_gro_try_add(&g, segs[2], seg_lens[2], &s), CAKE_GRO_MERGED);
	out[0].segs = g.segs;
	out[0].len = cake_gro_finish(&g, &out[0].vh);
	cr_expect_eq(recut_matches(0, 0), 3);
}

Test(gro, start_errors)
{
	struct pb_pkt d = tcp_desc(4, 1000);
	uint32_t len = (uint32_t)pb_build(segs[0], SEG_CAP, &d);
	struct cake_gro_seg s;
	struct cake_gro g;

	cr_assert_eq(cake_gro_classify(segs[0], len, &s), CAKE_GRO_CANDIDATE);
	cr_expect_eq(cake_gro_start(&g, gbuf[0], len - 1, segs[0], len, &s), -ENOSPC);
	cr_expect_eq(cake_gro_start(&g, gbuf[0], BIG, segs[0], len - 1, &s), -EINVAL);
	cr_expect_eq(cake_gro_start(&g, gbuf[0], BIG, segs[0], len, &s), 0);
	cr_expect_eq(cake_gro_try_add(&g, segs[0], len - 1, &s), CAKE_GRO_OTHER_FLOW,
		     "a segment that disagrees with its length is never merged");
}

/* PSH on the first segment, or a first segment of the largest size: closed at once. */
Test(gro, closed_from_the_start)
{
	struct pb_pkt d = tcp_desc(4, 1000), e = tcp_desc(4, 65535 - 52);
	struct cake_gro_seg s;
	struct cake_gro g;
	uint32_t len;

	d.tcp_flags |= PB_TCP_PSH;
	len = (uint32_t)pb_build(segs[0], SEG_CAP, &d);
	cr_assert_eq(cake_gro_classify(segs[0], len, &s), CAKE_GRO_CANDIDATE);
	cr_assert_eq(cake_gro_start(&g, gbuf[0], BIG, segs[0], len, &s), 0);
	cr_expect(g.closed);
	len = (uint32_t)pb_build(super, sizeof(super), &e);
	cr_assert_eq(cake_gro_classify(super, len, &s), CAKE_GRO_CANDIDATE);
	cr_assert_eq(cake_gro_start(&g, gbuf[0], BIG, super, len, &s), 0);
	cr_expect(g.closed);
}
