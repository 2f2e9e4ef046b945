/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg's autorate words in the tc-cake grammar: `autorate MIN MAX`, `autorate off`,
 * `autorate-target TIME`, their checks, and what a change (cake_options_merge) does
 * to a running instance.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
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

Test(cake_parse_autorate, range_and_start_rate)
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

Test(cake_parse_autorate, off_and_the_last_word_wins)
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

Test(cake_parse_autorate, target)
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
Test(cake_parse_autorate, errors)
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
		  "`autorate' conflicts with an unlimited rate (`unlimited' or `bandwidth 0')" },
		{ "unlimited autorate 2mbit 80mbit",
		  "`autorate' conflicts with an unlimited rate (`unlimited' or `bandwidth 0')" },
		{ "bandwidth 0kbit autorate 2mbit 80mbit",
		  "`autorate' conflicts with an unlimited rate (`unlimited' or `bandwidth 0kbit')" },
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
Test(cake_parse_autorate, ordering_rules_stay)
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

Test(cake_parse_autorate, argv_form)
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

Test(cake_parse_autorate, equal_knows_the_fields)
{
	static const char *const one_change[] = {
		"autorate 1mbit 2mbit", "autorate-target 9ms",
	};
	struct cake_options def, o, p;
	size_t i;

	cake_options_defaults(&def);
	for (i = 0; i < N_ELEMS(one_change); i++) {
		o = parse_ok(one_change[i]);
		cr_expect_not(cake_options_equal(&o, &def), "%s", one_change[i]);
	}
	o = parse_ok("autorate 1mbit 2mbit");
	p = parse_ok("autorate 1mbit 3mbit");
	cr_expect_not(cake_options_equal(&o, &p));
	p = parse_ok("autorate 2mbit 2mbit");
	cr_expect_not(cake_options_equal(&o, &p));
	o = parse_ok("autorate off");
	cr_expect(cake_options_equal(&o, &def), "autorate off is the default");
}

static struct cake_options merged(const char *cur_s, const char *change_s, uint64_t rate_now)
{
	struct cake_options cur = parse_ok(cur_s), change = parse_ok(change_s);

	cake_options_merge_at(&cur, &change, rate_now);
	return cur;
}

Test(cake_parse_autorate, change_turns_autorate_on)
{
	/* The rate in force, inside the range: the start. */
	struct cake_options o = merged("bandwidth 20mbit diffserv4", "autorate 2mbit 80mbit",
				       MBIT(20));

	cr_expect(o.autorate);
	cr_expect_eq(o.autorate_min, MBIT(2));
	cr_expect_eq(o.autorate_max, MBIT(80));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(20));
	cr_expect_eq(o.diffserv, CAKE_DIFFSERV_DIFFSERV4, "the rest stays");

	/* Outside: clamped to the nearer bound. */
	o = merged("bandwidth 200mbit", "autorate 2mbit 80mbit", MBIT(200));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(80));
	o = merged("bandwidth 1mbit", "autorate 2mbit 80mbit", MBIT(1));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(2));
	/* Unlimited before: the controller's default start. */
	o = merged("", "autorate 2mbit 80mbit", 0);
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	/* A bandwidth in the same change names the start. */
	o = merged("bandwidth 200mbit", "bandwidth 30mbit autorate 2mbit 80mbit", MBIT(200));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(30));
	/* autorate-ingress goes: one controller per rate. */
	o = merged("bandwidth 20mbit autorate-ingress", "autorate 2mbit 80mbit", MBIT(20));
	cr_expect(o.autorate);
	cr_expect_not(o.autorate_ingress);
	/* cake_options_merge uses the options' own rate. */
	o = parse_ok("bandwidth 200mbit");
	{
		struct cake_options c = parse_ok("autorate 2mbit 80mbit");

		cake_options_merge(&o, &c);
	}
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(80));
}

Test(cake_parse_autorate, change_of_a_running_controller)
{
	const char *ar = "bandwidth 20mbit autorate 2mbit 80mbit autorate-target 8ms";
	struct cake_options o;

	/* A new range restarts from the rate in force, clamped. */
	o = merged(ar, "autorate 1mbit 10mbit", MBIT(33));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(10));
	cr_expect_eq(o.autorate_max, MBIT(10));
	cr_expect_eq(o.autorate_target_us, 8000, "the target stays");
	o = merged(ar, "autorate 1mbit 100mbit", MBIT(33));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(33));

	/* A bandwidth alone is a new start rate, clamped into the range. */
	o = merged(ar, "bandwidth 40mbit", MBIT(33));
	cr_expect(o.autorate);
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(40));
	o = merged(ar, "bandwidth 400mbit", MBIT(33));
	cr_expect(o.autorate);
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(80));

	/* Other words leave autorate and its start alone. */
	o = merged(ar, "diffserv4 nat", MBIT(33));
	cr_expect(o.autorate);
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(20));
	o = merged(ar, "autorate-target 3ms", MBIT(33));
	cr_expect(o.autorate);
	cr_expect_eq(o.autorate_target_us, 3000);
}

Test(cake_parse_autorate, change_returns_to_a_fixed_shaper)
{
	const char *ar = "bandwidth 20mbit autorate 2mbit 80mbit";
	struct cake_options o;

	/* autorate off: fixed at the rate in force now. */
	o = merged(ar, "autorate off", MBIT(33));
	cr_expect_not(o.autorate);
	cr_expect_eq(o.autorate_min, 0);
	cr_expect_eq(o.autorate_max, 0);
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(33));
	/* ... unless the change names a bandwidth. */
	o = merged(ar, "autorate off bandwidth 10mbit", MBIT(33));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(10));
	o = merged(ar, "bandwidth 100mbit autorate off", MBIT(33));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(100), "no range to check once off");
	/* unlimited and autorate-ingress win over the instance's autorate. */
	o = merged(ar, "unlimited", MBIT(33));
	cr_expect_not(o.autorate);
	cr_expect_eq(o.rate_bytes_per_sec, 0);
	o = merged(ar, "bandwidth 0", MBIT(33));
	cr_expect_not(o.autorate);
	o = merged(ar, "autorate-ingress", MBIT(33));
	cr_expect_not(o.autorate);
	cr_expect(o.autorate_ingress);
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(33));
	/* autorate off on a fixed shaper changes nothing. */
	o = merged("bandwidth 20mbit", "autorate off", MBIT(20));
	cr_expect_eq(o.rate_bytes_per_sec, MBIT(20));
	cr_expect_not(o.autorate);
}
