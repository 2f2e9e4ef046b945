/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tc-cake option grammar. Expected values come from iproute2 (tc/q_cake.c for
 * keywords and presets, lib/utils_math.c and lib/utils.c for units) and tc-cake(8).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/cake_parse.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define MBIT(n) ((uint64_t)(n) * 125000u)

static struct cake_options parse_ok(const char *s)
{
	struct cake_parse_err err = { { 0 } };
	struct cake_options o;
	int ret = cake_options_parse(s, &o, &err);

	cr_assert_eq(ret, 0, "`%s' failed: %s", s, err.msg);
	return o;
}

Test(cake_parse, defaults_are_tc_cake_defaults)
{
	struct cake_options o;

	cake_options_defaults(&o);
	cr_expect_eq(o.present, 0);
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	cr_expect_not(o.autorate_ingress);
	cr_expect_eq(o.rtt_us, 100000);
	cr_expect_eq(o.target_us, 5000);
	cr_expect_eq(o.diffserv, CAKE_DIFFSERV_DIFFSERV3);
	cr_expect_eq(o.flow_mode, CAKE_FLOW_TRIPLE);
	cr_expect_not(o.nat);
	cr_expect_not(o.wash);
	cr_expect_not(o.ingress);
	cr_expect_eq(o.ack_filter, CAKE_ACK_NONE);
	cr_expect(o.split_gso);
	cr_expect(o.raw);
	cr_expect_eq(o.overhead, 0);
	cr_expect_eq(o.mpu, 0);
	cr_expect_eq(o.atm, CAKE_ATM_NONE);
	cr_expect_eq(o.memlimit_bytes, 0);
	cr_expect_eq(o.fwmark_mask, 0);
	cr_expect_not(o.peer_isolation);
}

Test(cake_parse, empty_and_blank_strings_give_defaults)
{
	static const char *const blanks[] = { "", " ", "\t\n  \r", NULL };
	struct cake_options def, o;
	size_t i;

	cake_options_defaults(&def);
	for (i = 0; i < N_ELEMS(blanks); i++) {
		cr_assert_eq(cake_options_parse(blanks[i], &o, NULL), 0);
		cr_expect(cake_options_equal(&o, &def), "blank %zu", i);
		cr_expect_eq(o.present, 0);
	}
}

Test(cake_parse, rate_units)
{
	static const struct {
		const char *word;
		uint64_t bytes;
	} t[] = {
		{ "50mbit", 6250000 },      { "50Mbit", 6250000 },     { "50MBIT", 6250000 },
		{ "800", 100 },             { "800bit", 100 },         { "100bit", 12 },
		{ "1kbit", 125 },           { "8kibit", 1024 },        { "8Kibit", 1024 },
		{ "1mibit", 131072 },       { "1gbit", 125000000 },    { "1gibit", 134217728 },
		{ "1tbit", 125000000000 },  { "1tibit", 137438953472 }, { "1bps", 1 },
		{ "1Bps", 1 },              { "1kbps", 1000 },         { "1kibps", 1024 },
		{ "1mbps", 1000000 },       { "1mibps", 1048576 },     { "1gbps", 1000000000 },
		{ "1gibps", 1073741824 },   { "1tbps", 1000000000000 }, { "1tibps", 1099511627776 },
		{ "1.5mbit", 187500 },      { "1e3kbit", 125000 },     { ".5mbit", 62500 },
		{ "3125Kbit", 390625 },     { "12500Kbit", 1562500 },  { "0", 0 },
		{ "9007199254740992bit", UINT64_C(1) << 50 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		uint64_t r = 0;

		cr_assert_eq(cake_parse_rate(t[i].word, &r), 0, "%s", t[i].word);
		cr_expect_eq(r, t[i].bytes, "%s -> %llu", t[i].word, (unsigned long long)r);
	}
}

Test(cake_parse, rate_errors)
{
	static const struct {
		const char *word;
		int ret;
	} t[] = {
		{ "", -EINVAL },         { "mbit", -EINVAL },       { "-5mbit", -EINVAL },
		{ "+5mbit", -EINVAL },   { "50mbitz", -EINVAL },    { "50 mbit", -EINVAL },
		{ "inf", -EINVAL },      { "nan", -EINVAL },        { "1e999bit", -ERANGE },
		{ "4bit", -ERANGE },     { "0.5bps", -ERANGE },     { "10000tbit", -ERANGE },
		{ "50mb", -EINVAL },     { ".", -EINVAL },          { "9007199254740993000bit", -ERANGE },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		uint64_t r = 77;

		cr_expect_eq(cake_parse_rate(t[i].word, &r), t[i].ret, "%s", t[i].word);
		cr_expect_eq(r, 77, "%s changed the output", t[i].word);
	}
}

Test(cake_parse, time_units)
{
	static const struct {
		const char *word;
		uint32_t us;
	} t[] = {
		{ "100ms", 100000 }, { "100MS", 100000 }, { "1s", 1000000 },   { "2sec", 2000000 },
		{ "3secs", 3000000 }, { "5msec", 5000 },  { "6msecs", 6000 },  { "7us", 7 },
		{ "8usec", 8 },      { "9usecs", 9 },     { "250", 250 },      { "0.5ms", 500 },
		{ "1.5s", 1500000 }, { "5.81ms", 5810 },  { "1e+03s", 1000000000 },
		{ "4294967295us", UINT32_MAX },           { "0", 0 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		uint32_t us = 0;

		cr_assert_eq(cake_parse_time(t[i].word, &us), 0, "%s", t[i].word);
		cr_expect_eq(us, t[i].us, "%s -> %u", t[i].word, us);
	}
	for (i = 0; i < N_ELEMS(t); i++) {
		uint64_t ns = 0;

		cr_assert_eq(cake_parse_time_ns(t[i].word, &ns), 0, "%s", t[i].word);
		cr_expect_eq(ns, (uint64_t)t[i].us * 1000, "%s -> %lu", t[i].word,
			     (unsigned long)ns);
	}
}

Test(cake_parse, time_errors)
{
	static const struct {
		const char *word;
		int ret;
	} t[] = {
		{ "10min", -EINVAL }, { "ms", -EINVAL },  { "-1ms", -EINVAL },
		{ "4295s", -ERANGE }, { "4294967296", -ERANGE }, { "1h", -EINVAL },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		uint32_t us = 77;

		cr_expect_eq(cake_parse_time(t[i].word, &us), t[i].ret, "%s", t[i].word);
		cr_expect_eq(us, 77);
	}
	for (i = 0; i < N_ELEMS(t); i++) {
		uint64_t ns = 77;

		cr_expect_eq(cake_parse_time_ns(t[i].word, &ns), t[i].ret, "%s", t[i].word);
		cr_expect_eq(ns, 77);
	}
}

Test(cake_parse, size_units)
{
	static const struct {
		const char *word;
		uint64_t bytes;
	} t[] = {
		{ "4mb", 4194304 }, { "4Mb", 4194304 },   { "4m", 4194304 },     { "1kb", 1024 },
		{ "1k", 1024 },     { "1K", 1024 },       { "1gb", 1073741824 }, { "1g", 1073741824 },
		{ "8kbit", 1024 },  { "8mbit", 1048576 }, { "8gbit", 1073741824 }, { "100b", 100 },
		{ "100", 100 },     { "1.5kb", 1536 },    { "169136b", 169136 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		uint64_t b = 0;

		cr_assert_eq(cake_parse_size(t[i].word, &b), 0, "%s", t[i].word);
		cr_expect_eq(b, t[i].bytes, "%s -> %llu", t[i].word, (unsigned long long)b);
	}
}

Test(cake_parse, size_errors)
{
	static const char *const bad[] = { "4tb", "kb", "-1", "1bytes", "4 mb" };
	size_t i;

	for (i = 0; i < N_ELEMS(bad); i++) {
		uint64_t b = 77;

		cr_expect_eq(cake_parse_size(bad[i], &b), -EINVAL, "%s", bad[i]);
		cr_expect_eq(b, 77);
	}
}

/* q_cake.c's preset table: target / interval in microseconds. */
Test(cake_parse, rtt_presets)
{
	static const struct {
		const char *word;
		uint32_t target, interval;
	} t[] = {
		{ "datacentre", 5, 100 },
		{ "lan", 50, 1000 },
		{ "metro", 500, 10000 },
		{ "regional", 1500, 30000 },
		{ "internet", 5000, 100000 },
		{ "oceanic", 15000, 300000 },
		{ "satellite", 50000, 1000000 },
		{ "interplanetary", 50000000, 1000000000 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].word);

		cr_expect_eq(o.rtt_us, t[i].interval, "%s", t[i].word);
		cr_expect_eq(o.target_us, t[i].target, "%s", t[i].word);
		cr_expect_eq(o.present, CAKE_OPT_RTT, "%s", t[i].word);
	}
}

Test(cake_parse, rtt_sets_target_to_a_twentieth)
{
	static const struct {
		const char *s;
		uint32_t rtt, target;
	} t[] = {
		{ "rtt 100ms", 100000, 5000 }, { "rtt 50ms", 50000, 2500 }, { "rtt 19us", 19, 1 },
		{ "rtt 1", 1, 1 },             { "rtt 21", 21, 1 },         { "rtt 40", 40, 2 },
		{ "rtt 1s", 1000000, 50000 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].s);

		cr_expect_eq(o.rtt_us, t[i].rtt, "%s", t[i].s);
		cr_expect_eq(o.target_us, t[i].target, "%s", t[i].s);
	}
}

Test(cake_parse, mode_keywords)
{
	static const struct {
		const char *word;
		uint32_t bit;
		size_t off;
		int value;
	} t[] = {
#define M(w, b, field, v) { w, b, offsetof(struct cake_options, field), v }
		M("besteffort", CAKE_OPT_DIFFSERV, diffserv, CAKE_DIFFSERV_BESTEFFORT),
		M("precedence", CAKE_OPT_DIFFSERV, diffserv, CAKE_DIFFSERV_PRECEDENCE),
		M("diffserv8", CAKE_OPT_DIFFSERV, diffserv, CAKE_DIFFSERV_DIFFSERV8),
		M("diffserv4", CAKE_OPT_DIFFSERV, diffserv, CAKE_DIFFSERV_DIFFSERV4),
		M("diffserv", CAKE_OPT_DIFFSERV, diffserv, CAKE_DIFFSERV_DIFFSERV4),
		M("diffserv3", CAKE_OPT_DIFFSERV, diffserv, CAKE_DIFFSERV_DIFFSERV3),
		M("flowblind", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_NONE),
		M("srchost", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_SRC_IP),
		M("dsthost", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_DST_IP),
		M("hosts", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_HOSTS),
		M("flows", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_FLOWS),
		M("dual-srchost", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_DUAL_SRC),
		M("dual-dsthost", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_DUAL_DST),
		M("triple-isolate", CAKE_OPT_FLOW_MODE, flow_mode, CAKE_FLOW_TRIPLE),
		M("no-ack-filter", CAKE_OPT_ACK_FILTER, ack_filter, CAKE_ACK_NONE),
		M("ack-filter", CAKE_OPT_ACK_FILTER, ack_filter, CAKE_ACK_FILTER),
		M("ack-filter-aggressive", CAKE_OPT_ACK_FILTER, ack_filter, CAKE_ACK_AGGRESSIVE),
		M("atm", CAKE_OPT_ATM, atm, CAKE_ATM_ATM),
		M("ptm", CAKE_OPT_ATM, atm, CAKE_ATM_PTM),
		M("noatm", CAKE_OPT_ATM, atm, CAKE_ATM_NONE),
#undef M
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		/* Start from something else so that the default cannot pass by accident. */
		char s[64];
		struct cake_options o;
		int v;

		snprintf(s, sizeof(s), "%s %s", t[i].value ? "diffserv3 flowblind no-ack-filter noatm" :
			 "diffserv8 flows ack-filter atm", t[i].word);
		o = parse_ok(s);
		memcpy(&v, (const char *)&o + t[i].off, sizeof(v));
		cr_expect_eq(v, t[i].value, "%s", t[i].word);
		cr_expect(o.present & t[i].bit, "%s", t[i].word);
	}
}

Test(cake_parse, boolean_keywords)
{
	static const struct {
		const char *word;
		uint32_t bit;
		size_t off;
		bool value;
	} t[] = {
#define B(w, b, field, v) { w, b, offsetof(struct cake_options, field), v }
		B("nat", CAKE_OPT_NAT, nat, true),
		B("nonat", CAKE_OPT_NAT, nat, false),
		B("wash", CAKE_OPT_WASH, wash, true),
		B("nowash", CAKE_OPT_WASH, wash, false),
		B("ingress", CAKE_OPT_INGRESS, ingress, true),
		B("egress", CAKE_OPT_INGRESS, ingress, false),
		B("split-gso", CAKE_OPT_SPLIT_GSO, split_gso, true),
		B("no-split-gso", CAKE_OPT_SPLIT_GSO, split_gso, false),
		B("autorate-ingress", CAKE_OPT_AUTORATE, autorate_ingress, true),
#undef B
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].word);
		bool v;

		memcpy(&v, (const char *)&o + t[i].off, sizeof(v));
		cr_expect_eq(v, t[i].value, "%s", t[i].word);
		cr_expect_eq(o.present, t[i].bit, "%s", t[i].word);
	}
}

/* tc-cake(8) "OVERHEAD COMPENSATION PARAMETERS" and q_cake.c. */
Test(cake_parse, framing_keywords)
{
	static const struct {
		const char *word;
		int32_t overhead;
		enum cake_atm_mode atm;
		uint32_t mpu;
	} t[] = {
		{ "ipoa-vcmux", 8, CAKE_ATM_ATM, 0 },      { "ipoa-llcsnap", 16, CAKE_ATM_ATM, 0 },
		{ "bridged-vcmux", 24, CAKE_ATM_ATM, 0 },  { "bridged-llcsnap", 32, CAKE_ATM_ATM, 0 },
		{ "pppoa-vcmux", 10, CAKE_ATM_ATM, 0 },    { "pppoa-llc", 14, CAKE_ATM_ATM, 0 },
		{ "pppoe-vcmux", 32, CAKE_ATM_ATM, 0 },    { "pppoe-llcsnap", 40, CAKE_ATM_ATM, 0 },
		{ "pppoe-ptm", 30, CAKE_ATM_PTM, 0 },      { "bridged-ptm", 22, CAKE_ATM_PTM, 0 },
		{ "ethernet", 38, CAKE_ATM_NONE, 84 },     { "ether-vlan", 4, CAKE_ATM_NONE, 0 },
		{ "docsis", 18, CAKE_ATM_NONE, 64 },       { "conservative", 48, CAKE_ATM_ATM, 0 },
		{ "overhead 0", 0, CAKE_ATM_NONE, 0 },     { "overhead -64", -64, CAKE_ATM_NONE, 0 },
		{ "overhead 256", 256, CAKE_ATM_NONE, 0 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].word);

		cr_expect_eq(o.overhead, t[i].overhead, "%s: %d", t[i].word, o.overhead);
		cr_expect_eq(o.atm, t[i].atm, "%s", t[i].word);
		cr_expect_eq(o.mpu, t[i].mpu, "%s", t[i].word);
		cr_expect_not(o.raw, "%s must clear raw", t[i].word);
		cr_expect(o.present & CAKE_OPT_OVERHEAD, "%s", t[i].word);
	}
}

/* How words combine, following q_cake.c's locals and the kernel's attribute order. */
Test(cake_parse, interplay)
{
	static const struct {
		const char *s;
		int32_t overhead;
		bool raw;
		enum cake_atm_mode atm;
		uint32_t mpu;
	} t[] = {
		{ "ethernet ether-vlan ether-vlan", 46, false, CAKE_ATM_NONE, 84 },
		{ "overhead 10 ether-vlan", 14, false, CAKE_ATM_NONE, 0 },
		{ "ether-vlan overhead 10", 10, false, CAKE_ATM_NONE, 0 },
		{ "raw", 0, true, CAKE_ATM_NONE, 0 },
		{ "raw ethernet", 38, true, CAKE_ATM_NONE, 84 },
		{ "ethernet raw", 0, true, CAKE_ATM_NONE, 84 },
		{ "raw overhead 10", 10, true, CAKE_ATM_NONE, 0 },
		{ "pppoe-vcmux conservative", 48, false, CAKE_ATM_ATM, 0 },
		{ "conservative ether-vlan", 52, false, CAKE_ATM_ATM, 0 },
		{ "atm raw", 0, true, CAKE_ATM_NONE, 0 },
		{ "raw atm", 0, true, CAKE_ATM_ATM, 0 },
		{ "atm docsis", 18, false, CAKE_ATM_NONE, 64 },
		{ "atm ethernet", 38, false, CAKE_ATM_ATM, 84 },
		{ "ptm ether-vlan", 4, false, CAKE_ATM_PTM, 0 },
		{ "pppoe-ptm noatm", 30, false, CAKE_ATM_NONE, 0 },
		{ "ethernet mpu 0", 38, false, CAKE_ATM_NONE, 0 },
		{ "mpu 20 docsis", 18, false, CAKE_ATM_NONE, 64 },
		{ "bridged-ptm ether-vlan", 26, false, CAKE_ATM_PTM, 0 },
		{ "overhead -64 ethernet", -26, false, CAKE_ATM_NONE, 84 },
		{ "overhead 252 ether-vlan", 256, false, CAKE_ATM_NONE, 0 },
		{ "via-ethernet", 0, true, CAKE_ATM_NONE, 0 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].s);

		cr_expect_eq(o.overhead, t[i].overhead, "%s: overhead %d", t[i].s, o.overhead);
		cr_expect_eq(o.raw, t[i].raw, "%s: raw", t[i].s);
		cr_expect_eq(o.atm, t[i].atm, "%s: atm %d", t[i].s, o.atm);
		cr_expect_eq(o.mpu, t[i].mpu, "%s: mpu %u", t[i].s, o.mpu);
	}
}

Test(cake_parse, present_bits_of_overhead_words)
{
	static const struct {
		const char *s;
		uint32_t present;
	} t[] = {
		{ "ethernet", CAKE_OPT_OVERHEAD | CAKE_OPT_MPU },
		{ "ether-vlan", CAKE_OPT_OVERHEAD },
		{ "docsis", CAKE_OPT_OVERHEAD | CAKE_OPT_MPU | CAKE_OPT_ATM },
		{ "pppoe-ptm", CAKE_OPT_OVERHEAD | CAKE_OPT_ATM },
		{ "raw", CAKE_OPT_OVERHEAD | CAKE_OPT_ATM },
		{ "conservative", CAKE_OPT_OVERHEAD | CAKE_OPT_ATM },
		{ "overhead 3", CAKE_OPT_OVERHEAD },
		{ "mpu 3", CAKE_OPT_MPU },
		{ "via-ethernet", 0 },
		{ "memlimit 4mb", CAKE_OPT_MEMLIMIT },
		{ "fwmark 0xff", CAKE_OPT_FWMARK },
		{ "bandwidth 1mbit", CAKE_OPT_RATE | CAKE_OPT_AUTORATE },
		{ "unlimited", CAKE_OPT_RATE | CAKE_OPT_AUTORATE },
		{ "peer-isolate", CAKE_OPT_FLOW_MODE | CAKE_OPT_PEER_ISOLATION },
		{ "dsthost", CAKE_OPT_FLOW_MODE | CAKE_OPT_PEER_ISOLATION },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++)
		cr_expect_eq(parse_ok(t[i].s).present, t[i].present, "%s", t[i].s);
}

Test(cake_parse, shaper_interplay)
{
	struct cake_options o;

	o = parse_ok("bandwidth 10mbit autorate-ingress");
	cr_expect(o.autorate_ingress);
	cr_expect_eq(o.rate_bytes_per_sec, 1250000);
	o = parse_ok("autorate-ingress bandwidth 10mbit");
	cr_expect_not(o.autorate_ingress);
	o = parse_ok("autorate-ingress unlimited");
	cr_expect_not(o.autorate_ingress);
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	o = parse_ok("bandwidth 10mbit unlimited");
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	o = parse_ok("bandwidth 0");
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	cr_expect(o.present & CAKE_OPT_RATE);
	o = parse_ok("bandwidth 5mbit autorate-ingress bandwidth unlimited");
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	cr_expect_not(o.autorate_ingress);
	cr_expect(o.present & CAKE_OPT_RATE);
	o = parse_ok("bandwidth 1mbit bandwidth 2mbit");
	cr_expect_eq(o.rate_bytes_per_sec, 250000);
}

Test(cake_parse, rtt_interplay)
{
	struct cake_options o;

	o = parse_ok("lan rtt 50ms");
	cr_expect_eq(o.rtt_us, 50000);
	o = parse_ok("rtt 50ms lan");
	cr_expect_eq(o.rtt_us, 1000);
	cr_expect_eq(o.target_us, 50);
	o = parse_ok("rtt 5ms rtt 7ms");
	cr_expect_eq(o.rtt_us, 7000);
}

Test(cake_parse, peer_isolate)
{
	struct cake_options o;

	o = parse_ok("peer-isolate");
	cr_expect(o.peer_isolation);
	cr_expect_eq(o.flow_mode, CAKE_FLOW_TRIPLE);
	o = parse_ok("flows peer-isolate");
	cr_expect(o.peer_isolation);
	cr_expect_eq(o.flow_mode, CAKE_FLOW_TRIPLE);
	o = parse_ok("peer-isolate flows");
	cr_expect_not(o.peer_isolation);
	cr_expect_eq(o.flow_mode, CAKE_FLOW_FLOWS);
	o = parse_ok("peer-isolate triple-isolate");
	cr_expect_not(o.peer_isolation);
}

Test(cake_parse, values)
{
	struct cake_options o;

	o = parse_ok("memlimit 32mb fwmark 0xff00 mpu 64");
	cr_expect_eq(o.memlimit_bytes, 32u << 20);
	cr_expect_eq(o.fwmark_mask, 0xff00);
	cr_expect_eq(o.mpu, 64);
	o = parse_ok("fwmark 255");
	cr_expect_eq(o.fwmark_mask, 255);
	o = parse_ok("fwmark 010");
	cr_expect_eq(o.fwmark_mask, 8);
	o = parse_ok("fwmark 0xffffffff memlimit 4294967295");
	cr_expect_eq(o.fwmark_mask, 0xffffffffu);
	cr_expect_eq(o.memlimit_bytes, 0xffffffffu);
	o = parse_ok("memlimit 0 fwmark 0 mpu 0");
	cr_expect_eq(o.memlimit_bytes, 0);
	cr_expect_eq(o.present, CAKE_OPT_MEMLIMIT | CAKE_OPT_FWMARK | CAKE_OPT_MPU);
}

Test(cake_parse, whitespace_between_words)
{
	struct cake_options o = parse_ok("\t bandwidth\n50mbit \r\n diffserv4\v nat\f ");

	cr_expect_eq(o.rate_bytes_per_sec, 6250000);
	cr_expect_eq(o.diffserv, CAKE_DIFFSERV_DIFFSERV4);
	cr_expect(o.nat);
}

Test(cake_parse, error_messages_name_the_bad_word)
{
	static const struct {
		const char *s;
		const char *msg;
	} t[] = {
		{ "foo", "Invalid CAKE option `foo'" },
		{ "bandwidth 5mbit Bandwidth", "Invalid CAKE option `Bandwidth'" },
		{ "diffserv5", "Invalid CAKE option `diffserv5'" },
		{ "\x01" "foo\x7f", "Invalid CAKE option `?foo?'" },
		{ "bandwidth 50mbitz", "Unable to parse bandwidth `50mbitz'" },
		{ "bandwidth -5mbit", "Unable to parse bandwidth `-5mbit'" },
		{ "bandwidth 4bit", "bandwidth `4bit' is out of range 8bit..2^53bit (1 byte/s and up)" },
		{ "bandwidth 1e999", "bandwidth `1e999' is out of range 8bit..2^53bit (1 byte/s and up)" },
		{ "bandwidth", "`bandwidth' needs a value" },
		{ "nat rtt", "`rtt' needs a value" },
		{ "rtt 10min", "Unable to parse rtt `10min'" },
		{ "rtt 0", "rtt `0' is out of range 1us..4294967295us" },
		{ "rtt 5000s", "rtt `5000s' is out of range 1us..4294967295us" },
		{ "overhead 300", "overhead `300' is out of range -64..256" },
		{ "overhead -65", "overhead `-65' is out of range -64..256" },
		{ "overhead 99999999999999999999", "overhead `99999999999999999999' is out of range -64..256" },
		{ "overhead 1.5", "Unable to parse overhead `1.5'" },
		{ "overhead ten", "Unable to parse overhead `ten'" },
		{ "overhead +7", "Unable to parse overhead `+7'" },
		{ "overhead -", "Unable to parse overhead `-'" },
		{ "overhead", "`overhead' needs a value" },
		{ "mpu 257", "mpu `257' is out of range 0..256" },
		{ "mpu -1", "mpu `-1' is out of range 0..256" },
		{ "mpu", "`mpu' needs a value" },
		{ "memlimit 4gb", "memlimit `4gb' is out of range 0..4294967295 bytes" },
		{ "memlimit 4q", "Unable to parse memlimit `4q'" },
		{ "memlimit", "`memlimit' needs a value" },
		{ "fwmark 0x1ffffffff", "fwmark `0x1ffffffff' is out of range 0..0xffffffff" },
		{ "fwmark 0xzz", "Unable to parse fwmark `0xzz'" },
		{ "fwmark -1", "Unable to parse fwmark `-1'" },
		{ "fwmark", "`fwmark' needs a value" },
		{ "overhead 256 ether-vlan", "`ether-vlan' takes the overhead to 260, out of range -64..256" },
		{ "ethernet ethernet ethernet ethernet ethernet ethernet ethernet",
		  "`ethernet' takes the overhead to 266, out of range -64..256" },
		{ "lan internet", "rtt preset `internet' conflicts with `lan'" },
		{ "lan lan", "rtt preset `lan' conflicts with `lan'" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "Invalid CAKE option `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'" },
		{ "bandwidth 100000000000000000000000000000000000000000000000000000000000000000000bit",
		  "Unable to parse bandwidth `1000000000000000000000000000000000000000...'" },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_parse_err err = { { 0 } };
		struct cake_options o, before;

		memset(&o, 0x5a, sizeof(o));
		before = o;
		cr_expect_eq(cake_options_parse(t[i].s, &o, &err), -EINVAL, "%s", t[i].s);
		cr_expect_str_eq(err.msg, t[i].msg, "%s", t[i].s);
		cr_expect_eq(memcmp(&o, &before, sizeof(o)), 0, "%s: output changed", t[i].s);
		cr_expect_eq(cake_options_parse(t[i].s, &o, NULL), -EINVAL, "%s without err", t[i].s);
	}
}

Test(cake_parse, argv_matches_string)
{
	static const char *const argv[] = { "bandwidth", "20mbit", "diffserv4", "ethernet",
					    "ether-vlan", "rtt", "30ms", "peer-isolate" };
	struct cake_options a, s;

	cr_assert_eq(cake_options_parse_argv(N_ELEMS(argv), argv, &a, NULL), 0);
	s = parse_ok("bandwidth 20mbit diffserv4 ethernet ether-vlan rtt 30ms peer-isolate");
	cr_expect(cake_options_equal(&a, &s));
	cr_expect_eq(a.present, s.present);
	cr_assert_eq(cake_options_parse_argv(0, NULL, &a, NULL), 0);
	cr_expect_eq(a.present, 0);
}

Test(cake_parse, argv_errors)
{
	static const char *const missing[] = { "nat", "rtt" };
	static const char *const spaced[] = { "bandwidth", "5 mbit" };
	static const char *const empty[] = { "" };
	struct cake_parse_err err;
	struct cake_options o;

	cr_expect_eq(cake_options_parse_argv(2, missing, &o, &err), -EINVAL);
	cr_expect_str_eq(err.msg, "`rtt' needs a value");
	cr_expect_eq(cake_options_parse_argv(2, spaced, &o, &err), -EINVAL);
	cr_expect_str_eq(err.msg, "Unable to parse bandwidth `5 mbit'");
	cr_expect_eq(cake_options_parse_argv(1, empty, &o, &err), -EINVAL);
	cr_expect_str_eq(err.msg, "Invalid CAKE option `'");
}

/* tc `change`: only the named fields move. */
Test(cake_parse, merge_applies_present_fields_only)
{
	struct cake_options cur = parse_ok("bandwidth 50mbit diffserv4 ethernet nat wash memlimit 8mb");
	struct cake_options before = cur;
	struct cake_options change = parse_ok("bandwidth 20mbit ack-filter");

	cake_options_merge(&cur, &change);
	cr_expect_eq(cur.rate_bytes_per_sec, 2500000);
	cr_expect_eq(cur.ack_filter, CAKE_ACK_FILTER);
	cr_expect_eq(cur.diffserv, CAKE_DIFFSERV_DIFFSERV4);
	cr_expect_eq(cur.overhead, 38);
	cr_expect_eq(cur.mpu, 84);
	cr_expect(cur.nat);
	cr_expect(cur.wash);
	cr_expect_eq(cur.memlimit_bytes, 8u << 20);

	cur = before;
	change = parse_ok("raw");
	cake_options_merge(&cur, &change);
	cr_expect(cur.raw);
	cr_expect_eq(cur.overhead, 0);
	cr_expect_eq(cur.mpu, 84, "raw leaves mpu alone");

	cur = before;
	change = parse_ok("");
	cake_options_merge(&cur, &change);
	cr_expect(cake_options_equal(&cur, &before));

	cur = before;
	change = parse_ok("lan peer-isolate noatm egress nowash nonat split-gso mpu 0 fwmark 3");
	cake_options_merge(&cur, &change);
	cr_expect_eq(cur.rtt_us, 1000);
	cr_expect_eq(cur.target_us, 50);
	cr_expect(cur.peer_isolation);
	cr_expect_not(cur.nat);
	cr_expect_not(cur.wash);
	cr_expect_eq(cur.mpu, 0);
	cr_expect_eq(cur.fwmark_mask, 3);
	cr_expect_eq(cur.overhead, 38, "noatm is not an overhead word");
}

/* Each string differs from the defaults in exactly one setting. */
Test(cake_parse, equal_notices_every_field)
{
	static const char *const one_change[] = {
		"bandwidth 1mbit", "autorate-ingress", "rtt 1ms",   "diffserv4",    "flows",
		"nat",             "wash",             "ingress",   "ack-filter",   "no-split-gso",
		"overhead 0",      "raw overhead 5",   "mpu 5",     "atm",          "memlimit 1mb",
		"fwmark 1",        "peer-isolate",     "autorate 1mbit 2mbit", "autorate-target 9ms",
	};
	struct cake_options def, o;
	size_t i;

	cake_options_defaults(&def);
	for (i = 0; i < N_ELEMS(one_change); i++) {
		o = parse_ok(one_change[i]);
		cr_expect_not(cake_options_equal(&o, &def), "%s", one_change[i]);
		cr_expect(cake_options_equal(&o, &o), "%s", one_change[i]);
	}
	o = def;
	o.target_us++;
	cr_expect_not(cake_options_equal(&o, &def));
	o = def;
	o.present = ~0u;
	cr_expect(cake_options_equal(&o, &def), "present is not a setting");
}

/* cakewg's autorate words: autorate MIN MAX, autorate off, autorate-target TIME. */
Test(cake_parse, autorate_range_and_start_rate)
{
	struct cake_options o = parse_ok("bandwidth 20mbit autorate 2mbit 80mbit");

	cr_expect(o.autorate);
	cr_expect_eq(o.autorate_min, MBIT(2));
	cr_expect_eq(o.autorate_max, MBIT(80));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(20));
	cr_expect_eq(o.autorate_target_us, 0, "the controller's default");
	cr_expect_eq(o.present, CAKE_OPT_RATE | CAKE_OPT_AUTORATE | CAKE_OPT_AUTORATE_RANGE);
	cr_expect_not(o.autorate_ingress);

	/* No bandwidth: rate 0, the controller starts at the geometric middle. */
	o = parse_ok("autorate 5mbit 200mbit ingress");
	cr_expect(o.autorate);
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	cr_expect_eq(o.autorate_min, MBIT(5));
	cr_expect_eq(o.autorate_max, MBIT(200));
	cr_expect(o.ingress);

	/* tc's rate units, MIN == MAX, start at either bound, the order of words. */
	o = parse_ok("autorate 1mbps 1MBps bandwidth 8mbit");
	cr_expect_eq(o.autorate_min, 1000000);
	cr_expect_eq(o.autorate_max, 1000000);
	cr_expect_eq(o.rate_bytes_per_sec, 1000000);
	o = parse_ok("bandwidth 2mbit autorate 2mbit 80mbit");
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(2));
	o = parse_ok("bandwidth 80mbit autorate 2mbit 80mbit");
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(80));
	o = parse_ok("autorate 8bit 9007199254740992bit");
	cr_expect_eq(o.autorate_min, 1);
	cr_expect_eq(o.autorate_max, CAKE_RATE_MAX_BYTES_PER_SEC);
}

Test(cake_parse, autorate_off_and_the_last_word_wins)
{
	struct cake_options o = parse_ok("autorate off");

	cr_expect_not(o.autorate);
	cr_expect_eq(o.autorate_min, 0);
	cr_expect_eq(o.autorate_max, 0);
	cr_expect_eq(o.present, CAKE_OPT_AUTORATE_RANGE);

	o = parse_ok("autorate 2mbit 80mbit autorate off");
	cr_expect_not(o.autorate);
	cr_expect_eq(o.autorate_max, 0);
	o = parse_ok("autorate off autorate 1mbit 3mbit");
	cr_expect(o.autorate);
	o = parse_ok("autorate 1mbit 3mbit autorate 2mbit 4mbit");
	cr_expect_eq(o.autorate_min, MBIT(2));
	cr_expect_eq(o.autorate_max, MBIT(4));

	/* With autorate off nothing is checked against a range. */
	o = parse_ok("bandwidth 500mbit autorate 2mbit 80mbit autorate off");
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(500));
	o = parse_ok("unlimited autorate 2mbit 80mbit autorate off");
	cr_expect_eq(o.rate_bytes_per_sec, 0);
}

Test(cake_parse, autorate_target)
{
	static const struct {
		const char *in;
		uint32_t us;
	} t[] = {
		{ "autorate-target 5ms", 5000 }, { "autorate-target 1ms", 1000 },
		{ "autorate-target 1s", 1000000 }, { "autorate-target 1000", 1000 },
		{ "autorate-target 2.5ms", 2500 }, { "autorate-target 1000000us", 1000000 },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].in);

		cr_expect_eq(o.autorate_target_us, t[i].us, "%s", t[i].in);
		cr_expect_eq(o.present, CAKE_OPT_AUTORATE_TARGET, "%s", t[i].in);
		cr_expect_not(o.autorate, "%s: the target alone turns nothing on", t[i].in);
	}
	cr_expect_eq(parse_ok("autorate 1mbit 2mbit autorate-target 8ms").autorate_target_us,
		     8000);
}

/* Every error names the word and leaves the caller's options as they were. */
Test(cake_parse, autorate_errors)
{
	static const struct {
		const char *in, *msg;
	} t[] = {
		{ "autorate", "`autorate' needs MIN MAX, or `off'" },
		{ "autorate 2mbit", "`autorate' needs MAX after MIN `2mbit'" },
		{ "autorate 80mbit 2mbit", "autorate MIN `80mbit' is above MAX `2mbit'" },
		{ "autorate 0 2mbit",
		  "autorate MIN `0' is out of range 8bit..2^53bit (1 byte/s and up)" },
		{ "autorate 1mbit 0kbit",
		  "autorate MAX `0kbit' is out of range 8bit..2^53bit (1 byte/s and up)" },
		{ "autorate fast 2mbit", "Unable to parse autorate MIN `fast'" },
		{ "autorate 1mbit lots", "Unable to parse autorate MAX `lots'" },
		{ "autorate 1mbit unlimited", "Unable to parse autorate MAX `unlimited'" },
		{ "autorate 1mbit 1e99gbit",
		  "autorate MAX `1e99gbit' is out of range 8bit..2^53bit (1 byte/s and up)" },
		{ "autorate 2mbit 80mbit unlimited",
		  "`autorate' conflicts with `unlimited': autorate needs a rate" },
		{ "bandwidth 20mbit unlimited autorate 2mbit 80mbit",
		  "`autorate' conflicts with `unlimited': autorate needs a rate" },
		{ "bandwidth 0kbit autorate 2mbit 80mbit",
		  "`autorate' conflicts with `bandwidth 0kbit': autorate needs a rate" },
		{ "autorate 2mbit 80mbit bandwidth unlimited",
		  "`autorate' conflicts with `bandwidth unlimited': autorate needs a rate" },
		{ "autorate 2mbit 80mbit autorate-ingress",
		  "`autorate' conflicts with `autorate-ingress' (two controllers of one rate)" },
		{ "autorate-ingress autorate 2mbit 80mbit",
		  "`autorate' conflicts with `autorate-ingress' (two controllers of one rate)" },
		{ "bandwidth 100mbit autorate 2mbit 80mbit",
		  "bandwidth `100mbit' is outside autorate `2mbit' `80mbit'" },
		{ "autorate 2mbit 80mbit bandwidth 1mbit",
		  "bandwidth `1mbit' is outside autorate `2mbit' `80mbit'" },
		{ "autorate-target", "`autorate-target' needs a value" },
		{ "autorate-target 999us", "autorate-target `999us' is out of range 1ms..1s" },
		{ "autorate-target 0", "autorate-target `0' is out of range 1ms..1s" },
		{ "autorate-target 1.001s", "autorate-target `1.001s' is out of range 1ms..1s" },
		{ "autorate-target soon", "Unable to parse autorate-target `soon'" },
		{ "autorate-ingres", "Invalid CAKE option `autorate-ingres'" },
	};
	struct cake_parse_err err;
	struct cake_options o, before;
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		memset(&o, 0xa5, sizeof(o));
		before = o;
		memset(&err, 0, sizeof(err));
		cr_expect_eq(cake_options_parse(t[i].in, &o, &err), -EINVAL, "%s", t[i].in);
		cr_expect_str_eq(err.msg, t[i].msg, "%s", t[i].in);
		cr_expect_eq(memcmp(&o, &before, sizeof(o)), 0, "%s: changed the output", t[i].in);
	}
}

/* The existing ordering rule: bandwidth and unlimited switch autorate-ingress off. */
Test(cake_parse, autorate_ordering_rules)
{
	struct cake_options o = parse_ok("autorate-ingress bandwidth 20mbit autorate 2mbit 80mbit");

	cr_expect(o.autorate);
	cr_expect_not(o.autorate_ingress);
	/* A later bandwidth, inside the range, is the start rate: later words win. */
	o = parse_ok("bandwidth 0 bandwidth 9mbit autorate 2mbit 80mbit");
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(9));
	o = parse_ok("unlimited bandwidth 9mbit autorate 2mbit 80mbit");
	cr_expect(o.autorate);
}

Test(cake_parse, autorate_argv_form)
{
	static const char *const v[] = { "bandwidth", "20mbit", "autorate", "2mbit", "80mbit" };
	static const char *const missing[] = { "autorate", "2mbit" };
	struct cake_parse_err err;
	struct cake_options a, s = parse_ok("bandwidth 20mbit autorate 2mbit 80mbit");

	cr_assert_eq(cake_options_parse_argv(5, v, &a, &err), 0, "%s", err.msg);
	cr_expect(cake_options_equal(&a, &s));
	cr_expect_eq(cake_options_parse_argv(2, missing, &a, &err), -EINVAL);
	cr_expect_str_eq(err.msg, "`autorate' needs MAX after MIN `2mbit'");
}

Test(cake_parse, equal_knows_autorate)
{
	struct cake_options def, o = parse_ok("autorate 1mbit 2mbit"), p;

	cake_options_defaults(&def);
	p = parse_ok("autorate 1mbit 3mbit");
	cr_expect_not(cake_options_equal(&o, &p), "max");
	p = parse_ok("autorate 2mbit 2mbit");
	cr_expect_not(cake_options_equal(&o, &p), "min");
	o = parse_ok("autorate off");
	cr_expect(cake_options_equal(&o, &def), "autorate off is the default");
}

/* tc `change` on autorate: cur, the change, the rate in force; what results. */
Test(cake_parse, change_semantics_of_autorate)
{
	static const char *const ar = "bandwidth 20mbit autorate 2mbit 80mbit autorate-target 8ms";
	static const struct {
		const char *cur, *change;
		uint64_t now, rate;
		bool autorate;
	} t[] = {
		/* On: the rate in force if inside, else the nearer bound; unlimited: 0. */
		{ "bandwidth 20mbit diffserv4", "autorate 2mbit 80mbit", MBIT(20), MBIT(20), true },
		{ "bandwidth 200mbit", "autorate 2mbit 80mbit", MBIT(200), MBIT(80), true },
		{ "bandwidth 1mbit", "autorate 2mbit 80mbit", MBIT(1), MBIT(2), true },
		{ "", "autorate 2mbit 80mbit", 0, 0, true },
		{ "bandwidth 200mbit", "bandwidth 30mbit autorate 2mbit 80mbit", MBIT(200), MBIT(30),
		  true },
		{ "bandwidth 20mbit autorate-ingress", "autorate 2mbit 80mbit", MBIT(20), MBIT(20),
		  true },
		/* A new range restarts from the rate in force, clamped. */
		{ ar, "autorate 1mbit 10mbit", MBIT(33), MBIT(10), true },
		{ ar, "autorate 1mbit 100mbit", MBIT(33), MBIT(33), true },
		/* A bandwidth alone is a new start rate, clamped into the range. */
		{ ar, "bandwidth 40mbit", MBIT(33), MBIT(40), true },
		{ ar, "bandwidth 400mbit", MBIT(33), MBIT(80), true },
		/* Other words leave autorate and its start alone. */
		{ ar, "diffserv4 nat", MBIT(33), MBIT(20), true },
		{ ar, "autorate-target 3ms", MBIT(33), MBIT(20), true },
		/* Off: fixed at the rate in force, or at the change's bandwidth. */
		{ ar, "autorate off", MBIT(33), MBIT(33), false },
		{ ar, "autorate off bandwidth 10mbit", MBIT(33), MBIT(10), false },
		{ ar, "bandwidth 100mbit autorate off", MBIT(33), MBIT(100), false },
		/* unlimited and autorate-ingress win over the instance's autorate. */
		{ ar, "unlimited", MBIT(33), 0, false },
		{ ar, "bandwidth 0", MBIT(33), 0, false },
		{ ar, "autorate-ingress", MBIT(33), MBIT(33), false },
		/* Off on a fixed shaper changes nothing. */
		{ "bandwidth 20mbit", "autorate off", MBIT(20), MBIT(20), false },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options cur = parse_ok(t[i].cur), change = parse_ok(t[i].change);
		struct cake_options before = cur;

		cake_options_merge_at(&cur, &change, t[i].now);
		cr_expect_eq(cur.autorate, t[i].autorate, "%s + %s", t[i].cur, t[i].change);
		cr_expect_eq(cur.rate_bytes_per_sec, t[i].rate, "%s + %s", t[i].cur, t[i].change);
		if (!cur.autorate) {
			cr_expect_eq(cur.autorate_min, 0, "%s + %s", t[i].cur, t[i].change);
			cr_expect_eq(cur.autorate_max, 0, "%s + %s", t[i].cur, t[i].change);
		} else if (change.present & CAKE_OPT_AUTORATE_RANGE) {
			cr_expect_eq(cur.autorate_min, change.autorate_min, "%s", t[i].change);
			cr_expect_eq(cur.autorate_max, change.autorate_max, "%s", t[i].change);
			cr_expect_not(cur.autorate_ingress, "%s: one controller", t[i].change);
		} else {
			cr_expect_eq(cur.autorate_min, before.autorate_min, "%s", t[i].change);
			cr_expect_eq(cur.autorate_max, before.autorate_max, "%s", t[i].change);
		}
	}
}

Test(cake_parse, change_keeps_what_it_does_not_name)
{
	struct cake_options cur = parse_ok("bandwidth 20mbit autorate 2mbit 80mbit autorate-target 8ms"
					   " diffserv4");
	struct cake_options change = parse_ok("autorate 1mbit 10mbit");

	cake_options_merge_at(&cur, &change, MBIT(5));
	cr_expect_eq(cur.autorate_target_us, 8000);
	cr_expect_eq(cur.diffserv, CAKE_DIFFSERV_DIFFSERV4);
	change = parse_ok("autorate-target 3ms");
	cake_options_merge_at(&cur, &change, MBIT(5));
	cr_expect_eq(cur.autorate_target_us, 3000);
	cr_expect(cur.autorate);
	cr_expect_eq(cur.rate_bytes_per_sec, MBIT(5));
	cr_expect(cur.autorate_ingress == false);

	/* cake_options_merge takes the options' own rate as the rate in force. */
	cur = parse_ok("bandwidth 200mbit");
	change = parse_ok("autorate 2mbit 80mbit");
	cake_options_merge(&cur, &change);
	cr_expect_eq(cur.rate_bytes_per_sec, MBIT(80));
}
