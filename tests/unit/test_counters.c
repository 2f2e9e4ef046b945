/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The counter tables of src/core/counters.h: well-formed rows with unique keys, and every
 * counter through the whole chain: written by the producer, read by the reply parser,
 * printed by `cakewg show --json` and `cakewg show` (tools/cakewg, built into this test).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/core/compiler.h"
#include "src/core/counters.h"
#include "src/core/uapi_reply.h"
#include "tools/cakewg/show_json.h"
#include "tools/cakewg/show_print.h"

#define PEER_HEX "b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33"

static const enum wg_counter_scope scopes[] = {WG_COUNTER_SCOPE_DEVICE, WG_COUNTER_SCOPE_PEER};

/* Keys of the reply and of show --json that are not counters. */
static const char *const other_keys[] = {
	"cake_egress",
	"cake_egress_stats",
	"cake_egress_json",
	"cake_ingress",
	"cake_ingress_stats",
	"cake_ingress_json",
	"underlay_limit",
	"underlay_drain_rate",
	"underlay_limit_setting",
	"public_key",
	"errno",
	"egress",
	"ingress",
	"peers",
	"endpoint",
	"allowed_ips",
};

static bool key_chars_ok(const char *k)
{
	if (!*k)
		return false;
	for (; *k; k++) {
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_'))
			return false;
	}
	return true;
}

Test(counters, keys_unique_and_well_formed)
{
	for (size_t s = 0; s < WG_ARRAY_SIZE(scopes); s++) {
		unsigned int n;
		const struct wg_counter_def *defs = wg_counters_table(scopes[s], &n);

		cr_assert_gt(n, 0);
		for (unsigned int i = 0; i < n; i++) {
			const struct wg_counter_def *d = &defs[i];

			cr_assert(key_chars_ok(d->key), "key %u: %s", i, d->key);
			cr_assert(!d->json || key_chars_ok(d->json), "%s", d->key);
			cr_assert_eq(wg_counters_find(scopes[s], d->key, strlen(d->key)), (int)i,
				     "%s is not found as itself: a duplicate?", d->key);
			/* the other scope and the other keys must not know it */
			cr_assert_eq(wg_counters_find(scopes[1 - s], d->key, strlen(d->key)), -1,
				     "%s in both scopes", d->key);
			for (size_t k = 0; k < WG_ARRAY_SIZE(other_keys); k++) {
				cr_assert_str_neq(d->key, other_keys[k]);
				cr_assert(!d->json || strcmp(d->json, other_keys[k]), "%s",
					  d->json);
			}
			for (unsigned int j = 0; j < i; j++)
				cr_assert(!d->json || !defs[j].json ||
						  strcmp(d->json, defs[j].json),
					  "JSON key %s twice", d->json);
		}
	}
}

/* Each shown row has a role and its text; a line begins with a labelled item; only the
 * peer scope prints in the peer section. */
Test(counters, text_grammar_holds)
{
	for (size_t s = 0; s < WG_ARRAY_SIZE(scopes); s++) {
		enum wg_counter_section last = WG_COUNTER_SECTION_NONE;
		unsigned int n;
		const struct wg_counter_def *defs = wg_counters_table(scopes[s], &n);

		for (unsigned int i = 0; i < n; i++) {
			const struct wg_counter_def *d = &defs[i];

			if (d->section == WG_COUNTER_SECTION_NONE) {
				cr_assert_eq(d->role, WG_COUNTER_ROLE_NONE, "%s", d->key);
				cr_assert(!d->label && !d->before && !d->after, "%s", d->key);
				continue;
			}
			cr_assert_eq(d->section == WG_COUNTER_SECTION_PEER,
				     scopes[s] == WG_COUNTER_SCOPE_PEER, "%s", d->key);
			cr_assert_neq(d->role, WG_COUNTER_ROLE_NONE, "%s", d->key);
			cr_assert(d->before && d->after, "%s", d->key);
			cr_assert_eq(!!d->label, d->role == WG_COUNTER_ROLE_ITEM && d->label,
				     "%s: only an item opens a line", d->key);
			if (d->section != last)
				cr_assert(d->role == WG_COUNTER_ROLE_ITEM && d->label,
					  "%s begins its section without a line", d->key);
			last = d->section;
		}
	}
}

/* ---- the chain: producer, parser, printers ---- */

struct chain {
	struct wg_device_counters dev;
	struct wg_peer_counters peer;
	struct show_device show;
};

static uint64_t value_of(unsigned int i)
{
	return 1000 + 17 * (uint64_t)i;
}

/* Every counter of both scopes, then the values that read well as text. */
static void fill_all(struct chain *c)
{
	static const struct {
		enum wg_device_counter id;
		uint64_t v;
	} shown[] = {
		{WG_COUNTER_UNDERLAY_SENT, 274764},	{WG_COUNTER_UNDERLAY_TRAINS, 61567},
		{WG_COUNTER_UNDERLAY_RECEIVED, 313526}, {WG_COUNTER_UNDERLAY_RX_TRAINS, 291371},
		{WG_COUNTER_TUN_WRITES, 171229},	{WG_COUNTER_TUN_GRO_COALESCED, 141960},
		{WG_COUNTER_INGRESS_GULPS, 11975},	{WG_COUNTER_SHAPER_LATE, 3},
		{WG_COUNTER_SHAPER_LATE_NS, 41250000},	{WG_COUNTER_BACKPRESSURE_STALLS, 27579},
		{WG_COUNTER_UNDERLAY_STARVED, 12},	{WG_COUNTER_UNDERLAY_REGROWN, 3},
		{WG_COUNTER_UNDERLAY_OVERFLOWS, 0},	{WG_COUNTER_UNDERLAY_CTL_QUEUED, 42},
		{WG_COUNTER_UNDERLAY_CTL_DROPPED, 0},
	};

	memset(c, 0, sizeof(*c));
	for (unsigned int i = 0; i < WG_DEVICE_COUNTERS_N; i++)
		wg_device_counters_set(&c->dev, (enum wg_device_counter)i, value_of(i));
	for (unsigned int i = 0; i < WG_PEER_COUNTERS_N; i++)
		wg_peer_counters_set(&c->peer, (enum wg_peer_counter)i, value_of(i) + 500);
	wg_device_counters_set(&c->dev, WG_COUNTER_COOKIE_REPLIES_SENT, UINT64_MAX);
	for (size_t i = 0; i < WG_ARRAY_SIZE(shown); i++)
		wg_device_counters_set(&c->dev, shown[i].id, shown[i].v);
	c->peer.v[WG_PEER_COUNTER_ROAMS] = 0; /* a peer's zero is not shown */
}

/* Producer to parser; show_device_free() frees what it holds. */
static void through_parser(struct chain *c)
{
	struct wg_devconf_buf reply = {0};
	struct wg_devconf_peer *p;

	wg_counters_write(&reply, WG_COUNTER_SCOPE_DEVICE, c->dev.has, c->dev.v);
	wg_devconf_buf_printf(&reply, "public_key=" PEER_HEX "\n");
	wg_counters_write(&reply, WG_COUNTER_SCOPE_PEER, c->peer.has, c->peer.v);
	wg_devconf_buf_printf(&reply, "errno=0\n\n");
	cr_assert_not(reply.failed);
	memset(&c->show, 0, sizeof(c->show));
	snprintf(c->show.name, sizeof(c->show.name), "wgtest");
	cr_assert_eq(wg_uapi_reply_cake_parse(reply.data, reply.len, &c->show.cake), 0, "%s",
		     reply.data);
	c->show.has_cake = true;
	c->show.conf = wg_devconf_new();
	cr_assert_not_null(c->show.conf);
	p = wg_devconf_add_peer(c->show.conf);
	cr_assert_not_null(p);
	cr_assert(wg_encoding_key_from_hex(p->public_key, PEER_HEX, strlen(PEER_HEX)));
	p->flags |= WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	wg_devconf_buf_wipe(&reply);
}

static char *json_of(const struct chain *c)
{
	struct wg_devconf_buf out = {0};
	char *s;

	show_json(&out, &c->show);
	cr_assert_not(out.failed);
	cr_assert(wg_uapi_reply_json_object_valid(out.data, out.len), "%s", out.data);
	s = strdup(out.data);
	wg_devconf_buf_wipe(&out);
	return s;
}

/* What show_pretty prints, caught from stdout. */
static char *text_of(struct chain *c)
{
	struct show_style st = {.color = false};
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);
	char *s = calloc(1, 65536);

	cr_assert(f && saved >= 0 && s);
	fflush(stdout);
	dup2(fileno(f), STDOUT_FILENO);
	show_pretty(&c->show, &st);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	(void)!fread(s, 1, 65535, f);
	fclose(f);
	return s;
}

static bool json_has(const char *json, const char *key, bool there, uint64_t v)
{
	char want[96];

	if (there)
		snprintf(want, sizeof(want), "\"%s\":%llu", key, (unsigned long long)v);
	else
		snprintf(want, sizeof(want), "\"%s\":null", key);
	return strstr(json, want) != NULL;
}

Test(counters, every_counter_round_trips)
{
	struct chain c;
	const struct wg_counter_def *defs;
	unsigned int n;
	char *json;

	fill_all(&c);
	through_parser(&c);
	cr_assert_eq(c.show.cake.counters.has, c.dev.has);
	cr_assert_eq(c.show.cake.n_peers, 1);
	cr_assert_eq(c.show.cake.peers[0].counters.has, c.peer.has);
	json = json_of(&c);
	defs = wg_counters_table(WG_COUNTER_SCOPE_DEVICE, &n);
	for (unsigned int i = 0; i < n; i++) {
		cr_assert_eq(c.show.cake.counters.v[i], c.dev.v[i], "%s", defs[i].key);
		if (defs[i].json)
			cr_assert(json_has(json, defs[i].json, true, c.dev.v[i]), "%s in %s",
				  defs[i].json, json);
		else
			cr_assert_null(strstr(json, defs[i].key), "%s in %s", defs[i].key, json);
	}
	defs = wg_counters_table(WG_COUNTER_SCOPE_PEER, &n);
	for (unsigned int i = 0; i < n; i++) {
		cr_assert_eq(c.show.cake.peers[0].counters.v[i], c.peer.v[i], "%s", defs[i].key);
		if (defs[i].json)
			cr_assert(json_has(json, defs[i].json, true, c.peer.v[i]), "%s", json);
	}
	free(json);
	show_device_free(&c.show);
}

Test(counters, show_text_of_every_counter)
{
	struct chain c;
	char *text;

	fill_all(&c);
	through_parser(&c);
	text = text_of(&c);
	cr_assert(strstr(text,
			 "  backpressure stalls: 27579 (12 starved, 3 regrown, 0 overflows)\n"
			 "  underlay: 274764 datagrams sent in 61567 trains, 313526 received "
			 "(291371 coalesced)\n"
			 "  tun writes: 171229 (141960 segments joined, 11975 ingress gulps)\n"
			 "  shaper late: 3 times, 41.250 ms forgiven\n"
			 "  control messages: 42 waited for the socket, 0 dropped\n"),
		  "%s", text);
	cr_assert(strstr(text, "\n  allowed ips: (none)\n  egress drops: 1500\n"
			       "  staged drops: 1534\n"),
		  "%s", text);
	cr_assert_null(strstr(text, "roams"), "a zero roams is shown: %s", text);
	free(text);
	show_device_free(&c.show);
}

/* A counter the daemon did not send: null in the JSON, its piece gone from the text. */
Test(counters, missing_counters_are_left_out)
{
	static const struct {
		enum wg_device_counter gone;
		const char *line; /* the line that is left */
	} cases[] = {
		{WG_COUNTER_UNDERLAY_SENT, "  underlay: 313526 received (291371 coalesced)\n"},
		{WG_COUNTER_UNDERLAY_TRAINS,
		 "  underlay: 274764 datagrams sent, 313526 received (291371 coalesced)\n"},
		{WG_COUNTER_UNDERLAY_RECEIVED,
		 "  underlay: 274764 datagrams sent in 61567 trains\n"},
		{WG_COUNTER_UNDERLAY_RX_TRAINS,
		 "  underlay: 274764 datagrams sent in 61567 trains, 313526 received\n"},
		{WG_COUNTER_TUN_GRO_COALESCED, "  tun writes: 171229 (11975 ingress gulps)\n"},
		{WG_COUNTER_INGRESS_GULPS, "  tun writes: 171229 (141960 segments joined)\n"},
		{WG_COUNTER_SHAPER_LATE_NS, "  shaper late: 3 times\n"},
		{WG_COUNTER_UNDERLAY_STARVED,
		 "  backpressure stalls: 27579 (3 regrown, 0 overflows)\n"},
		/* without its item, a line's details go too */
		{WG_COUNTER_SHAPER_LATE, "  tun writes: 171229 (141960 segments joined, 11975 "
					 "ingress gulps)\n  control messages: "},
		{WG_COUNTER_UNDERLAY_CTL_DROPPED, "  control messages: 42 waited for the socket\n"},
		{WG_COUNTER_BACKPRESSURE_STALLS, "interface: wgtest\n  underlay: "},
	};
	const struct wg_counter_def *defs;
	unsigned int n;

	defs = wg_counters_table(WG_COUNTER_SCOPE_DEVICE, &n);
	for (size_t i = 0; i < WG_ARRAY_SIZE(cases); i++) {
		struct chain c;
		char *json, *text;

		fill_all(&c);
		c.dev.has &= ~(UINT64_C(1) << cases[i].gone);
		through_parser(&c);
		json = json_of(&c);
		text = text_of(&c);
		cr_assert(json_has(json, defs[cases[i].gone].json, false, 0), "%s", json);
		cr_assert(strstr(text, cases[i].line), "%s gone:\n%s", defs[cases[i].gone].key,
			  text);
		free(json);
		free(text);
		show_device_free(&c.show);
	}
}
