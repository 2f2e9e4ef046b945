/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/csum.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "tests/support/det_rng.h"
#include "tests/support/pktbuild.h"

/* RFC 1071 section 3, the worked example: 00 01 f2 03 f4 f5 f6 f7 sums to 0xddf2. */
Test(csum, rfc1071_example)
{
	static const uint8_t b[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};

	cr_expect_eq(cake_csum_partial(b, sizeof(b), 0), 0xddf2);
	cr_expect_eq(cake_csum_finish(cake_csum_partial(b, sizeof(b), 0)), 0x220d);
}

Test(csum, matches_naive_sum_every_length_and_alignment)
{
	struct det_rng r = {7};
	uint8_t buf[400];

	det_rng_fill(&r, buf, sizeof(buf));
	for (size_t off = 0; off < 8; off++) {
		for (size_t len = 0; len + off <= 300; len++) {
			uint16_t got = cake_csum_partial(buf + off, len, 0);

			cr_assert_eq(got, pb_sum(buf + off, len, 0), "off %zu len %zu", off, len);
		}
	}
	memset(buf, 0xff, sizeof(buf)); /* carries everywhere */
	cr_expect_eq(cake_csum_partial(buf, sizeof(buf), 0), pb_sum(buf, sizeof(buf), 0));
}

Test(csum, chained_even_chunks)
{
	struct det_rng r = {8};
	uint8_t buf[999];
	uint16_t s = 0;

	det_rng_fill(&r, buf, sizeof(buf));
	for (size_t off = 0; off < sizeof(buf); off += 64) {
		size_t n = sizeof(buf) - off < 64 ? sizeof(buf) - off : 64;

		s = cake_csum_partial(buf + off, n, s);
	}
	cr_expect_eq(s, pb_sum(buf, sizeof(buf), 0));
	cr_expect_eq(cake_csum_sub(cake_csum_add(0x1234, 0xfedc), 0xfedc), 0x1234);
}

Test(csum, pseudo_headers)
{
	uint8_t pkt[40] = {0x45};
	struct det_rng r = {9};

	for (int i = 0; i < 100; i++) {
		uint32_t len = (uint32_t)det_rng_next(&r) & 0x1ffff;

		det_rng_fill(&r, pkt + 8, 32);
		pkt[0] = 0x45;
		cr_assert_eq(cake_csum_pseudo_v4(pkt + 12, pkt + 16, 6, len & 0xffff),
			     pb_pseudo(pkt, 6, len & 0xffff));
		pkt[0] = 0x60;
		cr_assert_eq(cake_csum_pseudo_v6(pkt + 8, pkt + 24, 17, len),
			     pb_pseudo(pkt, 17, len));
	}
}

Test(csum, incremental_update_matches_recompute)
{
	struct det_rng r = {10};
	uint8_t h[20];

	for (int i = 0; i < 2000; i++) {
		size_t w = (det_rng_next(&r) % 9 + 1) * 2; /* words 1..9: IHL stays 5 */
		uint16_t old_word, new_word = (uint16_t)det_rng_next(&r);
		uint16_t check;

		det_rng_fill(&r, h, sizeof(h));
		h[0] = 0x45;
		if (w == 10)
			w = 2;
		pb_put16(h + 10, 0);
		pb_put16(h + 10, pb_csum(h, 20));
		old_word = pb_get16(h + w);
		pb_put16(h + w, new_word);
		check = cake_csum_update16(pb_get16(h + 10), old_word, new_word);
		pb_put16(h + 10, check);
		cr_assert_eq(pb_sum(h, 20, 0), 0xffff, "word %zu %04x -> %04x", w, old_word,
			     new_word);
	}
}

Test(csum, incremental_update32)
{
	uint8_t h[20] = {0x45, 0, 0,  40, 0x12, 0x34, 0x40, 0, 64, 6,
			 0,    0, 10, 0,  0,	1,    10,   0, 0,  2};

	pb_put16(h + 10, pb_csum(h, 20));
	pb_put16(h + 10, cake_csum_update32(pb_get16(h + 10), pb_get32(h + 16), 0xc0a80101));
	pb_put32(h + 16, 0xc0a80101);
	cr_expect(pb_ipv4_csum_ok(h));
}

Test(csum, ipv4_header_set)
{
	uint8_t h[24] = {0x46, 0xb8, 0, 24, 1, 2, 0x40, 0, 7, 17, 0xaa, 0xbb,
			 1,    2,    3, 4,  5, 6, 7,	8, 1, 1,  1,	0};

	cake_csum_ipv4_header_set(h, sizeof(h));
	cr_expect(pb_ipv4_csum_ok(h));
	cr_expect_eq(pb_get16(h + 10), (uint16_t)~pb_sum(h, 10, pb_sum(h + 12, 12, 0)));
}

static struct pb_pkt sample(uint8_t family, uint8_t proto)
{
	static uint8_t payload[333];
	struct pb_pkt d = {.family = family,
			   .proto = proto,
			   .sport = 1,
			   .dport = 2,
			   .seq = 3,
			   .tcp_flags = PB_TCP_ACK | PB_TCP_PSH,
			   .payload = payload,
			   .payload_len = sizeof(payload)};

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	if (family == 4) {
		pb_addr4(d.src, 10, 1, 2, 3);
		pb_addr4(d.dst, 10, 3, 2, 1);
	} else {
		pb_addr6(d.src, 0xfd00, 1);
		pb_addr6(d.dst, 0xfd00, 2);
	}
	return d;
}

Test(csum, complete_partial_matches_full)
{
	static const uint8_t cases[][2] = {{4, 6}, {4, 17}, {6, 6}, {6, 17}};

	for (size_t i = 0; i < 4; i++) {
		struct pb_pkt d = sample(cases[i][0], cases[i][1]);
		uint8_t full[512], part[512];
		size_t len = pb_build(full, sizeof(full), &d);
		size_t l4 = d.family == 4 ? 20 : 40;

		d.partial_csum = true;
		cr_assert_eq(pb_build(part, sizeof(part), &d), len);
		cr_assert_neq(memcmp(full, part, len), 0);
		cr_assert_eq(cake_csum_complete_partial(part, (uint32_t)len, (uint16_t)l4,
							d.proto == 6 ? 16 : 6),
			     0);
		cr_expect_eq(memcmp(full, part, len), 0, "case %zu", i);
		cr_expect(pb_l4_csum_ok(part, len, l4, d.proto));
	}
}

Test(csum, complete_partial_udp_zero_is_ffff)
{
	struct pb_pkt d = sample(4, 17);
	uint8_t pay[2] = {0, 0}, pkt[64];
	size_t len;
	uint32_t s;

	d.payload = pay;
	d.payload_len = 2;
	d.no_l4_csum = true;
	len = pb_build(pkt, sizeof(pkt), &d);
	s = pb_sum(pkt + 20, 10, pb_pseudo(pkt, 17, 10));
	pb_put16(pkt + 28, (uint16_t)~s); /* payload word that makes the sum 0xffff */
	pb_put16(pkt + 26, (uint16_t)pb_pseudo(pkt, 17, 10));
	cr_assert_eq(cake_csum_complete_partial(pkt, (uint32_t)len, 20, 6), 0);
	cr_expect_eq(pb_get16(pkt + 26), 0xffff);
	cr_expect(pb_l4_csum_ok(pkt, len, 20, 17));
}

Test(csum, complete_partial_rejects_bad_offsets)
{
	uint8_t pkt[40] = {0};

	cr_expect_eq(cake_csum_complete_partial(pkt, 40, 20, 19), -EINVAL);
	cr_expect_eq(cake_csum_complete_partial(pkt, 40, 40, 0), -EINVAL);
	cr_expect_eq(cake_csum_complete_partial(pkt, 40, 0xffff, 0xffff), -EINVAL);
	cr_expect_eq(cake_csum_complete_partial(pkt, 40, 20, 18), 0);
}
