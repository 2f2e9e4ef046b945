/* SPDX-License-Identifier: GPL-2.0-only */
/* cakewg-sim's mq mode (see mq_mode.h). */
#include "tools/cakewg-sim/mq_mode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake_parse.h"

enum { DEFAULT_PKT_BYTES = 1500 };

void mq_mode_init(struct mq_mode *m)
{
	memset(m, 0, sizeof(*m));
	m->cfg.pkt_bytes = DEFAULT_PKT_BYTES;
}

static int bad(const char *what, const char *v)
{
	fprintf(stderr, "cakewg-sim: Unable to parse %s: `%s'\n", what, v);
	return -EINVAL;
}

static int number(const char *what, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || *out < lo || *out > hi)
		return bad(what, v);
	return 0;
}

int mq_mode_option(struct mq_mode *m, const char *name, const char *v)
{
	uint64_t n;
	int ret;

	if (!strcmp(name, "mq")) {
		m->on = true;
		ret = number("--mq instances", v, 1, CAKE_MQ_MAX_MEMBERS, &n);
		m->cfg.instances = (uint32_t)n;
		return ret;
	}
	if (!strcmp(name, "mq-size")) {
		ret = number("--mq-size", v, 64, 65535, &n);
		m->cfg.pkt_bytes = (uint32_t)n;
		return ret;
	}
	if (!strcmp(name, "mq-on"))
		return cake_parse_time_ns(v, &m->cfg.on_ns) ? bad("--mq-on", v) : 0;
	if (!strcmp(name, "mq-off"))
		return cake_parse_time_ns(v, &m->cfg.off_ns) ? bad("--mq-off", v) : 0;
	if (!strcmp(name, "mq-sync"))
		return cake_parse_time_ns(v, &m->cfg.sync_ns) || !m->cfg.sync_ns ? bad("--mq-sync", v)
										   : 0;
	return 1;
}

int mq_mode_run(struct mq_mode *m, const struct cake_options *cake, uint64_t duration_ns,
		uint64_t warmup_ns, uint64_t seed)
{
	struct cake_mq_sim_result r;
	uint64_t sync;
	int ret;

	if (!cake->rate_bytes_per_sec) {
		fprintf(stderr, "cakewg-sim: --mq needs the shared rate: --cake \"bandwidth RATE\"\n");
		return -EINVAL;
	}
	if ((m->cfg.on_ns == 0) != (m->cfg.off_ns == 0)) {
		fprintf(stderr, "cakewg-sim: --mq-on and --mq-off go together\n");
		return -EINVAL;
	}
	m->cfg.rate_bytes_per_sec = cake->rate_bytes_per_sec;
	m->cfg.duration_ns = duration_ns;
	m->cfg.warmup_ns = warmup_ns;
	m->cfg.seed = seed;
	ret = cake_mq_sim_run(&m->cfg, &r);
	if (ret) {
		fprintf(stderr, "cakewg-sim: the simulation did not run: %s\n", strerror(-ret));
		return ret;
	}
	sync = m->cfg.sync_ns ? m->cfg.sync_ns : CAKE_MQ_SYNC_NS;
	printf("mq: %" PRIu32 " CAKE instances sharing %.3f Mbit/s, a recount every %.0f us, "
	       "%" PRIu32 "-byte packets\n",
	       m->cfg.instances, (double)m->cfg.rate_bytes_per_sec * 8 / 1e6, (double)sync / 1e3,
	       m->cfg.pkt_bytes);
	if (m->cfg.off_ns)
		printf("sources: greedy, on %.1f ms and off %.1f ms on average (exponential)\n",
		       (double)m->cfg.on_ns / 1e6, (double)m->cfg.off_ns / 1e6);
	else
		printf("sources: greedy, always on\n");
	printf("measured %.3f s, of which %.3f s with something to send; seed %" PRIu64 "\n\n",
	       (double)(duration_ns - warmup_ns) / 1e9, (double)r.busy_ns / 1e9, seed);
	printf("instance  sent(Mbit/s over the busy time)\n");
	for (uint32_t i = 0; i < m->cfg.instances; i++)
		printf("%8" PRIu32 "  %.3f\n", i,
		       r.busy_ns ? (double)r.per_instance_bytes[i] * 8 * 1e3 / (double)r.busy_ns : 0);
	printf("aggregate %.3f Mbit/s: error %+.4f %% of the set rate; worst fully busy 10 ms "
	       "window %+.3f %%; %" PRIu64 " rate changes\n",
	       r.busy_ns ? (double)r.sent_bytes * 8 * 1e3 / (double)r.busy_ns : 0, 100 * r.error,
	       100 * r.worst_window_error, r.rate_changes);
	return 0;
}
