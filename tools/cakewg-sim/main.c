/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg-sim: drive cakewg's CAKE on virtual time with scripted traffic and print
 * per-flow throughput, delay percentiles, drops and marks, then CAKE's own statistics
 * as `tc -s qdisc show` prints them. Fully deterministic for a given seed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake_parse.h"
#include "qdisc/cake_print.h"
#include "tools/cakewg-sim/link_mode.h"
#include "tools/cakewg-sim/mq_mode.h"
#include "tools/sim/cake_sim.h"

enum {
	LINE_BYTES = 1024,
	TEXT_BYTES = 65536,
	NS_PER_US = 1000,
	DEFAULT_DURATION_US = 10000000,
	DEFAULT_SEED = 1,
	MAX_WARMUP_US = 2000000,
};

static const char usage_text[] =
	"Usage: cakewg-sim [options]\n"
	"Runs cakewg's CAKE scheduler on virtual time with scripted traffic and reports\n"
	"per-flow throughput, queueing delay (p50/p99/max), drops and ECN marks, followed\n"
	"by the qdisc's statistics as `tc -s qdisc show` prints them. The same options\n"
	"and seed always give the same output.\n"
	"\n"
	"Options:\n"
	"  --cake OPTIONS      tc-cake option string, e.g. \"bandwidth 50mbit diffserv4\"\n"
	"                      (default: tc's defaults, i.e. unlimited)\n"
	"  --flow SPEC         add a flow (repeatable), SPEC = kind[,key=value...]\n"
	"  --ping INTERVAL     shorthand for --flow ping,interval=INTERVAL\n"
	"  --link RATE         a line rate after CAKE (default: none); needed when the\n"
	"                      cake is unlimited: CAKE then dequeues only when the link\n"
	"                      is free, as cakewg does with socket backpressure\n"
	"  --duration TIME     simulated time (default 10s)\n"
	"  --warmup TIME       not measured at the start (default: a fifth of the\n"
	"                      duration, at most 2s)\n"
	"  --seed N            seeds CAKE's generator and the flows' hashes (default 1)\n"
	"  --mtu BYTES         the largest packet CAKE expects (default 1500)\n"
	"  --file FILE         read options from FILE, one per line without the dashes\n"
	"                      (\"cake bandwidth 20mbit\", \"flow tcp,count=4\"); '#' starts\n"
	"                      a comment; later options add to or override earlier ones\n"
	"  --json              print the results and tc -j statistics as JSON\n"
	"  --no-stats          leave out the tc-style statistics\n"
	"  -h, --help          this text\n"
	"\n"
	"Flow kinds:\n"
	"  tcp   window-based sender clocked by ACKs: slow start, then cubic or reno;\n"
	"        cuts its window once per window on a drop or CE mark\n"
	"  udp   constant bit rate, optionally in bursts\n"
	"  ping  one small packet per interval; its delay is the round trip\n"
	"\n"
	"Flow keys (defaults in brackets):\n"
	"  host=N dst=N     source and destination host ids, for host isolation [1]\n"
	"  peer=N           WireGuard peer id, the host under peer-isolate [host]\n"
	"  dscp=N|NAME      0..63 or BE LE CS0..CS7 AF11..AF43 VA EF [0]\n"
	"  ecn[=0|1]        send ECT(0), so CAKE marks instead of dropping [0]\n"
	"  cc=cubic|reno    tcp congestion control [cubic]\n"
	"  size=SIZE        packet size as the shaper counts it [tcp 1500, udp 1200,\n"
	"                   ping 84]\n"
	"  rate=RATE        udp rate [10mbit]\n"
	"  burst=N          udp packets sent back to back [1]\n"
	"  interval=TIME    ping interval [100ms]\n"
	"  rtt=TIME         base round-trip time without queueing [20ms]\n"
	"  start=TIME stop=TIME  when the flow sends [whole run]\n"
	"  count=N          N identical flows, each its own 5-tuple [1]\n"
	"RATE, TIME and SIZE take tc's units: 50mbit, 6mbps (bytes!), 40ms, 1.5kb; a bare\n"
	"number is bit/s, microseconds or bytes.\n"
	"\n"
	"Output columns, over the measured part of the run: offered = what the flow\n"
	"sent, goodput = what left CAKE (lost data is not resent), p50/p99/max = time\n"
	"spent in CAKE (tcp, udp) or the round trip (ping), drops and CE marks.\n"
	"\n"
	"Example:\n"
	"  cakewg-sim --cake \"bandwidth 50mbit diffserv4\" --flow tcp,host=1,count=4 \\\n"
	"      --flow udp,host=2,rate=60mbit --ping 20ms --duration 30s\n"
	"\n"
	"Link mode: a tunnel endpoint (an egress and an ingress CAKE) before a remote\n"
	"bottleneck whose capacity follows a trace, with a FIFO in front of it, bulk TCP\n"
	"uploads and downloads carrying timestamps, the signal extractor and, with\n"
	"autorate, the controller setting each CAKE's rate every 50 ms. Any of these\n"
	"options selects it (--flow, --ping, --link and --json do not apply); the cake\n"
	"words `autorate MIN MAX' make an instance follow the link:\n"
	"  --link-trace FILE   the capacity, both directions: one step per line,\n"
	"                      `SECONDS RATE [RTT]' (hold RATE for SECONDS; RTT, if\n"
	"                      given, is the base RTT from then on); '#' starts a comment\n"
	"  --link-steps LIST   the same as RATE:TIME[:RTT],..., e.g. 40mbit:6s,12mbit:6s\n"
	"  --down-trace FILE, --down-steps LIST  the downlink's own trace (its RTTs\n"
	"                      count only when the uplink's trace has none)\n"
	"                      The trace repeats; the duration defaults to its length.\n"
	"  --link-buffer TIME  the bottleneck FIFO, in time at the trace's peak [250ms]\n"
	"  --rtt TIME          base round-trip time [40ms]\n"
	"  --uploads N, --downloads N  bulk TCP flows each way [4 uploads, 0 downloads]\n"
	"  --cake-ingress OPTIONS  the ingress instance [--cake's options, and ingress]\n"
	"  --oracle            both rates set to 0.97 x the capacity at every change\n"
	"  --oracle-delay TIME|rtt  a delayed oracle: told the capacity and the\n"
	"                      bottleneck's queue as they were TIME (or one base RTT)\n"
	"                      ago, the earliest any delay or ACK signal can say them;\n"
	"                      0.97 x that capacity, 1/16 of it while that queue stood\n"
	"                      above 2 ms (a drain): what a reactive controller can reach\n"
	"  --no-timestamps     TCP without timestamps (the controller falls back to RTT)\n"
	"Printed every 100 ms per direction: capacity, shaper rate, the FIFO's queueing\n"
	"delay and goodput; then per loaded direction the queueing delay's mean, p50, p99\n"
	"and max, goodput as a share of the mean capacity, and per trace step how long\n"
	"the rate took to stay within [0.8, 1.1] x the capacity. Example:\n"
	"  cakewg-sim --link-steps 40mbit:6s,12mbit:6s,25mbit:6s,6mbit:6s \\\n"
	"      --cake \"bandwidth 20mbit autorate 1mbit 100mbit\" --uploads 4\n"
	"\n"
	"MQ mode: N CAKE instances, one per worker, sharing --cake's bandwidth as Linux's\n"
	"cake_mq does (each recounts its active siblings and shapes at rate / active),\n"
	"each fed by a greedy source; prints what each sent and the aggregate's error\n"
	"against the set rate over the time something was waiting:\n"
	"  --mq N              N instances (1..64): selects the mode\n"
	"  --mq-on TIME, --mq-off TIME  sources on and off for exponentially distributed\n"
	"                      periods of these means [always on]\n"
	"  --mq-sync TIME      how often an instance recounts [200us]\n"
	"  --mq-size BYTES     the packets' size [1500]\n"
	"Example:\n"
	"  cakewg-sim --mq 4 --cake \"bandwidth 1gbit\" --mq-on 20ms --mq-off 20ms\n";

struct tool {
	struct cake_sim_config cfg;
	struct cake_sim_flow_spec *flows;
	uint32_t nflows;
	bool warmup_set, duration_set, json, stats;
	struct link_mode link;
	struct mq_mode mq;
};

static int bad(const char *what, const char *value)
{
	fprintf(stderr, "cakewg-sim: Unable to parse %s: `%s'\n", what, value);
	return -EINVAL;
}

static int add_flow(struct tool *t, const char *spec)
{
	struct cake_sim_flow_spec *grown;
	struct cake_parse_err err;

	if (t->nflows >= CAKE_SIM_MAX_FLOWS) {
		fprintf(stderr, "cakewg-sim: more than %d flows\n", CAKE_SIM_MAX_FLOWS);
		return -EINVAL;
	}
	grown = realloc(t->flows, (t->nflows + 1) * sizeof(*grown));
	if (!grown) {
		perror("realloc");
		return -ENOMEM;
	}
	t->flows = grown;
	if (cake_sim_flow_parse(spec, &t->flows[t->nflows], &err)) {
		fprintf(stderr, "cakewg-sim: %s\n", err.msg);
		return -EINVAL;
	}
	t->nflows++;
	return 0;
}

static int parse_time_ns(const char *what, const char *v, uint64_t *ns)
{
	if (cake_parse_time_ns(v, ns))
		return bad(what, v);
	return 0;
}

static int set_cake(struct tool *t, const char *v)
{
	struct cake_parse_err err;

	if (cake_options_parse(v, &t->cfg.cake, &err)) {
		fprintf(stderr, "cakewg-sim: %s\n", err.msg);
		return -EINVAL;
	}
	return 0;
}

static int set_uint(const char *what, const char *v, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 0);
	if (*v < '0' || *v > '9' || *end || errno || *out > max)
		return bad(what, v);
	return 0;
}

static int read_file(struct tool *t, const char *path);

/* One option, from the command line or a file line. */
static int apply(struct tool *t, const char *name, const char *v)
{
	char spec[64];
	uint64_t n;
	int ret = link_mode_option(&t->link, name, v);

	if (ret <= 0)
		return ret;
	ret = mq_mode_option(&t->mq, name, v);
	if (ret <= 0)
		return ret;
	if (!strcmp(name, "cake"))
		return set_cake(t, v);
	if (!strcmp(name, "flow"))
		return add_flow(t, v);
	if (!strcmp(name, "ping")) {
		snprintf(spec, sizeof(spec), "ping,interval=%.40s", v);
		return add_flow(t, spec);
	}
	if (!strcmp(name, "link"))
		return cake_parse_rate(v, &t->cfg.link_bytes_per_sec) ? bad("link rate", v) : 0;
	if (!strcmp(name, "duration")) {
		t->duration_set = true;
		return parse_time_ns("duration", v, &t->cfg.duration_ns);
	}
	if (!strcmp(name, "warmup")) {
		t->warmup_set = true;
		return parse_time_ns("warmup", v, &t->cfg.warmup_ns);
	}
	if (!strcmp(name, "seed"))
		return set_uint("seed", v, UINT64_MAX, &t->cfg.seed);
	if (!strcmp(name, "mtu")) {
		ret = set_uint("mtu", v, CAKE_SIM_MAX_PKT_BYTES, &n);
		t->cfg.mtu_bytes = (uint32_t)n;
		return ret;
	}
	if (!strcmp(name, "file"))
		return read_file(t, v);
	fprintf(stderr, "cakewg-sim: Invalid option `%s'\n", name);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int apply_line(struct tool *t, char *line)
{
	char *hash = strchr(line, '#'), *name, *v;

	if (hash)
		*hash = '\0';
	name = trim(line);
	if (!*name)
		return 0;
	v = name + strcspn(name, " \t");
	if (*v)
		*v++ = '\0';
	v = trim(v);
	if (!strcmp(name, "json") || !strcmp(name, "no-stats")) {
		t->json |= name[0] == 'j';
		t->stats &= name[0] != 'n';
		return 0;
	}
	return apply(t, name, v);
}

static int read_file(struct tool *t, const char *path)
{
	char line[LINE_BYTES];
	unsigned int lineno = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f) {
		fprintf(stderr, "cakewg-sim: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		lineno++;
		ret = apply_line(t, line);
		if (ret)
			fprintf(stderr, "cakewg-sim: in %s line %u\n", path, lineno);
	}
	fclose(f);
	return ret;
}

static int parse_args(struct tool *t, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cake", required_argument, NULL, 'c' },  { "flow", required_argument, NULL, 'f' },
		{ "ping", required_argument, NULL, 'p' },  { "link", required_argument, NULL, 'l' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'w' }, { "seed", required_argument, NULL, 's' },
		{ "mtu", required_argument, NULL, 'm' },   { "file", required_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },         { "no-stats", no_argument, NULL, 'n' },
		{ "link-trace", required_argument, NULL, 'L' },
		{ "link-steps", required_argument, NULL, 'L' },
		{ "down-trace", required_argument, NULL, 'L' },
		{ "down-steps", required_argument, NULL, 'L' },
		{ "link-buffer", required_argument, NULL, 'L' },
		{ "rtt", required_argument, NULL, 'L' },
		{ "uploads", required_argument, NULL, 'L' },
		{ "downloads", required_argument, NULL, 'L' },
		{ "cake-ingress", required_argument, NULL, 'L' },
		{ "oracle", no_argument, NULL, 'L' },
		{ "oracle-delay", required_argument, NULL, 'L' },
		{ "no-timestamps", no_argument, NULL, 'L' },
		{ "mq", required_argument, NULL, 'L' },
		{ "mq-on", required_argument, NULL, 'L' },
		{ "mq-off", required_argument, NULL, 'L' },
		{ "mq-sync", required_argument, NULL, 'L' },
		{ "mq-size", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	int c, idx, ret = 0;

	while (!ret && (c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			exit(0);
		} else if (c == 'j' || c == 'n') {
			t->json |= c == 'j';
			t->stats &= c != 'n';
		} else if (c == '?') {
			ret = -EINVAL;
		} else {
			ret = apply(t, longopts[idx].name, optarg ? optarg : "");
		}
	}
	if (!ret && optind < argc) {
		fprintf(stderr, "cakewg-sim: unexpected argument `%s'\n", argv[optind]);
		ret = -EINVAL;
	}
	return ret;
}

static double mbit(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8 * 1000 / (double)ns : 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static const char *kind_name(enum cake_sim_kind k)
{
	return k == CAKE_SIM_TCP ? "tcp" : k == CAKE_SIM_UDP ? "udp" : "ping";
}

static void print_flows(const struct tool *t, const struct cake_sim_result *r)
{
	uint64_t total = 0;
	uint32_t i;

	printf(" flow kind  host  dst dscp  rtt(ms)  offered(Mbit/s) goodput(Mbit/s)   "
	       "p50(ms)   p99(ms)   max(ms)    drops    marks\n");
	for (i = 0; i < r->nflows; i++) {
		const struct cake_sim_flow_result *f = &r->flows[i];
		const struct cake_sim_flow_spec *s = &t->flows[f->spec_index];

		total += f->delivered_bytes;
		printf("%5" PRIu32 " %-4s %5" PRIu32 " %4" PRIu32 " %4u %8.1f %16.3f %15.3f "
		       "%9.3f %9.3f %9.3f %8" PRIu64 " %8" PRIu64 "\n",
		       i, kind_name(f->kind), s->host, s->dst, s->dscp, ms(s->rtt_ns),
		       mbit(f->offered_bytes, r->measured_ns),
		       mbit(f->delivered_bytes, r->measured_ns), ms(f->delay_p50_ns),
		       ms(f->delay_p99_ns), ms(f->delay_max_ns), f->drops, f->marks);
	}
	printf("total%*s%15.3f\n", 46, "", mbit(total, r->measured_ns));
	printf("(delay: time in CAKE for tcp and udp, the round trip for ping; "
	       "measured over %.3f s)\n", (double)r->measured_ns / 1e9);
}

static void print_header(const struct tool *t, const struct cake_sim_result *r)
{
	char opts[1024], rate[CAKE_FMT_BYTES];
	struct cake_out out;

	cake_out_init(&out, opts, sizeof(opts));
	(void)!cake_print_options(&out, &r->cake);
	printf("cake: %s\n", opts);
	printf("link: %s, duration %.3f s, warm-up %.3f s, seed %" PRIu64 "\n\n",
	       t->cfg.link_bytes_per_sec ? cake_fmt_rate(rate, t->cfg.link_bytes_per_sec) :
					   "unlimited",
	       (double)t->cfg.duration_ns / 1e9, (double)t->cfg.warmup_ns / 1e9, t->cfg.seed);
}

static void print_json(const struct cake_sim_result *r, char *text)
{
	struct cake_out out;
	uint32_t i;

	printf("{\"measured_ns\":%" PRIu64 ",\"flows\":[", r->measured_ns);
	for (i = 0; i < r->nflows; i++) {
		const struct cake_sim_flow_result *f = &r->flows[i];

		printf("%s{\"flow\":%" PRIu32 ",\"spec\":%" PRIu32 ",\"kind\":\"%s\","
		       "\"offered_bytes\":%" PRIu64 ",\"delivered_bytes\":%" PRIu64
		       ",\"delivered_packets\":%" PRIu64 ",\"delay_p50_ns\":%" PRIu64
		       ",\"delay_p99_ns\":%" PRIu64 ",\"delay_max_ns\":%" PRIu64
		       ",\"drops\":%" PRIu64 ",\"marks\":%" PRIu64 "}",
		       i ? "," : "", i, f->spec_index, kind_name(f->kind), f->offered_bytes,
		       f->delivered_bytes, f->delivered_pkts, f->delay_p50_ns, f->delay_p99_ns,
		       f->delay_max_ns, f->drops, f->marks);
	}
	cake_out_init(&out, text, TEXT_BYTES);
	(void)!cake_print_json(&out, &r->cake, &r->stats);
	printf("],\"qdisc\":%s}\n", text);
}

static void report(const struct tool *t, const struct cake_sim_result *r)
{
	static char text[TEXT_BYTES];
	struct cake_out out;

	if (t->json) {
		print_json(r, text);
		return;
	}
	print_header(t, r);
	print_flows(t, r);
	if (!t->stats)
		return;
	cake_out_init(&out, text, sizeof(text));
	cake_out_printf(&out, "qdisc cake 8001: root refcnt 2 ");
	(void)!cake_print_qdisc(&out, &r->cake, &r->stats);
	printf("\n%s", text);
}

/* What cake_sim_run() would refuse, said in the tool's terms. */
static int check(const struct tool *t)
{
	const char *why = NULL;

	if (!t->nflows)
		why = "no flows: add --flow or --ping";
	else if (!t->cfg.cake.rate_bytes_per_sec && !t->cfg.link_bytes_per_sec)
		why = "nothing limits the rate: give --cake a bandwidth or --link a rate";
	else if (!t->cfg.duration_ns || t->cfg.warmup_ns >= t->cfg.duration_ns)
		why = "the warm-up must be shorter than the duration";
	if (!why)
		return 0;
	fprintf(stderr, "cakewg-sim: %s\n", why);
	return -EINVAL;
}

/* Link mode: what the scripted flows' options would mean there is refused. */
static int run_link(struct tool *t)
{
	if (t->nflows || t->cfg.link_bytes_per_sec || t->json) {
		fprintf(stderr, "cakewg-sim: --flow, --ping, --link and --json do not apply "
				"with a link trace\n");
		return 1;
	}
	return link_mode_run(&t->link, &t->cfg.cake, t->duration_set ? t->cfg.duration_ns : 0,
			     t->cfg.seed) ? 1 : 0;
}

/* MQ mode: the scripted flows and the link do not apply. */
static int run_mq(struct tool *t)
{
	int ret;

	if (t->nflows || t->cfg.link_bytes_per_sec || t->json || t->link.on) {
		fprintf(stderr, "cakewg-sim: --flow, --ping, --link, --json and the link options do "
				"not apply with --mq\n");
		ret = 1;
	} else {
		ret = mq_mode_run(&t->mq, &t->cfg.cake, t->cfg.duration_ns, t->cfg.warmup_ns,
				  t->cfg.seed) ? 1 : 0;
	}
	free(t->flows);
	return ret;
}

int main(int argc, char **argv)
{
	struct tool t = { .stats = true };
	struct cake_sim_result r;
	int ret;

	link_mode_init(&t.link);
	mq_mode_init(&t.mq);
	cake_options_defaults(&t.cfg.cake);
	t.cfg.duration_ns = (uint64_t)DEFAULT_DURATION_US * NS_PER_US;
	t.cfg.seed = DEFAULT_SEED;
	if (parse_args(&t, argc, argv)) {
		fprintf(stderr, "Try `cakewg-sim --help'.\n");
		return 1;
	}
	if (t.link.on) {
		ret = run_link(&t);
		free(t.flows);
		return ret;
	}
	if (!t.warmup_set) {
		t.cfg.warmup_ns = t.cfg.duration_ns / 5;
		if (t.cfg.warmup_ns > (uint64_t)MAX_WARMUP_US * NS_PER_US)
			t.cfg.warmup_ns = (uint64_t)MAX_WARMUP_US * NS_PER_US;
	}
	if (t.mq.on)
		return run_mq(&t);
	t.cfg.flows = t.flows;
	t.cfg.nflows = t.nflows;
	ret = check(&t);
	if (!ret) {
		ret = cake_sim_run(&t.cfg, &r);
		if (ret)
			fprintf(stderr, "cakewg-sim: the simulation did not run: %s\n",
				strerror(-ret));
	}
	if (ret) {
		free(t.flows);
		return 1;
	}
	report(&t, &r);
	cake_sim_result_free(&r);
	free(t.flows);
	return 0;
}
