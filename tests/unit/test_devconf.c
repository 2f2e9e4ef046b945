/* SPDX-License-Identifier: GPL-2.0-only */
/* The configuration model and its address helpers (src/core/devconf.c, ipaddr.c). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/ipaddr.h"
#include "tests/support/det_rng.h"

static void fmt(const char *in, const char *want)
{
	struct wg_ipaddr a;
	char out[WG_IPADDR_STRLEN];

	cr_assert(wg_ipaddr_parse(&a, in, strlen(in)), "parse `%s'", in);
	wg_ipaddr_format(out, &a);
	cr_assert_str_eq(out, want, "format of `%s'", in);
}

/* RFC 5952 section 4 (and 5 for the mapped form), the rules Go's netip prints by. */
Test(ipaddr, rfc5952_format)
{
	fmt("1.2.3.4", "1.2.3.4");
	fmt("0.0.0.0", "0.0.0.0");
	fmt("255.255.255.255", "255.255.255.255");
	fmt("::", "::");
	fmt("::1", "::1");
	fmt("1::", "1::");
	fmt("2001:DB8::A", "2001:db8::a");				 /* 4.3: lowercase */
	fmt("2001:0db8:0000:0000:0000:0000:0002:0001", "2001:db8::2:1"); /* 4.1, 4.2.1 */
	fmt("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1");		 /* 4.2.2: lone 0 */
	fmt("2001:0:0:1:0:0:0:1", "2001:0:0:1::1");			 /* 4.2.3: longest */
	fmt("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1");		 /* 4.2.3: first */
	fmt("::ffff:192.0.2.1", "::ffff:192.0.2.1");			 /* 5: mapped */
	fmt("::ffff:c000:201", "::ffff:192.0.2.1");
	fmt("fe80::1:2:3:4", "fe80::1:2:3:4");
	fmt("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8");
}

/*
 * glibc's inet_ntop follows the same rules except for the deprecated IPv4-compatible
 * form (::a.b.c.d), which it prints dotted and Go does not: compare everything else.
 */
Test(ipaddr, format_matches_inet_ntop)
{
	struct det_rng r = {.state = 5952};

	for (int i = 0; i < 20000; i++) {
		struct wg_ipaddr a = {.family = AF_INET6};
		char want[INET6_ADDRSTRLEN], got[WG_IPADDR_STRLEN];
		uint64_t zeros = det_rng_next(&r);
		bool leading_zero = true;

		det_rng_fill(&r, a.bytes, sizeof(a.bytes));
		for (int g = 0; g < 8; g++) {
			if ((zeros >> g) & (zeros >> (g + 8)) & 1)
				a.bytes[2 * g] = a.bytes[2 * g + 1] = 0;
		}
		for (int g = 0; g < 6; g++)
			leading_zero &= !a.bytes[2 * g] && !a.bytes[2 * g + 1];
		if (leading_zero)
			continue;
		inet_ntop(AF_INET6, a.bytes, want, sizeof(want));
		wg_ipaddr_format(got, &a);
		cr_assert_str_eq(got, want);
	}
}

/* WG_IPADDR_TEXT_NTOP is inet_ntop's text (wg showconf's), the IPv4-compatible form too. */
Test(ipaddr, ntop_text)
{
	struct wg_ipaddr_prefix p;
	union wg_ipaddr_sockaddr ep;
	char a[WG_IPADDR_PREFIX_STRLEN], e[WG_IPADDR_ENDPOINT_STRLEN];

	cr_assert_eq(wg_ipaddr_prefix_parse(&p, "::1.2.3.4/128", 13, WG_IPADDR_PREFIX_CIDR_REQUIRED),
		     WG_IPADDR_PREFIX_OK);
	wg_ipaddr_prefix_format_as(a, &p, WG_IPADDR_TEXT_NTOP);
	cr_assert_str_eq(a, "::1.2.3.4/128");
	wg_ipaddr_prefix_format(a, &p);
	cr_assert_str_eq(a, "::102:304/128");
	cr_assert_eq(wg_ipaddr_endpoint_parse(&ep, "[::102:304%7]:9", 15), 0);
	wg_ipaddr_endpoint_format_as(e, &ep, WG_IPADDR_TEXT_NTOP);
	cr_assert_str_eq(e, "[::1.2.3.4%7]:9");
	cr_assert_eq(wg_ipaddr_endpoint_parse(&ep, "192.0.2.1:9", 11), 0);
	wg_ipaddr_endpoint_format_as(e, &ep, WG_IPADDR_TEXT_NTOP);
	cr_assert_str_eq(e, "192.0.2.1:9");
	cr_assert_eq(wg_ipaddr_prefix_parse(&p, "fd00::/8", 8, WG_IPADDR_PREFIX_CIDR_REQUIRED),
		     WG_IPADDR_PREFIX_OK);
	wg_ipaddr_prefix_format_as(a, &p, WG_IPADDR_TEXT_NTOP);
	cr_assert_str_eq(a, "fd00::/8");
}

Test(ipaddr, parse_rejects)
{
	static const char *const bad[] = {
		"",
		"1.2.3",
		"1.2.3.4.5",
		"01.2.3.4",
		"256.1.1.1",
		"1.2.3.4 ",
		" 1.2.3.4",
		"1.2.3.-4",
		"0x1.2.3.4",
		"::g",
		":::",
		"1::2::3",
		"fe80::1%2",
		"[::1]",
		"12345::",
		"1:2:3:4:5:6:7:8:9",
		"host.example",
		"1.2.3.4/8",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wg_ipaddr a;

		cr_assert_not(wg_ipaddr_parse(&a, bad[i], strlen(bad[i])), "accepted `%s'", bad[i]);
		cr_assert_eq(a.family, AF_UNSPEC);
	}
	/* An embedded NUL must not end the string early. */
	cr_assert_not(wg_ipaddr_parse(&(struct wg_ipaddr){0}, "1.2.3.4\0x", 9));
}

Test(ipaddr, prefix_parse)
{
	static const struct {
		const char *s;
		enum wg_ipaddr_prefix_syntax syntax;
		enum wg_ipaddr_prefix_parse want;
		const char *text; /* formatted back */
	} t[] = {
		{"10.0.0.0/8", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_OK, "10.0.0.0/8"},
		{"10.0.0.1", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_OK, "10.0.0.1/32"},
		{"fd00::1", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_OK, "fd00::1/128"},
		{"10.0.0.0/08", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_OK, "10.0.0.0/8"},
		{"0.0.0.0/0", WG_IPADDR_PREFIX_CIDR_REQUIRED, WG_IPADDR_PREFIX_OK, "0.0.0.0/0"},
		{"::/0", WG_IPADDR_PREFIX_CIDR_REQUIRED, WG_IPADDR_PREFIX_OK, "::/0"},
		{"1.2.3.4/32", WG_IPADDR_PREFIX_CIDR_REQUIRED, WG_IPADDR_PREFIX_OK, "1.2.3.4/32"},
		{"::1/128", WG_IPADDR_PREFIX_CIDR_REQUIRED, WG_IPADDR_PREFIX_OK, "::1/128"},
		{"10.0.0.0/08", WG_IPADDR_PREFIX_CIDR_REQUIRED, WG_IPADDR_PREFIX_BAD_CIDR, NULL},
		{"10.0.0.1", WG_IPADDR_PREFIX_CIDR_REQUIRED, WG_IPADDR_PREFIX_BAD_CIDR, NULL},
		{"10.0.0.0/33", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_CIDR, NULL},
		{"::/129", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_CIDR, NULL},
		{"10.0.0.0/", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_CIDR, NULL},
		{"10.0.0.0/+8", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_CIDR, NULL},
		{"10.0.0.0/8/9", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_CIDR, NULL},
		{"10.0.0/8", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_ADDR, NULL},
		{"/8", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_ADDR, NULL},
		{"", WG_IPADDR_PREFIX_CIDR_OPTIONAL, WG_IPADDR_PREFIX_BAD_ADDR, NULL},
		{"fe80::1%2/64", WG_IPADDR_PREFIX_CIDR_REQUIRED, WG_IPADDR_PREFIX_BAD_ADDR, NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wg_ipaddr_prefix p;
		char out[WG_IPADDR_PREFIX_STRLEN];

		cr_assert_eq(wg_ipaddr_prefix_parse(&p, t[i].s, strlen(t[i].s), t[i].syntax),
			     t[i].want, "`%s'", t[i].s);
		if (!t[i].text)
			continue;
		wg_ipaddr_prefix_format(out, &p);
		cr_assert_str_eq(out, t[i].text);
	}
}

Test(ipaddr, host_bits_and_mask)
{
	static const struct {
		const char *in;
		bool host_bits;
		const char *masked;
	} t[] = {
		{"10.1.2.3/8", true, "10.0.0.0/8"},
		{"10.0.0.0/8", false, "10.0.0.0/8"},
		{"10.1.2.3/32", false, "10.1.2.3/32"},
		{"10.1.2.3/0", true, "0.0.0.0/0"},
		{"10.1.2.255/31", true, "10.1.2.254/31"},
		{"10.1.2.3/23", true, "10.1.2.0/23"},
		{"fd00::1/64", true, "fd00::/64"},
		{"fd00:1:2:3:8000::/65", false, "fd00:1:2:3:8000::/65"},
		{"fd00:1:2:3:c000::/65", true, "fd00:1:2:3:8000::/65"},
		{"::1/127", true, "::/127"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wg_ipaddr_prefix p;
		char out[WG_IPADDR_PREFIX_STRLEN];

		cr_assert_eq(wg_ipaddr_prefix_parse(&p, t[i].in, strlen(t[i].in),
						    WG_IPADDR_PREFIX_CIDR_REQUIRED),
			     WG_IPADDR_PREFIX_OK);
		cr_assert_eq(wg_ipaddr_prefix_has_host_bits(&p), t[i].host_bits, "%s", t[i].in);
		wg_ipaddr_prefix_mask(&p);
		cr_assert_not(wg_ipaddr_prefix_has_host_bits(&p));
		wg_ipaddr_prefix_format(out, &p);
		cr_assert_str_eq(out, t[i].masked);
	}
}

Test(ipaddr, endpoint_split)
{
	static const struct {
		const char *s;
		enum wg_ipaddr_endpoint_split want;
		const char *host, *port;
	} t[] = {
		{"1.2.3.4:51820", WG_IPADDR_ENDPOINT_SPLIT_OK, "1.2.3.4", "51820"},
		{"[::1]:5", WG_IPADDR_ENDPOINT_SPLIT_OK, "::1", "5"},
		{"host.example:1", WG_IPADDR_ENDPOINT_SPLIT_OK, "host.example", "1"},
		{"fe80::1:51820", WG_IPADDR_ENDPOINT_SPLIT_OK, "fe80::1", "51820"},
		{":1", WG_IPADDR_ENDPOINT_SPLIT_OK, "", "1"},
		{"[]:1", WG_IPADDR_ENDPOINT_SPLIT_OK, "", "1"},
		{"[::1:5", WG_IPADDR_ENDPOINT_SPLIT_NO_BRACE, NULL, NULL},
		{"[::1]5", WG_IPADDR_ENDPOINT_SPLIT_NO_PORT, NULL, NULL},
		{"[::1]:", WG_IPADDR_ENDPOINT_SPLIT_NO_PORT, NULL, NULL},
		{"[::1]", WG_IPADDR_ENDPOINT_SPLIT_NO_PORT, NULL, NULL},
		{"1.2.3.4", WG_IPADDR_ENDPOINT_SPLIT_NO_PORT, NULL, NULL},
		{"1.2.3.4:", WG_IPADDR_ENDPOINT_SPLIT_NO_PORT, NULL, NULL},
		{"", WG_IPADDR_ENDPOINT_SPLIT_NO_PORT, NULL, NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *host = NULL, *port = NULL;
		size_t hl = 0, pl = 0;

		cr_assert_eq(
			wg_ipaddr_endpoint_split(t[i].s, strlen(t[i].s), &host, &hl, &port, &pl),
			t[i].want, "`%s'", t[i].s);
		if (t[i].want != WG_IPADDR_ENDPOINT_SPLIT_OK)
			continue;
		cr_assert_eq(hl, strlen(t[i].host));
		cr_assert_eq(memcmp(host, t[i].host, hl), 0);
		cr_assert_eq(pl, strlen(t[i].port));
		cr_assert_eq(memcmp(port, t[i].port, pl), 0);
	}
}

/* The UAPI form (Go's netip.ParseAddrPort), parsed and printed back. */
Test(ipaddr, endpoint_parse_strict)
{
	static const struct {
		const char *s;
		const char *back; /* NULL: must be refused */
	} t[] = {
		{"1.2.3.4:51820", "1.2.3.4:51820"},
		{"1.2.3.4:0", "1.2.3.4:0"},
		{"1.2.3.4:065535", "1.2.3.4:65535"},
		{"[2001:db8::1]:51820", "[2001:db8::1]:51820"},
		{"[2001:DB8:0::1]:1", "[2001:db8::1]:1"},
		{"[fe80::1%3]:7", "[fe80::1%3]:7"},
		{"[::ffff:1.2.3.4]:9", "[::ffff:1.2.3.4]:9"},
		{"1.2.3.4:65536", NULL},
		{"1.2.3.4:-1", NULL},
		{"1.2.3.4:http", NULL},
		{"[1.2.3.4]:5", NULL},	     /* brackets only for IPv6 */
		{"2001:db8::1:51820", NULL}, /* IPv6 needs brackets */
		{"[fe80::1%eth0]:7", NULL},  /* named zones need the edge */
		{"1.2.3.4%2:7", NULL},
		{"host.example:1", NULL},
		{"[::1]:", NULL},
		{":1", NULL},
		{"", NULL},
		{"1.2.3.4: 5", NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		union wg_ipaddr_sockaddr sa;
		char out[WG_IPADDR_ENDPOINT_STRLEN];
		int ret = wg_ipaddr_endpoint_parse(&sa, t[i].s, strlen(t[i].s));

		if (!t[i].back) {
			cr_assert_eq(ret, -EINVAL, "accepted `%s'", t[i].s);
			cr_assert_not(wg_ipaddr_endpoint_is_set(&sa));
			continue;
		}
		cr_assert_eq(ret, 0, "refused `%s'", t[i].s);
		cr_assert(wg_ipaddr_endpoint_is_set(&sa));
		wg_ipaddr_endpoint_format(out, &sa);
		cr_assert_str_eq(out, t[i].back);
	}
}

Test(ipaddr, endpoint_sockaddr_fields)
{
	union wg_ipaddr_sockaddr sa;

	cr_assert_eq(wg_ipaddr_endpoint_parse(&sa, "10.9.8.7:4660", 13), 0);
	cr_assert_eq(sa.addr4.sin_family, AF_INET);
	cr_assert_eq(sa.addr4.sin_port, htons(4660));
	cr_assert_eq(sa.addr4.sin_addr.s_addr, htonl(0x0a090807));
	cr_assert_eq(wg_ipaddr_endpoint_parse(&sa, "[fe80::2%9]:1", 13), 0);
	cr_assert_eq(sa.addr6.sin6_family, AF_INET6);
	cr_assert_eq(sa.addr6.sin6_scope_id, 9);
	cr_assert_eq(sa.addr6.sin6_port, htons(1));
	cr_assert_eq(sa.addr6.sin6_addr.s6_addr[0], 0xfe);
	cr_assert_eq(sa.addr6.sin6_addr.s6_addr[15], 2);
}

Test(devconf, peers_and_wiping_free)
{
	struct wg_devconf *conf = wg_devconf_new();
	uint8_t key[WG_ENCODING_KEY_LEN];

	cr_assert(conf);
	cr_assert_eq(conf->flags, 0);
	for (int i = 0; i < 100; i++) {
		struct wg_devconf_peer *p = wg_devconf_add_peer(conf);

		cr_assert(p);
		memset(p->public_key, i, sizeof(p->public_key));
		p->flags |= WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
		for (int j = 0; j < i % 7; j++) {
			struct wg_ipaddr_prefix pfx = {.addr.family = AF_INET, .cidr = 32};

			pfx.addr.bytes[3] = (uint8_t)j;
			cr_assert_eq(wg_devconf_peer_add_allowedip(p, &pfx, 0), 0);
		}
	}
	cr_assert_eq(conf->n_peers, 100);
	memset(key, 42, sizeof(key));
	cr_assert_eq(wg_devconf_find_peer(conf, key), conf->peers[42]);
	cr_assert_eq(conf->peers[13]->n_allowedips, 6);
	cr_assert_eq(conf->peers[13]->allowedips[5].prefix.addr.bytes[3], 5);
	memset(key, 200, sizeof(key));
	cr_assert_null(wg_devconf_find_peer(conf, key));
	/* A peer without HAS_PUBLIC_KEY is never found, even with a matching array. */
	conf->peers[42]->flags = 0;
	memset(key, 42, sizeof(key));
	cr_assert_null(wg_devconf_find_peer(conf, key));
	wg_devconf_peer_clear_allowedips(conf->peers[13]);
	cr_assert_eq(conf->peers[13]->n_allowedips, 0);
	wg_devconf_free(conf);
	wg_devconf_free(NULL);
}

Test(devconf, strings_and_lists)
{
	struct wg_devconf *conf = wg_devconf_new();

	cr_assert_eq(wg_devconf_set_string(&conf->cake, "bandwidth 10Mbit", 9), 0);
	cr_assert_str_eq(conf->cake, "bandwidth");
	cr_assert_eq(wg_devconf_set_string(&conf->cake, "", 0), 0);
	cr_assert_str_eq(conf->cake, "");
	for (int i = 0; i < 50; i++) {
		char s[16];

		snprintf(s, sizeof(s), "hook %d", i);
		cr_assert_eq(wg_devconf_strlist_add(&conf->post_up, s, strlen(s)), 0);
	}
	cr_assert_eq(conf->post_up.n, 50);
	cr_assert_str_eq(conf->post_up.v[49], "hook 49");
	wg_devconf_free(conf);
}

Test(devconf, buf_grows_and_wipes)
{
	struct wg_devconf_buf b = {0};
	size_t want = 0;

	for (int i = 0; i < 1000; i++) {
		wg_devconf_buf_printf(&b, "line %d\n", i);
		want += (size_t)snprintf(NULL, 0, "line %d\n", i);
	}
	wg_devconf_buf_append(&b, "end", 3);
	cr_assert_not(b.failed);
	cr_assert_eq(b.len, want + 3);
	cr_assert_eq(strlen(b.data), b.len);
	cr_assert_eq(strncmp(b.data, "line 0\nline 1\n", 14), 0);
	cr_assert_str_eq(b.data + b.len - 12, "line 999\nend");
	wg_devconf_buf_wipe(&b);
	cr_assert_null(b.data);
	cr_assert_eq(b.len, 0);
}

/* wg's fwmark words (wireguard-tools config.c parse_fwmark): accepted values and refusals. */
Test(devconf, parse_fwmark)
{
	static const struct {
		const char *in;
		bool ok;
		uint32_t want;
	} cases[] = {
		{"off", true, 0},
		{"OFF", true, 0},
		{"Off", true, 0},
		{"0", true, 0},
		{"51820", true, 51820},
		{"4294967295", true, 0xffffffff},
		{"0x0", true, 0},
		{"0x1234", true, 0x1234},
		{"0xffffffff", true, 0xffffffff},
		{"0xFFFFFFFF", true, 0xffffffff},
		{"4294967296", false, 0},
		{"0x100000000", false, 0},
		{"0x", false, 0},
		{"0X10", false, 0},
		{"", false, 0},
		{"-1", false, 0},
		{"+1", false, 0},
		{" 1", false, 0},
		{"1 ", false, 0},
		{"of", false, 0},
		{"offf", false, 0},
		{"12abc", false, 0},
	};

	for (size_t i = 0; i < WG_ARRAY_SIZE(cases); i++) {
		uint32_t mark = 77;
		bool ok = wg_devconf_parse_fwmark(&mark, cases[i].in, strlen(cases[i].in));

		cr_expect_eq(ok, cases[i].ok, "`%s'", cases[i].in);
		cr_expect_eq(mark, cases[i].ok ? cases[i].want : 77, "`%s'", cases[i].in);
	}
}

/* wg's persistent keepalive words: "off" or 0-65535 seconds, decimal only. */
Test(devconf, parse_keepalive)
{
	static const struct {
		const char *in;
		bool ok;
		uint16_t want;
	} cases[] = {
		{"off", true, 0},	{"oFf", true, 0},    {"0", true, 0},	 {"25", true, 25},
		{"65535", true, 65535}, {"65536", false, 0}, {"0x19", false, 0}, {"", false, 0},
		{"-1", false, 0},	{"25s", false, 0},   {"of", false, 0},
	};

	for (size_t i = 0; i < WG_ARRAY_SIZE(cases); i++) {
		uint16_t secs = 77;
		bool ok = wg_devconf_parse_keepalive(&secs, cases[i].in, strlen(cases[i].in));

		cr_expect_eq(ok, cases[i].ok, "`%s'", cases[i].in);
		cr_expect_eq(secs, cases[i].ok ? cases[i].want : 77, "`%s'", cases[i].in);
	}
}

/* cakewg's UnderlayLimit words: auto, off, or a tc size within the byte limit's range. */
Test(devconf, parse_underlay_limit)
{
	static const struct {
		const char *in;
		int ret;
		uint32_t want;
	} cases[] = {
		{"auto", 0, WG_DEVCONF_UNDERLAY_LIMIT_AUTO},
		{"AUTO", 0, WG_DEVCONF_UNDERLAY_LIMIT_AUTO},
		{"off", 0, WG_DEVCONF_UNDERLAY_LIMIT_OFF},
		{"Off", 0, WG_DEVCONF_UNDERLAY_LIMIT_OFF},
		{"30000", 0, 30000},
		{"30000b", 0, 30000},
		{"30000B", 0, 30000},
		{"32kb", 0, 32 * 1024},
		{"32k", 0, 32 * 1024},
		{"32KB", 0, 32 * 1024},
		{"256kbit", 0, 32 * 1024},
		{"0.25mb", 0, 256 * 1024},
		{"8192", 0, WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES},
		{"8kb", 0, WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES},
		{"393216", 0, WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES},
		{"384kb", 0, WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES},
		{"10000.9", 0, 10000},
		/* out of range: the byte limit keeps to [8 KiB, 384 KiB] */
		{"0", -ERANGE, 0},
		{"0kb", -ERANGE, 0},
		{"8191", -ERANGE, 0},
		{"393217", -ERANGE, 0},
		{"1mb", -ERANGE, 0},
		{"4294967295", -ERANGE, 0},
		{"4294967296", -ERANGE, 0},
		{"99999999999999999999999", -ERANGE, 0},
		{"1e400", -ERANGE, 0},
		/* not a word of the grammar */
		{"", -EINVAL, 0},
		{"-32kb", -EINVAL, 0},
		{"+32kb", -EINVAL, 0},
		{" 32kb", -EINVAL, 0},
		{"32kb ", -EINVAL, 0},
		{"32 kb", -EINVAL, 0},
		{"32kbx", -EINVAL, 0},
		{"32kib", -EINVAL, 0},
		{"kb", -EINVAL, 0},
		{"learn", -EINVAL, 0},
		{"autox", -EINVAL, 0},
		{"of", -EINVAL, 0},
		{"none", -EINVAL, 0},
		{"nan", -EINVAL, 0},
		{"inf", -EINVAL, 0},
		{"000000000000000000000000000000032768", -EINVAL, 0},
	};

	for (size_t i = 0; i < WG_ARRAY_SIZE(cases); i++) {
		uint32_t v = 77;
		int ret = wg_devconf_parse_underlay_limit(&v, cases[i].in, strlen(cases[i].in));

		cr_expect_eq(ret, cases[i].ret, "`%s': %d", cases[i].in, ret);
		cr_expect_eq(v, cases[i].ret ? 77 : cases[i].want, "`%s': %u", cases[i].in, v);
	}
}

/* The length bounds the word: a NUL or what follows len is not part of it. */
Test(devconf, parse_underlay_limit_uses_len)
{
	uint32_t v = 77;

	cr_expect_eq(wg_devconf_parse_underlay_limit(&v, "32kb\0junk", 9), -EINVAL);
	cr_expect_eq(wg_devconf_parse_underlay_limit(&v, "auto\0", 5), -EINVAL);
	cr_expect_eq(v, 77);
	cr_expect_eq(wg_devconf_parse_underlay_limit(&v, "32kbjunk", 4), 0);
	cr_expect_eq(v, 32768);
	cr_expect_eq(wg_devconf_parse_underlay_limit(&v, "offset", 3), 0);
	cr_expect_eq(v, WG_DEVCONF_UNDERLAY_LIMIT_OFF);
	cr_expect_eq(wg_devconf_parse_underlay_limit(&v, "autox", 4), 0);
	cr_expect_eq(v, WG_DEVCONF_UNDERLAY_LIMIT_AUTO);
}

/* The formatter writes what the parser reads back to the same setting. */
Test(devconf, underlay_limit_round_trip)
{
	static const uint32_t settings[] = {
		WG_DEVCONF_UNDERLAY_LIMIT_AUTO,
		WG_DEVCONF_UNDERLAY_LIMIT_OFF,
		WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES,
		WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES,
		30000,
	};
	static const char *const want[] = {"auto", "off", "8192", "393216", "30000"};
	char buf[WG_DEVCONF_UNDERLAY_LIMIT_STRLEN];

	for (size_t i = 0; i < WG_ARRAY_SIZE(settings); i++) {
		uint32_t v = 77;

		cr_assert_str_eq(wg_devconf_underlay_limit_format(buf, settings[i]), want[i]);
		cr_assert_eq(wg_devconf_parse_underlay_limit(&v, buf, strlen(buf)), 0, "%s", buf);
		cr_assert_eq(v, settings[i], "%s", buf);
	}
	/* The longest text fits. */
	cr_assert_str_eq(wg_devconf_underlay_limit_format(buf, UINT32_MAX - 1), "4294967294");
}
