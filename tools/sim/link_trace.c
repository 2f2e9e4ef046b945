/* SPDX-License-Identifier: GPL-2.0-only */
/* Capacity traces for the trace-driven link: the text and list forms (see link_sim.h). */
#include "tools/sim/link_sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000ull

enum { WORD_BYTES = 64, MAX_WORDS = 3 };

/* A time in tc's units (500ms; a bare number is microseconds), not zero. */
static int parse_tc_time(const char *w, uint64_t *ns)
{
	return cake_parse_time_ns(w, ns) || !*ns ? -EINVAL : 0;
}

/* A duration: a bare decimal number of seconds, or a time in tc's units (6s, 500ms). */
static int parse_duration(const char *w, uint64_t *ns)
{
	char *end;
	double secs = strtod(w, &end);

	if (end == w || *end)
		return parse_tc_time(w, ns);
	if (!(secs > 0) || secs > (double)UINT32_MAX)
		return -EINVAL;
	*ns = (uint64_t)(secs * (double)NS_PER_S + 0.5);
	return *ns ? 0 : -EINVAL;
}

/* Appends the step given as words: duration, rate, optional RTT. */
static int add_step(struct cake_link_trace *tr, char w[MAX_WORDS][WORD_BYTES], int nw,
		    const char **bad)
{
	struct cake_link_step st = { 0 };

	if (nw < 2) {
		*bad = "a time and a rate";
		return -EINVAL;
	}
	if (tr->n >= CAKE_LINK_MAX_STEPS) {
		*bad = "too many steps";
		return -EINVAL;
	}
	if (parse_duration(w[0], &st.duration_ns)) {
		*bad = w[0];
		return -EINVAL;
	}
	if (cake_parse_rate(w[1], &st.rate_bytes_per_sec) || !st.rate_bytes_per_sec) {
		*bad = w[1];
		return -EINVAL;
	}
	if (nw > 2 && parse_tc_time(w[2], &st.rtt_ns)) {
		*bad = w[2];
		return -EINVAL;
	}
	tr->steps[tr->n++] = st;
	return 0;
}

/* Splits s[0, len) at any of seps into up to MAX_WORDS words; -1 if too many or too long. */
static int split(const char *s, size_t len, const char *seps, char w[MAX_WORDS][WORD_BYTES])
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		size_t k = 0;

		while (i < len && strchr(seps, s[i]))
			i++;
		if (i == len)
			break;
		if (n == MAX_WORDS)
			return -1;
		while (i < len && !strchr(seps, s[i])) {
			if (k + 1 == WORD_BYTES)
				return -1;
			w[n][k++] = s[i++];
		}
		w[n++][k] = 0;
	}
	return n;
}

int cake_link_trace_parse_text(const char *text, struct cake_link_trace *tr,
			       struct cake_parse_err *err)
{
	char w[MAX_WORDS][WORD_BYTES];
	unsigned line = 0;

	memset(tr, 0, sizeof(*tr));
	while (*text) {
		size_t len = strcspn(text, "\n"), body = strcspn(text, "#\n");
		const char *bad = "too many words";
		int nw = split(text, body, " \t\r", w);

		line++;
		if (nw && (nw < 0 || add_step(tr, w, nw, &bad))) {
			snprintf(err->msg, sizeof(err->msg),
				 "link trace line %u: expected `SECONDS RATE [RTT]', bad: %s", line,
				 bad);
			return -EINVAL;
		}
		text += len + (text[len] == '\n');
	}
	if (!tr->n) {
		snprintf(err->msg, sizeof(err->msg), "link trace: no steps");
		return -EINVAL;
	}
	return 0;
}

int cake_link_trace_parse_list(const char *list, struct cake_link_trace *tr,
			       struct cake_parse_err *err)
{
	char w[MAX_WORDS][WORD_BYTES], t[WORD_BYTES];

	memset(tr, 0, sizeof(*tr));
	while (*list) {
		size_t len = strcspn(list, ",");
		const char *bad = "too many fields";
		int nw = split(list, len, ":", w);

		if (nw >= 2) { /* RATE:TIME[:RTT] -> TIME RATE [RTT] */
			memcpy(t, w[0], WORD_BYTES);
			memcpy(w[0], w[1], WORD_BYTES);
			memcpy(w[1], t, WORD_BYTES);
		}
		if (nw <= 0 || add_step(tr, w, nw, &bad)) {
			snprintf(err->msg, sizeof(err->msg),
				 "link steps: expected RATE:TIME[:RTT], bad: %.*s (%s)", (int)len,
				 list, nw <= 0 ? "empty" : bad);
			return -EINVAL;
		}
		list += len + (list[len] == ',');
	}
	if (!tr->n) {
		snprintf(err->msg, sizeof(err->msg), "link steps: no steps");
		return -EINVAL;
	}
	return 0;
}

uint64_t cake_link_trace_mean(const struct cake_link_trace *tr)
{
	unsigned __int128 sum = 0;
	uint64_t len = cake_link_trace_length_ns(tr);

	for (uint32_t i = 0; i < tr->n; i++)
		sum += (unsigned __int128)tr->steps[i].rate_bytes_per_sec * tr->steps[i].duration_ns;
	return len ? (uint64_t)(sum / len) : 0;
}
