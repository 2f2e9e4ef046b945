/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CAKE options and statistics in the shapes iproute2's tc prints them (tc/q_cake.c,
 * tc/tc_util.c, lib/json_print*.c): the option line of `tc qdisc show`, the block of
 * `tc -s qdisc show`, and the object of `tc -j -s qdisc show`.
 *
 * Output goes to a caller's buffer through struct cake_out, with snprintf's contract:
 * the text is always NUL-terminated, and out->len counts what the whole output needs,
 * so a caller whose buffer was too small learns the size to retry with.
 */
#ifndef CAKEWG_QDISC_CAKE_PRINT_H
#define CAKEWG_QDISC_CAKE_PRINT_H

#include <stddef.h>
#include <stdint.h>

#include "qdisc/cake_compiler.h"
#include "qdisc/cake_options.h"
#include "qdisc/cake_stats.h"

enum cake_print_limits {
	CAKE_FMT_BYTES = 32, /* room for any one formatted rate, time or size */
};

struct cake_out {
	char *buf;
	size_t size;
	size_t len; /* bytes written or wanted so far, without the NUL */
};

void cake_out_init(struct cake_out *out, char *buf, size_t size);
void cake_out_printf(struct cake_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 0 if everything fit, -ENOSPC if out->len + 1 bytes were needed. */
int cake_out_status(const struct cake_out *out) CAKE_MUST_CHECK;

/*
 * tc's own formats, byte for byte; each returns buf.
 * Rate: bits, 1000-based, promoted while exact or at least 1000 of the next unit
 * (3125Kbit, 50Mbit). Time: "%.3g" in s or ms, whole us below 1 ms (5.81ms, 0us).
 * Size: 1024-based Gb/Mb/Kb when close to a whole unit, else bytes (4Mb, 169136b).
 */
const char *cake_fmt_rate(char buf[static CAKE_FMT_BYTES], uint64_t bytes_per_sec);
const char *cake_fmt_time(char buf[static CAKE_FMT_BYTES], uint32_t us);
const char *cake_fmt_size(char buf[static CAKE_FMT_BYTES], uint64_t bytes);

/*
 * The options as tc's first line shows them, without a trailing space:
 * "bandwidth 50Mbit diffserv3 triple-isolate nonat nowash no-ack-filter split-gso
 * rtt 100ms raw overhead 0". peer-isolate stands in place of the flow mode.
 * Where tc's format would round a value (a rate like 1234567bit, an rtt like
 * 12345us, a memlimit like 1030b), the exact value is printed in the base unit
 * instead, so cake_options_parse() of the text gives back the same options.
 * Returns cake_out_status().
 */
int cake_print_options(struct cake_out *out, const struct cake_options *opts) CAKE_MUST_CHECK;

/*
 * `tc -s qdisc show` for one cake instance from its option text on: the caller
 * prints "qdisc cake 8001: root refcnt 2 " (or its own prefix) first.
 * Returns cake_out_status().
 */
int cake_print_qdisc(struct cake_out *out, const struct cake_options *opts,
		     const struct cake_stats *st) CAKE_MUST_CHECK;

/* Only the statistics lines, from " Sent ..." to the end of the tin table. */
int cake_print_stats(struct cake_out *out, const struct cake_stats *st) CAKE_MUST_CHECK;

/*
 * `tc -j -s qdisc show` for one instance: {"kind":"cake","options":{...},"bytes":...,
 * ...,"tins":[...]} with tc's keys and value types. The _members variant leaves out
 * the braces, so a caller can add its own members ("handle", "dev") around them.
 */
int cake_print_json(struct cake_out *out, const struct cake_options *opts,
		    const struct cake_stats *st) CAKE_MUST_CHECK;
int cake_print_json_members(struct cake_out *out, const struct cake_options *opts,
			    const struct cake_stats *st) CAKE_MUST_CHECK;

#endif
