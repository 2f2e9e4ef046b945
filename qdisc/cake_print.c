/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text and JSON in tc's shapes. The layouts follow iproute2 tc/q_cake.c
 * (cake_print_opt, cake_print_xstats, cake_print_json_tin), tc/tc_util.c
 * (print_tcstats2_attr: the Sent and backlog lines) and tc/tc_qdisc.c (print_qdisc:
 * where the newlines fall).
 */
#include "qdisc/cake_print.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/cake_parse.h"

enum {
	RATE_KILO = 1000,
	SIZE_KILO = 1024,
	US_PER_MS = 1000,
	US_PER_SEC = 1000000,
	NS_PER_US = 1000,
	COL_WIDTH = 12, /* every tin column is " %12s" */
};

static const char *const diffserv_names[] = {
	[CAKE_DIFFSERV_DIFFSERV3] = "diffserv3",   [CAKE_DIFFSERV_DIFFSERV4] = "diffserv4",
	[CAKE_DIFFSERV_DIFFSERV8] = "diffserv8",   [CAKE_DIFFSERV_BESTEFFORT] = "besteffort",
	[CAKE_DIFFSERV_PRECEDENCE] = "precedence",
};

static const char *const flow_names[] = {
	[CAKE_FLOW_NONE] = "flowblind",        [CAKE_FLOW_SRC_IP] = "srchost",
	[CAKE_FLOW_DST_IP] = "dsthost",        [CAKE_FLOW_HOSTS] = "hosts",
	[CAKE_FLOW_FLOWS] = "flows",           [CAKE_FLOW_DUAL_SRC] = "dual-srchost",
	[CAKE_FLOW_DUAL_DST] = "dual-dsthost", [CAKE_FLOW_TRIPLE] = "triple-isolate",
};

void cake_out_init(struct cake_out *out, char *buf, size_t size)
{
	out->buf = buf;
	out->size = buf ? size : 0;
	out->len = 0;
	if (out->size)
		out->buf[0] = '\0';
}

void cake_out_printf(struct cake_out *out, const char *fmt, ...)
{
	size_t room = out->len < out->size ? out->size - out->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? out->buf + out->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		out->len += (size_t)n;
}

int cake_out_status(const struct cake_out *out)
{
	return out->len < out->size ? 0 : -ENOSPC;
}

/* lib/json_print.c print_color_rate(): bytes/s shown as bits/s, 1000-based. */
const char *cake_fmt_rate(char buf[static CAKE_FMT_BYTES], uint64_t bytes_per_sec)
{
	static const char *const units[] = { "", "K", "M", "G", "T" };
	uint64_t r = bytes_per_sec << 3; /* wraps above 2^61 as tc's does */
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++) {
		if (r < RATE_KILO)
			break;
		if (r % RATE_KILO && r < (uint64_t)RATE_KILO * RATE_KILO)
			break;
		r /= RATE_KILO;
	}
	snprintf(buf, CAKE_FMT_BYTES, "%.0f%sbit", (double)r, units[i]);
	return buf;
}

/* lib/utils.c print_time(), with tc's time unit of one microsecond. */
const char *cake_fmt_time(char buf[static CAKE_FMT_BYTES], uint32_t us)
{
	double t = us;

	if (t >= US_PER_SEC)
		snprintf(buf, CAKE_FMT_BYTES, "%.3gs", t / US_PER_SEC);
	else if (t >= US_PER_MS)
		snprintf(buf, CAKE_FMT_BYTES, "%.3gms", t / US_PER_MS);
	else
		snprintf(buf, CAKE_FMT_BYTES, "%" PRIu32 "us", us);
	return buf;
}

/* lib/json_print_math.c sprint_size(). */
const char *cake_fmt_size(char buf[static CAKE_FMT_BYTES], uint64_t bytes)
{
	const double kilo = SIZE_KILO, mega = kilo * kilo, giga = mega * kilo;
	double b = (double)bytes;

	if (b >= giga && fabs(giga * rint(b / giga) - b) < SIZE_KILO)
		snprintf(buf, CAKE_FMT_BYTES, "%gGb", rint(b / giga));
	else if (b >= mega && fabs(mega * rint(b / mega) - b) < SIZE_KILO)
		snprintf(buf, CAKE_FMT_BYTES, "%gMb", rint(b / mega));
	else if (b >= kilo && fabs(kilo * rint(b / kilo) - b) < 16)
		snprintf(buf, CAKE_FMT_BYTES, "%gKb", rint(b / kilo));
	else
		snprintf(buf, CAKE_FMT_BYTES, "%" PRIu64 "b", bytes);
	return buf;
}

/* tc's format when it reads back as the same value, else the value in its base unit. */
static const char *exact_rate(char buf[static CAKE_FMT_BYTES], uint64_t bytes_per_sec)
{
	uint64_t back;

	if (!cake_parse_rate(cake_fmt_rate(buf, bytes_per_sec), &back) && back == bytes_per_sec)
		return buf;
	if (bytes_per_sec <= UINT64_MAX / 8)
		snprintf(buf, CAKE_FMT_BYTES, "%" PRIu64 "bit", bytes_per_sec * 8);
	else
		snprintf(buf, CAKE_FMT_BYTES, "%" PRIu64 "Bps", bytes_per_sec);
	return buf;
}

static const char *exact_time(char buf[static CAKE_FMT_BYTES], uint32_t us)
{
	uint32_t back;

	if (!cake_parse_time(cake_fmt_time(buf, us), &back) && back == us)
		return buf;
	snprintf(buf, CAKE_FMT_BYTES, "%" PRIu32 "us", us);
	return buf;
}

static const char *exact_size(char buf[static CAKE_FMT_BYTES], uint64_t bytes)
{
	uint64_t back;

	if (!cake_parse_size(cake_fmt_size(buf, bytes), &back) && back == bytes)
		return buf;
	snprintf(buf, CAKE_FMT_BYTES, "%" PRIu64 "b", bytes);
	return buf;
}

static const char *diffserv_name(enum cake_diffserv_mode m)
{
	if ((unsigned int)m < sizeof(diffserv_names) / sizeof(diffserv_names[0]))
		return diffserv_names[m];
	return NULL;
}

static const char *flow_name(const struct cake_options *o)
{
	if (o->peer_isolation)
		return "peer-isolate";
	if ((unsigned int)o->flow_mode < sizeof(flow_names) / sizeof(flow_names[0]))
		return flow_names[o->flow_mode];
	return NULL;
}

static const char *ack_filter_word(enum cake_ack_filter_mode m)
{
	if (m == CAKE_ACK_AGGRESSIVE)
		return "ack-filter-aggressive";
	return m == CAKE_ACK_FILTER ? "ack-filter" : "no-ack-filter";
}

/* tc prints atm/ptm always, noatm only when not raw. */
static const char *atm_word(const struct cake_options *o)
{
	if (o->atm == CAKE_ATM_ATM)
		return "atm";
	if (o->atm == CAKE_ATM_PTM)
		return "ptm";
	return o->raw ? NULL : "noatm";
}

/* The words up to and including split-gso. */
static void print_modes(struct cake_out *out, const struct cake_options *o)
{
	const char *ds = diffserv_name(o->diffserv), *fm = flow_name(o);
	char b[CAKE_FMT_BYTES];

	if (o->rate_bytes_per_sec)
		cake_out_printf(out, "bandwidth %s", exact_rate(b, o->rate_bytes_per_sec));
	else if (!o->autorate) /* autorate without a start rate: the controller's default */
		cake_out_printf(out, "bandwidth unlimited");
	if (o->autorate) {
		cake_out_printf(out, "%sautorate %s", o->rate_bytes_per_sec ? " " : "",
				exact_rate(b, o->autorate_min));
		cake_out_printf(out, " %s", exact_rate(b, o->autorate_max));
	}
	if (o->autorate_target_us)
		cake_out_printf(out, " autorate-target %s", exact_time(b, o->autorate_target_us));
	if (o->autorate_ingress)
		cake_out_printf(out, " autorate-ingress");
	cake_out_printf(out, " %s", ds ? ds : "(?diffserv?)");
	cake_out_printf(out, " %s", fm ? fm : "(?flowmode?)");
	cake_out_printf(out, " %s", o->nat ? "nat" : "nonat");
	cake_out_printf(out, " %s", o->wash ? "wash" : "nowash");
	if (o->ingress)
		cake_out_printf(out, " ingress");
	cake_out_printf(out, " %s", ack_filter_word(o->ack_filter));
	cake_out_printf(out, " %s", o->split_gso ? "split-gso" : "no-split-gso");
}

static void print_options(struct cake_out *out, const struct cake_options *o)
{
	const char *atm = atm_word(o);
	char b[CAKE_FMT_BYTES];

	print_modes(out, o);
	if (o->rtt_us)
		cake_out_printf(out, " rtt %s", exact_time(b, o->rtt_us));
	if (o->raw)
		cake_out_printf(out, " raw");
	if (atm)
		cake_out_printf(out, " %s", atm);
	cake_out_printf(out, " overhead %" PRId32, o->overhead);
	if (o->mpu)
		cake_out_printf(out, " mpu %" PRIu32, o->mpu);
	if (o->memlimit_bytes)
		cake_out_printf(out, " memlimit %s", exact_size(b, o->memlimit_bytes));
	if (o->fwmark_mask)
		cake_out_printf(out, " fwmark 0x%" PRIx32, o->fwmark_mask);
}

int cake_print_options(struct cake_out *out, const struct cake_options *opts)
{
	print_options(out, opts);
	return cake_out_status(out);
}

static uint32_t tin_count(const struct cake_stats *st)
{
	return st->tin_count < CAKE_STATS_MAX_TINS ? st->tin_count : CAKE_STATS_MAX_TINS;
}

/* The column names: q_cake.c picks them by the number of tins, not by the mode. */
static void print_tin_header(struct cake_out *out, uint32_t n)
{
	uint32_t i;

	if (n == 3) {
		cake_out_printf(out, "                   Bulk  Best Effort        Voice\n");
	} else if (n == 4) {
		cake_out_printf(out,
				"                   Bulk  Best Effort        Video        Voice\n");
	} else {
		cake_out_printf(out, "          ");
		for (i = 0; i < n; i++)
			cake_out_printf(out, "        Tin %" PRIu32, i);
		cake_out_printf(out, "\n");
	}
}

enum col_kind { COL_RATE, COL_TIME, COL_SIZE, COL_U32, COL_U64 };

/* One row of the tin table: a 10-character label, then " %12s" per tin. */
struct tin_row {
	const char *label;
	enum col_kind kind;
	size_t off; /* of the field in struct cake_tin_stats */
};

#define ROW(l, k, f) { l, k, offsetof(struct cake_tin_stats, f) }
static const struct tin_row tin_rows[] = {
	ROW("  thresh  ", COL_RATE, threshold_rate),
	ROW("  target  ", COL_TIME, target_us),
	ROW("  interval", COL_TIME, interval_us),
	ROW("  pk_delay", COL_TIME, peak_delay_us),
	ROW("  av_delay", COL_TIME, avg_delay_us),
	ROW("  sp_delay", COL_TIME, base_delay_us),
	ROW("  backlog ", COL_SIZE, backlog_bytes),
	ROW("  pkts    ", COL_U32, sent_packets),
	ROW("  bytes   ", COL_U64, sent_bytes),
	ROW("  way_inds", COL_U32, way_indirect_hits),
	ROW("  way_miss", COL_U32, way_misses),
	ROW("  way_cols", COL_U32, way_collisions),
	ROW("  drops   ", COL_U32, drops),
	ROW("  marks   ", COL_U32, ecn_mark),
	ROW("  ack_drop", COL_U32, ack_drops),
	ROW("  sp_flows", COL_U32, sparse_flows),
	ROW("  bk_flows", COL_U32, bulk_flows),
	ROW("  un_flows", COL_U32, unresponsive_flows),
	ROW("  max_len ", COL_U32, max_pkt_len),
	ROW("  quantum ", COL_U32, flow_quantum),
};
#undef ROW

static uint64_t tin_field(const struct cake_tin_stats *t, const struct tin_row *row)
{
	const char *p = (const char *)t + row->off;
	uint64_t v64;
	uint32_t v32;

	if (row->kind == COL_RATE || row->kind == COL_U64) {
		memcpy(&v64, p, sizeof(v64));
		return v64;
	}
	memcpy(&v32, p, sizeof(v32));
	return v32;
}

static void print_tin_cell(struct cake_out *out, const struct tin_row *row, uint64_t v)
{
	char b[CAKE_FMT_BYTES];

	switch (row->kind) {
	case COL_RATE:
		cake_out_printf(out, " %*s", COL_WIDTH, cake_fmt_rate(b, v));
		break;
	case COL_TIME:
		cake_out_printf(out, " %*s", COL_WIDTH, cake_fmt_time(b, (uint32_t)v));
		break;
	case COL_SIZE:
		cake_out_printf(out, " %*s", COL_WIDTH, cake_fmt_size(b, v));
		break;
	default:
		cake_out_printf(out, " %*" PRIu64, COL_WIDTH, v);
		break;
	}
}

static void print_tin_table(struct cake_out *out, const struct cake_stats *st)
{
	uint32_t n = tin_count(st), i;
	size_t r;

	if (!n)
		return;
	print_tin_header(out, n);
	for (r = 0; r < sizeof(tin_rows) / sizeof(tin_rows[0]); r++) {
		cake_out_printf(out, "%s", tin_rows[r].label);
		for (i = 0; i < n; i++)
			print_tin_cell(out, &tin_rows[r], tin_field(&st->tins[i], &tin_rows[r]));
		cake_out_printf(out, "\n");
	}
}

static uint32_t age_us(const struct cake_stats *st)
{
	uint64_t us = st->autorate_age_ns / NS_PER_US;

	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* The controller's lines, after " capacity estimate:". */
static void print_autorate(struct cake_out *out, const struct cake_stats *st)
{
	const struct cake_autorate_status *s = &st->autorate;
	char a[CAKE_FMT_BYTES], b[CAKE_FMT_BYTES], c[CAKE_FMT_BYTES], d[CAKE_FMT_BYTES];

	cake_out_printf(out, " autorate %s - %s: rate %s, capacity seen %s\n",
			cake_fmt_rate(a, s->min_rate), cake_fmt_rate(b, s->max_rate),
			cake_fmt_rate(c, s->rate),
			s->capacity ? cake_fmt_rate(d, s->capacity) : "unknown");
	cake_out_printf(out, " autorate delay %s %s (rtt baseline %s, target %s)\n",
			cake_fmt_time(a, s->delay_us), s->delay_from_rtt ? "rtt" : "one-way",
			s->baseline_us ? cake_fmt_time(b, s->baseline_us) : "unknown",
			cake_fmt_time(c, s->target_us));
	cake_out_printf(out, " autorate last change %s ago: %s, %" PRIu64 " changes, now %s\n",
			cake_fmt_time(a, age_us(st)), cake_autorate_reason_name(s->reason),
			s->changes, cake_autorate_action_name(s->action));
}

int cake_print_stats(struct cake_out *out, const struct cake_stats *st)
{
	char a[CAKE_FMT_BYTES], b[CAKE_FMT_BYTES];

	cake_out_printf(out,
			" Sent %" PRIu64 " bytes %" PRIu64 " pkt (dropped %" PRIu32
			", overlimits %" PRIu32 " requeues %" PRIu32 ") \n",
			st->sent_bytes, st->sent_packets, st->dropped, st->overlimits,
			st->requeues);
	cake_out_printf(out, " backlog %s %" PRIu32 "p requeues %" PRIu32 "\n",
			cake_fmt_size(a, st->backlog_bytes), st->backlog_packets, st->requeues);
	cake_out_printf(out, " memory used: %s of %s\n", cake_fmt_size(a, st->memory_used),
			cake_fmt_size(b, st->memory_limit));
	cake_out_printf(out, " capacity estimate: %s\n", cake_fmt_rate(a, st->capacity_estimate));
	if (st->has_autorate)
		print_autorate(out, st);
	cake_out_printf(out, " min/max network layer size: %12" PRIu32 " /%8" PRIu32 "\n",
			st->min_network_size, st->max_network_size);
	cake_out_printf(out, " min/max overhead-adjusted size: %8" PRIu32 " /%8" PRIu32 "\n",
			st->min_adj_size, st->max_adj_size);
	cake_out_printf(out, " average network hdr offset: %12" PRIu32 "\n\n",
			st->avg_hdr_offset);
	print_tin_table(out, st);
	/* tc_qdisc.c ends the block with print_nl() after the xstats. */
	cake_out_printf(out, "\n");
	return cake_out_status(out);
}

int cake_print_qdisc(struct cake_out *out, const struct cake_options *opts,
		     const struct cake_stats *st)
{
	print_options(out, opts);
	/* Each of tc's option words ends in a space, then print_qdisc() ends the line. */
	cake_out_printf(out, " \n");
	return cake_print_stats(out, st);
}

static void json_bool(struct cake_out *out, const char *key, bool v)
{
	cake_out_printf(out, ",\"%s\":%s", key, v ? "true" : "false");
}

/* The "options" object, keys and types as cake_print_opt() under -j. */
static void json_options(struct cake_out *out, const struct cake_options *o)
{
	const char *ds = diffserv_name(o->diffserv), *fm = flow_name(o), *atm = atm_word(o);

	if (o->rate_bytes_per_sec)
		cake_out_printf(out, "{\"bandwidth\":%" PRIu64, o->rate_bytes_per_sec);
	else if (o->autorate) /* the controller's default start */
		cake_out_printf(out, "{\"bandwidth\":\"autorate\"");
	else
		cake_out_printf(out, "{\"bandwidth\":\"unlimited\"");
	if (o->autorate)
		cake_out_printf(out, ",\"autorate_min\":%" PRIu64 ",\"autorate_max\":%" PRIu64,
				o->autorate_min, o->autorate_max);
	if (o->autorate_target_us)
		cake_out_printf(out, ",\"autorate_target\":%" PRIu32, o->autorate_target_us);
	if (o->autorate_ingress)
		cake_out_printf(out, ",\"autorate\":\"autorate-ingress\"");
	cake_out_printf(out, ",\"diffserv\":\"%s\"", ds ? ds : "unknown");
	cake_out_printf(out, ",\"flowmode\":\"%s\"", fm ? fm : "unknown");
	json_bool(out, "nat", o->nat);
	json_bool(out, "wash", o->wash);
	json_bool(out, "ingress", o->ingress);
	cake_out_printf(out, ",\"ack-filter\":\"%s\"",
			o->ack_filter == CAKE_ACK_AGGRESSIVE ? "aggressive" :
			o->ack_filter == CAKE_ACK_FILTER     ? "enabled" :
							       "disabled");
	json_bool(out, "split_gso", o->split_gso);
	cake_out_printf(out, ",\"rtt\":%" PRIu32, o->rtt_us);
	json_bool(out, "raw", o->raw);
	if (atm)
		cake_out_printf(out, ",\"atm\":\"%s\"", atm);
	cake_out_printf(out, ",\"overhead\":%" PRId32, o->overhead);
	if (o->mpu)
		cake_out_printf(out, ",\"mpu\":%" PRIu32, o->mpu);
	if (o->memlimit_bytes)
		cake_out_printf(out, ",\"memlimit\":%" PRIu64, o->memlimit_bytes);
	/* print_0xhex() under -j: "%#llx" as a string, so 0 is "0". */
	if (o->fwmark_mask)
		cake_out_printf(out, ",\"fwmark\":\"0x%" PRIx32 "\"}", o->fwmark_mask);
	else
		cake_out_printf(out, ",\"fwmark\":\"0\"}");
}

/* The controller's state: rates in bytes/s, times in us, the age in ns. */
static void json_autorate(struct cake_out *out, const struct cake_stats *st)
{
	const struct cake_autorate_status *s = &st->autorate;

	cake_out_printf(out,
			",\"autorate\":{\"min_rate\":%" PRIu64 ",\"max_rate\":%" PRIu64
			",\"rate\":%" PRIu64 ",\"capacity\":%" PRIu64 ",\"target_us\":%" PRIu32
			",\"baseline_us\":%" PRIu32 ",\"delay_us\":%" PRIu32,
			s->min_rate, s->max_rate, s->rate, s->capacity, s->target_us,
			s->baseline_us, s->delay_us);
	json_bool(out, "delay_from_rtt", s->delay_from_rtt);
	cake_out_printf(out,
			",\"last_change_age_ns\":%" PRIu64 ",\"reason\":\"%s\""
			",\"action\":\"%s\",\"changes\":%" PRIu64 "}",
			st->autorate_age_ns, cake_autorate_reason_name(s->reason),
			cake_autorate_action_name(s->action), s->changes);
}

/* One element of "tins", in cake_print_json_tin()'s key order. */
static void json_tin(struct cake_out *out, const struct cake_tin_stats *t)
{
	cake_out_printf(out,
			"{\"threshold_rate\":%" PRIu64 ",\"sent_bytes\":%" PRIu64
			",\"backlog_bytes\":%" PRIu32 ",\"target_us\":%" PRIu32
			",\"interval_us\":%" PRIu32 ",\"peak_delay_us\":%" PRIu32
			",\"avg_delay_us\":%" PRIu32 ",\"base_delay_us\":%" PRIu32,
			t->threshold_rate, t->sent_bytes, t->backlog_bytes, t->target_us,
			t->interval_us, t->peak_delay_us, t->avg_delay_us, t->base_delay_us);
	cake_out_printf(out,
			",\"sent_packets\":%" PRIu32 ",\"way_indirect_hits\":%" PRIu32
			",\"way_misses\":%" PRIu32 ",\"way_collisions\":%" PRIu32
			",\"drops\":%" PRIu32 ",\"ecn_mark\":%" PRIu32 ",\"ack_drops\":%" PRIu32,
			t->sent_packets, t->way_indirect_hits, t->way_misses, t->way_collisions,
			t->drops, t->ecn_mark, t->ack_drops);
	cake_out_printf(out,
			",\"sparse_flows\":%" PRIu32 ",\"bulk_flows\":%" PRIu32
			",\"unresponsive_flows\":%" PRIu32 ",\"max_pkt_len\":%" PRIu32
			",\"flow_quantum\":%" PRIu32 "}",
			t->sparse_flows, t->bulk_flows, t->unresponsive_flows, t->max_pkt_len,
			t->flow_quantum);
}

static void json_members(struct cake_out *out, const struct cake_options *opts,
			 const struct cake_stats *st)
{
	uint32_t n = tin_count(st), i;

	cake_out_printf(out, "\"kind\":\"cake\",\"options\":");
	json_options(out, opts);
	cake_out_printf(out,
			",\"bytes\":%" PRIu64 ",\"packets\":%" PRIu64 ",\"drops\":%" PRIu32
			",\"overlimits\":%" PRIu32 ",\"requeues\":%" PRIu32
			",\"backlog\":%" PRIu32 ",\"qlen\":%" PRIu32,
			st->sent_bytes, st->sent_packets, st->dropped, st->overlimits,
			st->requeues, st->backlog_bytes, st->backlog_packets);
	cake_out_printf(out,
			",\"memory_used\":%" PRIu32 ",\"memory_limit\":%" PRIu32
			",\"capacity_estimate\":%" PRIu64 ",\"min_network_size\":%" PRIu32
			",\"max_network_size\":%" PRIu32 ",\"min_adj_size\":%" PRIu32
			",\"max_adj_size\":%" PRIu32 ",\"avg_hdr_offset\":%" PRIu32,
			st->memory_used, st->memory_limit, st->capacity_estimate,
			st->min_network_size, st->max_network_size, st->min_adj_size,
			st->max_adj_size, st->avg_hdr_offset);
	if (st->has_autorate)
		json_autorate(out, st);
	/* q_cake.c prints no "tins" array when there are none. */
	if (n) {
		cake_out_printf(out, ",\"tins\":[");
		for (i = 0; i < n; i++) {
			if (i)
				cake_out_printf(out, ",");
			json_tin(out, &st->tins[i]);
		}
		cake_out_printf(out, "]");
	}
}

int cake_print_json_members(struct cake_out *out, const struct cake_options *opts,
			    const struct cake_stats *st)
{
	json_members(out, opts, st);
	return cake_out_status(out);
}

int cake_print_json(struct cake_out *out, const struct cake_options *opts,
		    const struct cake_stats *st)
{
	cake_out_printf(out, "{");
	json_members(out, opts, st);
	cake_out_printf(out, "}");
	return cake_out_status(out);
}
