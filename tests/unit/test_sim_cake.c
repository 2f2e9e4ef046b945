/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CAKE simulator: its flow-line parser, and runs whose outcome follows from the
 * setup (a shaper delivers its rate, fair queueing shares it, sparse flows see no
 * queue, ECN marks replace drops, tins take what their DSCP says).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/sim/cake_sim.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define SEC UINT64_C(1000000000)
#define MS UINT64_C(1000000)

static struct cake_sim_flow_spec flow(const char *spec)
{
	struct cake_parse_err err = { { 0 } };
	struct cake_sim_flow_spec f;

	cr_assert_eq(cake_sim_flow_parse(spec, &f, &err), 0, "`%s': %s", spec, err.msg);
	return f;
}

static struct cake_options cake(const char *s)
{
	struct cake_options o;

	cr_assert_eq(cake_options_parse(s, &o, NULL), 0, "%s", s);
	return o;
}

/* Run `flows` under `opts` for dur_s seconds, measuring after warm_s. */
static struct cake_sim_result run(const char *opts, const char *const *flows, size_t n,
				  uint64_t dur_s, uint64_t warm_s)
{
	struct cake_sim_flow_spec specs[16];
	struct cake_sim_config cfg = {
		.duration_ns = dur_s * SEC, .warmup_ns = warm_s * SEC, .seed = 7,
		.flows = specs, .nflows = (uint32_t)n,
	};
	struct cake_sim_result res;
	size_t i;

	cr_assert_leq(n, N_ELEMS(specs));
	for (i = 0; i < n; i++)
		specs[i] = flow(flows[i]);
	cfg.cake = cake(opts);
	cr_assert_eq(cake_sim_run(&cfg, &res), 0);
	return res;
}

static double mbit(const struct cake_sim_result *r, uint32_t i)
{
	return (double)r->flows[i].delivered_bytes * 8 * 1000 / (double)r->measured_ns;
}

static double total_mbit(const struct cake_sim_result *r)
{
	double t = 0;
	uint32_t i;

	for (i = 0; i < r->nflows; i++)
		t += mbit(r, i);
	return t;
}

Test(sim_spec, defaults_per_kind)
{
	struct cake_sim_flow_spec f;

	f = flow("tcp");
	cr_expect_eq(f.kind, CAKE_SIM_TCP);
	cr_expect_eq(f.size_bytes, 1500);
	cr_expect_eq(f.cc, CAKE_SIM_CUBIC);
	cr_expect_eq(f.rtt_ns, 20 * MS);
	cr_expect_eq(f.host, 1);
	cr_expect_eq(f.peer, 1);
	cr_expect_eq(f.count, 1);
	cr_expect_not(f.ecn);
	f = flow("udp");
	cr_expect_eq(f.rate_bytes_per_sec, 1250000);
	cr_expect_eq(f.size_bytes, 1200);
	cr_expect_eq(f.burst, 1);
	f = flow("ping");
	cr_expect_eq(f.size_bytes, 84);
	cr_expect_eq(f.interval_ns, 100 * MS);
}

Test(sim_spec, keys)
{
	struct cake_sim_flow_spec f;

	f = flow("tcp,host=3,dst=9,dscp=EF,ecn,cc=reno,size=1.5kb,rtt=40ms,start=1s,stop=5s,count=4");
	cr_expect_eq(f.host, 3);
	cr_expect_eq(f.dst, 9);
	cr_expect_eq(f.peer, 3, "peer follows host unless given");
	cr_expect_eq(f.dscp, 46);
	cr_expect(f.ecn);
	cr_expect_eq(f.cc, CAKE_SIM_RENO);
	cr_expect_eq(f.size_bytes, 1536);
	cr_expect_eq(f.rtt_ns, 40 * MS);
	cr_expect_eq(f.start_ns, SEC);
	cr_expect_eq(f.stop_ns, 5 * SEC);
	cr_expect_eq(f.count, 4);
	f = flow("udp,rate=60mbit,burst=8,dscp=10,peer=2,host=5,ecn=0");
	cr_expect_eq(f.rate_bytes_per_sec, 7500000);
	cr_expect_eq(f.burst, 8);
	cr_expect_eq(f.dscp, 10);
	cr_expect_eq(f.peer, 2);
	cr_expect_not(f.ecn);
	f = flow("ping,interval=20ms");
	cr_expect_eq(f.interval_ns, 20 * MS);
}

Test(sim_spec, dscp_names)
{
	static const struct {
		const char *name;
		uint8_t dscp;
	} t[] = {
		{ "BE", 0 },    { "LE", 1 },    { "CS1", 8 },   { "CS2", 16 },  { "CS3", 24 },
		{ "CS4", 32 },  { "CS5", 40 },  { "CS6", 48 },  { "CS7", 56 },  { "AF11", 10 },
		{ "AF12", 12 }, { "AF13", 14 }, { "AF21", 18 }, { "AF22", 20 }, { "AF23", 22 },
		{ "AF31", 26 }, { "AF32", 28 }, { "AF33", 30 }, { "AF41", 34 }, { "AF42", 36 },
		{ "AF43", 38 }, { "VA", 44 },   { "EF", 46 },   { "63", 63 },
	};
	char spec[32];
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		snprintf(spec, sizeof(spec), "tcp,dscp=%s", t[i].name);
		cr_expect_eq(flow(spec).dscp, t[i].dscp, "%s", t[i].name);
	}
}

Test(sim_spec, errors)
{
	static const struct {
		const char *spec;
		const char *msg;
	} t[] = {
		{ "", "Invalid flow kind `' (tcp, udp or ping)" },
		{ "sctp", "Invalid flow kind `sctp' (tcp, udp or ping)" },
		{ "tcp,colour=red", "Invalid flow key `colour'" },
		{ "tcp,host", "`host' needs a value" },
		{ "tcp,host=-1", "Unable to parse host `-1'" },
		{ "tcp,dscp=64", "Unable to parse dscp `64'" },
		{ "tcp,dscp=ef", "Unable to parse dscp `ef'" },
		{ "tcp,cc=bbr", "Unable to parse cc `bbr'" },
		{ "tcp,ecn=maybe", "Unable to parse ecn `maybe'" },
		{ "tcp,size=10", "Unable to parse size `10'" },
		{ "tcp,size=65536", "Unable to parse size `65536'" },
		{ "udp,rate=0", "Unable to parse rate `0'" },
		{ "udp,rate=fast", "Unable to parse rate `fast'" },
		{ "udp,burst=0", "Unable to parse burst `0'" },
		{ "ping,interval=0", "Unable to parse interval `0'" },
		{ "tcp,rtt=1h", "Unable to parse rtt `1h'" },
		{ "tcp,count=0", "Unable to parse count `0'" },
		{ "tcp,count=1025", "Unable to parse count `1025'" },
		{ "tcp,start=5s,stop=2s", "Flow stops before it starts" },
	};
	size_t i;

	for (i = 0; i < N_ELEMS(t); i++) {
		struct cake_parse_err err = { { 0 } };
		struct cake_sim_flow_spec f;

		cr_expect_eq(cake_sim_flow_parse(t[i].spec, &f, &err), -EINVAL, "%s", t[i].spec);
		cr_expect_str_eq(err.msg, t[i].msg, "%s", t[i].spec);
	}
}

Test(sim_run, rejects_what_cannot_run)
{
	struct cake_sim_flow_spec tcp = flow("tcp");
	struct cake_sim_config ok = { .cake = cake("bandwidth 10mbit"), .duration_ns = SEC,
				      .flows = &tcp, .nflows = 1 };
	struct cake_sim_config c;
	struct cake_sim_result r;

	c = ok;
	c.nflows = 0;
	cr_expect_eq(cake_sim_run(&c, &r), -EINVAL, "no flows");
	c = ok;
	c.cake = cake("");
	cr_expect_eq(cake_sim_run(&c, &r), -EINVAL, "nothing limits the rate");
	c.link_bytes_per_sec = 1000000;
	cr_assert_eq(cake_sim_run(&c, &r), 0, "a link rate is enough");
	cake_sim_result_free(&r);
	c = ok;
	c.warmup_ns = SEC;
	cr_expect_eq(cake_sim_run(&c, &r), -EINVAL, "warm-up as long as the run");
	c = ok;
	tcp.size_bytes = 5;
	cr_expect_eq(cake_sim_run(&c, &r), -EINVAL, "packet too small");
}

static void expect_same(const struct cake_sim_result *a, const struct cake_sim_result *b)
{
	uint32_t i;

	cr_assert_eq(a->nflows, b->nflows);
	for (i = 0; i < a->nflows; i++) {
		const struct cake_sim_flow_result *x = &a->flows[i], *y = &b->flows[i];

		cr_expect_eq(x->delivered_bytes, y->delivered_bytes, "flow %u", i);
		cr_expect_eq(x->offered_pkts, y->offered_pkts, "flow %u", i);
		cr_expect_eq(x->drops, y->drops, "flow %u", i);
		cr_expect_eq(x->marks, y->marks, "flow %u", i);
		cr_expect_eq(x->delay_p99_ns, y->delay_p99_ns, "flow %u", i);
		cr_expect_eq(x->delay_max_ns, y->delay_max_ns, "flow %u", i);
		cr_expect(x->cwnd == y->cwnd, "flow %u", i);
	}
	cr_expect_eq(a->stats.overlimits, b->stats.overlimits);
	cr_expect_eq(a->stats.memory_used, b->stats.memory_used);
}

Test(sim_run, deterministic)
{
	static const char *const f[] = { "tcp,count=3", "udp,rate=30mbit,host=2,burst=4",
					 "ping,interval=10ms", "tcp,cc=reno,ecn,rtt=70ms" };
	struct cake_sim_result a = run("bandwidth 20mbit", f, N_ELEMS(f), 4, 1);
	struct cake_sim_result b = run("bandwidth 20mbit", f, N_ELEMS(f), 4, 1);

	expect_same(&a, &b);
	cake_sim_result_free(&a);
	cake_sim_result_free(&b);
}

/* A flood at twice the rate leaves at the shaper's rate: the packet sizes are what
 * the shaper counts, with raw overhead 0. */
Test(sim_run, shaper_delivers_its_rate)
{
	static const char *const f[] = { "udp,rate=20mbit" };
	struct cake_sim_result r = run("bandwidth 10mbit", f, 1, 5, 1);

	cr_expect_float_eq(mbit(&r, 0), 10.0, 0.05, "%f", mbit(&r, 0));
	cr_expect_gt(r.flows[0].drops, 0);
	cake_sim_result_free(&r);
}

/* Without a shaper rate, the link's rate is the limit and the queue is in CAKE. */
Test(sim_run, link_rate_limits_an_unlimited_cake)
{
	static const char *const f[] = { "udp,rate=20mbit" };
	struct cake_sim_flow_spec spec = flow(f[0]);
	struct cake_sim_config cfg = { .cake = cake(""), .link_bytes_per_sec = 1250000,
				       .duration_ns = 5 * SEC, .warmup_ns = SEC, .seed = 1,
				       .flows = &spec, .nflows = 1 };
	struct cake_sim_result r;

	cr_assert_eq(cake_sim_run(&cfg, &r), 0);
	cr_expect_float_eq(mbit(&r, 0), 10.0, 0.05, "%f", mbit(&r, 0));
	cr_expect_gt(r.stats.overlimits + r.flows[0].drops, 0);
	cake_sim_result_free(&r);
}

/* Four TCP flows fill the link and share it: none below 3/4 of an equal share. */
Test(sim_run, tcp_flows_fill_and_share)
{
	static const char *const f[] = { "tcp,count=4" };
	struct cake_sim_result r = run("bandwidth 20mbit", f, 1, 10, 2);
	uint32_t i;

	cr_expect_gt(total_mbit(&r), 19.0, "%f", total_mbit(&r));
	cr_expect_leq(total_mbit(&r), 20.01);
	for (i = 0; i < 4; i++)
		cr_expect_gt(mbit(&r, i), 0.75 * 5.0, "flow %u: %f", i, mbit(&r, i));
	cake_sim_result_free(&r);
}

/* A sparse ping beside bulk TCP sees its base RTT plus at most a few packet times. */
Test(sim_run, ping_stays_near_base_rtt_under_load)
{
	static const char *const f[] = { "tcp,count=4,rtt=50ms", "ping,interval=20ms,rtt=30ms" };
	struct cake_sim_result r = run("bandwidth 10mbit", f, N_ELEMS(f), 10, 2);
	const struct cake_sim_flow_result *ping = &r.flows[4];

	cr_assert_eq(ping->kind, CAKE_SIM_PING);
	cr_expect_gt(ping->delay_samples, 350);
	cr_expect_eq(ping->drops, 0);
	cr_expect_geq(ping->delay_p50_ns, 30 * MS);
	cr_expect_lt(ping->delay_p99_ns, 30 * MS + 5 * MS, "p99 %llu ns",
		     (unsigned long long)ping->delay_p99_ns);
	cr_expect_gt(r.flows[0].delay_p99_ns, ping->delay_p99_ns - 30 * MS,
		     "bulk flows queue more than the ping");
	cake_sim_result_free(&r);
}

/* An unresponsive flood cannot starve a TCP flow: flow queueing gives it half. */
Test(sim_run, flood_is_isolated)
{
	static const char *const f[] = { "udp,rate=40mbit,host=2", "tcp", "ping,interval=50ms" };
	struct cake_sim_result r = run("bandwidth 20mbit", f, N_ELEMS(f), 10, 2);

	cr_expect_gt(mbit(&r, 1), 0.4 * 20, "tcp got %f", mbit(&r, 1));
	cr_expect_gt(r.flows[0].drops, 0);
	cr_expect_lt(r.flows[2].delay_p99_ns, 25 * MS, "ping p99 %llu",
		     (unsigned long long)r.flows[2].delay_p99_ns);
	cake_sim_result_free(&r);
}

/* ECN-capable TCP is marked instead of dropped; the same flow without ECN is dropped. */
Test(sim_run, ecn_marks_replace_drops)
{
	static const char *const with[] = { "tcp,ecn,count=2" };
	static const char *const without[] = { "tcp,count=2" };
	struct cake_sim_result a = run("bandwidth 10mbit", with, 1, 10, 1);
	struct cake_sim_result b = run("bandwidth 10mbit", without, 1, 10, 1);

	cr_expect_gt(a.flows[0].marks + a.flows[1].marks, 0);
	cr_expect_eq(a.flows[0].drops + a.flows[1].drops, 0);
	cr_expect_eq(b.flows[0].marks + b.flows[1].marks, 0);
	cr_expect_gt(b.flows[0].drops + b.flows[1].drops, 0);
	cr_expect_gt(a.flows[0].window_cuts, 0, "marks cut the window");
	cake_sim_result_free(&a);
	cake_sim_result_free(&b);
}

/* diffserv4 columns are Bulk, Best Effort, Video, Voice (tc's order). */
Test(sim_run, dscp_selects_the_tin)
{
	static const struct {
		const char *flow;
		uint32_t column;
	} t[] = {
		{ "udp,dscp=CS1", 0 }, { "udp,dscp=BE", 1 }, { "udp,dscp=AF41", 2 },
		{ "udp,dscp=EF", 3 },  { "udp,dscp=LE", 0 }, { "udp,dscp=CS5", 3 },
	};
	size_t i;
	uint32_t c;

	for (i = 0; i < N_ELEMS(t); i++) {
		const char *f[] = { t[i].flow };
		struct cake_sim_result r = run("bandwidth 10mbit diffserv4", f, 1, 1, 0);

		cr_assert_eq(r.stats.tin_count, 4);
		for (c = 0; c < 4; c++)
			cr_expect_eq(r.stats.tins[c].sent_packets > 0, c == t[i].column, "%s column %u",
				     t[i].flow, c);
		cake_sim_result_free(&r);
	}
}

/* The simulator's counts agree with CAKE's own when everything is measured. */
Test(sim_run, counts_match_cake_stats)
{
	static const char *const f[] = { "tcp,count=2", "udp,rate=15mbit,host=2", "ping" };
	struct cake_sim_result r = run("bandwidth 10mbit", f, N_ELEMS(f), 5, 0);
	uint64_t pkts = 0, bytes = 0, drops = 0;
	uint32_t i;

	for (i = 0; i < r.nflows; i++) {
		pkts += r.flows[i].delivered_pkts;
		bytes += r.flows[i].delivered_bytes;
		drops += r.flows[i].drops;
		cr_expect_leq(r.flows[i].delivered_pkts + r.flows[i].drops, r.flows[i].offered_pkts);
	}
	cr_expect_eq(pkts, r.stats.sent_packets);
	cr_expect_eq(bytes, r.stats.sent_bytes);
	cr_expect_eq(drops, r.stats.dropped);
	cake_sim_result_free(&r);
}

/* Under peer-isolate the peer is the host: one peer's single flow gets half the link
 * against another peer's four; under `flows` it gets a fifth. */
Test(sim_run, peer_isolate_shares_between_peers)
{
	static const char *const f[] = { "tcp,peer=1,count=4", "tcp,peer=2" };
	struct cake_sim_result p = run("bandwidth 20mbit peer-isolate", f, N_ELEMS(f), 10, 2);
	struct cake_sim_result q = run("bandwidth 20mbit flows", f, N_ELEMS(f), 10, 2);

	cr_expect_gt(mbit(&p, 4) / total_mbit(&p), 0.35, "peer-isolate: %f of %f", mbit(&p, 4),
		     total_mbit(&p));
	cr_expect_lt(mbit(&q, 4) / total_mbit(&q), 0.3, "flows: %f of %f", mbit(&q, 4),
		     total_mbit(&q));
	cake_sim_result_free(&p);
	cake_sim_result_free(&q);
}

/* A flow sends only inside its window: 2 s of a 5 s run at 8 mbit is 2 MB. */
Test(sim_run, start_and_stop)
{
	static const char *const f[] = { "udp,rate=8mbit,size=1000,start=1s,stop=3s" };
	struct cake_sim_result r = run("bandwidth 20mbit", f, 1, 5, 0);

	cr_expect_float_eq((double)r.flows[0].offered_bytes, 2e6, 2e6 * 0.002, "%llu",
			   (unsigned long long)r.flows[0].offered_bytes);
	cr_expect_eq(r.flows[0].delivered_bytes, r.flows[0].offered_bytes);
	cake_sim_result_free(&r);
}
