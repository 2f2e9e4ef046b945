/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/ecn.h"

#include <criterion/criterion.h>
#include <string.h>

#include "tests/support/det_rng.h"
#include "tests/support/pktbuild.h"

enum { N = CAKE_ECN_NOT_ECT, E1 = CAKE_ECN_ECT_1, E0 = CAKE_ECN_ECT_0, CE = CAKE_ECN_CE };

static size_t build(uint8_t *buf, size_t cap, uint8_t family, uint8_t tos, size_t opts_len)
{
	static const uint8_t opts[40] = {7, 11, 4}; /* record route, then zeros (EOL) */
	struct pb_pkt d = {.family = family,
			   .tos = tos,
			   .proto = PB_PROTO_UDP,
			   .sport = 9,
			   .dport = 10,
			   .ip_id = 0xbeef,
			   .frag = PB_IPV4_DF,
			   .flow_label = 0xabcde,
			   .ip_opts = opts,
			   .ip_opts_len = opts_len};

	pb_addr4(d.src, 198, 51, 100, 1);
	pb_addr4(d.dst, 203, 0, 113, 9);
	if (family == 6) {
		pb_addr6(d.src, 0x2001, 3);
		pb_addr6(d.dst, 0x2001, 4);
	}
	return pb_build(buf, cap, &d);
}

Test(ecn, set_ce_ipv4_every_tos_and_header)
{
	for (int tos = 0; tos < 256; tos++) {
		for (size_t opts = 0; opts <= 40; opts += 20) {
			uint8_t pkt[128], orig[128];
			size_t len = build(pkt, sizeof(pkt), 4, (uint8_t)tos, opts);
			bool ect = (tos & 3) != N;

			memcpy(orig, pkt, len);
			cr_assert_eq(cake_ecn_set_ce(pkt, (uint32_t)len), ect, "tos %#x", tos);
			cr_assert(pb_ipv4_csum_ok(pkt), "tos %#x opts %zu", tos, opts);
			cr_expect_eq(pkt[1], ect ? (tos | CE) : tos);
			cr_expect_eq(cake_ecn_get(pkt, (uint32_t)len), ect ? CE : N);
			/* Nothing but the TOS byte and the header checksum changes. */
			for (size_t i = 0; i < len; i++)
				if (i != 1 && i != 10 && i != 11)
					cr_assert_eq(pkt[i], orig[i], "byte %zu", i);
			if (!ect || (tos & 3) == CE)
				cr_expect_eq(memcmp(pkt, orig, len), 0);
		}
	}
}

Test(ecn, set_ce_ipv6)
{
	for (int tc = 0; tc < 256; tc++) {
		uint8_t pkt[128], orig[128];
		size_t len = build(pkt, sizeof(pkt), 6, (uint8_t)tc, 0);
		bool ect = (tc & 3) != N;

		memcpy(orig, pkt, len);
		cr_assert_eq(cake_ecn_set_ce(pkt, (uint32_t)len), ect);
		cr_expect_eq(pb_get32(pkt),
			     6u << 28 | (uint32_t)(ect ? tc | CE : tc) << 20 | 0xabcde);
		cr_expect_eq(memcmp(pkt + 4, orig + 4, len - 4), 0);
	}
}

Test(ecn, random_ipv4_headers_keep_a_valid_checksum)
{
	struct det_rng r = {42};

	for (int i = 0; i < 5000; i++) {
		uint8_t h[20];

		det_rng_fill(&r, h, sizeof(h));
		h[0] = 0x45;
		h[1] |= E1; /* ECT(1) or CE */
		pb_put16(h + 10, 0);
		pb_put16(h + 10, pb_csum(h, 20));
		cr_assert(cake_ecn_set_ce(h, sizeof(h)));
		cr_assert(pb_ipv4_csum_ok(h), "iteration %d", i);
		cr_assert_eq(h[1] & 3, CE);
	}
}

Test(ecn, not_ip_or_short_is_untouched)
{
	uint8_t pkt[64];
	size_t len = build(pkt, sizeof(pkt), 4, E0, 0);
	uint8_t six[39] = {0x60, 0x02 << 4};

	cr_expect_not(cake_ecn_set_ce(pkt, 19));
	cr_expect_eq(pkt[1], E0);
	cr_expect_not(cake_ecn_set_ce(six, sizeof(six)));
	cr_expect_eq(six[1], 0x20);
	pkt[0] = 0x55;
	cr_expect_not(cake_ecn_set_ce(pkt, (uint32_t)len));
	cr_expect_eq(cake_ecn_get(pkt, (uint32_t)len), N);
	cr_expect_eq(cake_ecn_decapsulate(pkt, (uint32_t)len, CE), CAKE_ECN_DECAP_BAD);
	cr_expect_eq(pkt[1], E0);
}

Test(ecn, encapsulation_copies)
{
	/* RFC 6040 section 4.1 normal mode: outer = inner, CE included. */
	static const uint8_t t[][2] = {{N, N}, {E0, E0}, {E1, E1}, {CE, CE}, {0xfe, E0}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(cake_ecn_encap(t[i][0]), t[i][1], "inner %#x", t[i][0]);
}

/* RFC 6040 section 4.2, Figure 4: rows are the arriving inner, columns the outer. */
static const struct {
	uint8_t out;
	enum cake_ecn_decap_verdict v;
} fig4[4][4] = {
	[N] = {[N] = {N, CAKE_ECN_DECAP_PASS},
	       [E0] = {N, CAKE_ECN_DECAP_PASS},
	       [E1] = {N, CAKE_ECN_DECAP_PASS},
	       [CE] = {N, CAKE_ECN_DECAP_DROP}},
	[E0] = {[N] = {E0, CAKE_ECN_DECAP_PASS},
		[E0] = {E0, CAKE_ECN_DECAP_PASS},
		[E1] = {E1, CAKE_ECN_DECAP_CHANGED},
		[CE] = {CE, CAKE_ECN_DECAP_CHANGED}},
	[E1] = {[N] = {E1, CAKE_ECN_DECAP_PASS},
		[E0] = {E1, CAKE_ECN_DECAP_PASS},
		[E1] = {E1, CAKE_ECN_DECAP_PASS},
		[CE] = {CE, CAKE_ECN_DECAP_CHANGED}},
	[CE] = {[N] = {CE, CAKE_ECN_DECAP_PASS},
		[E0] = {CE, CAKE_ECN_DECAP_PASS},
		[E1] = {CE, CAKE_ECN_DECAP_PASS},
		[CE] = {CE, CAKE_ECN_DECAP_PASS}},
};

Test(ecn, decapsulation_table)
{
	for (uint8_t in = 0; in < 4; in++) {
		for (uint8_t out = 0; out < 4; out++) {
			uint8_t got = 0xaa;

			cr_expect_eq(cake_ecn_decap_field((uint8_t)(out | 0xb8), in, &got),
				     fig4[in][out].v, "inner %u outer %u", in, out);
			cr_expect_eq(got, fig4[in][out].out, "inner %u outer %u", in, out);
		}
	}
}

Test(ecn, decapsulate_packets)
{
	for (uint8_t fam = 4; fam <= 6; fam += 2) {
		for (uint8_t in = 0; in < 4; in++) {
			for (uint8_t out = 0; out < 4; out++) {
				uint8_t pkt[128], orig[128];
				uint8_t tos = (uint8_t)(0x88 | in);
				size_t len = build(pkt, sizeof(pkt), fam, tos, 0);

				memcpy(orig, pkt, len);
				cr_assert_eq(cake_ecn_decapsulate(pkt, (uint32_t)len, out),
					     fig4[in][out].v);
				cr_expect_eq(cake_ecn_get(pkt, (uint32_t)len),
					     fig4[in][out].v == CAKE_ECN_DECAP_CHANGED
						     ? fig4[in][out].out
						     : in);
				if (fam == 4)
					cr_expect(pb_ipv4_csum_ok(pkt));
				if (fig4[in][out].v != CAKE_ECN_DECAP_CHANGED)
					cr_expect_eq(memcmp(pkt, orig, len), 0);
				/* DSCP never moves */
				cr_expect_eq(cake_ecn_get(pkt, (uint32_t)len) |
						     (fam == 4 ? pkt[1] & 0xfc
							       : (pb_get16(pkt) >> 4) & 0xfc),
					     (uint8_t)(0x88 | cake_ecn_get(pkt, (uint32_t)len)));
			}
		}
	}
}

Test(ecn, set_dscp_keeps_ecn)
{
	for (uint8_t fam = 4; fam <= 6; fam += 2) {
		for (int tos = 0; tos < 256; tos += 5) {
			for (uint8_t dscp = 0; dscp < 64; dscp += 9) {
				uint8_t pkt[128], orig[128];
				size_t len = build(pkt, sizeof(pkt), fam, (uint8_t)tos,
						   fam == 4 ? 4 : 0);
				uint8_t ds;

				memcpy(orig, pkt, len);
				cr_assert(cake_ecn_set_dscp(pkt, (uint32_t)len, dscp));
				ds = fam == 4 ? pkt[1] : (uint8_t)(pb_get16(pkt) >> 4);
				cr_assert_eq(ds, (uint8_t)(dscp << 2 | (tos & 3)),
					     "tos %#x dscp %u", tos, dscp);
				if (fam == 4) {
					cr_assert(pb_ipv4_csum_ok(pkt));
					cr_assert_eq(memcmp(pkt + 12, orig + 12, len - 12), 0);
				} else {
					cr_assert_eq(pb_get32(pkt) & 0xf00fffff,
						     pb_get32(orig) & 0xf00fffff);
					cr_assert_eq(memcmp(pkt + 4, orig + 4, len - 4), 0);
				}
			}
		}
	}
	cr_expect_not(cake_ecn_set_dscp((uint8_t[19]){0x45}, 19, 0));
}
