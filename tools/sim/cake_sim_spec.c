/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulator's flow lines: "kind[,key=value...]". Numbers with units go through
 * the tc-cake unit parsers, so "rate=60mbit", "rtt=40ms" and "size=1.5kb" read as
 * they would in a tc option string.
 */
#include "tools/sim/cake_sim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake.h"

enum {
	SPEC_BYTES = 512,
	MAX_COUNT = CAKE_SIM_MAX_FLOWS,
	DSCP_MAX = 63,
};

/* Per-hop behaviour names (RFC 2474, 2597, 3246, 5865, 8622). */
static const struct {
	const char *name;
	uint8_t dscp;
} dscp_names[] = {
	{ "BE", 0 },    { "LE", 1 },    { "CS0", 0 },   { "CS1", 8 },   { "CS2", 16 },
	{ "CS3", 24 },  { "CS4", 32 },  { "CS5", 40 },  { "CS6", 48 },  { "CS7", 56 },
	{ "AF11", 10 }, { "AF12", 12 }, { "AF13", 14 }, { "AF21", 18 }, { "AF22", 20 },
	{ "AF23", 22 }, { "AF31", 26 }, { "AF32", 28 }, { "AF33", 30 }, { "AF41", 34 },
	{ "AF42", 36 }, { "AF43", 38 }, { "VA", 44 },   { "EF", 46 },
};

static int fail(struct cake_parse_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct cake_parse_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

void cake_sim_flow_defaults(struct cake_sim_flow_spec *f, enum cake_sim_kind kind)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->host = f->dst = f->peer = 1;
	f->cc = CAKE_SIM_CUBIC;
	f->rtt_ns = 20 * CAKE_NS_PER_MS;
	f->count = 1;
	f->burst = 1;
	switch (kind) {
	case CAKE_SIM_TCP:
		f->size_bytes = 1500;
		break;
	case CAKE_SIM_UDP:
		f->size_bytes = 1200;
		f->rate_bytes_per_sec = 10000000 / 8;
		break;
	default:
		f->size_bytes = 84; /* ping's 56 data bytes + ICMP 8 + IPv4 20 */
		f->interval_ns = 100 * CAKE_NS_PER_MS;
		break;
	}
}

static int parse_uint(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (*end || errno || n > max)
		return -EINVAL;
	*out = n;
	return 0;
}

static int parse_dscp(const char *v, uint8_t *out)
{
	uint64_t n;
	size_t i;

	for (i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++)
		if (!strcmp(v, dscp_names[i].name)) {
			*out = dscp_names[i].dscp;
			return 0;
		}
	if (parse_uint(v, DSCP_MAX, &n))
		return -EINVAL;
	*out = (uint8_t)n;
	return 0;
}

static int parse_ns(const char *v, uint64_t *ns)
{
	return cake_parse_time_ns(v, ns) ? -EINVAL : 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!v || !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

static int parse_cc(const char *v, enum cake_sim_cc *cc)
{
	if (!strcmp(v, "cubic"))
		*cc = CAKE_SIM_CUBIC;
	else if (!strcmp(v, "reno"))
		*cc = CAKE_SIM_RENO;
	else
		return -EINVAL;
	return 0;
}

static int parse_packet_size(const char *v, uint32_t *out)
{
	uint64_t b;

	if (cake_parse_size(v, &b) || b < CAKE_SIM_MIN_PKT_BYTES || b > CAKE_SIM_MAX_PKT_BYTES)
		return -EINVAL;
	*out = (uint32_t)b;
	return 0;
}

static int parse_rate(const char *v, uint64_t *out)
{
	uint64_t r;

	if (cake_parse_rate(v, &r) || !r)
		return -EINVAL;
	*out = r;
	return 0;
}

static int parse_count(const char *v, uint32_t *out)
{
	uint64_t n;

	if (parse_uint(v, MAX_COUNT, &n) || !n)
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

static int parse_id(const char *v, uint32_t *out)
{
	uint64_t n;

	if (parse_uint(v, UINT32_MAX, &n))
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

static const char *const value_keys[] = {
	"host", "dst", "peer", "dscp", "cc", "size", "rate", "burst", "count", "interval", "rtt",
	"start", "stop",
};

/* One key; v is NULL when the word had no '='. -ENOENT: unknown; -ENODATA: no value. */
static int apply_key(struct cake_sim_flow_spec *f, const char *k, const char *v, bool *peer_set)
{
	size_t i;

	if (!strcmp(k, "ecn"))
		return parse_bool(v, &f->ecn);
	if (!v) {
		for (i = 0; i < sizeof(value_keys) / sizeof(value_keys[0]); i++)
			if (!strcmp(k, value_keys[i]))
				return -ENODATA;
		return -ENOENT;
	}
	if (!strcmp(k, "host"))
		return parse_id(v, &f->host);
	if (!strcmp(k, "dst"))
		return parse_id(v, &f->dst);
	if (!strcmp(k, "peer")) {
		*peer_set = true;
		return parse_id(v, &f->peer);
	}
	if (!strcmp(k, "dscp"))
		return parse_dscp(v, &f->dscp);
	if (!strcmp(k, "cc"))
		return parse_cc(v, &f->cc);
	if (!strcmp(k, "size"))
		return parse_packet_size(v, &f->size_bytes);
	if (!strcmp(k, "rate"))
		return parse_rate(v, &f->rate_bytes_per_sec);
	if (!strcmp(k, "burst"))
		return parse_count(v, &f->burst);
	if (!strcmp(k, "count"))
		return parse_count(v, &f->count);
	if (!strcmp(k, "interval"))
		return parse_ns(v, &f->interval_ns) ? -EINVAL : (f->interval_ns ? 0 : -EINVAL);
	if (!strcmp(k, "rtt"))
		return parse_ns(v, &f->rtt_ns);
	if (!strcmp(k, "start"))
		return parse_ns(v, &f->start_ns);
	if (!strcmp(k, "stop"))
		return parse_ns(v, &f->stop_ns);
	return -ENOENT;
}

static int parse_kind(const char *word, enum cake_sim_kind *kind)
{
	if (!strcmp(word, "tcp"))
		*kind = CAKE_SIM_TCP;
	else if (!strcmp(word, "udp"))
		*kind = CAKE_SIM_UDP;
	else if (!strcmp(word, "ping"))
		*kind = CAKE_SIM_PING;
	else
		return -EINVAL;
	return 0;
}

int cake_sim_flow_parse(const char *spec, struct cake_sim_flow_spec *out,
			struct cake_parse_err *err)
{
	struct cake_sim_flow_spec f;
	enum cake_sim_kind kind;
	char buf[SPEC_BYTES], *word, *save = NULL, *eq;
	bool peer_set = false;
	int ret;

	if (strlen(spec) >= sizeof(buf))
		return fail(err, "Flow spec is longer than %d characters", SPEC_BYTES - 1);
	strcpy(buf, spec);
	word = strtok_r(buf, ",", &save);
	if (!word || parse_kind(word, &kind))
		return fail(err, "Invalid flow kind `%.40s' (tcp, udp or ping)", word ? word : "");
	cake_sim_flow_defaults(&f, kind);
	while ((word = strtok_r(NULL, ",", &save))) {
		eq = strchr(word, '=');
		if (eq)
			*eq++ = '\0';
		ret = apply_key(&f, word, eq, &peer_set);
		if (ret == -ENOENT)
			return fail(err, "Invalid flow key `%.40s'", word);
		if (ret == -ENODATA)
			return fail(err, "`%s' needs a value", word);
		if (ret)
			return fail(err, "Unable to parse %s `%.40s'", word, eq ? eq : "");
	}
	if (f.stop_ns && f.stop_ns <= f.start_ns)
		return fail(err, "Flow stops before it starts");
	if (!peer_set)
		f.peer = f.host;
	*out = f;
	return 0;
}
