/* SPDX-License-Identifier: GPL-2.0-only */
/* cakewg-sim's link mode (see link_mode.h). */
#include "tools/cakewg-sim/link_mode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake_parse.h"
#include "qdisc/cake_print.h"

enum {
	TRACE_FILE_MAX = 1 << 20,
	PRINT_EVERY = 10, /* samples: 100 ms */
	DEFAULT_UPLOADS = 4,
	OPTS_BYTES = 1024,
};

#define SETTLE_LO 0.8
#define SETTLE_HI 1.1

void link_mode_init(struct link_mode *m)
{
	memset(m, 0, sizeof(*m));
	cake_options_defaults(&m->ingress);
}

static int bad(const char *what, const char *v)
{
	fprintf(stderr, "cakewg-sim: Unable to parse %s: `%s'\n", what, v);
	return -EINVAL;
}

static int read_trace(const char *path, struct cake_link_trace *tr)
{
	struct cake_parse_err err;
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int ret;

	if (!f) {
		fprintf(stderr, "cakewg-sim: %s: %s\n", path, strerror(errno));
		return -EINVAL;
	}
	text = malloc(TRACE_FILE_MAX + 1);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(text, 1, TRACE_FILE_MAX + 1, f);
	fclose(f);
	if (n > TRACE_FILE_MAX) {
		fprintf(stderr, "cakewg-sim: %s: larger than %d bytes\n", path, TRACE_FILE_MAX);
		free(text);
		return -EINVAL;
	}
	text[n] = '\0';
	ret = cake_link_trace_parse_text(text, tr, &err);
	if (ret)
		fprintf(stderr, "cakewg-sim: %s: %s\n", path, err.msg);
	free(text);
	return ret;
}

static int set_trace(struct link_mode *m, bool down, bool file, const char *v)
{
	struct cake_link_trace *tr = &m->cfg.trace[down ? CAKE_LINK_DOWN : CAKE_LINK_UP];
	struct cake_parse_err err;
	int ret;

	if (file) {
		ret = read_trace(v, tr);
	} else {
		ret = cake_link_trace_parse_list(v, tr, &err);
		if (ret)
			fprintf(stderr, "cakewg-sim: %s\n", err.msg);
	}
	m->down_set |= down;
	return ret;
}

static int set_time(const char *what, const char *v, uint64_t *ns)
{
	if (cake_parse_time_ns(v, ns) || !*ns)
		return bad(what, v);
	return 0;
}

static int set_count(const char *what, const char *v, uint32_t *n)
{
	char *end;
	unsigned long x = strtoul(v, &end, 10);

	if (*v < '0' || *v > '9' || *end || x > CAKE_LINK_MAX_FLOWS)
		return bad(what, v);
	*n = (uint32_t)x;
	return 0;
}

int link_mode_option(struct link_mode *m, const char *name, const char *v)
{
	struct cake_parse_err err;
	int ret = 1;

	if (!strcmp(name, "link-trace") || !strcmp(name, "link-steps"))
		ret = set_trace(m, false, name[5] == 't', v);
	else if (!strcmp(name, "down-trace") || !strcmp(name, "down-steps"))
		ret = set_trace(m, true, name[5] == 't', v);
	else if (!strcmp(name, "link-buffer"))
		ret = set_time("link buffer", v, &m->cfg.buffer_ns);
	else if (!strcmp(name, "rtt"))
		ret = set_time("rtt", v, &m->cfg.rtt_ns);
	else if (!strcmp(name, "uploads") || !strcmp(name, "downloads")) {
		ret = set_count(name, v, &m->cfg.flows[name[0] == 'd']);
		m->flows_set = true;
	} else if (!strcmp(name, "oracle")) {
		m->cfg.policy = CAKE_LINK_ORACLE;
		ret = 0;
	} else if (!strcmp(name, "oracle-delay")) {
		m->cfg.policy = CAKE_LINK_ORACLE_DELAYED;
		m->cfg.oracle_delay_ns = 0;
		ret = strcmp(v, "rtt") ? set_time("oracle delay", v, &m->cfg.oracle_delay_ns) : 0;
	} else if (!strcmp(name, "no-timestamps")) {
		m->cfg.no_ts = true;
		ret = 0;
	} else if (!strcmp(name, "cake-ingress")) {
		ret = cake_options_parse(v, &m->ingress, &err);
		if (ret)
			fprintf(stderr, "cakewg-sim: %s\n", err.msg);
		m->ingress_set = true;
	}
	if (ret <= 0)
		m->on = true;
	return ret;
}

static double mbit(uint64_t bytes_per_sec)
{
	return (double)bytes_per_sec * 8 / 1e6;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void print_config(const struct link_mode *m)
{
	static const char *const names[] = { "egress", "ingress" };
	char opts[OPTS_BYTES];
	struct cake_out out;

	for (int d = 0; d < CAKE_LINK_DIRS; d++) {
		const struct cake_link_trace *tr = &m->cfg.trace[d];
		const struct cake_options *o = &m->cfg.cake[d];

		cake_out_init(&out, opts, sizeof(opts));
		(void)!cake_print_options(&out, o);
		printf("%s cake: %s", names[d], opts);
		if (m->cfg.policy == CAKE_LINK_ORACLE)
			printf(" (oracle: 0.97 x the capacity)");
		if (m->cfg.policy == CAKE_LINK_ORACLE_DELAYED && m->cfg.oracle_delay_ns)
			printf(" (delayed oracle: 0.97 x the capacity %.1f ms ago)",
			       ms(m->cfg.oracle_delay_ns));
		else if (m->cfg.policy == CAKE_LINK_ORACLE_DELAYED)
			printf(" (delayed oracle: 0.97 x the capacity one base RTT ago)");
		printf("\n%s link: %" PRIu32 " steps over %.3f s, mean %.3f Mbit/s\n",
		       d ? "down" : "up", tr->n, (double)cake_link_trace_length_ns(tr) / 1e9,
		       mbit(cake_link_trace_mean(tr)));
	}
	printf("buffer %.0f ms at the peak rate, base rtt %.0f ms, %" PRIu32 " uploads, %" PRIu32
	       " downloads%s\n\n",
	       ms(m->cfg.buffer_ns ? m->cfg.buffer_ns : CAKE_LINK_DEFAULT_BUFFER_NS),
	       ms(m->cfg.rtt_ns ? m->cfg.rtt_ns : CAKE_LINK_DEFAULT_RTT_NS), m->cfg.flows[0],
	       m->cfg.flows[1], m->cfg.no_ts ? ", no TCP timestamps" : "");
}

static void print_series(const struct cake_link *s)
{
	const struct cake_link_sample *v[CAKE_LINK_DIRS];
	size_t n;

	v[0] = cake_link_samples(s, CAKE_LINK_UP, &n);
	v[1] = cake_link_samples(s, CAKE_LINK_DOWN, &n);
	printf("  time(s)  up: capacity    rate queue(ms) goodput  down: capacity    rate "
	       "queue(ms) goodput   (Mbit/s)\n");
	for (size_t i = PRINT_EVERY - 1; i < n; i += PRINT_EVERY) {
		printf("%9.2f", (double)v[0][i].t_ns / 1e9);
		for (int d = 0; d < CAKE_LINK_DIRS; d++) {
			const struct cake_link_sample *x = &v[d][i];
			uint64_t before = i >= PRINT_EVERY ? v[d][i - PRINT_EVERY].goodput_bytes : 0;
			uint64_t span = x->t_ns - (i >= PRINT_EVERY ? v[d][i - PRINT_EVERY].t_ns : 0);

			printf("  %12.3f %7.3f %9.1f %7.3f", mbit(x->capacity), mbit(x->rate),
			       ms(x->qdelay_ns),
			       span ? (double)(x->goodput_bytes - before) * 8e3 / (double)span : 0);
		}
		printf("\n");
	}
}

/* The queueing delay and goodput, then each step's settling time. */
static void print_summary(const struct link_mode *m, const struct cake_link *s,
			  enum cake_link_dir d, uint64_t duration)
{
	const struct cake_link_trace *tr = &m->cfg.trace[d];
	uint64_t len = cake_link_trace_length_ns(tr), rtt = m->cfg.rtt_ns;
	struct cake_link_summary sum;

	if (!rtt)
		rtt = CAKE_LINK_DEFAULT_RTT_NS;
	cake_link_summarise(s, d, 0, duration - 1, &sum); /* at the end the trace repeats */
	printf("\n%s: queueing delay mean %.1f p50 %.1f p99 %.1f max %.1f ms; goodput %.3f "
	       "Mbit/s, %.3f of the mean capacity\n",
	       d ? "down" : "up", ms(sum.qdelay_mean_ns), ms(sum.qdelay_p50_ns),
	       ms(sum.qdelay_p99_ns), ms(sum.qdelay_max_ns),
	       duration ? (double)sum.goodput_bytes * 8e3 / (double)duration : 0,
	       sum.goodput_share);
	for (uint64_t t = 0, i = 0; len && t < duration; i = (i + 1) % tr->n) {
		uint64_t end = t + tr->steps[i].duration_ns;
		/* the sample at the step's end shows the next step */
		uint64_t settle = cake_link_rate_settle_ns(s, d, t,
							   (end < duration ? end : duration) - 1,
							   SETTLE_LO, SETTLE_HI);

		printf("  step at %7.2f s, %8.3f Mbit/s: rate within [%.1f, %.1f] x capacity ",
		       (double)t / 1e9, mbit(tr->steps[i].rate_bytes_per_sec), SETTLE_LO,
		       SETTLE_HI);
		if (settle == UINT64_MAX)
			printf("not by the step's end\n");
		else
			printf("after %.2f s (%.0f RTTs)\n", (double)settle / 1e9,
			       (double)settle / (double)rtt);
		t = end;
	}
}

/* The per-direction CAKE options from --cake and --cake-ingress. */
static void direction_options(struct link_mode *m, const struct cake_options *egress)
{
	m->cfg.cake[CAKE_LINK_UP] = *egress;
	if (m->ingress_set) {
		m->cfg.cake[CAKE_LINK_DOWN] = m->ingress;
	} else {
		m->cfg.cake[CAKE_LINK_DOWN] = *egress;
		m->cfg.cake[CAKE_LINK_DOWN].ingress = true;
		m->cfg.cake[CAKE_LINK_DOWN].present |= CAKE_OPT_INGRESS;
	}
	if (!m->down_set)
		m->cfg.trace[CAKE_LINK_DOWN] = m->cfg.trace[CAKE_LINK_UP];
	if (!m->flows_set)
		m->cfg.flows[CAKE_LINK_UP] = DEFAULT_UPLOADS;
}

int link_mode_run(struct link_mode *m, const struct cake_options *egress, uint64_t duration_ns,
		  uint64_t seed)
{
	struct cake_link *s;
	int err = 0;

	direction_options(m, egress);
	m->cfg.seed = seed;
	if (!m->cfg.trace[CAKE_LINK_UP].n && !m->cfg.trace[CAKE_LINK_DOWN].n) {
		fprintf(stderr, "cakewg-sim: no link trace: give --link-trace or --link-steps\n");
		return -EINVAL;
	}
	if (!duration_ns) {
		duration_ns = cake_link_trace_length_ns(&m->cfg.trace[CAKE_LINK_UP]);
		if (cake_link_trace_length_ns(&m->cfg.trace[CAKE_LINK_DOWN]) > duration_ns)
			duration_ns = cake_link_trace_length_ns(&m->cfg.trace[CAKE_LINK_DOWN]);
	}
	s = cake_link_new(&m->cfg, &err);
	if (!s) {
		fprintf(stderr, "cakewg-sim: the link simulation did not run: %s\n",
			err == -EINVAL ? "a bad autorate range or trace" : strerror(-err));
		return err;
	}
	err = cake_link_run_until(s, duration_ns);
	if (err) {
		fprintf(stderr, "cakewg-sim: the link simulation stopped: %s\n", strerror(-err));
		cake_link_free(s);
		return err;
	}
	print_config(m);
	print_series(s);
	for (int d = 0; d < CAKE_LINK_DIRS; d++)
		if (m->cfg.flows[d])
			print_summary(m, s, d, duration_ns);
	cake_link_free(s);
	return 0;
}
