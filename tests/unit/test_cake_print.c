/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tc's formats. Expected strings follow iproute2's code (lib/json_print.c
 * print_color_rate, lib/utils.c print_time, lib/json_print_math.c sprint_size,
 * tc/q_cake.c) and a real `tc -s qdisc show` capture of cake.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/cake_parse.h"
#include "qdisc/cake_print.h"
#include "tests/support/det_rng.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define MBIT(n) ((uint64_t)(n) * 125000u)

static char text[16384];

static struct cake_options parse_ok(const char *s)
{
	struct cake_parse_err err = { { 0 } };
	struct cake_options o;

	cr_assert_eq(cake_options_parse(s, &o, &err), 0, "`%s': %s", s, err.msg);
	return o;
}

static const char *options_text(const struct cake_options *o)
{
	struct cake_out out;

	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_options(&out, o), 0);
	return text;
}

Test(cake_print, rate_format)
{
	static const struct {
		uint64_t bytes;
		const char *s;
	} t[] = {
		{ 0, "0bit" },                { 1, "8bit" },
		{ 124, "992bit" },            { 125, "1Kbit" },
		{ 126, "1008bit" },           { 390625, "3125Kbit" },
		{ 6250000, "50Mbit" },        { 1562500, "12500Kbit" },
		{ 125000000, "1Gbit" },       { 154320, "1234Kbit" }, /* 1234560 bit, truncated */
		{ 1000001, "8Mbit" },         { 125000000000, "1Tbit" },
		{ 125000000000000, "1000Tbit" }, { 131072, "1048Kbit" },
		{ 128, "1024bit" },           { 12500000, "100Mbit" },
	};
	char b[CAKE_FMT_BYTES];
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++)
		cr_expect_str_eq(cake_fmt_rate(b, t[i].bytes), t[i].s, "%llu",
				 (unsigned long long)t[i].bytes);
}

Test(cake_print, time_format)
{
	static const struct {
		uint32_t us;
		const char *s;
	} t[] = {
		{ 0, "0us" },         { 999, "999us" },           { 1000, "1ms" },
		{ 5810, "5.81ms" },   { 10700, "10.7ms" },        { 7130, "7.13ms" },
		{ 1670, "1.67ms" },   { 100000, "100ms" },        { 100810, "101ms" },
		{ 12345, "12.3ms" },  { 1000000, "1s" },          { 1000000000, "1e+03s" },
		{ 999999, "1e+03ms" }, { 3600000000u, "3.6e+03s" }, { 1500, "1.5ms" },
	};
	char b[CAKE_FMT_BYTES];
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++)
		cr_expect_str_eq(cake_fmt_time(b, t[i].us), t[i].s, "%u", t[i].us);
}

Test(cake_print, size_format)
{
	static const struct {
		uint64_t bytes;
		const char *s;
	} t[] = {
		{ 0, "0b" },              { 1023, "1023b" },         { 1024, "1Kb" },
		{ 1030, "1Kb" },          { 1040, "1040b" },         { 4194304, "4Mb" },
		{ 169136, "169136b" },    { 1049576, "1Mb" },        { 1073741824, "1Gb" },
		{ 1536, "1536b" },        { 1264196608, "1.23457e+06Kb" },
		{ 32 << 20, "32Mb" },     { UINT64_C(5) << 30, "5Gb" },
	};
	char b[CAKE_FMT_BYTES];
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++)
		cr_expect_str_eq(cake_fmt_size(b, t[i].bytes), t[i].s, "%llu",
				 (unsigned long long)t[i].bytes);
}

Test(cake_print, option_lines)
{
	static const struct {
		const char *in;
		const char *out;
	} t[] = {
		{ "", "bandwidth unlimited diffserv3 triple-isolate nonat nowash no-ack-filter "
		      "split-gso rtt 100ms raw overhead 0" },
		{ "bandwidth 50mbit", "bandwidth 50Mbit diffserv3 triple-isolate nonat nowash "
				      "no-ack-filter split-gso rtt 100ms raw overhead 0" },
		{ "bandwidth 20mbit autorate-ingress diffserv4 dual-dsthost nat wash ingress "
		  "ack-filter-aggressive no-split-gso lan ethernet memlimit 32mb fwmark 0xff00",
		  "bandwidth 20Mbit autorate-ingress diffserv4 dual-dsthost nat wash ingress "
		  "ack-filter-aggressive no-split-gso rtt 1ms noatm overhead 38 mpu 84 "
		  "memlimit 32Mb fwmark 0xff00" },
		{ "peer-isolate ack-filter pppoe-vcmux", "bandwidth unlimited diffserv3 peer-isolate "
		  "nonat nowash ack-filter split-gso rtt 100ms atm overhead 32" },
		{ "raw ptm overhead -4 besteffort interplanetary", "bandwidth unlimited besteffort "
		  "triple-isolate nonat nowash no-ack-filter split-gso rtt 1e+03s raw ptm "
		  "overhead -4" },
		/* tc would print 1234Kbit, 12.3ms and 1Kb: values that would not read back. */
		{ "bandwidth 1234567bit rtt 12345us memlimit 1030 precedence",
		  "bandwidth 1234560bit precedence triple-isolate nonat nowash no-ack-filter "
		  "split-gso rtt 12345us raw overhead 0 memlimit 1030b" },
		/* autorate: no bandwidth word without a start rate; exact bounds. */
		{ "bandwidth 20mbit autorate 2mbit 80mbit",
		  "bandwidth 20Mbit autorate 2Mbit 80Mbit diffserv3 triple-isolate nonat nowash "
		  "no-ack-filter split-gso rtt 100ms raw overhead 0" },
		{ "autorate 5mbit 200mbit ingress",
		  "autorate 5Mbit 200Mbit diffserv3 triple-isolate nonat nowash ingress "
		  "no-ack-filter split-gso rtt 100ms raw overhead 0" },
		{ "autorate 1234567bit 2mbit autorate-target 7.5ms",
		  "autorate 1234560bit 2Mbit autorate-target 7.5ms diffserv3 triple-isolate nonat "
		  "nowash no-ack-filter split-gso rtt 100ms raw overhead 0" },
		{ "autorate off", "bandwidth unlimited diffserv3 triple-isolate nonat nowash "
				  "no-ack-filter split-gso rtt 100ms raw overhead 0" },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].in);

		cr_expect_str_eq(options_text(&o), t[i].out, "%s", t[i].in);
	}
}

static void expect_round_trip(const struct cake_options *o, const char *what)
{
	struct cake_parse_err err = { { 0 } };
	struct cake_options back;
	char first[1024];

	snprintf(first, sizeof(first), "%s", options_text(o));
	cr_assert_eq(cake_options_parse(first, &back, &err), 0, "%s: `%s': %s", what, first,
		     err.msg);
	cr_expect(cake_options_equal(o, &back), "%s: `%s' read back differently", what, first);
	cr_expect_str_eq(options_text(&back), first, "%s: not stable", what);
}

Test(cake_print, every_keyword_round_trips)
{
	static const char *const t[] = {
		"", "bandwidth 50mbit", "bandwidth 1bps", "bandwidth 1234567bit",
		"bandwidth 8000008bit", "bandwidth 9007199254740992bit", "bandwidth 3kibit",
		"unlimited", "autorate-ingress", "bandwidth 10mbit autorate-ingress",
		"rtt 1", "rtt 12345us", "rtt 4294967295us", "rtt 5.81ms",
		"datacentre", "lan", "metro", "regional", "internet", "oceanic", "satellite",
		"interplanetary", "besteffort", "precedence", "diffserv8", "diffserv4", "diffserv",
		"diffserv3", "flowblind", "srchost", "dsthost", "hosts", "flows", "dual-srchost",
		"dual-dsthost", "triple-isolate", "peer-isolate", "nat", "nonat", "wash", "nowash",
		"ingress", "egress", "ack-filter", "ack-filter-aggressive", "no-ack-filter",
		"split-gso", "no-split-gso", "memlimit 1", "memlimit 1030", "memlimit 4mb",
		"memlimit 1234567kb", "memlimit 4294967295", "fwmark 1", "fwmark 0xffffffff",
		"overhead -64", "overhead 256", "mpu 256", "mpu 1", "atm", "ptm", "noatm", "raw",
		"conservative", "ipoa-vcmux", "ipoa-llcsnap", "bridged-vcmux", "bridged-llcsnap",
		"pppoa-vcmux", "pppoa-llc", "pppoe-vcmux", "pppoe-llcsnap", "pppoe-ptm",
		"bridged-ptm", "via-ethernet", "ethernet", "ether-vlan", "ethernet ether-vlan",
		"docsis", "raw ethernet", "raw atm overhead 10", "raw ptm", "atm ethernet mpu 0",
		"ethernet raw", "bandwidth 20mbit autorate 2mbit 80mbit",
		"bandwidth 50mbit autorate 5mbit 200mbit ingress", "autorate 1bps 9007199254740992bit",
		"autorate 1234567bit 1234567bit", "autorate 3kibit 8mibit autorate-target 1ms",
		"autorate-target 12345us", "autorate off",
		"autorate-target 1s bandwidth 1mbit autorate 1mbit 1mbit diffserv4 ack-filter",
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i]);

		expect_round_trip(&o, t[i]);
	}
}

static uint64_t below(struct det_rng *r, uint64_t n)
{
	return det_rng_next(r) % n;
}

/* Any consistent configuration prints as text that reads back as itself. */
Test(cake_print, random_options_round_trip)
{
	struct det_rng r = { .state = 0xcafe };
	int i;

	for (i = 0; i < 3000; i++) {
		struct cake_options o;

		cake_options_defaults(&o);
		o.rate_bytes_per_sec = below(&r, 4) ? below(&r, CAKE_RATE_MAX_BYTES_PER_SEC + 1) :
						      below(&r, 100000);
		o.autorate_ingress = below(&r, 2);
		o.rtt_us = below(&r, 2) ? 1 + below(&r, UINT32_MAX) : 1 + below(&r, 2000000);
		o.target_us = o.rtt_us / 20 ? o.rtt_us / 20 : 1;
		o.diffserv = below(&r, 5);
		o.flow_mode = below(&r, 8);
		o.peer_isolation = !below(&r, 8);
		if (o.peer_isolation)
			o.flow_mode = CAKE_FLOW_TRIPLE;
		o.nat = below(&r, 2);
		o.wash = below(&r, 2);
		o.ingress = below(&r, 2);
		o.ack_filter = below(&r, 3);
		o.split_gso = below(&r, 2);
		o.raw = below(&r, 2);
		o.overhead = (int32_t)below(&r, 321) - 64;
		o.mpu = below(&r, 3) ? 0 : below(&r, 257);
		o.atm = below(&r, 3);
		o.memlimit_bytes = below(&r, 2) ? 0 : below(&r, UINT64_C(1) << 32);
		o.fwmark_mask = below(&r, 2) ? 0 : (uint32_t)det_rng_next(&r);
		expect_round_trip(&o, "random");
	}
}

/* A real capture, /work/shared/reference-tc-cake-stats.txt, without its first line's
 * "qdisc cake 8001: root refcnt 2 " (the endpoint prints that) and without the one
 * extra newline the capture ends with: tc/tc_qdisc.c print_qdisc() ends the block
 * with a single print_nl() after the tin table's own newline. */
static const char tc_sample[] =
	"bandwidth 50Mbit diffserv3 triple-isolate nonat nowash no-ack-filter split-gso "
	"rtt 100ms raw overhead 0 \n"
	" Sent 31051194 bytes 20531 pkt (dropped 4, overlimits 12611 requeues 0) \n"
	" backlog 0b 0p requeues 0\n"
	" memory used: 169136b of 4Mb\n"
	" capacity estimate: 50Mbit\n"
	" min/max network layer size:           66 /    1514\n"
	" min/max overhead-adjusted size:       66 /    1514\n"
	" average network hdr offset:           14\n"
	"\n"
	"                   Bulk  Best Effort        Voice\n"
	"  thresh       3125Kbit       50Mbit    12500Kbit\n"
	"  target         5.81ms          5ms          5ms\n"
	"  interval        101ms        100ms        100ms\n"
	"  pk_delay          0us       10.7ms          0us\n"
	"  av_delay          0us       7.13ms          0us\n"
	"  sp_delay          0us       1.67ms          0us\n"
	"  backlog            0b           0b           0b\n"
	"  pkts                0        20535            0\n"
	"  bytes               0     31057250            0\n"
	"  way_inds            0            0            0\n"
	"  way_miss            0            3            0\n"
	"  way_cols            0            0            0\n"
	"  drops               0            4            0\n"
	"  marks               0            0            0\n"
	"  ack_drop            0            0            0\n"
	"  sp_flows            0            1            0\n"
	"  bk_flows            0            1            0\n"
	"  un_flows            0            0            0\n"
	"  max_len             0        49962            0\n"
	"  quantum           300         1514          381\n"
	"\n";

/* The numbers behind the capture; each column is Bulk, Best Effort, Voice. */
static void sample_stats(struct cake_stats *st)
{
	static const struct cake_tin_stats bulk = {
		.threshold_rate = 390625, .target_us = 5810, .interval_us = 100810,
		.flow_quantum = 300,
	};
	static const struct cake_tin_stats be = {
		.threshold_rate = 6250000, .sent_bytes = 31057250, .target_us = 5000,
		.interval_us = 100000, .peak_delay_us = 10700, .avg_delay_us = 7130,
		.base_delay_us = 1670, .sent_packets = 20535, .way_misses = 3, .drops = 4,
		.sparse_flows = 1, .bulk_flows = 1, .max_pkt_len = 49962, .flow_quantum = 1514,
	};
	static const struct cake_tin_stats voice = {
		.threshold_rate = 1562500, .target_us = 5000, .interval_us = 100000,
		.flow_quantum = 381,
	};

	memset(st, 0, sizeof(*st));
	st->sent_bytes = 31051194;
	st->sent_packets = 20531;
	st->dropped = 4;
	st->overlimits = 12611;
	st->memory_used = 169136;
	st->memory_limit = 4 << 20;
	st->capacity_estimate = 6250000;
	st->min_network_size = 66;
	st->max_network_size = 1514;
	st->min_adj_size = 66;
	st->max_adj_size = 1514;
	st->avg_hdr_offset = 14;
	st->diffserv = CAKE_DIFFSERV_DIFFSERV3;
	st->tin_count = 3;
	st->tins[0] = bulk;
	st->tins[1] = be;
	st->tins[2] = voice;
}

Test(cake_print, reproduces_tc_sample)
{
	struct cake_options o = parse_ok("bandwidth 50mbit");
	struct cake_stats st;
	struct cake_out out;

	sample_stats(&st);
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_qdisc(&out, &o, &st), 0);
	cr_expect_str_eq(text, tc_sample);
	cr_expect_eq(out.len, strlen(tc_sample));

	/* The stats alone start at " Sent". */
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_stats(&out, &st), 0);
	cr_expect_str_eq(text, strstr(tc_sample, " Sent"));
}

static const char *header_line(uint32_t tins)
{
	static char line[256];
	struct cake_stats st;
	struct cake_out out;
	const char *h, *end;

	sample_stats(&st);
	st.tin_count = tins;
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_stats(&out, &st), 0);
	h = strstr(text, "\n\n") + 2;
	end = strchr(h, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(end - h), h);
	return line;
}

Test(cake_print, tin_headers_follow_the_tin_count)
{
	cr_expect_str_eq(header_line(3), "                   Bulk  Best Effort        Voice");
	cr_expect_str_eq(header_line(4),
			 "                   Bulk  Best Effort        Video        Voice");
	cr_expect_str_eq(header_line(1), "                  Tin 0");
	cr_expect_str_eq(header_line(8), "                  Tin 0        Tin 1        Tin 2"
					 "        Tin 3        Tin 4        Tin 5        Tin 6"
					 "        Tin 7");
	/* More than the kernel's 8 is clamped, not read past the array. */
	cr_expect_str_eq(header_line(9), header_line(8));
}

Test(cake_print, no_tins_no_table)
{
	struct cake_stats st;
	struct cake_out out;

	sample_stats(&st);
	st.tin_count = 0;
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_stats(&out, &st), 0);
	cr_expect_null(strstr(text, "thresh"));
	cr_expect(strstr(text, "offset:           14\n\n\n") != NULL);
}

Test(cake_print, rows_line_up_for_eight_tins)
{
	struct cake_stats st;
	struct cake_out out;
	char *line, *save = NULL;
	int rows = 0;

	sample_stats(&st);
	st.tin_count = 8;
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_stats(&out, &st), 0);
	for (line = strtok_r(strstr(text, "\n\n") + 2, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), rows++)
		cr_expect_eq(strlen(line), 10 + 8 * 13, "`%s'", line);
	cr_expect_eq(rows, 21, "header and 20 rows");
}

Test(cake_print, out_truncates_like_snprintf)
{
	struct cake_options o = parse_ok("bandwidth 50mbit");
	char full[512], small[40];
	struct cake_out out;
	size_t need;

	cake_out_init(&out, full, sizeof(full));
	cr_assert_eq(cake_print_options(&out, &o), 0);
	need = out.len;
	cr_assert_eq(need, strlen(full));

	cake_out_init(&out, small, sizeof(small));
	cr_expect_eq(cake_print_options(&out, &o), -ENOSPC);
	cr_expect_eq(out.len, need);
	cr_expect_eq(strlen(small), sizeof(small) - 1);
	cr_expect_eq(strncmp(small, full, sizeof(small) - 1), 0);

	cake_out_init(&out, small, 0);
	cr_expect_eq(cake_print_options(&out, &o), -ENOSPC);
	cake_out_init(&out, NULL, 0);
	cr_expect_eq(cake_print_options(&out, &o), -ENOSPC);
	cr_expect_eq(out.len, need);

	cake_out_init(&out, text, need + 1);
	cr_expect_eq(cake_print_options(&out, &o), 0);
	cr_expect_str_eq(text, full);
	cake_out_init(&out, text, need);
	cr_expect_eq(cake_print_options(&out, &o), -ENOSPC);
	cr_expect_eq(strlen(text), need - 1);
}

/* A small JSON checker: RFC 8259 values without string escapes beyond \" and \\. */
static bool json_value(const char **p);

static void ws(const char **p)
{
	while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
		(*p)++;
}

static bool json_string(const char **p)
{
	if (**p != '"')
		return false;
	for ((*p)++; **p && **p != '"'; (*p)++)
		if (**p == '\\' && !*++*p)
			return false;
	return *(*p)++ == '"';
}

static bool json_number(const char **p)
{
	const char *s = *p;

	if (**p == '-')
		(*p)++;
	if (!isdigit((unsigned char)**p) || (**p == '0' && isdigit((unsigned char)(*p)[1])))
		return false;
	while (isdigit((unsigned char)**p))
		(*p)++;
	return *p > s;
}

static bool json_list(const char **p, char close, bool members)
{
	(*p)++;
	ws(p);
	if (**p == close)
		return (*p)++, true;
	for (;;) {
		if (members) {
			if (!json_string(p))
				return false;
			ws(p);
			if (*(*p)++ != ':')
				return false;
		}
		if (!json_value(p))
			return false;
		ws(p);
		if (**p == close)
			return (*p)++, true;
		if (*(*p)++ != ',')
			return false;
	}
}

static bool json_value(const char **p)
{
	ws(p);
	switch (**p) {
	case '{':
		return json_list(p, '}', true);
	case '[':
		return json_list(p, ']', false);
	case '"':
		return json_string(p);
	case 't':
		return !strncmp(*p, "true", 4) && (*p += 4);
	case 'f':
		return !strncmp(*p, "false", 5) && (*p += 5);
	default:
		return json_number(p);
	}
}

static bool json_ok(const char *s)
{
	if (!json_value(&s))
		return false;
	ws(&s);
	return !*s;
}

Test(cake_print, json_checker_rejects_bad_json)
{
	static const char *const bad[] = { "{", "{\"a\":}", "{\"a\":1,}", "[1 2]", "{a:1}",
					   "\"x", "01", "{\"a\":1}}", "tru", "" };
	size_t i;

	for (i = 0; i < N_ELEMS(bad); i++)
		cr_expect_not(json_ok(bad[i]), "%s", bad[i]);
	cr_expect(json_ok("{\"a\":[1,-2,{\"b\":true}],\"c\":\"d\\\"\",\"e\":false}"));
}

/* tc -j -s qdisc show for the capture's numbers, key by key from q_cake.c and
 * tc_util.c (print_tcstats2_attr), after the handle/dev members tc puts first. */
static const char tc_sample_json[] =
	"{\"kind\":\"cake\",\"options\":{\"bandwidth\":6250000,\"diffserv\":\"diffserv3\","
	"\"flowmode\":\"triple-isolate\",\"nat\":false,\"wash\":false,\"ingress\":false,"
	"\"ack-filter\":\"disabled\",\"split_gso\":true,\"rtt\":100000,\"raw\":true,"
	"\"overhead\":0,\"fwmark\":\"0\"},\"bytes\":31051194,\"packets\":20531,\"drops\":4,"
	"\"overlimits\":12611,\"requeues\":0,\"backlog\":0,\"qlen\":0,\"memory_used\":169136,"
	"\"memory_limit\":4194304,\"capacity_estimate\":6250000,\"min_network_size\":66,"
	"\"max_network_size\":1514,\"min_adj_size\":66,\"max_adj_size\":1514,"
	"\"avg_hdr_offset\":14,\"tins\":["
	"{\"threshold_rate\":390625,\"sent_bytes\":0,\"backlog_bytes\":0,\"target_us\":5810,"
	"\"interval_us\":100810,\"peak_delay_us\":0,\"avg_delay_us\":0,\"base_delay_us\":0,"
	"\"sent_packets\":0,\"way_indirect_hits\":0,\"way_misses\":0,\"way_collisions\":0,"
	"\"drops\":0,\"ecn_mark\":0,\"ack_drops\":0,\"sparse_flows\":0,\"bulk_flows\":0,"
	"\"unresponsive_flows\":0,\"max_pkt_len\":0,\"flow_quantum\":300},"
	"{\"threshold_rate\":6250000,\"sent_bytes\":31057250,\"backlog_bytes\":0,"
	"\"target_us\":5000,\"interval_us\":100000,\"peak_delay_us\":10700,"
	"\"avg_delay_us\":7130,\"base_delay_us\":1670,\"sent_packets\":20535,"
	"\"way_indirect_hits\":0,\"way_misses\":3,\"way_collisions\":0,\"drops\":4,"
	"\"ecn_mark\":0,\"ack_drops\":0,\"sparse_flows\":1,\"bulk_flows\":1,"
	"\"unresponsive_flows\":0,\"max_pkt_len\":49962,\"flow_quantum\":1514},"
	"{\"threshold_rate\":1562500,\"sent_bytes\":0,\"backlog_bytes\":0,\"target_us\":5000,"
	"\"interval_us\":100000,\"peak_delay_us\":0,\"avg_delay_us\":0,\"base_delay_us\":0,"
	"\"sent_packets\":0,\"way_indirect_hits\":0,\"way_misses\":0,\"way_collisions\":0,"
	"\"drops\":0,\"ecn_mark\":0,\"ack_drops\":0,\"sparse_flows\":0,\"bulk_flows\":0,"
	"\"unresponsive_flows\":0,\"max_pkt_len\":0,\"flow_quantum\":381}]}";

Test(cake_print, json_of_the_sample)
{
	struct cake_options o = parse_ok("bandwidth 50mbit");
	struct cake_stats st;
	struct cake_out out;

	sample_stats(&st);
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_json(&out, &o, &st), 0);
	cr_expect_str_eq(text, tc_sample_json);
	cr_expect(json_ok(text));
}

Test(cake_print, json_options_keys)
{
	static const struct {
		const char *in;
		const char *has;
	} t[] = {
		{ "autorate-ingress", "\"autorate\":\"autorate-ingress\"," },
		{ "ack-filter", "\"ack-filter\":\"enabled\"" },
		{ "ack-filter-aggressive", "\"ack-filter\":\"aggressive\"" },
		{ "ethernet", "\"raw\":false,\"atm\":\"noatm\",\"overhead\":38,\"mpu\":84," },
		{ "raw atm", "\"raw\":true,\"atm\":\"atm\",\"overhead\":0," },
		{ "pppoe-ptm", "\"atm\":\"ptm\",\"overhead\":30," },
		{ "memlimit 4mb fwmark 0x10", "\"memlimit\":4194304,\"fwmark\":\"0x10\"}" },
		{ "peer-isolate", "\"flowmode\":\"peer-isolate\"" },
		{ "lan no-split-gso", "\"split_gso\":false,\"rtt\":1000," },
		{ "nat wash ingress", "\"nat\":true,\"wash\":true,\"ingress\":true," },
		{ "bandwidth 1gbit besteffort", "{\"bandwidth\":125000000,\"diffserv\":\"besteffort\"" },
	};
	struct cake_stats st;
	size_t i;

	sample_stats(&st);
	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].in);
		struct cake_out out;

		cake_out_init(&out, text, sizeof(text));
		cr_assert_eq(cake_print_json(&out, &o, &st), 0);
		cr_expect(strstr(text, t[i].has) != NULL, "%s: no %s in %s", t[i].in, t[i].has,
			  text);
		cr_expect(json_ok(text), "%s", t[i].in);
	}
}

Test(cake_print, json_for_every_tin_count)
{
	struct cake_options o = parse_ok("");
	struct cake_stats st;
	uint32_t n;

	sample_stats(&st);
	for (n = 0; n <= CAKE_STATS_MAX_TINS; n++) {
		struct cake_out out;
		const char *p = text;
		uint32_t objs = 0;

		st.tin_count = n;
		cake_out_init(&out, text, sizeof(text));
		cr_assert_eq(cake_print_json(&out, &o, &st), 0);
		cr_expect(json_ok(text), "%u tins", n);
		while ((p = strstr(p, "\"threshold_rate\"")))
			p++, objs++;
		cr_expect_eq(objs, n);
		cr_expect_eq(strstr(text, "\"tins\"") != NULL, n > 0);
	}
}

Test(cake_print, json_members_nest_in_callers_object)
{
	struct cake_options o = parse_ok("");
	struct cake_stats st;
	struct cake_out out;

	sample_stats(&st);
	cake_out_init(&out, text, sizeof(text));
	cake_out_printf(&out, "[{\"handle\":\"8001:\",\"dev\":\"wg0\",");
	cr_assert_eq(cake_print_json_members(&out, &o, &st), 0);
	cake_out_printf(&out, "}]");
	cr_expect(json_ok(text), "%s", text);
}

/* Hand-made structs with values outside the enums print tc's placeholders. */
Test(cake_print, unknown_modes_do_not_crash)
{
	struct cake_options o;
	struct cake_stats st;
	struct cake_out out;

	cake_options_defaults(&o);
	o.diffserv = (enum cake_diffserv_mode)99;
	o.flow_mode = (enum cake_flow_mode)42;
	cr_expect(strstr(options_text(&o), "(?diffserv?) (?flowmode?)") != NULL);
	sample_stats(&st);
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_json(&out, &o, &st), 0);
	cr_expect(json_ok(text));
	cr_expect(strstr(text, "\"diffserv\":\"unknown\",\"flowmode\":\"unknown\"") != NULL);
}

/* autorate MIN MAX: the controller's state, when the owner filled has_autorate. */
static void filled(struct cake_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->capacity_estimate = MBIT(18);
	st->has_autorate = true;
	st->autorate = (struct cake_autorate_status){
		.min_rate = MBIT(2),
		.max_rate = MBIT(80),
		.rate = MBIT(18),
		.capacity = MBIT(19),
		.target_us = 5000,
		.baseline_us = 40000,
		.delay_us = 3100,
		.last_change_ns = 123,
		.reason = CAKE_AUTORATE_BLOAT,
		.action = CAKE_AUTORATE_HOLD_DELAY,
		.changes = 42,
	};
	st->autorate_age_ns = 1200000000;
}

static const char *stats_text(const struct cake_stats *st)
{
	struct cake_out out;

	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_stats(&out, st), 0);
	return text;
}

typedef int print_fn(struct cake_out *out, const struct cake_options *opts,
		      const struct cake_stats *st);

static const char *printed(print_fn *fn, const char *options, const struct cake_stats *st)
{
	struct cake_options o = parse_ok(options);
	struct cake_out out;

	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(fn(&out, &o, st), 0);
	return text;
}

static const char filled_lines[] =
	" capacity estimate: 18Mbit\n"
	" autorate 2Mbit - 80Mbit: rate 18Mbit, capacity seen 19Mbit\n"
	" autorate delay 3.1ms one-way (rtt baseline 40ms, target 5ms)\n"
	" autorate last change 1.2s ago: bloat, 42 changes, now hold-delay\n"
	" min/max network layer size:";

Test(cake_print, text_lines)
{
	struct cake_stats st;

	filled(&st);
	cr_expect(strstr(stats_text(&st), filled_lines), "%s", text);

	/* Unknowns, the RTT as the delay, an age beyond what a u32 of us holds. */
	st.autorate.capacity = 0;
	st.autorate.baseline_us = 0;
	st.autorate.delay_from_rtt = true;
	st.autorate.reason = CAKE_AUTORATE_START;
	st.autorate.action = CAKE_AUTORATE_HOLD_IDLE;
	st.autorate_age_ns = UINT64_MAX;
	stats_text(&st);
	cr_expect(strstr(text, ": rate 18Mbit, capacity seen unknown\n"), "%s", text);
	cr_expect(strstr(text, " autorate delay 3.1ms rtt (rtt baseline unknown, target 5ms)\n"),
		  "%s", text);
	cr_expect(strstr(text, " autorate last change 4.29e+03s ago: start, 42 changes, "
			       "now hold-idle\n"),
		  "%s", text);
}

Test(cake_print, nothing_without_has_autorate)
{
	struct cake_stats st, plain;
	char with[8192];

	filled(&st);
	st.has_autorate = false;
	memset(&plain, 0, sizeof(plain));
	plain.capacity_estimate = st.capacity_estimate;
	snprintf(with, sizeof(with), "%s", stats_text(&st));
	cr_expect_str_eq(with, stats_text(&plain));
	cr_expect_null(strstr(with, "autorate"));
	cr_expect_null(strstr(printed(cake_print_json, "bandwidth 18mbit", &st), "autorate"), "%s",
		       text);
}

Test(cake_print, json_of_autorate)
{
	struct cake_stats st;

	filled(&st);
	printed(cake_print_json, "bandwidth 20mbit autorate 2mbit 80mbit autorate-target 5ms", &st);
	cr_expect(json_ok(text), "%s", text);
	cr_expect(strstr(text, "{\"bandwidth\":2500000,\"autorate_min\":250000,"
			       "\"autorate_max\":10000000,\"autorate_target\":5000,"
			       "\"diffserv\":\"diffserv3\""),
		  "%s", text);
	cr_expect(strstr(text, ",\"avg_hdr_offset\":0,\"autorate\":{\"min_rate\":250000,"
			       "\"max_rate\":10000000,\"rate\":2250000,\"capacity\":2375000,"
			       "\"target_us\":5000,\"baseline_us\":40000,\"delay_us\":3100,"
			       "\"delay_from_rtt\":false,\"last_change_age_ns\":1200000000,"
			       "\"reason\":\"bloat\",\"action\":\"hold-delay\",\"changes\":42}"),
		  "%s", text);

	/* Without a start rate the options say so, not "unlimited". */
	printed(cake_print_json, "autorate 2mbit 80mbit", &st);
	cr_expect(json_ok(text), "%s", text);
	cr_expect(strstr(text, "{\"bandwidth\":\"autorate\",\"autorate_min\":250000,"
			       "\"autorate_max\":10000000,\"diffserv\""),
		  "%s", text);
}

Test(cake_print, qdisc_block_with_autorate)
{
	struct cake_stats st;

	filled(&st);
	printed(cake_print_qdisc, "bandwidth 20mbit autorate 2mbit 80mbit", &st);
	cr_expect_eq(strncmp(text, "bandwidth 20Mbit autorate 2Mbit 80Mbit diffserv3", 48), 0,
		     "%s", text);
	cr_expect(strstr(text, filled_lines), "%s", text);
}
