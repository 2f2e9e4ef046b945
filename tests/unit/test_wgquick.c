/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pure parts of `cakewg up/down/strip` (src/edge/wgquick*.c): wg-quick's file and
 * interface-name rules, hook expansion, the strip filter, route ordering and coverage,
 * the automatic MTU, resolvconf's input, WG_ENDPOINT_RESOLUTION_RETRIES, and the child
 * process plumbing. The network side is tested in tests/netns/test-updown.sh.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/core/conf_keys.h"
#include "src/core/wgconf.h"
#include "src/edge/wgquick.h"
#include "src/edge/dns.h"
#include "src/edge/wgquick_priv.h"

Test(wgquick, interface_names)
{
	static const struct {
		const char *name;
		bool ok;
	} cases[] = {
		{"wg0", true},
		{"a", true},
		{"A_b=c+d.e-f", true},
		{"123456789012345", true},   /* 15: IFNAMSIZ - 1 */
		{"1234567890123456", false}, /* 16 */
		{"", false},
		{"wg 0", false},
		{"wg/0", false},
		{"wg:0", false},
		{"wg%d", false},
		{"wg0\n", false},
		{"wgé", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(wg_quick_ifname_valid(cases[i].name, strlen(cases[i].name)),
			     cases[i].ok, "`%s'", cases[i].name);
	/* The length given counts, not the NUL. */
	cr_expect(!wg_quick_ifname_valid("wg\0x", 4));
}

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cakewg-test-wgquick.XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void touch(const char *name, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(f);
	fputs("[Interface]\n", f);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(wgquick, locate_follows_wg_quick, .init = make_dir, .fini = remove_dir)
{
	struct wg_quick_opts opts = {.config_dir = dir};
	struct wg_quick_config cfg;
	char err[WG_QUICK_MSG_SIZE], path[256];

	touch("wg0.conf", 0600);
	touch("wg0.conf.conf", 0600);
	touch("bad name.conf", 0600);
	touch("1234567890123456.conf", 0600);
	touch("wg1.cnf", 0600);

	/* A valid name means CONFIG_DIR/NAME.conf. */
	cr_assert_eq(wg_quick_locate("wg0", &opts, &cfg, err, sizeof(err)), 0, "%s", err);
	snprintf(path, sizeof(path), "%s/wg0.conf", dir);
	cr_expect_str_eq(cfg.path, path);
	cr_expect_str_eq(cfg.ifname, "wg0");
	/* "wg0.conf" is itself a valid name: wg-quick looks up wg0.conf.conf. */
	cr_assert_eq(wg_quick_locate("wg0.conf", &opts, &cfg, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cfg.ifname, "wg0.conf");
	/* A path is taken as it is; the interface is its name without .conf. */
	snprintf(path, sizeof(path), "%s/wg0.conf", dir);
	cr_assert_eq(wg_quick_locate(path, &opts, &cfg, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cfg.ifname, "wg0");
	cr_expect_str_eq(cfg.path, path);

	cr_expect_eq(wg_quick_locate("wg9", &opts, &cfg, err, sizeof(err)), -ENOENT);
	cr_expect(strstr(err, "wg9.conf' does not exist"), "%s", err);
	snprintf(path, sizeof(path), "%s/bad name.conf", dir);
	cr_expect_eq(wg_quick_locate(path, &opts, &cfg, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "The config file must be a valid interface name, followed by .conf");
	snprintf(path, sizeof(path), "%s/1234567890123456.conf", dir);
	cr_expect_eq(wg_quick_locate(path, &opts, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/wg1.cnf", dir);
	cr_expect_eq(wg_quick_locate(path, &opts, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/.conf", dir);
	touch(".conf", 0600);
	cr_expect_eq(wg_quick_locate(path, &opts, &cfg, err, sizeof(err)), -EINVAL);
}

Test(wgquick, world_accessible_warning, .init = make_dir, .fini = remove_dir)
{
	char *text = NULL;
	size_t len = 0;
	FILE *trace = open_memstream(&text, &len);
	struct wg_quick_opts opts = {.config_dir = dir, .trace = trace};
	struct wg_quick_config cfg;
	char err[WG_QUICK_MSG_SIZE];

	cr_assert(trace);
	cr_assert_eq(chmod(dir, 0755), 0);
	touch("wg0.conf", 0600);
	touch("wg1.conf", 0644);
	cr_assert_eq(wg_quick_locate("wg0", &opts, &cfg, err, sizeof(err)), 0);
	fflush(trace);
	cr_expect_eq(len, 0, "%s", text);
	cr_assert_eq(wg_quick_locate("wg1", &opts, &cfg, err, sizeof(err)), 0);
	fflush(trace);
	cr_expect(strstr(text, "Warning: `"), "%s", text);
	cr_expect(strstr(text, "wg1.conf' is world accessible"), "%s", text);
	fclose(trace);
	free(text);
}

Test(wgquick, hook_expansion)
{
	static const struct {
		const char *hook, *ifname, *want;
	} cases[] = {
		{"echo %i", "wg0", "echo wg0"},
		{"%i%i", "wg0", "wg0wg0"},
		{"ip link set %i up; echo %%i %i", "a", "ip link set a up; echo %a a"},
		{"no expansion %d %", "wg0", "no expansion %d %"},
		{"%I is not %i", "x", "%I is not x"},
		{"", "wg0", ""},
		{"%i", "123456789012345", "123456789012345"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = wg_quick_hook_expand(cases[i].hook, cases[i].ifname);

		cr_assert(got);
		cr_expect_str_eq(got, cases[i].want, "`%s'", cases[i].hook);
		free(got);
	}
}

Test(wgquick, strip_keeps_what_wg_reads)
{
	static const struct {
		const char *line;
		bool keep;
	} lines[] = {
		{"[Interface]", true},
		{"PrivateKey = x", true},
		{"Address = 10.0.0.1/24", false},
		{"  address=10.0.0.2", false},
		{"DNS = 1.1.1.1", false},
		{"MTU = 1420", false},
		{"Table = off", false},
		{"PreUp = echo # not a key", false},
		{"PostUp = x", false},
		{"PreDown = x", false},
		{"postdown = x", false},
		{"SaveConfig = true", false},
		{"Cake = bandwidth 10Mbit", false},
		{"CAKEINGRESS = ingress", false},
		{"UnderlayLimit = off", false},
		{"AutorateProbe = 10.0.0.1", false},
		{"autorateprobe=fd00::1", false},
		{"KillSwitch = on", false},
		{"killswitchallowlan = true", false},
		{"# Address = commented", true},
		{"Addresses = 1", true},
		{"ListenPort = 51820", true},
		{"", true},
		{"[Peer]", true},
		{"Address = only [Interface] has wg-quick keys", true},
		{"AllowedIPs = 0.0.0.0/0", true},
		{"[interface] # any case", true},
		{"MTU = 1280", false},
		{"[Something]", true},
		{"DNS = 9.9.9.9", true},
	};
	bool in_interface = false;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		cr_expect_eq(
			wg_quick_strip_line(lines[i].line, strlen(lines[i].line), &in_interface),
			lines[i].keep, "line %zu: `%s'", i, lines[i].line);
}

/* Every [Interface] key of the key table: stripped if wg(8) does not know it, else kept. */
Test(wgquick, strip_follows_the_key_table)
{
	char line[128];
	size_t quick = 0;

	for (size_t i = 0; i < wg_conf_n_keys; i++) {
		const struct wg_conf_key *k = &wg_conf_keys[i];
		bool in_interface = true;

		if (!k->file || k->section != WG_CONF_INTERFACE)
			continue;
		snprintf(line, sizeof(line), "%s = x", k->file);
		quick += !!(k->flags & WG_CONF_KEY_QUICK);
		cr_expect_eq(wg_quick_strip_line(line, strlen(line), &in_interface),
			     !(k->flags & WG_CONF_KEY_QUICK), "`%s'", line);
	}
	cr_expect_geq(quick, 14, "wg-quick's 10 keys and cakewg's 4 at least");
}

Test(wgquick, strip_whole_file, .init = make_dir, .fini = remove_dir)
{
	struct wg_quick_opts opts = {.config_dir = dir};
	char err[WG_QUICK_MSG_SIZE], path[256], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len), *f;

	snprintf(path, sizeof(path), "%s/wg0.conf", dir);
	f = fopen(path, "w");
	cr_assert(f && out);
	fputs("[Interface]\n  PrivateKey = k  \nAddress = 10.0.0.1/24\nCake = unlimited\n"
	      "[Peer]\nPublicKey = p\nAllowedIPs = 10.0.0.2/32",
	      f);
	fclose(f);
	cr_assert_eq(wg_quick_strip("wg0", &opts, out, err, sizeof(err)), 0, "%s", err);
	fclose(out);
	/* Lines trimmed as `read -r` does, the last one without '\n' kept, and echo's
	 * extra newline at the end. */
	cr_expect_str_eq(text, "[Interface]\nPrivateKey = k\n[Peer]\nPublicKey = p\n"
			       "AllowedIPs = 10.0.0.2/32\n\n");
	free(text);
}

static struct wg_devconf *parse(const char *text)
{
	struct wg_devconf *conf = NULL;
	char err[WG_WGCONF_MSG_SIZE] = "";

	cr_assert_eq(wg_wgconf_parse("t.conf", text, strlen(text), 0, &conf, err, sizeof(err)), 0,
		     "%s", err);
	return conf;
}

#define PUB1 "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="
#define PUB2 "TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0="

Test(wgquick, routes_longest_prefix_first)
{
	struct wg_devconf *c = parse("[Peer]\nPublicKey = " PUB1 "\n"
				     "AllowedIPs = 0.0.0.0/0, 10.1.2.3/16, 10.9.0.1/32\n"
				     "[Peer]\nPublicKey = " PUB2 "\n"
				     "AllowedIPs = ::/0, fd00::1/64, 10.2.0.0/16, 192.0.2.1/32\n");
	/* Numerically by length, as `sort -nr -k 2 -t /`: an IPv6 /64 before an IPv4 /32. */
	static const char *const want[] = {
		"fd00::/64",   "10.9.0.1/32", "192.0.2.1/32", "10.1.0.0/16",
		"10.2.0.0/16", "0.0.0.0/0",   "::/0",
	};
	struct wg_ipaddr_prefix *v = NULL;
	char text[WG_IPADDR_PREFIX_STRLEN];
	size_t n = 0;

	cr_assert_eq(wg_quick_route_prefixes(c, &v, &n), 0);
	cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		wg_ipaddr_prefix_format(text, &v[i]);
		cr_expect_str_eq(text, want[i], "entry %zu: %s, not %s", i, text, want[i]);
	}
	cr_expect(wg_quick_has_default_route(c));
	free(v);
	wg_devconf_free(c);

	c = parse("[Peer]\nPublicKey = " PUB1 "\nAllowedIPs = 10.0.0.0/1\n");
	cr_expect(!wg_quick_has_default_route(c));
	wg_devconf_free(c);
}

static struct wg_nl_route_entry route(uint8_t family, const char *dst, uint8_t len, uint32_t table,
				      uint32_t oif)
{
	struct wg_nl_route_entry r = {.family = family, .dst_len = len, .table = table, .oif = oif};

	cr_assert_eq(inet_pton(family, dst, r.dst), 1);
	return r;
}

static struct wg_ipaddr_prefix pfx(const char *text)
{
	struct wg_ipaddr_prefix p;

	cr_assert_eq(wg_ipaddr_prefix_parse(&p, text, strlen(text), WG_IPADDR_PREFIX_CIDR_REQUIRED),
		     WG_IPADDR_PREFIX_OK);
	return p;
}

/* `ip route show dev IF match P`: a main-table route through IF that contains P. */
Test(wgquick, main_route_coverage)
{
	struct wg_nl_route_entry routes[] = {
		route(AF_INET, "198.19.0.0", 24, WG_NL_TABLE_MAIN, 7),
		route(AF_INET, "10.0.0.0", 8, WG_NL_TABLE_MAIN, 8), /* another device */
		route(AF_INET, "172.16.0.0", 12, 1234, 7),	    /* another table */
		route(AF_INET6, "fd00:19::", 64, WG_NL_TABLE_MAIN, 7),
		route(AF_INET, "192.0.2.128", 25, WG_NL_TABLE_MAIN, 7),
	};
	struct wg_nl_snapshot s = {.routes = routes, .n_routes = 5};
	static const struct {
		const char *p;
		bool covered;
	} cases[] = {
		{"198.19.0.2/32", true},   {"198.19.0.0/24", true}, {"198.19.0.0/23", false},
		{"198.19.1.0/24", false},  {"10.1.0.0/16", false},  {"172.16.1.0/24", false},
		{"fd00:19::2/128", true},  {"fd00:1a::/64", false}, {"192.0.2.200/32", true},
		{"192.0.2.100/32", false}, {"0.0.0.0/0", false},    {"fd00:19::/48", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wg_ipaddr_prefix p = pfx(cases[i].p);

		cr_expect_eq(wg_quick_main_route_covers(&s, 7, &p), cases[i].covered, "%s",
			     cases[i].p);
	}
}

Test(wgquick, automatic_mtu)
{
	static const uint32_t cases[][2] = {
		{1500, 1420}, {9000, 8920}, {1400, 1320}, {65536, 65456},    {0, 1420},
		{1280, 1200}, {81, 1},	    {80, 0},	  {INT32_MAX, 1420},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(wg_quick_auto_mtu(cases[i][0]), cases[i][1], "underlay %u",
			     cases[i][0]);
}

Test(wgquick, resolvconf_input)
{
	struct wg_devconf *c = parse("[Interface]\nDNS = 192.0.2.53, corp.example,2001:db8::53 "
				     "lan\n");
	struct wg_devconf_buf buf = {0};

	cr_expect(wg_dns_wanted(c));
	wg_dns_resolvconf_text(c, &buf);
	cr_expect_str_eq(buf.data, "nameserver 192.0.2.53\nnameserver 2001:db8::53\n"
				   "search corp.example lan\n");
	wg_devconf_buf_wipe(&buf);
	wg_devconf_free(c);

	/* Search domains alone: wg-quick calls resolvconf only for servers. */
	c = parse("[Interface]\nDNS = corp.example\n");
	cr_expect(!wg_dns_wanted(c));
	wg_devconf_free(c);
}

/* words joined by spaces; "" for a step that says nothing */
static char *resolvectl_line(const struct wg_devconf *c, bool full, enum wg_dns_step step)
{
	struct wg_devconf_buf line = {0};
	struct wg_dns_words w;
	char *out;

	cr_assert_eq(wg_dns_resolvectl_words(c, "wg0", full, step, &w), 0);
	cr_assert(w.argc == 0 || w.argv[w.argc] == NULL);
	for (size_t i = 0; i < w.argc; i++)
		wg_devconf_buf_printf(&line, "%s%s", i ? " " : "", w.argv[i]);
	out = strdup(line.data ? line.data : "");
	wg_devconf_buf_wipe(&line);
	wg_dns_words_free(&w);
	return out;
}

static void expect_resolvectl(const struct wg_devconf *c, bool full, const char *servers,
			      const char *domains, const char *route)
{
	const char *want[WG_DNS_STEPS] = {servers, domains, route};

	for (int step = 0; step < WG_DNS_STEPS; step++) {
		char *got = resolvectl_line(c, full, (enum wg_dns_step)step);

		cr_expect_str_eq(got, want[step], "step %d, full tunnel %d", step, full);
		free(got);
	}
}

/* systemd-resolved: per-link servers and search domains; a full tunnel adds `~.` and
 * the DNS default route. */
Test(wgquick, resolvectl_words)
{
	struct wg_devconf *c = parse("[Interface]\nDNS = 192.0.2.53, corp.example,2001:db8::53 "
				     "lan\n");

	expect_resolvectl(c, false, "resolvectl dns wg0 192.0.2.53 2001:db8::53",
			  "resolvectl domain wg0 corp.example lan", "");
	expect_resolvectl(c, true, "resolvectl dns wg0 192.0.2.53 2001:db8::53",
			  "resolvectl domain wg0 corp.example lan ~.",
			  "resolvectl default-route wg0 yes");
	wg_devconf_free(c);

	c = parse("[Interface]\nDNS = 192.0.2.53\n");
	expect_resolvectl(c, false, "resolvectl dns wg0 192.0.2.53", "", "");
	expect_resolvectl(c, true, "resolvectl dns wg0 192.0.2.53", "resolvectl domain wg0 ~.",
			  "resolvectl default-route wg0 yes");
	wg_devconf_free(c);
}

Test(wgquick, resolution_retries)
{
	static const struct {
		const char *env;
		int ret, retries;
	} cases[] = {
		{NULL, 0, 15},	    {"infinity", 0, -1},	  {"0", 0, 0},
		{"3", 0, 3},	    {"2147483647", 0, INT32_MAX}, {"2147483648", -EINVAL, 0},
		{"", -EINVAL, 0},   {"-1", -EINVAL, 0},		  {"+1", -EINVAL, 0},
		{"1x", -EINVAL, 0}, {" 1", -EINVAL, 0},		  {"Infinity", -EINVAL, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int retries = 12345;

		cr_expect_eq(wg_quick_parse_retries(cases[i].env, &retries), cases[i].ret, "`%s'",
			     cases[i].env ? cases[i].env : "(unset)");
		if (!cases[i].ret)
			cr_expect_eq(retries, cases[i].retries);
	}
}

Test(wgquick, child_processes)
{
	char *exit3[] = {"sh", "-c", "exit 3", NULL};
	char *cat[] = {"cat", NULL};
	char *none[] = {"cakewg-no-such-program", NULL};
	char *ignore[] = {"true", NULL};
	struct wg_devconf_buf out = {0};
	int status = -1;

	cr_expect_eq(wg_quick_run(exit3, NULL, NULL, &status), 0);
	cr_expect_eq(status, 3);
	cr_expect_eq(wg_quick_run(cat, "nameserver 192.0.2.1\n", &out, &status), 0);
	cr_expect_eq(status, 0);
	cr_expect_str_eq(out.data, "nameserver 192.0.2.1\n");
	wg_devconf_buf_wipe(&out);
	cr_expect_eq(wg_quick_run(none, NULL, NULL, &status), -ENOENT);
	/* A child that does not read its input must not hurt us. */
	cr_expect_eq(wg_quick_run(ignore, "unread input\n", NULL, &status), 0);
	cr_expect_eq(status, 0);
}
