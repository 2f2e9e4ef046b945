/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the tc-cake option parser and printers.
 *
 * The input is read three ways: as one option string, as an argument vector split at
 * NUL bytes, and (when long enough) as the bytes of a statistics snapshot. Whatever
 * parses must print as text that parses back to the same options and prints the same
 * again; anything else must fail with a message. The printers must survive any
 * snapshot, with out-of-range enums and counts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/cake_parse.h"
#include "qdisc/cake_print.h"

enum { MAX_ARGS = 64, TEXT_BYTES = 8192 };

static char text[TEXT_BYTES];
static char again[TEXT_BYTES];

static void check_round_trip(const struct cake_options *o)
{
	struct cake_options back;
	struct cake_out out;

	cake_out_init(&out, text, sizeof(text));
	if (cake_print_options(&out, o))
		__builtin_trap();
	if (cake_options_parse(text, &back, NULL))
		__builtin_trap();
	if (!cake_options_equal(o, &back))
		__builtin_trap();
	cake_out_init(&out, again, sizeof(again));
	if (cake_print_options(&out, &back) || strcmp(text, again))
		__builtin_trap();
}

static void parse_string(const char *s)
{
	struct cake_parse_err err = { { 0 } };
	struct cake_options o;
	uint64_t u64;
	uint32_t u32;

	if (!cake_options_parse(s, &o, &err))
		check_round_trip(&o);
	else if (!err.msg[0] || strchr(err.msg, '\n'))
		__builtin_trap();
	(void)!cake_parse_rate(s, &u64);
	(void)!cake_parse_time(s, &u32);
	(void)!cake_parse_size(s, &u64);
}

static void parse_argv(char *s, size_t len)
{
	const char *argv[MAX_ARGS];
	struct cake_options o;
	size_t i;
	int argc = 0;

	argv[argc++] = s;
	for (i = 0; i < len && argc < MAX_ARGS; i++)
		if (!s[i])
			argv[argc++] = &s[i + 1];
	if (!cake_options_parse_argv(argc, argv, &o, NULL))
		check_round_trip(&o);
}

static void print_snapshot(const uint8_t *data, size_t size)
{
	struct cake_options o;
	struct cake_stats st;
	struct cake_out out;

	memcpy(&st, data, sizeof(st));
	memcpy(&o, data + size - sizeof(o), sizeof(o));
	/* A bool may hold only 0 or 1: store them without reading the copied bytes. */
	o.autorate_ingress = data[0] & 1;
	o.nat = data[0] & 2;
	o.wash = data[0] & 4;
	o.ingress = data[0] & 8;
	o.split_gso = data[0] & 16;
	o.raw = data[0] & 32;
	o.peer_isolation = data[0] & 64;
	o.autorate = data[0] & 128;
	st.has_autorate = data[1] & 1;
	st.autorate.delay_from_rtt = data[1] & 2;
	cake_out_init(&out, text, sizeof(text));
	(void)!cake_print_qdisc(&out, &o, &st);
	cake_out_init(&out, text, sizeof(text));
	(void)!cake_print_json(&out, &o, &st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	parse_string(s);
	parse_argv(s, size);
	free(s);
	if (size >= sizeof(struct cake_stats) + sizeof(struct cake_options))
		print_snapshot(data, size);
	return 0;
}
