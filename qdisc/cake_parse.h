/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tc-cake option grammar, word by word as iproute2's tc/q_cake.c reads it, into
 * struct cake_options. Numbers and units follow tc's get_rate64(), get_time() and
 * get_size(): rates in bits unless the unit says bytes ("bps" is bytes per second),
 * times in microseconds unless a unit is given, sizes in bytes.
 *
 * The result carries a `present` bit for every field the words set, so the scheduler
 * can apply tc's `change` semantics (cake_options_merge). Fields not named keep
 * tc-cake's defaults, so the result is also a complete configuration for `add`.
 *
 * cakewg extensions: `peer-isolate` is triple-isolate where the "host" is the
 * WireGuard peer, so capacity is shared fairly between peers first, then between
 * each peer's flows. `autorate MIN MAX` (or `autorate off`) and `autorate-target
 * TIME` configure the rate controller of qdisc/autorate.h; under autorate,
 * rate_bytes_per_sec is the start rate (0: the controller's default).
 */
#ifndef CAKEWG_QDISC_CAKE_PARSE_H
#define CAKEWG_QDISC_CAKE_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/cake_options.h"

enum cake_parse_limits {
	CAKE_PARSE_ERR_BYTES = 128,
	CAKE_OVERHEAD_MIN = -64,
	CAKE_OVERHEAD_MAX = 256,
	CAKE_MPU_MAX = 256,
	CAKE_DEFAULT_RTT_US = 100000,
	CAKE_TARGET_DIVISOR = 20, /* target = rtt / 20, at least 1 us */
	CAKE_AUTORATE_TARGET_MIN_US = 1000,    /* autorate-target 1ms .. */
	CAKE_AUTORATE_TARGET_MAX_US = 1000000, /* .. 1s */
};

/* Largest accepted bandwidth: 2^53 bits/s, so every rate prints and parses exactly. */
#define CAKE_RATE_MAX_BYTES_PER_SEC (UINT64_C(1) << 50)
/* The kernel's TCA_CAKE_MEMORY is a u32. */
#define CAKE_MEMLIMIT_MAX_BYTES UINT64_C(0xffffffff)

/* One line naming the word that failed and why, e.g. "Invalid CAKE option `foo'". */
struct cake_parse_err {
	char msg[CAKE_PARSE_ERR_BYTES];
};

/* tc-cake's defaults; present = 0. */
void cake_options_defaults(struct cake_options *opts);

/*
 * Parse whitespace-separated words. On success fills *opts (defaults plus what the
 * words set, with their present bits) and returns 0. On error returns -EINVAL,
 * leaves *opts untouched and, if err is not NULL, describes the bad word.
 * An empty string is valid and yields the defaults.
 */
int cake_options_parse(const char *str, struct cake_options *opts, struct cake_parse_err *err)
	__attribute__((warn_unused_result));

/* The same over an argument vector, one word per element (tc's own form). */
int cake_options_parse_argv(int argc, const char *const *argv, struct cake_options *opts,
			    struct cake_parse_err *err) __attribute__((warn_unused_result));

/* Every setting equal; `present` is not compared. */
bool cake_options_equal(const struct cake_options *a, const struct cake_options *b)
	__attribute__((warn_unused_result));

/*
 * tc `change`: copy into *cur every field that change->present names. Autorate
 * (rate_now is the rate the shaper runs at now; cake_options_merge passes
 * cur->rate_bytes_per_sec, right for a fixed shaper):
 *  - `autorate MIN MAX` turns it on, or sets a new range; without `bandwidth` the
 *    start rate is rate_now clamped into [MIN, MAX] (0 stays 0: the controller's
 *    default start). It switches autorate-ingress off.
 *  - `autorate off` returns to a fixed shaper at rate_now, or at the change's
 *    `bandwidth`. So do `unlimited` (`bandwidth 0`) and `autorate-ingress`: the
 *    later word wins over the instance's autorate, as over tc's settings.
 *  - `bandwidth R` on an autorate instance sets a new start rate, clamped into the
 *    range: the owner restarts its controller there.
 * The owner restarts its controller whenever the merged autorate fields or the start
 * rate differ from before.
 */
void cake_options_merge(struct cake_options *cur, const struct cake_options *change);
void cake_options_merge_at(struct cake_options *cur, const struct cake_options *change,
			   uint64_t rate_now);

/*
 * The unit parsers, exposed for other option surfaces (UAPI, simulator).
 * Each returns 0, or -EINVAL for text that is not a number with a known unit,
 * or -ERANGE for a value outside the field's range.
 */
int cake_parse_rate(const char *word, uint64_t *bytes_per_sec) __attribute__((warn_unused_result));
int cake_parse_time(const char *word, uint32_t *us) __attribute__((warn_unused_result));
/* The same time in nanoseconds. */
int cake_parse_time_ns(const char *word, uint64_t *ns) __attribute__((warn_unused_result));
int cake_parse_size(const char *word, uint64_t *bytes) __attribute__((warn_unused_result));

#endif
