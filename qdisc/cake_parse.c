/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tc-cake option words, read the way iproute2's tc/q_cake.c reads them:
 *
 *  - later words win, except that two rtt presets are an error (tc's duparg);
 *  - `bandwidth` and `unlimited` switch autorate-ingress off, so it must follow them;
 *  - framing keywords add to one overhead accumulator that starts at 0 for every
 *    option string (ether-vlan may repeat), `overhead N` and `conservative` set it;
 *  - any overhead word switches raw off, but a `raw` word anywhere keeps raw on
 *    (the kernel applies TCA_CAKE_RAW after TCA_CAKE_OVERHEAD);
 *  - `raw` and `docsis` reset the ATM mode, `ethernet` and `ether-vlan` leave it.
 *
 * cakewg's `autorate MIN MAX` (or `autorate off`) and `autorate-target TIME` follow
 * the same rules: the last `autorate` word wins, and the checks that span words
 * (MIN <= MAX, no `unlimited` rate and no `autorate-ingress` with it, a `bandwidth`
 * start rate inside [MIN, MAX]) look at the string's final state, once all words are
 * read. So `autorate-ingress bandwidth 20mbit autorate 2mbit 80mbit` is valid: the
 * bandwidth switched autorate-ingress off before autorate came. A valid `autorate
 * MIN MAX` also switches autorate-ingress off, so that a change turns it off.
 *
 * Deliberate differences from tc, mostly where tc silently ignores what was asked:
 * `mpu 0`, `memlimit 0` and `fwmark 0` are applied (tc drops them from its netlink
 * request); `bandwidth 0` means unlimited; `bandwidth unlimited`, which tc prints
 * but cannot read, is accepted; a non-zero rate that rounds down to 0 bytes/s and
 * `rtt 0` are errors; numbers may not start with a sign.
 */
#include "qdisc/cake_parse.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	WORD_BYTES = 64,   /* longer words are never valid */
	QUOTE_CHARS = 40,  /* how much of a bad word an error message shows */
	US_PER_SEC = 1000000,
	US_PER_MS = 1000,
	NO_CHANGE = -1,
};

#define RATE_RANGE "8bit..2^53bit (1 byte/s and up)"

enum kw_kind {
	KW_BANDWIDTH,
	KW_UNLIMITED,
	KW_AUTORATE,
	KW_AUTORATE_RANGE,
	KW_AUTORATE_TARGET,
	KW_RTT,
	KW_PRESET,
	KW_DIFFSERV,
	KW_FLOW,
	KW_PEER,
	KW_NAT,
	KW_WASH,
	KW_INGRESS,
	KW_ACK,
	KW_GSO,
	KW_ATM,
	KW_RAW,
	KW_CONSERVATIVE,
	KW_FRAMING,
	KW_IGNORED,
	KW_OVERHEAD,
	KW_MPU,
	KW_MEMLIMIT,
	KW_FWMARK,
};

struct keyword {
	const char *name;
	enum kw_kind kind;
	int32_t v;   /* mode, flag value, preset rtt in us, or overhead to add */
	int8_t atm;  /* framing: ATM mode to set, or NO_CHANGE */
	int16_t mpu; /* framing: MPU to set, or NO_CHANGE */
};

#define FRAMING(n, add, atm_mode, mpu_bytes) { n, KW_FRAMING, add, atm_mode, mpu_bytes }

static const struct keyword keywords[] = {
	{ "bandwidth", KW_BANDWIDTH, 0, 0, 0 },
	{ "unlimited", KW_UNLIMITED, 0, 0, 0 },
	{ "autorate-ingress", KW_AUTORATE, 1, 0, 0 },
	{ "autorate", KW_AUTORATE_RANGE, 0, 0, 0 },
	{ "autorate-target", KW_AUTORATE_TARGET, 0, 0, 0 },
	{ "rtt", KW_RTT, 0, 0, 0 },
	/* Presets as q_cake.c: interval in us; the target is interval / 20. */
	{ "datacentre", KW_PRESET, 100, 0, 0 },
	{ "lan", KW_PRESET, 1000, 0, 0 },
	{ "metro", KW_PRESET, 10000, 0, 0 },
	{ "regional", KW_PRESET, 30000, 0, 0 },
	{ "internet", KW_PRESET, 100000, 0, 0 },
	{ "oceanic", KW_PRESET, 300000, 0, 0 },
	{ "satellite", KW_PRESET, 1000000, 0, 0 },
	{ "interplanetary", KW_PRESET, 1000000000, 0, 0 },
	{ "besteffort", KW_DIFFSERV, CAKE_DIFFSERV_BESTEFFORT, 0, 0 },
	{ "precedence", KW_DIFFSERV, CAKE_DIFFSERV_PRECEDENCE, 0, 0 },
	{ "diffserv8", KW_DIFFSERV, CAKE_DIFFSERV_DIFFSERV8, 0, 0 },
	{ "diffserv4", KW_DIFFSERV, CAKE_DIFFSERV_DIFFSERV4, 0, 0 },
	{ "diffserv", KW_DIFFSERV, CAKE_DIFFSERV_DIFFSERV4, 0, 0 }, /* tc's alias */
	{ "diffserv3", KW_DIFFSERV, CAKE_DIFFSERV_DIFFSERV3, 0, 0 },
	{ "flowblind", KW_FLOW, CAKE_FLOW_NONE, 0, 0 },
	{ "srchost", KW_FLOW, CAKE_FLOW_SRC_IP, 0, 0 },
	{ "dsthost", KW_FLOW, CAKE_FLOW_DST_IP, 0, 0 },
	{ "hosts", KW_FLOW, CAKE_FLOW_HOSTS, 0, 0 },
	{ "flows", KW_FLOW, CAKE_FLOW_FLOWS, 0, 0 },
	{ "dual-srchost", KW_FLOW, CAKE_FLOW_DUAL_SRC, 0, 0 },
	{ "dual-dsthost", KW_FLOW, CAKE_FLOW_DUAL_DST, 0, 0 },
	{ "triple-isolate", KW_FLOW, CAKE_FLOW_TRIPLE, 0, 0 },
	{ "peer-isolate", KW_PEER, CAKE_FLOW_TRIPLE, 0, 0 },
	{ "nat", KW_NAT, 1, 0, 0 },
	{ "nonat", KW_NAT, 0, 0, 0 },
	{ "wash", KW_WASH, 1, 0, 0 },
	{ "nowash", KW_WASH, 0, 0, 0 },
	{ "ingress", KW_INGRESS, 1, 0, 0 },
	{ "egress", KW_INGRESS, 0, 0, 0 },
	{ "no-ack-filter", KW_ACK, CAKE_ACK_NONE, 0, 0 },
	{ "ack-filter", KW_ACK, CAKE_ACK_FILTER, 0, 0 },
	{ "ack-filter-aggressive", KW_ACK, CAKE_ACK_AGGRESSIVE, 0, 0 },
	{ "split-gso", KW_GSO, 1, 0, 0 },
	{ "no-split-gso", KW_GSO, 0, 0, 0 },
	{ "ptm", KW_ATM, CAKE_ATM_PTM, 0, 0 },
	{ "atm", KW_ATM, CAKE_ATM_ATM, 0, 0 },
	{ "noatm", KW_ATM, CAKE_ATM_NONE, 0, 0 },
	{ "raw", KW_RAW, 0, 0, 0 },
	/* One whole ATM cell plus ATM framing: safe when the real overhead is unknown. */
	{ "conservative", KW_CONSERVATIVE, 48, CAKE_ATM_ATM, 0 },
	/* ADSL framings, all over ATM cells (tc-cake(8)). */
	FRAMING("ipoa-vcmux", 8, CAKE_ATM_ATM, NO_CHANGE),
	FRAMING("ipoa-llcsnap", 16, CAKE_ATM_ATM, NO_CHANGE),
	FRAMING("bridged-vcmux", 24, CAKE_ATM_ATM, NO_CHANGE),
	FRAMING("bridged-llcsnap", 32, CAKE_ATM_ATM, NO_CHANGE),
	FRAMING("pppoa-vcmux", 10, CAKE_ATM_ATM, NO_CHANGE),
	FRAMING("pppoa-llc", 14, CAKE_ATM_ATM, NO_CHANGE),
	FRAMING("pppoe-vcmux", 32, CAKE_ATM_ATM, NO_CHANGE),
	FRAMING("pppoe-llcsnap", 40, CAKE_ATM_ATM, NO_CHANGE),
	/* VDSL2 over PTM: PPP 2 + PPPoE 6 + Ethernet 18 + PTM 4 = 30; without PPPoE 22. */
	FRAMING("pppoe-ptm", 30, CAKE_ATM_PTM, NO_CHANGE),
	FRAMING("bridged-ptm", 22, CAKE_ATM_PTM, NO_CHANGE),
	/* Preamble, inter-frame gap and FCS; 84 = the minimum frame with all of them. */
	FRAMING("ethernet", 38, NO_CHANGE, 84),
	FRAMING("ether-vlan", 4, NO_CHANGE, NO_CHANGE),
	/* DOCSIS shapers count the Ethernet frame with FCS, no preamble or gap. */
	FRAMING("docsis", 18, CAKE_ATM_NONE, 64),
	/* Obsolete: the kernel now finds the network header itself. */
	{ "via-ethernet", KW_IGNORED, 0, 0, 0 },
	{ "overhead", KW_OVERHEAD, 0, 0, 0 },
	{ "mpu", KW_MPU, 0, 0, 0 },
	{ "memlimit", KW_MEMLIMIT, 0, 0, 0 },
	{ "fwmark", KW_FWMARK, 0, 0, 0 },
};

/* Everything that spans words; tc keeps the same locals in cake_parse_opt(). */
struct pstate {
	struct cake_options o;
	int32_t overhead;  /* the framing accumulator */
	bool overhead_set;
	bool raw;
	const struct keyword *preset;
	char unlimited_word[QUOTE_CHARS + 24]; /* the last rate word, if it asked for none */
	char rate_word[QUOTE_CHARS + 8]; /* the last `bandwidth' value, quoted */
	char min_word[QUOTE_CHARS + 8], max_word[QUOTE_CHARS + 8];
	struct cake_parse_err *err;
};

/* A source of words: the rest of a string, or an argument vector. */
struct words {
	const char *s;
	const char *const *argv;
	int argc;
	bool too_long;
	char buf[WORD_BYTES];
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* ASCII case-insensitive equality; tc uses strcasecmp for units in the C locale. */
static bool unit_is(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (lower(*a) != lower(*b))
			return false;
	return *a == *b;
}

static void copy_word(struct words *w, const char *p, size_t n)
{
	w->too_long = n >= sizeof(w->buf);
	if (w->too_long)
		n = sizeof(w->buf) - 1;
	memcpy(w->buf, p, n);
	w->buf[n] = '\0';
}

/* The next word in w->buf, or NULL at the end. */
static const char *next_word(struct words *w)
{
	const char *p;

	if (w->argv) {
		if (w->argc <= 0)
			return NULL;
		p = *w->argv++;
		w->argc--;
		copy_word(w, p ? p : "", p ? strlen(p) : 0);
		return w->buf;
	}
	while (*w->s && is_space(*w->s))
		w->s++;
	if (!*w->s)
		return NULL;
	p = w->s;
	while (*w->s && !is_space(*w->s))
		w->s++;
	copy_word(w, p, (size_t)(w->s - p));
	return w->buf;
}

/* A word as an error message may show it: printable, and cut if long. */
static void quote(char *dst, size_t size, const char *word, bool cut)
{
	size_t i;

	for (i = 0; word[i] && i < QUOTE_CHARS && i + 4 < size; i++) {
		unsigned char c = (unsigned char)word[i];

		dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if ((word[i] || cut) && i + 4 < size) {
		memcpy(&dst[i], "...", 3);
		i += 3;
	}
	dst[i] = '\0';
}

static int fail(struct pstate *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct pstate *st, const char *fmt, ...)
{
	va_list ap;

	if (st->err) {
		va_start(ap, fmt);
		vsnprintf(st->err->msg, sizeof(st->err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A value error, worded after what the unit parser found; name says whose value. */
static int bad_named_value(struct pstate *st, const char *name, const struct words *w, int ret,
			   const char *range)
{
	char q[QUOTE_CHARS + 8];

	quote(q, sizeof(q), w->buf, w->too_long);
	if (ret == -ERANGE && !w->too_long)
		return fail(st, "%s `%s' is out of range %s", name, q, range);
	return fail(st, "Unable to parse %s `%s'", name, q);
}

static int bad_value(struct pstate *st, const struct keyword *kw, const struct words *w,
		     int ret, const char *range)
{
	return bad_named_value(st, kw->name, w, ret, range);
}

/* tc's numbers: strtod() text up to a unit suffix. Must start with a digit or '.'. */
static int split_number(const char *word, double *val, const char **unit)
{
	char *end;

	if (!is_digit(word[0]) && !(word[0] == '.' && is_digit(word[1])))
		return -EINVAL;
	*val = strtod(word, &end);
	if (end == word || isnan(*val))
		return -EINVAL;
	if (isinf(*val))
		return -ERANGE;
	*unit = end;
	return 0;
}

/* Scales as iproute2's rate_suffix table (lib/utils_math.c), in bits. */
static const struct {
	const char *name;
	double bits;
} rate_units[] = {
	{ "", 1. },
	{ "bit", 1. },
	{ "kibit", 1024. },
	{ "kbit", 1e3 },
	{ "mibit", 1024. * 1024. },
	{ "mbit", 1e6 },
	{ "gibit", 1024. * 1024. * 1024. },
	{ "gbit", 1e9 },
	{ "tibit", 1024. * 1024. * 1024. * 1024. },
	{ "tbit", 1e12 },
	{ "bps", 8. },
	{ "kibps", 8. * 1024. },
	{ "kbps", 8e3 },
	{ "mibps", 8. * 1024. * 1024. },
	{ "mbps", 8e6 },
	{ "gibps", 8. * 1024. * 1024. * 1024. },
	{ "gbps", 8e9 },
	{ "tibps", 8. * 1024. * 1024. * 1024. * 1024. },
	{ "tbps", 8e12 },
};

int cake_parse_rate(const char *word, uint64_t *bytes_per_sec)
{
	const char *unit;
	double v, bytes;
	size_t i;
	int ret;

	ret = split_number(word, &v, &unit);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(rate_units) / sizeof(rate_units[0]); i++)
		if (unit_is(unit, rate_units[i].name))
			break;
	if (i == sizeof(rate_units) / sizeof(rate_units[0]))
		return -EINVAL;
	bytes = v * rate_units[i].bits / 8;
	if (bytes > (double)CAKE_RATE_MAX_BYTES_PER_SEC || (v > 0 && bytes < 1))
		return -ERANGE;
	*bytes_per_sec = (uint64_t)bytes;
	return 0;
}

int cake_parse_time(const char *word, uint32_t *us)
{
	const char *unit;
	double t;
	int ret;

	ret = split_number(word, &t, &unit);
	if (ret)
		return ret;
	if (unit_is(unit, "s") || unit_is(unit, "sec") || unit_is(unit, "secs"))
		t *= US_PER_SEC;
	else if (unit_is(unit, "ms") || unit_is(unit, "msec") || unit_is(unit, "msecs"))
		t *= US_PER_MS;
	else if (!unit_is(unit, "") && !unit_is(unit, "us") && !unit_is(unit, "usec") &&
		 !unit_is(unit, "usecs"))
		return -EINVAL;
	if (t > (double)UINT32_MAX)
		return -ERANGE;
	*us = (uint32_t)t;
	return 0;
}

int cake_parse_time_ns(const char *word, uint64_t *ns)
{
	uint32_t us;
	int ret = cake_parse_time(word, &us);

	if (!ret)
		*ns = (uint64_t)us * 1000u;
	return ret;
}

/* Sizes as iproute2's get_size64(): k/m/g are binary, the "bit" units divide by 8. */
static const struct {
	const char *name;
	double bytes;
} size_units[] = {
	{ "", 1. },
	{ "b", 1. },
	{ "k", 1024. },
	{ "kb", 1024. },
	{ "kbit", 1024. / 8 },
	{ "m", 1024. * 1024. },
	{ "mb", 1024. * 1024. },
	{ "mbit", 1024. * 1024. / 8 },
	{ "g", 1024. * 1024. * 1024. },
	{ "gb", 1024. * 1024. * 1024. },
	{ "gbit", 1024. * 1024. * 1024. / 8 },
};

int cake_parse_size(const char *word, uint64_t *bytes)
{
	const char *unit;
	double v;
	size_t i;
	int ret;

	ret = split_number(word, &v, &unit);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++)
		if (unit_is(unit, size_units[i].name))
			break;
	if (i == sizeof(size_units) / sizeof(size_units[0]))
		return -EINVAL;
	v *= size_units[i].bytes;
	if (v >= 18446744073709551616.0) /* 2^64 */
		return -ERANGE;
	*bytes = (uint64_t)v;
	return 0;
}

/* A whole decimal integer, as tc's strtol(..., 10) with nothing left over. */
static int parse_int(const char *word, long lo, long hi, int32_t *out)
{
	const char *p = word[0] == '-' ? word + 1 : word;
	char *end;
	long v;

	if (!is_digit(*p))
		return -EINVAL;
	errno = 0;
	v = strtol(word, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < lo || v > hi)
		return -ERANGE;
	*out = (int32_t)v;
	return 0;
}

/* tc's get_u32(..., 0): decimal, 0x hex or 0 octal. */
static int parse_u32(const char *word, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!is_digit(word[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(word, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

static void set_rtt(struct cake_options *o, uint32_t rtt_us)
{
	o->rtt_us = rtt_us;
	o->target_us = rtt_us / CAKE_TARGET_DIVISOR ? rtt_us / CAKE_TARGET_DIVISOR : 1;
	o->present |= CAKE_OPT_RTT;
}

static void set_flow(struct cake_options *o, enum cake_flow_mode mode, bool peer)
{
	o->flow_mode = mode;
	o->peer_isolation = peer;
	o->present |= CAKE_OPT_FLOW_MODE | CAKE_OPT_PEER_ISOLATION;
}

static void set_atm(struct pstate *st, int atm)
{
	if (atm == NO_CHANGE)
		return;
	st->o.atm = (enum cake_atm_mode)atm;
	st->o.present |= CAKE_OPT_ATM;
}

static void set_mpu(struct pstate *st, int mpu)
{
	if (mpu == NO_CHANGE)
		return;
	st->o.mpu = (uint32_t)mpu;
	st->o.present |= CAKE_OPT_MPU;
}

/* The overhead words: raw, conservative and the framing keywords. */
static int apply_overhead_word(struct pstate *st, const struct keyword *kw)
{
	switch (kw->kind) {
	case KW_RAW:
		st->raw = true;
		st->overhead = 0;
		set_atm(st, CAKE_ATM_NONE);
		break;
	case KW_CONSERVATIVE:
		st->overhead = kw->v;
		set_atm(st, kw->atm);
		break;
	default: /* KW_FRAMING */
		if (st->overhead + kw->v > CAKE_OVERHEAD_MAX)
			return fail(st, "`%s' takes the overhead to %d, out of range -64..256",
				    kw->name, (int)(st->overhead + kw->v));
		st->overhead += kw->v;
		set_atm(st, kw->atm);
		set_mpu(st, kw->mpu);
		break;
	}
	st->overhead_set = true;
	return 0;
}

static int apply_preset(struct pstate *st, const struct keyword *kw)
{
	if (st->preset)
		return fail(st, "rtt preset `%s' conflicts with `%s'", kw->name, st->preset->name);
	st->preset = kw;
	set_rtt(&st->o, (uint32_t)kw->v);
	return 0;
}

/* Words without a value. */
static int apply_flag(struct pstate *st, const struct keyword *kw)
{
	struct cake_options *o = &st->o;

	switch (kw->kind) {
	case KW_UNLIMITED:
		o->rate_bytes_per_sec = 0;
		o->autorate_ingress = false;
		o->present |= CAKE_OPT_RATE | CAKE_OPT_AUTORATE;
		snprintf(st->unlimited_word, sizeof(st->unlimited_word), "%s", kw->name);
		break;
	case KW_AUTORATE:
		o->autorate_ingress = true;
		o->present |= CAKE_OPT_AUTORATE;
		break;
	case KW_PRESET:
		return apply_preset(st, kw);
	case KW_DIFFSERV:
		o->diffserv = (enum cake_diffserv_mode)kw->v;
		o->present |= CAKE_OPT_DIFFSERV;
		break;
	case KW_FLOW:
	case KW_PEER:
		set_flow(o, (enum cake_flow_mode)kw->v, kw->kind == KW_PEER);
		break;
	case KW_NAT:
		o->nat = kw->v;
		o->present |= CAKE_OPT_NAT;
		break;
	case KW_WASH:
		o->wash = kw->v;
		o->present |= CAKE_OPT_WASH;
		break;
	case KW_INGRESS:
		o->ingress = kw->v;
		o->present |= CAKE_OPT_INGRESS;
		break;
	case KW_ACK:
		o->ack_filter = (enum cake_ack_filter_mode)kw->v;
		o->present |= CAKE_OPT_ACK_FILTER;
		break;
	case KW_GSO:
		o->split_gso = kw->v;
		o->present |= CAKE_OPT_SPLIT_GSO;
		break;
	case KW_ATM:
		set_atm(st, kw->v);
		break;
	case KW_RAW:
	case KW_CONSERVATIVE:
	case KW_FRAMING:
		return apply_overhead_word(st, kw);
	default: /* KW_IGNORED */
		break;
	}
	return 0;
}

static int apply_rate_value(struct pstate *st, const struct keyword *kw, const struct words *w)
{
	uint64_t rate = 0;
	int ret = 0;

	/* tc prints "bandwidth unlimited" but cannot read it back; we can. */
	if (strcmp(w->buf, "unlimited"))
		ret = cake_parse_rate(w->buf, &rate);

	if (ret || w->too_long)
		return bad_value(st, kw, w, ret, RATE_RANGE);
	st->o.rate_bytes_per_sec = rate;
	st->o.autorate_ingress = false;
	st->o.present |= CAKE_OPT_RATE | CAKE_OPT_AUTORATE;
	quote(st->rate_word, sizeof(st->rate_word), w->buf, false);
	if (rate)
		st->unlimited_word[0] = '\0';
	else
		snprintf(st->unlimited_word, sizeof(st->unlimited_word), "%s %s", kw->name,
			 st->rate_word);
	return 0;
}

/* One bound of `autorate MIN MAX`: a rate of at least 1 byte/s. */
static int autorate_bound(struct pstate *st, const char *name, const struct words *w,
			  uint64_t *rate, char *quoted, size_t quoted_size)
{
	int ret = cake_parse_rate(w->buf, rate);

	if (!ret && !*rate)
		ret = -ERANGE;
	if (ret || w->too_long)
		return bad_named_value(st, name, w, ret, RATE_RANGE);
	quote(quoted, quoted_size, w->buf, false);
	return 0;
}

/* `autorate off` or `autorate MIN MAX`; reads MAX itself. */
static int apply_autorate(struct pstate *st, struct words *w)
{
	struct cake_options *o = &st->o;
	uint64_t lo, hi;
	int ret;

	o->present |= CAKE_OPT_AUTORATE_RANGE;
	if (!strcmp(w->buf, "off")) {
		o->autorate = false;
		o->autorate_min = o->autorate_max = 0;
		return 0;
	}
	ret = autorate_bound(st, "autorate MIN", w, &lo, st->min_word, sizeof(st->min_word));
	if (ret)
		return ret;
	if (!next_word(w))
		return fail(st, "`autorate' needs MAX after MIN `%s'", st->min_word);
	ret = autorate_bound(st, "autorate MAX", w, &hi, st->max_word, sizeof(st->max_word));
	if (ret)
		return ret;
	if (lo > hi)
		return fail(st, "autorate MIN `%s' is above MAX `%s'", st->min_word, st->max_word);
	o->autorate = true;
	o->autorate_min = lo;
	o->autorate_max = hi;
	return 0;
}

/*
 * The allowed queueing delay. At least 1 ms: TCP timestamps tick in milliseconds on
 * most hosts and the controller looks every CAKE_AUTORATE_TICK_MS, so less cannot be
 * seen; at most 1 s: beyond that the queue the target allows is the bufferbloat
 * autorate exists to remove.
 */
static int apply_autorate_target(struct pstate *st, const struct keyword *kw,
				 const struct words *w)
{
	uint32_t us;
	int ret = cake_parse_time(w->buf, &us);

	if (!ret && (us < CAKE_AUTORATE_TARGET_MIN_US || us > CAKE_AUTORATE_TARGET_MAX_US))
		ret = -ERANGE;
	if (ret || w->too_long)
		return bad_value(st, kw, w, ret, "1ms..1s");
	st->o.autorate_target_us = us;
	st->o.present |= CAKE_OPT_AUTORATE_TARGET;
	return 0;
}

static int apply_rtt_value(struct pstate *st, const struct keyword *kw, const struct words *w)
{
	uint32_t us;
	int ret = cake_parse_time(w->buf, &us);

	if (!ret && !us)
		ret = -ERANGE;
	if (ret || w->too_long)
		return bad_value(st, kw, w, ret, "1us..4294967295us");
	set_rtt(&st->o, us);
	return 0;
}

static int apply_number_value(struct pstate *st, const struct keyword *kw, const struct words *w)
{
	int32_t v = 0;
	int ret;

	if (kw->kind == KW_OVERHEAD)
		ret = parse_int(w->buf, CAKE_OVERHEAD_MIN, CAKE_OVERHEAD_MAX, &v);
	else
		ret = parse_int(w->buf, 0, CAKE_MPU_MAX, &v);
	if (ret || w->too_long)
		return bad_value(st, kw, w, ret, kw->kind == KW_OVERHEAD ? "-64..256" : "0..256");
	if (kw->kind == KW_OVERHEAD) {
		st->overhead = v;
		st->overhead_set = true;
	} else {
		set_mpu(st, v);
	}
	return 0;
}

static int apply_value(struct pstate *st, const struct keyword *kw, const struct words *w)
{
	uint64_t size;
	uint32_t mask;
	int ret;

	switch (kw->kind) {
	case KW_BANDWIDTH:
		return apply_rate_value(st, kw, w);
	case KW_RTT:
		return apply_rtt_value(st, kw, w);
	case KW_AUTORATE_TARGET:
		return apply_autorate_target(st, kw, w);
	case KW_OVERHEAD:
	case KW_MPU:
		return apply_number_value(st, kw, w);
	case KW_MEMLIMIT:
		ret = cake_parse_size(w->buf, &size);
		if (!ret && size > CAKE_MEMLIMIT_MAX_BYTES)
			ret = -ERANGE;
		if (ret || w->too_long)
			return bad_value(st, kw, w, ret, "0..4294967295 bytes");
		st->o.memlimit_bytes = size;
		st->o.present |= CAKE_OPT_MEMLIMIT;
		return 0;
	default: /* KW_FWMARK */
		ret = parse_u32(w->buf, &mask);
		if (ret || w->too_long)
			return bad_value(st, kw, w, ret, "0..0xffffffff");
		st->o.fwmark_mask = mask;
		st->o.present |= CAKE_OPT_FWMARK;
		return 0;
	}
}

static bool takes_value(enum kw_kind kind)
{
	return kind == KW_BANDWIDTH || kind == KW_RTT || kind == KW_OVERHEAD || kind == KW_MPU ||
	       kind == KW_MEMLIMIT || kind == KW_FWMARK || kind == KW_AUTORATE_TARGET;
}

static const struct keyword *lookup(const struct words *w)
{
	size_t i;

	if (w->too_long)
		return NULL;
	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(w->buf, keywords[i].name))
			return &keywords[i];
	return NULL;
}

/* autorate's checks on the string's final state (see the top of this file). */
static int finish_autorate(struct pstate *st)
{
	struct cake_options *o = &st->o;

	if (!o->autorate)
		return 0;
	if (st->unlimited_word[0])
		return fail(st, "`autorate' conflicts with `%s': autorate needs a rate",
			    st->unlimited_word);
	if (o->autorate_ingress)
		return fail(st, "`autorate' conflicts with `autorate-ingress' (two controllers "
				"of one rate)");
	if (o->rate_bytes_per_sec &&
	    (o->rate_bytes_per_sec < o->autorate_min || o->rate_bytes_per_sec > o->autorate_max))
		return fail(st, "bandwidth `%s' is outside autorate `%s' `%s'", st->rate_word,
			    st->min_word, st->max_word);
	o->present |= CAKE_OPT_AUTORATE; /* autorate-ingress off, for a change */
	return 0;
}

/* The overhead words resolve once all are read, as the kernel sees the request. */
static int finish(struct pstate *st)
{
	if (st->overhead_set) {
		st->o.overhead = st->overhead;
		st->o.raw = st->raw;
		st->o.present |= CAKE_OPT_OVERHEAD;
	}
	return finish_autorate(st);
}

/* One keyword and the values it takes. */
static int apply_word(struct pstate *st, const struct keyword *kw, struct words *w)
{
	if (kw->kind == KW_AUTORATE_RANGE)
		return next_word(w) ? apply_autorate(st, w)
				    : fail(st, "`autorate' needs MIN MAX, or `off'");
	if (!takes_value(kw->kind))
		return apply_flag(st, kw);
	if (!next_word(w))
		return fail(st, "`%s' needs a value", kw->name);
	return apply_value(st, kw, w);
}

static int parse_words(struct words *w, struct cake_options *opts, struct cake_parse_err *err)
{
	struct pstate st = { .err = err };
	const struct keyword *kw;
	char q[QUOTE_CHARS + 8];
	int ret;

	cake_options_defaults(&st.o);
	while (next_word(w)) {
		kw = lookup(w);
		if (!kw) {
			quote(q, sizeof(q), w->buf, w->too_long);
			return fail(&st, "Invalid CAKE option `%s'", q);
		}
		ret = apply_word(&st, kw, w);
		if (ret)
			return ret;
	}
	ret = finish(&st);
	if (ret)
		return ret;
	*opts = st.o;
	return 0;
}

void cake_options_defaults(struct cake_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->rtt_us = CAKE_DEFAULT_RTT_US;
	opts->target_us = CAKE_DEFAULT_RTT_US / CAKE_TARGET_DIVISOR;
	opts->diffserv = CAKE_DIFFSERV_DIFFSERV3;
	opts->flow_mode = CAKE_FLOW_TRIPLE;
	opts->ack_filter = CAKE_ACK_NONE;
	opts->split_gso = true;
	opts->raw = true;
	opts->atm = CAKE_ATM_NONE;
}

bool cake_options_equal(const struct cake_options *a, const struct cake_options *b)
{
	return a->rate_bytes_per_sec == b->rate_bytes_per_sec &&
	       a->autorate_ingress == b->autorate_ingress && a->rtt_us == b->rtt_us &&
	       a->target_us == b->target_us && a->diffserv == b->diffserv &&
	       a->flow_mode == b->flow_mode && a->nat == b->nat && a->wash == b->wash &&
	       a->ingress == b->ingress && a->ack_filter == b->ack_filter &&
	       a->split_gso == b->split_gso && a->raw == b->raw && a->overhead == b->overhead &&
	       a->mpu == b->mpu && a->atm == b->atm && a->memlimit_bytes == b->memlimit_bytes &&
	       a->fwmark_mask == b->fwmark_mask && a->peer_isolation == b->peer_isolation &&
	       a->autorate == b->autorate && a->autorate_min == b->autorate_min &&
	       a->autorate_max == b->autorate_max &&
	       a->autorate_target_us == b->autorate_target_us;
}

int cake_options_parse(const char *str, struct cake_options *opts, struct cake_parse_err *err)
{
	struct words w = { .s = str ? str : "" };

	return parse_words(&w, opts, err);
}

int cake_options_parse_argv(int argc, const char *const *argv, struct cake_options *opts,
			    struct cake_parse_err *err)
{
	static const char *const none[] = { NULL };
	struct words w = { .argv = argv ? argv : none, .argc = argv ? argc : 0 };

	return parse_words(&w, opts, err);
}

static uint64_t clamp_rate(uint64_t r, uint64_t lo, uint64_t hi)
{
	return r < lo ? lo : r > hi ? hi : r;
}

static void autorate_stop(struct cake_options *cur)
{
	cur->autorate = false;
	cur->autorate_min = cur->autorate_max = 0;
}

/* The autorate part of a change (see cake_parse.h), after the plain copies. */
static void merge_autorate(struct cake_options *cur, const struct cake_options *change,
			   uint64_t rate_now)
{
	uint32_t p = change->present;

	if ((p & CAKE_OPT_AUTORATE_RANGE) && change->autorate) {
		cur->autorate = true;
		cur->autorate_min = change->autorate_min;
		cur->autorate_max = change->autorate_max;
		if (!(p & CAKE_OPT_RATE) && rate_now)
			cur->rate_bytes_per_sec = clamp_rate(rate_now, cur->autorate_min,
							     cur->autorate_max);
		return;
	}
	if (!cur->autorate)
		return;
	if (p & CAKE_OPT_AUTORATE_RANGE || ((p & CAKE_OPT_RATE) && !change->rate_bytes_per_sec) ||
	    ((p & CAKE_OPT_AUTORATE) && change->autorate_ingress)) {
		/* autorate off, unlimited, autorate-ingress: a fixed shaper again */
		autorate_stop(cur);
		if (!(p & CAKE_OPT_RATE))
			cur->rate_bytes_per_sec = rate_now;
		return;
	}
	if (p & CAKE_OPT_RATE) /* a new start rate */
		cur->rate_bytes_per_sec = clamp_rate(change->rate_bytes_per_sec,
						     cur->autorate_min, cur->autorate_max);
}

void cake_options_merge(struct cake_options *cur, const struct cake_options *change)
{
	cake_options_merge_at(cur, change, cur->rate_bytes_per_sec);
}

void cake_options_merge_at(struct cake_options *cur, const struct cake_options *change,
			   uint64_t rate_now)
{
	uint32_t p = change->present;

	if (p & CAKE_OPT_RATE)
		cur->rate_bytes_per_sec = change->rate_bytes_per_sec;
	if (p & CAKE_OPT_AUTORATE)
		cur->autorate_ingress = change->autorate_ingress;
	if (p & CAKE_OPT_RTT) {
		cur->rtt_us = change->rtt_us;
		cur->target_us = change->target_us;
	}
	if (p & CAKE_OPT_DIFFSERV)
		cur->diffserv = change->diffserv;
	if (p & CAKE_OPT_FLOW_MODE)
		cur->flow_mode = change->flow_mode;
	if (p & CAKE_OPT_PEER_ISOLATION)
		cur->peer_isolation = change->peer_isolation;
	if (p & CAKE_OPT_NAT)
		cur->nat = change->nat;
	if (p & CAKE_OPT_WASH)
		cur->wash = change->wash;
	if (p & CAKE_OPT_INGRESS)
		cur->ingress = change->ingress;
	if (p & CAKE_OPT_ACK_FILTER)
		cur->ack_filter = change->ack_filter;
	if (p & CAKE_OPT_SPLIT_GSO)
		cur->split_gso = change->split_gso;
	if (p & CAKE_OPT_OVERHEAD) {
		cur->overhead = change->overhead;
		cur->raw = change->raw;
	}
	if (p & CAKE_OPT_MPU)
		cur->mpu = change->mpu;
	if (p & CAKE_OPT_ATM)
		cur->atm = change->atm;
	if (p & CAKE_OPT_MEMLIMIT)
		cur->memlimit_bytes = change->memlimit_bytes;
	if (p & CAKE_OPT_FWMARK)
		cur->fwmark_mask = change->fwmark_mask;
	if (p & CAKE_OPT_AUTORATE_TARGET)
		cur->autorate_target_us = change->autorate_target_us;
	merge_autorate(cur, change, rate_now);
	cur->present |= p;
}
