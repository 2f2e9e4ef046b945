/* SPDX-License-Identifier: GPL-2.0-only */
/* The key table (src/core/conf_keys.c): every row is complete, and every key round-trips. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "src/core/conf_keys.h"
#include "src/core/uapi.h"
#include "src/core/uapi_reply.h"
#include "src/core/uapi_set_write.h"
#include "src/core/wgconf.h"

#define PRIV "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk="
#define PUB1 "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="
#define K1   "e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a"
#define K2   "b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33"
#define K3   "188515093e952f5f22e865cef3012e72f8b5f0b598ac0309d5dacce3b70fcf52"

static const unsigned int surfaces[] = {WG_CONF_FILE, WG_CONF_SET, WG_CONF_GET, WG_CONF_ARG};

/* A value for every key a file reads. A new key needs one here. */
static const struct sample {
	const char *name, *value;
} file_samples[] = {
	{"Address", "10.0.0.1/24, fd00::1/64"},
	{"DNS", "10.0.0.53, corp.lan"},
	{"MTU", "1400"},
	{"Table", "1234"},
	{"SaveConfig", "true"},
	{"KillSwitch", "true"},
	{"KillSwitchAllowLAN", "true"},
	{"PreUp", "echo pre"},
	{"PostUp", "echo post # passed on to bash"},
	{"PreDown", "echo pre-down"},
	{"PostDown", "echo post-down"},
	{"Cake", "bandwidth 20Mbit diffserv4"},
	{"CakeIngress", "bandwidth 50Mbit ingress"},
	{"UnderlayLimit", "32768"},
	{"AutorateProbe", "198.19.0.9"},
	{"PrivateKey", PRIV},
	{"ListenPort", "51820"},
	{"FwMark", "0x1f"},
	{"PublicKey", PUB1},
	{"PresharedKey", PRIV},
	{"Endpoint", "192.0.2.1:51820"},
	{"PersistentKeepalive", "25"},
	{"AllowedIPs", "10.0.0.0/8, fd00::/8"},
};

/* A value for every key a `get=1` reply reads, as the server's writer writes it. */
static const struct sample get_samples[] = {
	{"private_key", K1},
	{"listen_port", "51820"},
	{"fwmark", "31"},
	{"public_key", K2},
	{"preshared_key", K3},
	{"protocol_version", "1"},
	{"endpoint", "[2001:db8::1]:51820"},
	{"last_handshake_time_sec", "1700000000"},
	{"last_handshake_time_nsec", "123456789"},
	{"tx_bytes", "18446744073709551615"},
	{"rx_bytes", "4782969"},
	{"persistent_keepalive_interval", "25"},
	{"allowed_ip", "fd00::/8"},
};

/* A value for every key a `set=1` request reads, as the writer writes it back. */
static const struct sample set_samples[] = {
	{"cake", "bandwidth 20Mbit"},
	{"cake_ingress", "none"},
	{"underlay_limit", "32768"},
	{"autorate_probe", "fd00:19::9"},
	{"private_key", K1},
	{"listen_port", "51820"},
	{"fwmark", "31"},
	{"replace_peers", "true"},
	{"public_key", K2},
	{"remove", "true"},
	{"update_only", "true"},
	{"preshared_key", K3},
	{"protocol_version", "1"},
	{"endpoint", "[2001:db8::1]:51820"},
	{"endpoint_host", "vpn.example.com:51820"},
	{"persistent_keepalive_interval", "25"},
	{"replace_allowed_ips", "true"},
	{"allowed_ip", "-fd00::/8"},
};

static const char *sample(const struct sample *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].name, name))
			return t[i].value;
	}
	return NULL;
}

/* Whether key k is visible in section sec on surface s (wg_conf_key_find's rule). */
static bool visible(const struct wg_conf_key *k, unsigned int s, enum wg_conf_section sec)
{
	return k->section == sec || (s != WG_CONF_FILE && (k->flags & WG_CONF_KEY_STARTS_PEER)) ||
	       (s == WG_CONF_ARG && (k->flags & WG_CONF_KEY_ARG_ANYWHERE));
}

Test(conf_keys, names_are_unique_per_surface_and_section)
{
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		for (size_t j = i + 1; j < wg_conf_n_keys; j++) {
			const struct wg_conf_key *a = &wg_conf_keys[i], *b = &wg_conf_keys[j];

			for (size_t si = 0; si < WG_ARRAY_SIZE(surfaces); si++) {
				unsigned int s = surfaces[si];
				const char *na = wg_conf_key_name(a, s),
					   *nb = wg_conf_key_name(b, s);
				bool meet = visible(a, s, b->section) || visible(b, s, a->section);

				if (!((a->in | a->out) & s) || !((b->in | b->out) & s) || !meet)
					continue;
				cr_assert(strcasecmp(na, nb), "`%s' twice on surface %u", na, s);
			}
		}
	}
}

/* %v %n %r %e and nothing else; %r only where the type has a range. */
static void check_template(const struct wg_conf_key *k, const struct wg_conf_msg *m)
{
	for (const char *p = strchr(m->text, '%'); p; p = strchr(p + 2, '%')) {
		cr_assert(p[1] && strchr("vnre", p[1]), "bad conversion in `%s'", m->text);
		cr_assert(p[1] != 'r' || k->type->range, "%%r without a range: `%s'", m->text);
		/* a secret is never quoted (a key file's path is) */
		cr_assert(
			!(k->flags & WG_CONF_KEY_SECRET) || p[1] != 'v' ||
				(m->surfaces == WG_CONF_ARG && k->arg_form == WG_CONF_ARG_KEY_FILE),
			"a secret quoted: `%s'", m->text);
	}
}

Test(conf_keys, every_row_is_complete)
{
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];
		const char *any = k->file ? k->file : k->uapi ? k->uapi : k->arg;

		cr_assert(any, "row %zu has no name", i);
		cr_assert(k->type && k->type->name, "%s has no type", any);
		for (size_t si = 0; si < WG_ARRAY_SIZE(surfaces); si++) {
			unsigned int s = surfaces[si];
			bool named = wg_conf_key_name(k, s) != NULL;

			if (k->in & s) {
				cr_assert(k->type->parse, "%s: no parser for surface %u", any, s);
				cr_assert_eq(wg_conf_key_find(s, k->section, wg_conf_key_name(k, s),
							      strlen(wg_conf_key_name(k, s)), 0),
					     k, "%s is not found on surface %u", any, s);
			}
			if (k->out & s)
				cr_assert(k->type->print, "%s: no printer for surface %u", any, s);
			/* SET and GET share the UAPI name */
			if (s != WG_CONF_GET && s != WG_CONF_SET)
				cr_assert_eq(named, !!((k->in | k->out) & s),
					     "%s: a name on surface %u it is not on, or none", any,
					     s);
		}
		cr_assert_eq(!!k->uapi, !!((k->in | k->out) & (WG_CONF_SET | WG_CONF_GET)), "%s",
			     any);
		/* cakewg's own keys are unknown to wg */
		cr_assert(!(k->flags & WG_CONF_KEY_CAKEWG) || (k->flags & WG_CONF_KEY_QUICK), "%s",
			  any);
		/* get reads what it writes */
		cr_assert_eq(!!(k->in & WG_CONF_GET), !!(k->out & WG_CONF_GET), "%s", any);
		/* a file reads what it writes; each has a place in its section */
		cr_assert_eq(!!(k->in & WG_CONF_FILE), !!(k->out & WG_CONF_FILE), "%s", any);
		cr_assert_eq(!!k->file_pos, !!(k->out & WG_CONF_FILE), "%s", any);
		for (size_t j = 0; j < i; j++)
			cr_assert(!k->file_pos || wg_conf_keys[j].section != k->section ||
					  wg_conf_keys[j].file_pos != k->file_pos,
				  "%s: file_pos %u twice", any, k->file_pos);
		for (const struct wg_conf_msg *m = k->msgs; m && m->text; m++) {
			cr_assert_eq(m->surfaces & ~k->in, 0,
				     "%s: a message for a surface it is not on", any);
			check_template(k, m);
		}
	}
}

Test(conf_keys, sections_and_surfaces_limit_lookups)
{
	static const struct {
		unsigned int s;
		enum wg_conf_section sec;
		const char *name;
		bool found;
	} t[] = {
		{WG_CONF_SET, WG_CONF_INTERFACE, "public_key", true}, /* starts a peer */
		{WG_CONF_SET, WG_CONF_PEER, "listen_port", false},
		{WG_CONF_SET, WG_CONF_INTERFACE, "Private_Key", false},
		{WG_CONF_SET, WG_CONF_PEER, "rx_bytes", false}, /* get only */
		{WG_CONF_FILE, WG_CONF_INTERFACE, "privatekey", true},
		{WG_CONF_FILE, WG_CONF_INTERFACE, "PublicKey", false},
		{WG_CONF_FILE, WG_CONF_PEER, "cake", false},
		{WG_CONF_ARG, WG_CONF_PEER, "cake", true}, /* anywhere */
		{WG_CONF_ARG, WG_CONF_PEER, "listen-port", false},
		{WG_CONF_ARG, WG_CONF_INTERFACE, "remove", false},
		{WG_CONF_ARG, WG_CONF_PEER, "peer", true},
	};

	for (size_t i = 0; i < WG_ARRAY_SIZE(t); i++)
		cr_assert_eq(wg_conf_key_find(t[i].s, t[i].sec, t[i].name, strlen(t[i].name), 0) !=
				     NULL,
			     t[i].found, "%s", t[i].name);
	cr_assert(wg_conf_arg_is_anywhere("cake-ingress"));
	cr_assert(wg_conf_arg_is_anywhere("underlay-limit"));
	cr_assert_not(wg_conf_arg_is_anywhere("fwmark"));
	cr_assert_null(
		wg_conf_key_find(WG_CONF_FILE, WG_CONF_INTERFACE, "Address", 7, WG_CONF_KEY_QUICK));
}

/* `ingress` is a tc-cake word inside a cake section, and cake-ingress's older word where a
 * key starts. */
Test(conf_keys, ingress_is_an_alias_that_ends_nothing)
{
	const struct wg_conf_key *k =
		wg_conf_key_find(WG_CONF_ARG, WG_CONF_INTERFACE, "cake-ingress", 12, 0);

	cr_assert_not_null(k);
	cr_assert_str_eq(k->uapi, "cake_ingress");
	cr_assert_eq(wg_conf_key_find(WG_CONF_ARG, WG_CONF_INTERFACE, "ingress", 7, 0), k);
	cr_assert_eq(wg_conf_key_find(WG_CONF_ARG, WG_CONF_PEER, "ingress", 7, 0), k);
	cr_assert_null(wg_conf_key_find(WG_CONF_FILE, WG_CONF_INTERFACE, "ingress", 7, 0));
	cr_assert_null(wg_conf_key_find(WG_CONF_SET, WG_CONF_INTERFACE, "ingress", 7, 0));
	cr_assert_not(wg_conf_arg_is_anywhere("ingress"));
}

/* The text a writer makes of c, or NULL when it refuses. */
static char *written(const struct wg_devconf *c, unsigned int s)
{
	struct wg_devconf_buf out = {0};
	int ret = s == WG_CONF_FILE  ? wg_wgconf_write(c, 0, &out)
		  : s == WG_CONF_SET ? wg_uapi_set_write(c, &out)
				     : wg_uapi_get_write(c, &out);
	char *text = ret ? NULL : strdup(out.data);

	wg_devconf_buf_wipe(&out);
	return text;
}

/*
 * Two configurations are the same when their flags are and every writer says the same
 * of both (the tests check that the writers say every key).
 */
static void assert_same(const struct wg_devconf *a, const struct wg_devconf *b)
{
	cr_assert_eq(a->flags, b->flags);
	cr_assert_eq(a->n_peers, b->n_peers);
	for (size_t i = 0; i < a->n_peers; i++)
		cr_assert_eq(a->peers[i]->flags, b->peers[i]->flags, "peer %zu", i);
	for (size_t si = 0; si < 3; si++) {
		char *ta = written(a, surfaces[si]), *tb = written(b, surfaces[si]);

		cr_assert(ta && tb, "surface %u refused", surfaces[si]);
		cr_assert_str_eq(ta, tb);
		free(ta);
		free(tb);
	}
}

/* Whether text has a line that starts with name and sep. */
static bool has_line(const char *text, const char *name, const char *sep)
{
	char line[64];

	snprintf(line, sizeof(line), "%s%s", name, sep);
	return !strncmp(text, line, strlen(line)) ||
	       (strstr(text, line) && strstr(text, line)[-1] == '\n');
}

/* The lines of a section for surface s: a file's "Name = value", the UAPI's name=value. */
static void append_lines(struct wg_devconf_buf *text, unsigned int s, enum wg_conf_section sec,
			 const struct sample *t, size_t n, bool with_remove)
{
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];
		const char *name = wg_conf_key_name(k, s), *v;

		if (!(k->in & s) || k->section != sec)
			continue;
		if ((k->flags & WG_CONF_KEY_ENDS_RECORD) != with_remove * WG_CONF_KEY_ENDS_RECORD &&
		    !(k->flags & WG_CONF_KEY_STARTS_PEER))
			continue;
		v = sample(t, n, name);
		cr_assert(v, "no sample value for %s: add one to this test", name);
		wg_devconf_buf_printf(text, s == WG_CONF_FILE ? "%s = %s\n" : "%s=%s\n", name, v);
	}
}

/* conf text -> devconf -> showconf text -> devconf: the same, with every key written. */
Test(conf_keys, every_file_key_round_trips)
{
	struct wg_devconf_buf in = {0};
	struct wg_devconf *a, *b;
	char err[WG_WGCONF_MSG_SIZE] = "";
	char *t1, *t2;

	wg_devconf_buf_printf(&in, "[Interface]\n");
	append_lines(&in, WG_CONF_FILE, WG_CONF_INTERFACE, file_samples,
		     WG_ARRAY_SIZE(file_samples), false);
	wg_devconf_buf_printf(&in, "[Peer]\n");
	append_lines(&in, WG_CONF_FILE, WG_CONF_PEER, file_samples, WG_ARRAY_SIZE(file_samples),
		     false);
	cr_assert_eq(wg_wgconf_parse("f", in.data, in.len, 0, &a, err, sizeof(err)), 0, "%s\n%s",
		     err, in.data);
	t1 = written(a, WG_CONF_FILE);
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];

		if (k->out & WG_CONF_FILE)
			cr_assert(has_line(t1, k->file, " = "), "%s not written:\n%s", k->file, t1);
	}
	cr_assert_eq(wg_wgconf_parse("f", t1, strlen(t1), 0, &b, err, sizeof(err)), 0, "%s", err);
	assert_same(a, b);
	t2 = written(b, WG_CONF_FILE);
	cr_assert_str_eq(t1, t2);
	free(t1);
	free(t2);
	wg_devconf_buf_wipe(&in);
	wg_devconf_free(a);
	wg_devconf_free(b);
}

/* KillSwitchAllowLAN: read in any case, written after KillSwitch by SaveConfig and by
 * showconf, left out by strip. */
Test(conf_keys, kill_switch_allow_lan_round_trips)
{
	static const char text[] = "[Interface]\nkillswitchallowlan = TRUE\nKillSwitch = true\n";
	struct wg_devconf_buf save = {0}, show = {0}, strip = {0};
	char err[WG_WGCONF_MSG_SIZE] = "";
	struct wg_devconf *c;

	cr_assert_eq(wg_wgconf_parse("f", text, strlen(text), 0, &c, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(c->kill_switch_allow_lan);
	cr_assert_eq(wg_wgconf_write(c, 0, &save), 0);
	cr_assert_str_eq(save.data, "[Interface]\nKillSwitch = true\nKillSwitchAllowLAN = true\n");
	cr_assert_eq(wg_wgconf_write(c, WG_WGCONF_SHOWCONF, &show), 0);
	cr_assert(strstr(show.data, "KillSwitch = true\nKillSwitchAllowLAN = true\n"), "%s",
		  show.data);
	cr_assert_eq(wg_wgconf_write(c, WG_WGCONF_WG_ONLY, &strip), 0);
	cr_assert_str_eq(strip.data, "[Interface]\n");
	c->kill_switch_allow_lan = false;
	wg_devconf_buf_wipe(&save);
	cr_assert_eq(wg_wgconf_write(c, 0, &save), 0);
	cr_assert_str_eq(save.data, "[Interface]\nKillSwitch = true\n");
	wg_devconf_buf_wipe(&save);
	wg_devconf_buf_wipe(&show);
	wg_devconf_buf_wipe(&strip);
	wg_devconf_free(c);
}

/* set lines -> devconf -> set text (the same lines) -> devconf; and -> get -> the same. */
Test(conf_keys, every_uapi_key_round_trips)
{
	struct wg_devconf_buf in = {0}, want = {0};
	struct wg_devconf *a, *b, *c;
	char *set, *get, *get2;

	append_lines(&in, WG_CONF_SET, WG_CONF_INTERFACE, set_samples, WG_ARRAY_SIZE(set_samples),
		     false);
	append_lines(&in, WG_CONF_SET, WG_CONF_PEER, set_samples, WG_ARRAY_SIZE(set_samples),
		     false);
	wg_devconf_buf_printf(&in, "allowed_ip=10.0.0.0/8\n");
	append_lines(&in, WG_CONF_SET, WG_CONF_PEER, set_samples, WG_ARRAY_SIZE(set_samples), true);
	cr_assert_eq(wg_uapi_set_parse(in.data, in.len, &a), 0, "%s", in.data);

	/* The writer says every key it writes, in the table's order. */
	wg_devconf_buf_printf(&want, "set=1\n");
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];

		if ((k->out & WG_CONF_SET) && k->section == WG_CONF_INTERFACE)
			wg_devconf_buf_printf(
				&want, "%s=%s\n", k->uapi,
				sample(set_samples, WG_ARRAY_SIZE(set_samples), k->uapi));
	}
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];

		if ((k->out & WG_CONF_SET) && k->section == WG_CONF_PEER &&
		    !(k->flags & WG_CONF_KEY_ENDS_RECORD))
			wg_devconf_buf_printf(
				&want, "%s=%s\n", k->uapi,
				sample(set_samples, WG_ARRAY_SIZE(set_samples), k->uapi));
	}
	wg_devconf_buf_printf(&want, "allowed_ip=10.0.0.0/8\npublic_key=" K2 "\nremove=true\n\n");
	set = written(a, WG_CONF_SET);
	cr_assert_str_eq(set, want.data);
	cr_assert_eq(wg_uapi_set_parse(set + 6, strlen(set) - 7, &b), 0);
	assert_same(a, b);

	/* get: every key it reports, read back by the client and written the same again */
	get = written(a, WG_CONF_GET);
	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];

		if (k->out & WG_CONF_GET)
			cr_assert(has_line(get, k->uapi, "="), "%s not reported:\n%s", k->uapi,
				  get);
	}
	cr_assert_eq(wg_uapi_reply_get_parse(get, strlen(get), &c), 0);
	get2 = written(c, WG_CONF_GET);
	cr_assert_str_eq(get, get2);
	cr_assert_eq(memcmp(c->private_key, a->private_key, sizeof(a->private_key)), 0);
	cr_assert_eq(c->listen_port, a->listen_port);
	cr_assert_eq(c->fwmark, a->fwmark);
	cr_assert_eq(c->n_peers, a->n_peers);
	cr_assert_eq(memcmp(c->peers[0]->preshared_key, a->peers[0]->preshared_key,
			    sizeof(a->peers[0]->preshared_key)),
		     0);
	cr_assert_eq(memcmp(&c->peers[0]->endpoint, &a->peers[0]->endpoint,
			    sizeof(a->peers[0]->endpoint)),
		     0);
	cr_assert_eq(c->peers[0]->persistent_keepalive_secs, 25);
	cr_assert_eq(c->peers[0]->n_allowedips, 1);
	free(set);
	free(get);
	free(get2);
	wg_devconf_buf_wipe(&in);
	wg_devconf_buf_wipe(&want);
	wg_devconf_free(a);
	wg_devconf_free(b);
	wg_devconf_free(c);
}

/* get lines -> the client's devconf (by the table) -> the server's get writer: the same. */
Test(conf_keys, every_get_key_round_trips)
{
	struct wg_devconf_buf in = {0};
	struct wg_devconf *c;
	char *again;

	append_lines(&in, WG_CONF_GET, WG_CONF_INTERFACE, get_samples, WG_ARRAY_SIZE(get_samples),
		     false);
	append_lines(&in, WG_CONF_GET, WG_CONF_PEER, get_samples, WG_ARRAY_SIZE(get_samples),
		     false);
	wg_devconf_buf_printf(&in, "errno=0\n\n");
	cr_assert_eq(wg_uapi_reply_get_parse(in.data, in.len, &c), 0, "%s", in.data);
	again = written(c, WG_CONF_GET);
	cr_assert_str_eq(again, in.data);
	cr_assert_eq(c->peers[0]->tx_bytes, UINT64_MAX);
	cr_assert_eq(c->peers[0]->last_handshake_nsec, 123456789);
	free(again);
	wg_devconf_buf_wipe(&in);
	wg_devconf_free(c);
}

/* The UAPI says numbers in decimal; a file and `cakewg set` also take wg's words. */
Test(conf_keys, numbers_by_surface)
{
	static const struct {
		const char *name;
		unsigned int s;
		const char *value;
		bool ok;
		uint32_t want;
	} t[] = {
		{"fwmark", WG_CONF_SET, "31", true, 31},
		{"fwmark", WG_CONF_GET, "4294967295", true, UINT32_MAX},
		{"fwmark", WG_CONF_GET, "0x1f", false, 0},
		{"fwmark", WG_CONF_SET, "off", false, 0},
		{"fwmark", WG_CONF_ARG, "0x1f", true, 31},
		{"fwmark", WG_CONF_ARG, "OFF", true, 0},
		{"FwMark", WG_CONF_FILE, "4294967296", false, 0},
		{"persistent_keepalive_interval", WG_CONF_GET, "65535", true, 65535},
		{"persistent_keepalive_interval", WG_CONF_GET, "off", false, 0},
		{"persistent_keepalive_interval", WG_CONF_SET, "65536", false, 0},
		{"persistent-keepalive", WG_CONF_ARG, "off", true, 0},
		{"persistent-keepalive", WG_CONF_ARG, "0x10", false, 0},
		{"PersistentKeepalive", WG_CONF_FILE, "25", true, 25},
	};

	for (size_t i = 0; i < WG_ARRAY_SIZE(t); i++) {
		struct wg_devconf *c = wg_devconf_new();
		struct wg_devconf_peer *p = c ? wg_devconf_add_peer(c) : NULL;
		enum wg_conf_section sec = strcasecmp(t[i].name, "fwmark") ? WG_CONF_PEER
									   : WG_CONF_INTERFACE;
		const struct wg_conf_key *k =
			wg_conf_key_find(t[i].s, sec, t[i].name, strlen(t[i].name), 0);
		struct wg_conf_result r = {0};
		int ret;

		cr_assert(p && k, "%s", t[i].name);
		c->fwmark = p->persistent_keepalive_secs = 7;
		ret = wg_conf_key_parse(k, &(struct wg_conf_target){.conf = c, .peer = p}, t[i].s, t[i].value,
					strlen(t[i].value), &r);
		cr_assert_eq(ret == WG_CONF_OK, t[i].ok, "%s %s", t[i].name, t[i].value);
		if (t[i].ok)
			cr_assert_eq(sec == WG_CONF_PEER ? p->persistent_keepalive_secs : c->fwmark,
				     t[i].want, "%s %s", t[i].name, t[i].value);
		cr_assert_eq(!!(sec == WG_CONF_PEER
					? p->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE
					: c->flags & WG_DEVCONF_HAS_FWMARK),
			     t[i].ok, "%s %s", t[i].name, t[i].value);
		wg_devconf_free(c);
	}
}

/* One message per refusal, from the row: the surfaces word it their own way. */
Test(conf_keys, messages_come_from_the_row)
{
	const struct wg_conf_key *k =
		wg_conf_key_find(WG_CONF_FILE, WG_CONF_INTERFACE, "UnderlayLimit", 13, 0);
	struct wg_devconf *c = wg_devconf_new();
	struct wg_conf_result r = {0};
	char msg[WG_CONF_MSG_SIZE];

	cr_assert(k && c);
	cr_assert_eq(
		wg_conf_key_parse(k, &(struct wg_conf_target){.conf = c}, WG_CONF_ARG, "1mb", 3, &r),
		WG_CONF_E_VALUE);
	wg_conf_key_message(k, WG_CONF_ARG, r.err, &r, "1mb", msg, sizeof(msg));
	cr_assert_str_eq(msg, "Underlay limit is neither auto, off nor 8192-393216 bytes: `1mb'");
	wg_conf_key_message(k, WG_CONF_FILE, r.err, &r, "1mb", msg, sizeof(msg));
	cr_assert_str_eq(msg, "UnderlayLimit is neither auto, off nor 8192-393216 bytes: `1mb'");
	/* a short buffer is cut, still a string */
	wg_conf_key_message(k, WG_CONF_FILE, r.err, &r, "1mb", msg, 8);
	cr_assert_str_eq(msg, "Underla");
	k = wg_conf_key_find(WG_CONF_ARG, WG_CONF_INTERFACE, "cake", 4, 0);
	cr_assert_eq(wg_conf_key_parse(k, &(struct wg_conf_target){.conf = c}, WG_CONF_ARG,
				       "bandwidth 1mbit bogus", 21, &r),
		     WG_CONF_E_VALUE);
	wg_conf_key_message(k, WG_CONF_ARG, r.err, &r, "", msg, sizeof(msg));
	cr_assert(strstr(msg, "bogus"), "%s", msg);
	cr_assert_null(c->cake);
	wg_devconf_free(c);
}
