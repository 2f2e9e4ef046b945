/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Autorate in tc's shapes: the option words on the options line (so that `Cake =`
 * round-trips), and the controller's state in the `tc -s` text and the JSON, printed
 * only when the owner filled cake_stats.has_autorate.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/cake_parse.h"
#include "qdisc/cake_print.h"

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

Test(cake_print_autorate, option_lines)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "bandwidth 20mbit autorate 2mbit 80mbit",
		  "bandwidth 20Mbit autorate 2Mbit 80Mbit diffserv3 triple-isolate nonat nowash "
		  "no-ack-filter split-gso rtt 100ms raw overhead 0" },
		{ "autorate 5mbit 200mbit ingress",
		  "autorate 5Mbit 200Mbit diffserv3 triple-isolate nonat nowash ingress "
		  "no-ack-filter split-gso rtt 100ms raw overhead 0" },
		{ "autorate 1234567bit 2mbit autorate-target 7.5ms",
		  "autorate 1234560bit 2Mbit autorate-target 7.5ms diffserv3 triple-isolate nonat "
		  "nowash no-ack-filter split-gso rtt 100ms raw overhead 0" },
		{ "autorate off",
		  "bandwidth unlimited diffserv3 triple-isolate nonat nowash no-ack-filter "
		  "split-gso rtt 100ms raw overhead 0" },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i].in);

		cr_expect_str_eq(options_text(&o), t[i].out, "%s", t[i].in);
	}
}

Test(cake_print_autorate, parse_print_parse)
{
	static const char *const t[] = {
		"bandwidth 20mbit autorate 2mbit 80mbit",
		"bandwidth 50mbit autorate 5mbit 200mbit ingress",
		"autorate 1bps 9007199254740992bit",
		"autorate 1234567bit 1234567bit",
		"autorate 3kibit 8mibit autorate-target 1ms",
		"autorate-target 12345us",
		"autorate-target 1s bandwidth 1mbit autorate 1mbit 1mbit diffserv4 ack-filter",
		"autorate off",
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_options o = parse_ok(t[i]), back;
		struct cake_parse_err err = { { 0 } };
		char first[1024];

		snprintf(first, sizeof(first), "%s", options_text(&o));
		cr_assert_eq(cake_options_parse(first, &back, &err), 0, "%s: `%s': %s", t[i], first,
			     err.msg);
		cr_expect(cake_options_equal(&o, &back), "%s: `%s' read back differently", t[i],
			  first);
		cr_expect_str_eq(options_text(&back), first, "%s: not stable", t[i]);
	}
}

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

static const char filled_lines[] =
	" capacity estimate: 18Mbit\n"
	" autorate 2Mbit - 80Mbit: rate 18Mbit, capacity seen 19Mbit\n"
	" autorate delay 3.1ms one-way (rtt baseline 40ms, target 5ms)\n"
	" autorate last change 1.2s ago: bloat, 42 changes, now hold-delay\n"
	" min/max network layer size:";

Test(cake_print_autorate, text_lines)
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

Test(cake_print_autorate, nothing_without_has_autorate)
{
	struct cake_options o = parse_ok("bandwidth 18mbit");
	struct cake_stats st, plain;
	struct cake_out out;
	char with[8192];

	filled(&st);
	st.has_autorate = false;
	memset(&plain, 0, sizeof(plain));
	plain.capacity_estimate = st.capacity_estimate;
	snprintf(with, sizeof(with), "%s", stats_text(&st));
	cr_expect_str_eq(with, stats_text(&plain));
	cr_expect_null(strstr(with, "autorate"));
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_json(&out, &o, &st), 0);
	cr_expect_null(strstr(text, "autorate"), "%s", text);
}

Test(cake_print_autorate, json)
{
	struct cake_options o = parse_ok("bandwidth 20mbit autorate 2mbit 80mbit autorate-target 5ms");
	struct cake_stats st;
	struct cake_out out;

	filled(&st);
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_json(&out, &o, &st), 0);
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
	o = parse_ok("autorate 2mbit 80mbit");
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_json(&out, &o, &st), 0);
	cr_expect(strstr(text, "{\"bandwidth\":\"autorate\",\"autorate_min\":250000,"
			       "\"autorate_max\":10000000,\"diffserv\""),
		  "%s", text);
}

Test(cake_print_autorate, qdisc_block_has_the_lines_once)
{
	struct cake_options o = parse_ok("bandwidth 20mbit autorate 2mbit 80mbit");
	struct cake_stats st;
	struct cake_out out;

	filled(&st);
	cake_out_init(&out, text, sizeof(text));
	cr_assert_eq(cake_print_qdisc(&out, &o, &st), 0);
	cr_expect_eq(strncmp(text, "bandwidth 20Mbit autorate 2Mbit 80Mbit diffserv3", 48), 0,
		     "%s", text);
	cr_expect(strstr(text, filled_lines), "%s", text);
}
