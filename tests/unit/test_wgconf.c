/* SPDX-License-Identifier: GPL-2.0-only */
/* The wg-quick file parser and writer (src/core/wgconf.c, wgconf_write.c). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/encoding.h"
#include "src/core/wgconf.h"
#include "tests/support/det_rng.h"

/* Example keys from wg(8). */
#define PRIV "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk="
#define PUB1 "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="
#define PUB2 "TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0="
#define PUB3 "gN65BkIKy1eCE9pP1wdc8ROUtkHLF2PfAqYdyYBz6EA="

static struct wg_devconf *parse_ok(const char *text, unsigned int flags)
{
	struct wg_devconf *conf = NULL;
	char err[WG_WGCONF_MSG_SIZE] = "";
	int ret = wg_wgconf_parse("wg0.conf", text, strlen(text), flags, &conf, err, sizeof(err));

	cr_assert_eq(ret, 0, "parse failed: %s\n--\n%s", err, text);
	cr_assert(conf);
	return conf;
}

static void key_is(const uint8_t key[WG_ENCODING_KEY_LEN], const char *b64)
{
	char got[WG_ENCODING_KEY_B64_SIZE];

	wg_encoding_key_to_base64(got, key);
	cr_assert_str_eq(got, b64);
}

static void prefix_is(const struct wg_ipaddr_prefix *p, const char *text)
{
	char got[WG_IPADDR_PREFIX_STRLEN];

	wg_ipaddr_prefix_format(got, p);
	cr_assert_str_eq(got, text);
}

Test(wgconf, full_file)
{
	struct wg_devconf *c =
		parse_ok("# a wg-quick file\n"
			 "[Interface]\n"
			 "Address = 10.0.0.1/24, fd00::1/64\n"
			 "Address = 10.0.0.2\n"
			 "DNS = 1.1.1.1, 2606:4700::1111 example.com,corp.lan\n"
			 "MTU = 1420\n"
			 "Table = 1234\n"
			 "SaveConfig = true\n"
			 "PreUp = echo pre-up %i\n"
			 "PostUp = iptables -A FORWARD -i %i -j ACCEPT # passed on to bash\n"
			 "PostUp = echo a=b\n"
			 "PreDown = echo pre-down\n"
			 "PostDown = echo post-down\n"
			 "Cake = bandwidth 100Mbit  diffserv4 # a comment\n"
			 "CakeIngress = bandwidth 500Mbit ingress\n"
			 "ListenPort = 51820\n"
			 "FwMark = 0x10\n"
			 "PrivateKey = " PRIV "\n"
			 "\n"
			 "[Peer]\n"
			 "PublicKey = " PUB1 "\n"
			 "PresharedKey = " PRIV "\n"
			 "Endpoint = 192.95.5.67:1234\n"
			 "AllowedIPs = 10.192.122.3/32, 10.192.124.0/24\n"
			 "PersistentKeepalive = 25\n"
			 "[Peer]\n"
			 "PublicKey = " PUB2 "\n"
			 "Endpoint = [2607:5300:60:6b0::c05f:543]:2468\n"
			 "AllowedIPs = 10.192.122.4/32\n"
			 "AllowedIPs = 192.168.0.0/16\n"
			 "[Peer]\n"
			 "PublicKey = " PUB3 "\n"
			 "Endpoint = test.wireguard.com:18981\n"
			 "AllowedIPs = 10.10.10.230/32\n",
			 0);

	cr_assert_eq(c->flags, WG_DEVCONF_REPLACE_PEERS | WG_DEVCONF_HAS_PRIVATE_KEY |
				       WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK);
	key_is(c->private_key, PRIV);
	cr_assert_eq(c->listen_port, 51820);
	cr_assert_eq(c->fwmark, 0x10);
	cr_assert_eq(c->n_addresses, 3);
	prefix_is(&c->addresses[0], "10.0.0.1/24"); /* host bits kept for ip address add */
	prefix_is(&c->addresses[1], "fd00::1/64");
	prefix_is(&c->addresses[2], "10.0.0.2/32");
	cr_assert_eq(c->n_dns, 2);
	cr_assert_eq(c->dns[0].family, AF_INET);
	cr_assert_eq(c->dns[1].family, AF_INET6);
	cr_assert_eq(c->dns_search.n, 2);
	cr_assert_str_eq(c->dns_search.v[0], "example.com");
	cr_assert_str_eq(c->dns_search.v[1], "corp.lan");
	cr_assert_eq(c->mtu, 1420);
	cr_assert_eq(c->table_mode, WG_DEVCONF_TABLE_ID);
	cr_assert_eq(c->table_id, 1234);
	cr_assert(c->save_config);
	cr_assert_eq(c->pre_up.n, 1);
	cr_assert_str_eq(c->pre_up.v[0], "echo pre-up %i");
	cr_assert_eq(c->post_up.n, 2);
	cr_assert_str_eq(c->post_up.v[0],
			 "iptables -A FORWARD -i %i -j ACCEPT # passed on to bash");
	cr_assert_str_eq(c->post_up.v[1], "echo a=b");
	cr_assert_str_eq(c->pre_down.v[0], "echo pre-down");
	cr_assert_str_eq(c->post_down.v[0], "echo post-down");
	cr_assert_str_eq(c->cake, "bandwidth 100Mbit  diffserv4");
	cr_assert_str_eq(c->cake_ingress, "bandwidth 500Mbit ingress");

	cr_assert_eq(c->n_peers, 3);
	cr_assert_eq(c->peers[0]->flags,
		     WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_PRESHARED_KEY |
			     WG_DEVCONF_PEER_HAS_ENDPOINT | WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS |
			     WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE);
	key_is(c->peers[0]->public_key, PUB1);
	key_is(c->peers[0]->preshared_key, PRIV);
	cr_assert_eq(c->peers[0]->endpoint.addr4.sin_port, htons(1234));
	cr_assert_eq(c->peers[0]->endpoint.addr4.sin_addr.s_addr, inet_addr("192.95.5.67"));
	cr_assert_eq(c->peers[0]->persistent_keepalive_secs, 25);
	cr_assert_eq(c->peers[0]->n_allowedips, 2);
	prefix_is(&c->peers[0]->allowedips[1].prefix, "10.192.124.0/24");
	cr_assert_eq(c->peers[0]->source_line, 20);
	cr_assert_eq(c->peers[1]->endpoint.addr.sa_family, AF_INET6);
	cr_assert_eq(c->peers[1]->n_allowedips, 2);
	cr_assert(c->peers[2]->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
	cr_assert_not(c->peers[2]->flags & WG_DEVCONF_PEER_HAS_ENDPOINT);
	cr_assert_str_eq(c->peers[2]->endpoint_host, "test.wireguard.com");
	cr_assert_eq(c->peers[2]->endpoint_port, 18981);
	wg_devconf_free(c);
}

/* wg(8) removes every whitespace character; keys and headers ignore case. */
Test(wgconf, wg_whitespace_and_case)
{
	struct wg_devconf *c =
		parse_ok("  [ interface ]  \r\n"
			 "\tprivate KEY=yAnz5TF+lXXJte14tji3zl MNq+hd2rYUIgJBgB3fBmk= \r\n"
			 "LISTENPORT = 5 1 8 2 0\n"
			 "[PEER]\n"
			 "publickey= " PUB1 "\n"
			 "allowedips =10.0.0.0 / 8 ,\tfd00::/8\n"
			 "ENDPOINT = [ fe80::1 % 2 ] : 7\n",
			 0);

	key_is(c->private_key, PRIV);
	cr_assert_eq(c->listen_port, 51820);
	cr_assert_eq(c->peers[0]->n_allowedips, 2);
	prefix_is(&c->peers[0]->allowedips[0].prefix, "10.0.0.0/8");
	cr_assert_eq(c->peers[0]->endpoint.addr6.sin6_scope_id, 2);
	cr_assert_eq(c->peers[0]->endpoint.addr6.sin6_port, htons(7));
	wg_devconf_free(c);
}

Test(wgconf, value_forms)
{
	struct wg_devconf *c = parse_ok("[Interface]\n"
					"FwMark = off\n"
					"ListenPort = 0\n"
					"Table = Off\n"
					"MTU = 1280\n"
					"MTU =\n" /* back to automatic */
					"SaveConfig = FALSE\n"
					"Cake =\n"
					"PostUp =\n"
					"Address =\n"
					"DNS = ,\n"
					"[Peer]\n"
					"PublicKey = " PUB1 "\n"
					"PersistentKeepalive = off\n"
					"Endpoint = fe80::1:51820\n"
					"Endpoint = [fe80::1%eth0]:51820\n"
					"[Peer]\n"
					"PublicKey = " PUB2 "\n"
					"PersistentKeepalive = 0\n"
					"Endpoint = [1.2.3.4]:5\n"
					"[Interface]\n"
					"Table = main\n",
					0);

	cr_assert(c->flags & WG_DEVCONF_HAS_FWMARK);
	cr_assert_eq(c->fwmark, 0);
	cr_assert_eq(c->listen_port, 0);
	cr_assert_eq(c->table_mode, WG_DEVCONF_TABLE_ID);
	cr_assert_eq(c->table_id, WG_DEVCONF_TABLE_MAIN);
	cr_assert_eq(c->mtu, 0);
	cr_assert_not(c->save_config);
	cr_assert_str_eq(c->cake, "");
	cr_assert_null(c->cake_ingress);
	cr_assert_eq(c->post_up.n, 0);
	cr_assert_eq(c->n_addresses + c->n_dns + c->dns_search.n, 0);
	cr_assert(c->peers[0]->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE);
	cr_assert_eq(c->peers[0]->persistent_keepalive_secs, 0);
	/* The later Endpoint replaces the earlier literal one with a name. */
	cr_assert_eq(c->peers[0]->flags &
			     (WG_DEVCONF_PEER_HAS_ENDPOINT | WG_DEVCONF_PEER_HAS_ENDPOINT_HOST),
		     WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
	cr_assert_str_eq(c->peers[0]->endpoint_host, "fe80::1%eth0");
	cr_assert_eq(c->peers[1]->endpoint.addr.sa_family, AF_INET);
	wg_devconf_free(c);
}

Test(wgconf, fwmark_numbers)
{
	static const struct {
		const char *line;
		uint32_t fwmark;
	} t[] = {
		{"FwMark = 0", 0},
		{"FwMark = 1234", 1234},
		{"FwMark = 0x10", 16},
		{"FwMark = 4294967295", UINT32_MAX},
		{"FwMark = 0xffffffff", UINT32_MAX},
		{"FwMark = 010", 10}, /* strtoul base 10, as wireguard-tools */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char text[128];
		struct wg_devconf *c;

		snprintf(text, sizeof(text), "[Interface]\n%s\n", t[i].line);
		c = parse_ok(text, 0);
		cr_assert_eq(c->fwmark, t[i].fwmark, "%s", t[i].line);
		wg_devconf_free(c);
	}
}

Test(wgconf, incremental_allowedips)
{
	struct wg_devconf *c = parse_ok("[Peer]\n"
					"PublicKey = " PUB1 "\n"
					"AllowedIPs = +10.0.0.0/8, -10.1.0.0/16, 10.2.0.0/16\n"
					"[Peer]\n"
					"PublicKey = " PUB2 "\n"
					"AllowedIPs = -10.0.0.0/8\n"
					"AllowedIPs = 10.3.0.0/16\n" /* sets replace again */
					"[Peer]\n"
					"PublicKey = " PUB3 "\n",
					0);
	struct wg_devconf_peer *p = c->peers[0];

	cr_assert_not(p->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS);
	cr_assert_eq(p->n_allowedips, 3);
	cr_assert_eq(p->allowedips[0].flags, 0);
	cr_assert_eq(p->allowedips[1].flags, WG_DEVCONF_AIP_REMOVE_ME);
	cr_assert_eq(p->allowedips[2].flags, 0);
	cr_assert(c->peers[1]->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS);
	cr_assert_eq(c->peers[1]->n_allowedips, 2);
	cr_assert_eq(c->peers[1]->allowedips[0].flags, WG_DEVCONF_AIP_REMOVE_ME);
	/* A [Peer] without AllowedIPs still replaces (with nothing), as wg setconf. */
	cr_assert(c->peers[2]->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS);
	wg_devconf_free(c);
}

Test(wgconf, host_bits_warn_and_are_kept)
{
	struct wg_wgconf ctx;
	struct wg_devconf *c;
	static const char *const lines[] = {"[Peer]", ("PublicKey = " PUB1),
					    "AllowedIPs = 10.1.2.3/8, fd00::1/64"};

	cr_assert_eq(wg_wgconf_init(&ctx, "wg0.conf", 0), 0);
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(wg_wgconf_line(&ctx, lines[i], strlen(lines[i])), 0);
	cr_assert_eq(ctx.warnings, 2);
	cr_assert_str_eq(ctx.warning,
			 "wg0.conf:3: Warning: AllowedIP has nonzero host part: `10.1.2.3/8'");
	cr_assert_eq(wg_wgconf_finish(&ctx, &c), 0);
	prefix_is(&c->peers[0]->allowedips[0].prefix, "10.1.2.3/8");
	wg_wgconf_deinit(&ctx);
	wg_devconf_free(c);
}

Test(wgconf, append_and_wg_only_modes)
{
	struct wg_devconf *c = parse_ok("[Interface]\nListenPort = 1\n", WG_WGCONF_APPEND);
	char err[WG_WGCONF_MSG_SIZE];
	const char *quick = "[Interface]\nAddress = 10.0.0.1/24\n";

	cr_assert_eq(c->flags, WG_DEVCONF_HAS_LISTEN_PORT);
	wg_devconf_free(c);
	c = parse_ok("", WG_WGCONF_APPEND);
	cr_assert_eq(c->flags, 0);
	wg_devconf_free(c);
	cr_assert_eq(wg_wgconf_parse("wg0.conf", quick, strlen(quick), WG_WGCONF_WG_ONLY, &c, err,
				     sizeof(err)),
		     -EINVAL);
	cr_assert_null(c);
	cr_assert_str_eq(err, "wg0.conf:2: Unknown key in [Interface] section: `Address'");
}

/* cakewg's UnderlayLimit: a flagged setting in [Interface], unknown to wg(8). */
Test(wgconf, underlay_limit)
{
	static const char only_wg[] = "[Interface]\nUnderlayLimit = off\n";
	char err[WG_WGCONF_MSG_SIZE];
	struct wg_devconf *c = parse_ok("[Interface]\nListenPort = 1\n", 0);

	cr_assert_eq(c->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT, 0);
	wg_devconf_free(c);
	c = parse_ok("[Interface]\nunderlaylimit =  32kb  # a comment\n", 0);
	cr_assert(c->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT);
	cr_assert_eq(c->underlay_limit, 32768);
	wg_devconf_free(c);
	/* The last one counts, and auto is kept as said. */
	c = parse_ok("[Interface]\nUnderlayLimit = off\nUnderlayLimit = Auto\n", 0);
	cr_assert(c->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT);
	cr_assert_eq(c->underlay_limit, WG_DEVCONF_UNDERLAY_LIMIT_AUTO);
	wg_devconf_free(c);
	c = parse_ok("[Interface]\nUnderlayLimit = 20000\nUnderlayLimit = OFF\n", 0);
	cr_assert_eq(c->underlay_limit, WG_DEVCONF_UNDERLAY_LIMIT_OFF);
	wg_devconf_free(c);
	cr_assert_eq(wg_wgconf_parse("wg0.conf", only_wg, strlen(only_wg), WG_WGCONF_WG_ONLY, &c,
				     err, sizeof(err)),
		     -EINVAL);
	cr_assert_null(c);
	cr_assert_str_eq(err, "wg0.conf:2: Unknown key in [Interface] section: `UnderlayLimit'");
}

/* Each invalid file must fail with exactly this one line. */
static const struct {
	const char *text;
	const char *error;
} invalid[] = {
	{"[Interface]\nPrivateKey = abc\n",
	 "wg0.conf:2: Key is not the correct length or format: `<3 characters, not shown>'"},
	{"[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBml=\n",
	 "wg0.conf:2: Key is not the correct length or format: `<44 characters, not shown>'"},
	{"[Peer]\nPublicKey = " PUB1 "\nPresharedKey = AAAA\n",
	 "wg0.conf:3: Key is not the correct length or format: `<4 characters, not shown>'"},
	{"[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8D=\n",
	 "wg0.conf:2: Key is not the correct length or format: "
	 "`xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8D='"},
	{"[Interface]\nListenPort = 70000\n",
	 "wg0.conf:2: ListenPort is not a number in 0-65535: `70000'"},
	{"[Interface]\nListen Port = http\n",
	 "wg0.conf:2: ListenPort is not a number in 0-65535: `http'"},
	{"[Interface]\nListenPort = -1\n",
	 "wg0.conf:2: ListenPort is not a number in 0-65535: `-1'"},
	{"[Interface]\nFwMark = 0x1ffffffff\n",
	 "wg0.conf:2: Fwmark is neither 0/off nor 0-0xffffffff: `0x1ffffffff'"},
	{"[Interface]\nFwMark = 0x\n",
	 "wg0.conf:2: Fwmark is neither 0/off nor 0-0xffffffff: `0x'"},
	{"[Interface]\nFwMark = on\n",
	 "wg0.conf:2: Fwmark is neither 0/off nor 0-0xffffffff: `on'"},
	{"[Peer]\nPublicKey = " PUB1 "\nPersistentKeepalive = 65536\n",
	 "wg0.conf:3: Persistent keepalive interval is neither 0/off nor 1-65535: `65536'"},
	{"[Peer]\nPersistentKeepalive = on\n",
	 "wg0.conf:2: Persistent keepalive interval is neither 0/off nor 1-65535: `on'"},
	{"[Peer]\nEndpoint = [::1:51820\n",
	 "wg0.conf:2: Unable to find matching brace of endpoint: `[::1:51820'"},
	{"[Peer]\nEndpoint = 1.2.3.4\n", "wg0.conf:2: Unable to find port of endpoint: `1.2.3.4'"},
	{"[Peer]\nEndpoint = [::1]51820\n",
	 "wg0.conf:2: Unable to find port of endpoint: `[::1]51820'"},
	{"[Peer]\nEndpoint = 1.2.3.4:99999\n",
	 "wg0.conf:2: Endpoint port is not a number in 0-65535: `1.2.3.4:99999'"},
	{"[Peer]\nEndpoint = 1.2.3.4:http\n",
	 "wg0.conf:2: Endpoint port is not a number in 0-65535: `1.2.3.4:http'"},
	{"[Peer]\nEndpoint = bad!host:1\n",
	 "wg0.conf:2: Endpoint host is neither an IP address nor a host name: `bad!host:1'"},
	{"[Peer]\nEndpoint = 1.2.3.999:1\n",
	 "wg0.conf:2: Endpoint host is neither an IP address nor a host name: `1.2.3.999:1'"},
	{"[Peer]\nEndpoint = [fe80::1%]:1\n",
	 "wg0.conf:2: Endpoint host is neither an IP address nor a host name: `[fe80::1%]:1'"},
	{"[Peer]\nEndpoint = :1\n",
	 "wg0.conf:2: Endpoint host is neither an IP address nor a host name: `:1'"},
	{"[Peer]\nAllowedIPs = 10.0.0.0/33\n",
	 "wg0.conf:2: AllowedIP is not in the correct format: `10.0.0.0/33'"},
	{"[Peer]\nAllowedIPs = -::/129\n",
	 "wg0.conf:2: AllowedIP is not in the correct format: `::/129'"},
	{"[Peer]\nAllowedIPs = 10.0.0.0/\n",
	 "wg0.conf:2: AllowedIP is not in the correct format: `10.0.0.0/'"},
	{"[Peer]\nAllowedIPs = 10.0.0/8\n", "wg0.conf:2: Unable to parse IP address: `10.0.0'"},
	{"[Peer]\nAllowedIPs = 10.0.0.0/8,,1.2.3.4\n",
	 "wg0.conf:2: Unable to parse IP address: `'"},
	{"[Peer]\nAllowedIPs = 10.0.0.0/8,\n", "wg0.conf:2: Unable to parse IP address: `'"},
	{"[Peer]\nAllowedIPs = fe80::1%2/64\n",
	 "wg0.conf:2: Unable to parse IP address: `fe80::1%2'"},
	{"[Peer]\nAllowedIPs = 10.0.0.0/8\n", "wg0.conf:1: A peer is missing a public key"},
	{"[Peer]\nPublicKey = " PUB1 "\n[Peer]\n\n[Peer]\nPublicKey = " PUB2 "\n",
	 "wg0.conf:3: A peer is missing a public key"},
	{"[Peer]\nPublicKey = " PUB1 "\n[Peer]\nPublicKey = " PUB2 "\n#\n[Peer]\nPublicKey = " PUB1
	 "\n[Peer]\nPublicKey = " PUB2 "\n",
	 "wg0.conf:6: Peer already defined at line 1: `" PUB1 "'"},
	{"PrivateKey = " PRIV "\n",
	 "wg0.conf:1: Key outside of an [Interface] or [Peer] section: `PrivateKey'"},
	{"[Interface]\nFoo = bar\n", "wg0.conf:2: Unknown key in [Interface] section: `Foo'"},
	{"[Interface]\nPublicKey = " PUB1 "\n",
	 "wg0.conf:2: Unknown key in [Interface] section: `PublicKey'"},
	{"[Peer]\nAddress = 10.0.0.1/24\n", "wg0.conf:2: Unknown key in [Peer] section: `Address'"},
	{"[Peer]\nPrivateKey = " PRIV "\n",
	 "wg0.conf:2: Unknown key in [Peer] section: `PrivateKey'"},
	{"[Interface]\nPost Up = x\n", "wg0.conf:2: Unknown key in [Interface] section: `PostUp'"},
	{"[Interface]\nnonsense\n", "wg0.conf:2: Line unrecognized: `nonsense'"},
	{"[Interfaces]\n", "wg0.conf:1: Line unrecognized: `[Interfaces]'"},
	{"[Interface]\n# fine\n\n  \n[Peer] x\n", "wg0.conf:5: Line unrecognized: `[Peer]x'"},
	{"[Interface]\nListenPort =\n", "wg0.conf:2: Key has no value: `ListenPort'"},
	{"[Interface]\nListenPort = # nothing\n", "wg0.conf:2: Key has no value: `ListenPort'"},
	{"[Peer]\nAllowedIPs =\n", "wg0.conf:2: Key has no value: `AllowedIPs'"},
	{"[Interface]\nMTU = 67\n", "wg0.conf:2: MTU is neither empty nor 68-65535: `67'"},
	{"[Interface]\nMTU = 1420 bytes\n",
	 "wg0.conf:2: MTU is neither empty nor 68-65535: `1420 bytes'"},
	{"[Interface]\nMTU = 65536\n", "wg0.conf:2: MTU is neither empty nor 68-65535: `65536'"},
	{"[Interface]\nTable = 0\n",
	 "wg0.conf:2: Table is neither auto, off, main, local, default nor 1-4294967295: `0'"},
	{"[Interface]\nTable = wan\n",
	 "wg0.conf:2: Table is neither auto, off, main, local, default nor 1-4294967295: `wan'"},
	{"[Interface]\nSaveConfig = yes\n", "wg0.conf:2: `yes' is neither true nor false"},
	{"[Interface]\nSaveConfig =\n", "wg0.conf:2: `' is neither true nor false"},
	{"[Interface]\nKillSwitchAllowLAN = yes\n", "wg0.conf:2: `yes' is neither true nor false"},
	{"[Interface]\nAddress = 10.0.0.1/33\n",
	 "wg0.conf:2: Address is not in the correct format: `10.0.0.1/33'"},
	{"[Interface]\nAddress = 10.0.0.1/24 10.0.0.256\n",
	 "wg0.conf:2: Unable to parse IP address: `10.0.0.256'"},
	{"[Interface]\nDNS = 1.1.1\n", "wg0.conf:2: Unable to parse DNS server address: `1.1.1'"},
	{"[Interface]\nDNS = fe80::1%eth0\n",
	 "wg0.conf:2: Unable to parse DNS server address: `fe80::1%eth0'"},
	{"[Interface]\nDNS = exa$mple.com\n",
	 "wg0.conf:2: DNS search domain is not a valid name: `exa$mple.com'"},
	{"[Interface]\nUnderlayLimit = 1mb\n",
	 "wg0.conf:2: UnderlayLimit is neither auto, off nor 8192-393216 bytes: `1mb'"},
	{"[Interface]\nUnderlayLimit = 0\n",
	 "wg0.conf:2: UnderlayLimit is neither auto, off nor 8192-393216 bytes: `0'"},
	{"[Interface]\nUnderlayLimit = 32 kb\n",
	 "wg0.conf:2: UnderlayLimit is neither auto, off nor 8192-393216 bytes: `32 kb'"},
	{"[Interface]\nUnderlayLimit = learn # no such word\n",
	 "wg0.conf:2: UnderlayLimit is neither auto, off nor 8192-393216 bytes: `learn'"},
	{"[Interface]\nUnderlayLimit =\n",
	 "wg0.conf:2: UnderlayLimit is neither auto, off nor 8192-393216 bytes: `'"},
	{"[Peer]\nUnderlayLimit = auto\n",
	 "wg0.conf:2: Unknown key in [Peer] section: `UnderlayLimit'"},
	{"[Interface]\nFoo\x1b[31m = 1\n",
	 "wg0.conf:2: Unknown key in [Interface] section: `Foo?[31m'"},
};

Test(wgconf, invalid_files)
{
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		struct wg_devconf *c = (struct wg_devconf *)1;
		char err[WG_WGCONF_MSG_SIZE] = "";
		int ret = wg_wgconf_parse("wg0.conf", invalid[i].text, strlen(invalid[i].text), 0,
					  &c, err, sizeof(err));

		cr_assert_eq(ret, -EINVAL, "case %zu parsed:\n%s", i, invalid[i].text);
		cr_assert_null(c);
		cr_assert_str_eq(err, invalid[i].error, "case %zu", i);
	}
}

Test(wgconf, nul_byte_and_long_values)
{
	static const char nul[] = "[Interface]\nListenPort = 1\0 2\n";
	struct wg_devconf *c;
	char err[WG_WGCONF_MSG_SIZE], text[600], want[300];

	cr_assert_eq(wg_wgconf_parse("x", nul, sizeof(nul) - 1, 0, &c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "x:2: Line contains a NUL byte");

	/* A value longer than WG_WGCONF_QUOTE_MAX is cut in the message. */
	memset(want, 0, sizeof(want));
	strcpy(text, "[Interface]\nListenPort = ");
	memset(text + strlen(text), '7', 300);
	text[25 + 300] = '\0';
	snprintf(want, sizeof(want), "x:2: ListenPort is not a number in 0-65535: `%.*s...'",
		 WG_WGCONF_QUOTE_MAX, text + 25);
	cr_assert_eq(wg_wgconf_parse("x", text, strlen(text), 0, &c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, want);
}

/* The push API: errors stick, nothing is half-built, deinit is always safe. */
Test(wgconf, push_api_errors_stick)
{
	struct wg_wgconf ctx;
	struct wg_devconf *c = (struct wg_devconf *)1;

	cr_assert_eq(wg_wgconf_init(&ctx, "wg0.conf", 0), 0);
	cr_assert_eq(wg_wgconf_line(&ctx, "[Peer]", 6), 0);
	cr_assert_eq(wg_wgconf_line(&ctx, "PublicKey = " PUB1, 12 + 44), 0);
	cr_assert_eq(wg_wgconf_line(&ctx, "Bogus = 1", 9), -EINVAL);
	cr_assert_null(ctx.conf);
	cr_assert_eq(wg_wgconf_line(&ctx, "[Interface]", 11), -EINVAL);
	cr_assert_str_eq(ctx.error, "wg0.conf:3: Unknown key in [Peer] section: `Bogus'");
	cr_assert_eq(wg_wgconf_finish(&ctx, &c), -EINVAL);
	cr_assert_null(c);
	wg_wgconf_deinit(&ctx);
	wg_wgconf_deinit(&ctx);

	cr_assert_eq(wg_wgconf_init(&ctx, "wg0.conf", 0), 0);
	cr_assert_eq(wg_wgconf_finish(&ctx, &c), 0);
	cr_assert_eq(c->n_peers, 0);
	cr_assert_eq(wg_wgconf_line(&ctx, "[Peer]", 6), -EINVAL);
	cr_assert_eq(wg_wgconf_finish(&ctx, &(struct wg_devconf *){NULL}), -EINVAL);
	wg_wgconf_deinit(&ctx);
	wg_devconf_free(c);
}

static char *write_ok(const struct wg_devconf *c, unsigned int flags)
{
	struct wg_devconf_buf out = {0};
	char *text;

	cr_assert_eq(wg_wgconf_write(c, flags, &out), 0);
	text = strdup(out.data);
	wg_devconf_buf_wipe(&out);
	return text;
}

Test(wgconf, writer_output)
{
	struct wg_devconf *c = parse_ok("[Interface]\n"
					"PrivateKey = " PRIV "\n"
					"FwMark = 0x1f\n"
					"ListenPort = 51820\n"
					"PostDown = echo down # and a comment\n"
					"Table = 254\n"
					"DNS = corp.lan, 10.0.0.53\n"
					"MTU = 1400\n"
					"Address = 10.0.0.1/24\n"
					"Cake = bandwidth 20Mbit\n"
					"UnderlayLimit = 32kb\n"
					"[Peer]\n"
					"PublicKey = " PUB1 "\n"
					"PersistentKeepalive = 0\n"
					"Endpoint = vpn.example.com:51820\n"
					"AllowedIPs = 0.0.0.0/0, ::/0\n"
					"PresharedKey = " PRIV "\n"
					"[Peer]\n"
					"PublicKey = " PUB2 "\n"
					"AllowedIPs = +10.9.0.0/16, -10.8.0.0/16\n"
					"Endpoint = [fe80::1%3]:1\n",
					0);
	char *text = write_ok(c, 0);

	cr_assert_str_eq(text, "[Interface]\n"
			       "Address = 10.0.0.1/24\n"
			       "DNS = 10.0.0.53\n"
			       "DNS = corp.lan\n"
			       "MTU = 1400\n"
			       "Table = main\n"
			       "PostDown = echo down # and a comment\n"
			       "Cake = bandwidth 20Mbit\n"
			       "UnderlayLimit = 32768\n"
			       "ListenPort = 51820\n"
			       "FwMark = 0x1f\n"
			       "PrivateKey = " PRIV "\n"
			       "\n"
			       "[Peer]\n"
			       "PublicKey = " PUB1 "\n"
			       "PresharedKey = " PRIV "\n"
			       "AllowedIPs = 0.0.0.0/0, ::/0\n"
			       "Endpoint = vpn.example.com:51820\n"
			       "PersistentKeepalive = off\n"
			       "\n"
			       "[Peer]\n"
			       "PublicKey = " PUB2 "\n"
			       "AllowedIPs = +10.9.0.0/16, -10.8.0.0/16\n"
			       "Endpoint = [fe80::1%3]:1\n");
	free(text);
	/* showconf / wg-quick strip: only what wg(8) reads. */
	text = write_ok(c, WG_WGCONF_WG_ONLY);
	cr_assert_eq(strncmp(text, "[Interface]\nListenPort = 51820\n", 31), 0, "%s", text);
	cr_assert_null(strstr(text, "UnderlayLimit"), "%s", text);
	free(text);
	wg_devconf_free(c);
}

/* `cakewg showconf`: wg showconf's layout and address text, cakewg's keys after wg's. */
Test(wgconf, showconf_layout)
{
	static const char device[] = "[Interface]\n"
				     "PrivateKey = " PRIV "\n"
				     "ListenPort = 51820\n"
				     "FwMark = 0x1f\n"
				     "Address = 10.0.0.1/24\n"
				     "PostUp = echo up\n"
				     "Cake = bandwidth 20Mbit\n"
				     "CakeIngress = besteffort\n"
				     "UnderlayLimit = off\n";
	static const char shown[] = "[Interface]\n"
				    "ListenPort = 51820\n"
				    "FwMark = 0x1f\n"
				    "PrivateKey = " PRIV "\n"
				    "Cake = bandwidth 20Mbit\n"
				    "CakeIngress = besteffort\n"
				    "UnderlayLimit = off\n"
				    "\n";
	struct wg_devconf_buf in = {0};
	struct wg_devconf *c = parse_ok(device, 0);
	char *text = write_ok(c, WG_WGCONF_SHOWCONF);

	/* no peers: wg still ends [Interface] with a blank line */
	cr_assert_str_eq(text, shown);
	free(text);
	wg_devconf_free(c);

	wg_devconf_buf_printf(&in, "%s[Peer]\nPublicKey = " PUB1 "\nPersistentKeepalive = 0\n"
				   "AllowedIPs = ::1.2.3.4/128, 10.0.0.0/8\n"
				   "Endpoint = [::1.2.3.4]:7\n"
				   "[Peer]\nPublicKey = " PUB2 "\nPersistentKeepalive = 25\n",
			      device);
	c = parse_ok(in.data, 0);
	wg_wgconf_from_get(c);
	text = write_ok(c, WG_WGCONF_SHOWCONF);
	cr_assert_eq(strncmp(text, shown, strlen(shown)), 0, "%s", text);
	cr_assert_str_eq(text + strlen(shown), "[Peer]\n"
					       "PublicKey = " PUB1 "\n"
					       "AllowedIPs = ::1.2.3.4/128, 10.0.0.0/8\n"
					       "Endpoint = [::1.2.3.4]:7\n"
					       "\n"
					       "[Peer]\n"
					       "PublicKey = " PUB2 "\n"
					       "PersistentKeepalive = 25\n");
	free(text);
	/* a file (SaveConfig) keeps its order and RFC 5952's text */
	text = write_ok(c, 0);
	cr_assert(strstr(text, "PostUp = echo up\nCake = bandwidth 20Mbit\n"), "%s", text);
	cr_assert(strstr(text, "UnderlayLimit = off\nListenPort = 51820\n"), "%s", text);
	cr_assert(strstr(text, "\nAllowedIPs = ::102:304/128, 10.0.0.0/8\n"
			       "Endpoint = [::102:304]:7\n\n[Peer]\n"),
		  "%s", text);
	free(text);
	wg_devconf_buf_wipe(&in);
	wg_devconf_free(c);
}

Test(wgconf, writer_refuses_unwritable)
{
	struct wg_devconf *c = wg_devconf_new();
	struct wg_devconf_buf out = {0};

	cr_assert_eq(wg_devconf_strlist_add(&c->post_up, "a\nb", 3), 0);
	cr_assert_eq(wg_wgconf_write(c, 0, &out), -EINVAL);
	wg_devconf_buf_wipe(&out);
	wg_devconf_strlist_free(&c->post_up);
	cr_assert_eq(wg_devconf_set_string(&c->cake, "rtt 1ms # x", 11), 0);
	cr_assert_eq(wg_wgconf_write(c, 0, &out), -EINVAL);
	wg_devconf_buf_wipe(&out);
	free(c->cake);
	c->cake = NULL;
	c->flags = WG_DEVCONF_HAS_UNDERLAY_LIMIT;
	c->underlay_limit = WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES - 1; /* the parser's refusal */
	cr_assert_eq(wg_wgconf_write(c, 0, &out), -EINVAL);
	wg_devconf_buf_wipe(&out);
	/* Not written at all: no check either. */
	cr_assert_eq(wg_wgconf_write(c, WG_WGCONF_WG_ONLY, &out), 0);
	wg_devconf_buf_wipe(&out);
	c->flags = 0;
	cr_assert(wg_devconf_add_peer(c)); /* no public key */
	cr_assert_eq(wg_wgconf_write(c, 0, &out), -EINVAL);
	wg_devconf_buf_wipe(&out);
	/* Peers to be removed cannot be said in a file; they are left out. */
	c->peers[0]->flags = WG_DEVCONF_PEER_REMOVE_ME;
	cr_assert_eq(wg_wgconf_write(c, 0, &out), 0);
	cr_assert_str_eq(out.data, "[Interface]\n");
	wg_devconf_buf_wipe(&out);
	wg_devconf_free(c);
}

/* Everything the model holds except runtime state and where it was read from. */
static void assert_same(const struct wg_devconf *a, const struct wg_devconf *b)
{
	cr_assert_eq(a->flags, b->flags);
	cr_assert_eq(memcmp(a->private_key, b->private_key, sizeof(a->private_key)), 0);
	cr_assert_eq(a->listen_port, b->listen_port);
	cr_assert_eq(a->fwmark, b->fwmark);
	cr_assert_eq(a->n_addresses, b->n_addresses);
	for (size_t i = 0; i < a->n_addresses; i++) {
		cr_assert(wg_ipaddr_equal(&a->addresses[i].addr, &b->addresses[i].addr));
		cr_assert_eq(a->addresses[i].cidr, b->addresses[i].cidr);
	}
	cr_assert_eq(a->n_dns, b->n_dns);
	for (size_t i = 0; i < a->n_dns; i++)
		cr_assert(wg_ipaddr_equal(&a->dns[i], &b->dns[i]));
	cr_assert_eq(a->dns_search.n, b->dns_search.n);
	for (size_t i = 0; i < a->dns_search.n; i++)
		cr_assert_str_eq(a->dns_search.v[i], b->dns_search.v[i]);
	cr_assert_eq(a->mtu, b->mtu);
	cr_assert_eq(a->table_mode, b->table_mode);
	cr_assert_eq(a->table_id, b->table_id);
	cr_assert_eq(a->save_config, b->save_config);
	const struct wg_devconf_strlist *la[] = {&a->pre_up, &a->post_up, &a->pre_down,
						 &a->post_down};
	const struct wg_devconf_strlist *lb[] = {&b->pre_up, &b->post_up, &b->pre_down,
						 &b->post_down};
	for (size_t l = 0; l < 4; l++) {
		cr_assert_eq(la[l]->n, lb[l]->n);
		for (size_t i = 0; i < la[l]->n; i++)
			cr_assert_str_eq(la[l]->v[i], lb[l]->v[i]);
	}
	cr_assert_eq(!a->cake, !b->cake);
	if (a->cake)
		cr_assert_str_eq(a->cake, b->cake);
	cr_assert_eq(!a->cake_ingress, !b->cake_ingress);
	if (a->cake_ingress)
		cr_assert_str_eq(a->cake_ingress, b->cake_ingress);
	if (a->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT)
		cr_assert_eq(a->underlay_limit, b->underlay_limit);
	cr_assert_eq(a->n_peers, b->n_peers);
	for (size_t i = 0; i < a->n_peers; i++) {
		const struct wg_devconf_peer *p = a->peers[i], *q = b->peers[i];

		cr_assert_eq(p->flags, q->flags, "peer %zu", i);
		cr_assert_eq(memcmp(p->public_key, q->public_key, sizeof(p->public_key)), 0);
		if (p->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
			cr_assert_eq(memcmp(p->preshared_key, q->preshared_key, 32), 0);
		if (p->flags & WG_DEVCONF_PEER_HAS_ENDPOINT)
			cr_assert_eq(memcmp(&p->endpoint, &q->endpoint, sizeof(p->endpoint)), 0);
		if (p->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST) {
			cr_assert_str_eq(p->endpoint_host, q->endpoint_host);
			cr_assert_eq(p->endpoint_port, q->endpoint_port);
		}
		cr_assert_eq(p->persistent_keepalive_secs, q->persistent_keepalive_secs);
		cr_assert_eq(p->n_allowedips, q->n_allowedips);
		for (size_t j = 0; j < p->n_allowedips; j++) {
			cr_assert_eq(p->allowedips[j].flags, q->allowedips[j].flags);
			cr_assert(wg_ipaddr_equal(&p->allowedips[j].prefix.addr,
						  &q->allowedips[j].prefix.addr));
			cr_assert_eq(p->allowedips[j].prefix.cidr, q->allowedips[j].prefix.cidr);
		}
	}
}

static void round_trip(const char *text)
{
	struct wg_devconf *a = parse_ok(text, 0), *b;
	char *t1 = write_ok(a, 0), *t2;

	b = parse_ok(t1, 0);
	assert_same(a, b);
	t2 = write_ok(b, 0);
	cr_assert_str_eq(t1, t2);
	free(t1);
	free(t2);
	wg_devconf_free(a);
	wg_devconf_free(b);
}

Test(wgconf, round_trip_files)
{
	round_trip("");
	round_trip("[Interface]\nPrivateKey = " PRIV "\n");
	round_trip("[Interface]\nTable = auto\nTable = off\nSaveConfig = true\nCake =\n"
		   "PreUp = a # b = c\nPreUp = d\nPostDown = e\n"
		   "[Peer]\nPublicKey = " PUB1 "\nPersistentKeepalive = 0\n"
		   "AllowedIPs = -10.0.0.0/8, +::/0\n");
	round_trip("[Interface]\nTable = 253\nAddress = 10.1.2.3/8, ::1\nDNS = ::1, a.b\n"
		   "[Peer]\nPublicKey = " PUB2 "\nEndpoint = [fe80::1%eth0]:9\n"
		   "AllowedIPs = 10.1.2.3/8\n"
		   "[Peer]\nPublicKey = " PUB3 "\nEndpoint = [::ffff:1.2.3.4]:9\n");
	round_trip("[Interface]\nUnderlayLimit = off\n");
	round_trip("[Interface]\nUnderlayLimit = auto\n");
	round_trip("[Interface]\nUnderlayLimit = 0.25mb\nUnderlayLimit = 8kb\n");
}

/* Random models written and read back must come out the same. */
Test(wgconf, round_trip_random_models)
{
	struct det_rng r = {.state = 1918};
	static const char *const hosts[] = {"vpn.example.com", "a-b_c.d", "fe80::1%eth0", "x"};
	static const uint32_t limits[] = {
		WG_DEVCONF_UNDERLAY_LIMIT_AUTO, WG_DEVCONF_UNDERLAY_LIMIT_OFF,
		WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES, WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES, 100000};

	for (int round = 0; round < 200; round++) {
		struct wg_devconf *a = wg_devconf_new(), *b;
		uint64_t bits = det_rng_next(&r);
		char *text;

		a->flags = WG_DEVCONF_REPLACE_PEERS | WG_DEVCONF_HAS_PRIVATE_KEY |
			   WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK;
		det_rng_fill(&r, a->private_key, 32);
		a->listen_port = (uint16_t)det_rng_next(&r);
		a->fwmark = bits & 1 ? (uint32_t)det_rng_next(&r) : 0;
		a->mtu = bits & 2 ? 68 + (uint32_t)(det_rng_next(&r) % 65468) : 0;
		a->table_mode = (enum wg_devconf_table_mode)((bits >> 2) & 3);
		if (a->table_mode == WG_DEVCONF_TABLE_ID)
			a->table_id = 1 + (uint32_t)(det_rng_next(&r) % UINT32_MAX);
		a->save_config = bits & 16;
		for (int i = 0; i < (int)(bits >> 5 & 3); i++) {
			struct wg_ipaddr_prefix p = {.addr.family = i & 1 ? AF_INET6 : AF_INET};

			det_rng_fill(&r, p.addr.bytes, 16);
			if (p.addr.family == AF_INET)
				memset(p.addr.bytes + 4, 0, 12);
			p.cidr = (uint8_t)(det_rng_next(&r) % (wg_ipaddr_bits(p.addr.family) + 1));
			cr_assert_eq(wg_devconf_add_address(a, &p), 0);
			cr_assert_eq(wg_devconf_add_dns(a, &p.addr), 0);
		}
		if (bits & 128)
			cr_assert_eq(wg_devconf_strlist_add(&a->dns_search, "corp.example", 12), 0);
		if (bits & 256)
			cr_assert_eq(wg_devconf_strlist_add(&a->post_up, "ip rule # x=1", 13), 0);
		if (bits & 512)
			cr_assert_eq(wg_devconf_set_string(&a->cake_ingress, "besteffort", 10), 0);
		if (bits >> 13 & 1) {
			a->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
			a->underlay_limit = limits[(bits >> 14) % WG_ARRAY_SIZE(limits)];
		}
		for (int i = 0; i < (int)(bits >> 10 & 7); i++) {
			struct wg_devconf_peer *p = wg_devconf_add_peer(a);
			uint64_t pb = det_rng_next(&r);
			uint32_t aip_flags;

			p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | (uint32_t)(pb & 0x1a);
			det_rng_fill(&r, p->public_key, 32);
			det_rng_fill(&r, p->preshared_key, 32);
			if (p->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE)
				p->persistent_keepalive_secs = (uint16_t)(pb >> 8);
			if (pb & 0x100000) {
				struct wg_ipaddr_prefix ip = {.addr.family = AF_INET6};

				det_rng_fill(&r, ip.addr.bytes, 16);
				cr_assert(wg_ipaddr_endpoint_from_host(&p->endpoint, "::1", 3,
								       (uint16_t)(pb >> 24)));
				memcpy(&p->endpoint.addr6.sin6_addr, ip.addr.bytes, 16);
				p->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
			} else if (pb & 0x200000) {
				strcpy(p->endpoint_host, hosts[(pb >> 40) & 3]);
				p->endpoint_port = (uint16_t)(pb >> 24);
				p->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
			}
			for (int j = 0; j < (int)(pb >> 50 & 7); j++) {
				struct wg_ipaddr_prefix ip = {.addr.family =
								      j & 1 ? AF_INET : AF_INET6};

				det_rng_fill(&r, ip.addr.bytes, 16);
				if (ip.addr.family == AF_INET)
					memset(ip.addr.bytes + 4, 0, 12);
				ip.cidr = (uint8_t)(det_rng_next(&r) %
						    (wg_ipaddr_bits(ip.addr.family) + 1));
				/* A replacing list is written without its removals. */
				aip_flags = (p->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS) ||
							    !((pb >> (56 + j)) & 1)
						    ? 0
						    : WG_DEVCONF_AIP_REMOVE_ME;
				cr_assert_eq(wg_devconf_peer_add_allowedip(p, &ip, aip_flags), 0);
			}
			/* Only a line with a +/- entry can say "do not replace". */
			if (!(p->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS) && !p->n_allowedips)
				p->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
		}
		text = write_ok(a, 0);
		b = parse_ok(text, 0);
		/* The writer leaves out what setconf resets to zero anyway. */
		assert_same(a, b);
		free(text);
		wg_devconf_free(a);
		wg_devconf_free(b);
	}
}

/* A replacing list with removals is written as what it leaves. */
Test(wgconf, writer_folds_removals_of_replacing_lists)
{
	struct wg_devconf *c = wg_devconf_new();
	struct wg_devconf_peer *p = wg_devconf_add_peer(c);
	static const char *const list[] = {"10.0.0.0/8",   "-10.0.0.0/8", "10.1.0.0/16",
					   "-10.9.9.9/32", "fd00::1/8",	  "-fd00::/8"};
	char *text;

	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
	for (size_t i = 0; i < 6; i++) {
		const char *s = list[i] + (list[i][0] == '-');
		struct wg_ipaddr_prefix pfx;

		cr_assert_eq(
			wg_ipaddr_prefix_parse(&pfx, s, strlen(s), WG_IPADDR_PREFIX_CIDR_REQUIRED),
			WG_IPADDR_PREFIX_OK);
		cr_assert_eq(wg_devconf_peer_add_allowedip(
				     p, &pfx, list[i][0] == '-' ? WG_DEVCONF_AIP_REMOVE_ME : 0),
			     0);
	}
	text = write_ok(c, WG_WGCONF_WG_ONLY);
	cr_assert(strstr(text, "\nAllowedIPs = 10.1.0.0/16\n"), "%s", text);
	free(text);
	wg_devconf_free(c);
}
