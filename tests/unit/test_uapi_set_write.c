/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The UAPI `set=1` writer (src/core/uapi_set_write.c), checked against the parser it
 * must feed: every configuration written and parsed back with wg_uapi_set_parse() (and
 * through the request reader) is the configuration it started from.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/encoding.h"
#include "src/core/uapi.h"
#include "src/core/uapi_set_write.h"
#include "src/core/wgconf.h"
#include "tests/support/det_rng.h"

/* Keys of the example in https://www.wireguard.com/xplatform/ */
#define K1 "e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a"
#define K2 "b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33"
/* Example keys from wg(8). */
#define PRIV "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk="
#define PUB1 "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="
#define PUB2 "TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0="

/* Valid tc-cake option strings: the set parser checks them. */
static const char *const cake_strings[] = {
	"bandwidth 100Mbit",
	"unlimited besteffort",
	"bandwidth 20Mbit diffserv4 dual-dsthost nat ack-filter",
	"bandwidth 1Gbit rtt 10ms overhead 38 mpu 84 noatm",
};

static char *write_ok(const struct wg_devconf *conf, struct wg_devconf_buf *buf)
{
	int ret = wg_uapi_set_write(conf, buf);

	cr_assert_eq(ret, 0, "writer refused: %d", ret);
	cr_assert(buf->data);
	return buf->data;
}

/* The request body between "set=1\n" and the closing blank line, parsed. */
static struct wg_devconf *parse_back(const struct wg_devconf_buf *buf)
{
	static const char head[] = "set=1\n";
	struct wg_devconf *back = NULL;
	size_t hl = sizeof(head) - 1;
	int ret;

	cr_assert(buf->len >= hl + 1);
	cr_assert_eq(memcmp(buf->data, head, hl), 0, "no set=1 first:\n%s", buf->data);
	cr_assert_str_eq(buf->data + buf->len - 2, "\n\n", "no blank line last:\n%s", buf->data);
	/* wg_uapi_set_parse takes the lines without "set=1" and without the blank line. */
	ret = wg_uapi_set_parse(buf->data + hl, buf->len - hl - 1, &back);
	cr_assert_eq(ret, 0, "parser refused (%d):\n%s", ret, buf->data);
	cr_assert(back);
	return back;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void endpoint_eq(const union wg_ipaddr_sockaddr *a, const union wg_ipaddr_sockaddr *b)
{
	cr_assert_eq(a->addr.sa_family, b->addr.sa_family);
	if (a->addr.sa_family == AF_INET) {
		cr_assert_eq(a->addr4.sin_port, b->addr4.sin_port);
		cr_assert_eq(a->addr4.sin_addr.s_addr, b->addr4.sin_addr.s_addr);
		return;
	}
	cr_assert_eq(a->addr6.sin6_port, b->addr6.sin6_port);
	cr_assert_eq(memcmp(&a->addr6.sin6_addr, &b->addr6.sin6_addr, 16), 0);
	cr_assert_eq(a->addr6.sin6_scope_id, b->addr6.sin6_scope_id);
}

static void peer_eq(const struct wg_devconf_peer *a, const struct wg_devconf_peer *b)
{
	cr_assert_eq(memcmp(a->public_key, b->public_key, WG_ENCODING_KEY_LEN), 0);
	if (a->flags & WG_DEVCONF_PEER_REMOVE_ME) {
		/* Nothing else of a removal applies, so nothing else is written. */
		cr_assert_eq(b->flags, WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_REMOVE_ME);
		return;
	}
	cr_assert_eq(a->flags, b->flags, "peer flags %#x became %#x", a->flags, b->flags);
	if (a->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
		cr_assert_eq(memcmp(a->preshared_key, b->preshared_key, WG_ENCODING_KEY_LEN), 0);
	if (a->flags & WG_DEVCONF_PEER_HAS_ENDPOINT)
		endpoint_eq(&a->endpoint, &b->endpoint);
	if (a->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE)
		cr_assert_eq(a->persistent_keepalive_secs, b->persistent_keepalive_secs);
	cr_assert_eq(a->n_allowedips, b->n_allowedips);
	for (size_t i = 0; i < a->n_allowedips; i++) {
		const struct wg_devconf_allowedip *x = &a->allowedips[i], *y = &b->allowedips[i];

		cr_assert_eq(x->flags, y->flags);
		cr_assert_eq(x->prefix.cidr, y->prefix.cidr);
		cr_assert(wg_ipaddr_equal(&x->prefix.addr, &y->prefix.addr));
	}
}

/* Everything a `set=1` request can carry is the same in a and b. */
static void conf_eq(const struct wg_devconf *a, const struct wg_devconf *b)
{
	uint32_t set_flags = WG_DEVCONF_REPLACE_PEERS | WG_DEVCONF_HAS_PRIVATE_KEY |
			     WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK |
			     WG_DEVCONF_HAS_UNDERLAY_LIMIT;

	cr_assert_eq(a->flags & set_flags, b->flags, "flags %#x became %#x", a->flags, b->flags);
	if (a->flags & WG_DEVCONF_HAS_PRIVATE_KEY)
		cr_assert_eq(memcmp(a->private_key, b->private_key, WG_ENCODING_KEY_LEN), 0);
	if (a->flags & WG_DEVCONF_HAS_LISTEN_PORT)
		cr_assert_eq(a->listen_port, b->listen_port);
	if (a->flags & WG_DEVCONF_HAS_FWMARK)
		cr_assert_eq(a->fwmark, b->fwmark);
	cr_assert(same_str(a->cake, b->cake));
	cr_assert(same_str(a->cake_ingress, b->cake_ingress));
	if (a->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT)
		cr_assert_eq(a->underlay_limit, b->underlay_limit);
	cr_assert_eq(a->n_peers, b->n_peers);
	for (size_t i = 0; i < a->n_peers; i++)
		peer_eq(a->peers[i], b->peers[i]);
}

static void round_trip(const struct wg_devconf *conf)
{
	struct wg_devconf_buf buf = {0};
	struct wg_devconf *back;

	write_ok(conf, &buf);
	back = parse_back(&buf);
	conf_eq(conf, back);
	wg_devconf_free(back);
	wg_devconf_buf_wipe(&buf);
}

static struct wg_devconf *parse_file(const char *text)
{
	struct wg_devconf *conf = NULL;
	char err[WG_WGCONF_MSG_SIZE] = "";
	int ret = wg_wgconf_parse("wg0.conf", text, strlen(text), 0, &conf, err, sizeof(err));

	cr_assert_eq(ret, 0, "%s", err);
	return conf;
}

/* Set requests that follow from the protocol text alone. */
Test(uapi_set_write, minimal_requests)
{
	static const uint8_t zero[WG_ENCODING_KEY_LEN];
	struct wg_devconf_buf buf = {0};
	struct wg_devconf *c = wg_devconf_new();
	struct wg_devconf_peer *p;

	cr_assert(c);
	cr_assert_str_eq(write_ok(c, &buf), "set=1\n\n");
	wg_devconf_buf_wipe(&buf);

	c->flags = WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK;
	c->listen_port = 51820;
	c->fwmark = 0;
	cr_assert_str_eq(write_ok(c, &buf), "set=1\nlisten_port=51820\nfwmark=0\n\n");
	wg_devconf_buf_wipe(&buf);

	c->flags = WG_DEVCONF_HAS_PRIVATE_KEY | WG_DEVCONF_REPLACE_PEERS;
	cr_assert(wg_encoding_key_from_hex(c->private_key, K1, strlen(K1)));
	p = wg_devconf_add_peer(c);
	cr_assert(p);
	cr_assert(wg_encoding_key_from_hex(p->public_key, K2, strlen(K2)));
	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_REMOVE_ME |
		   WG_DEVCONF_PEER_HAS_PRESHARED_KEY;
	memcpy(p->preshared_key, zero, sizeof(zero));
	cr_assert_str_eq(write_ok(c, &buf), "set=1\nprivate_key=" K1 "\nreplace_peers=true\n"
					    "public_key=" K2 "\nremove=true\n\n");
	wg_devconf_buf_wipe(&buf);
	wg_devconf_free(c);
}

/*
 * The device's CAKE lines come right after set=1, before any line wireguard-go would
 * apply: it knows no cake key, so it then refuses the request having changed nothing.
 */
Test(uapi_set_write, cake_lines_come_first)
{
	static const char cake[] = "bandwidth 100Mbit", ingress[] = "besteffort";
	struct wg_devconf_buf buf = {0};
	struct wg_devconf *c = wg_devconf_new();
	struct wg_devconf_peer *p;

	cr_assert(c);
	c->flags = WG_DEVCONF_HAS_PRIVATE_KEY | WG_DEVCONF_HAS_LISTEN_PORT;
	c->listen_port = 51820;
	cr_assert(wg_encoding_key_from_hex(c->private_key, K1, strlen(K1)));
	cr_assert_eq(wg_devconf_set_string(&c->cake, cake, strlen(cake)), 0);
	p = wg_devconf_add_peer(c);
	cr_assert(p);
	cr_assert(wg_encoding_key_from_hex(p->public_key, K2, strlen(K2)));
	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	cr_assert_str_eq(write_ok(c, &buf), "set=1\ncake=bandwidth 100Mbit\nprivate_key=" K1
					    "\nlisten_port=51820\npublic_key=" K2 "\n\n");
	wg_devconf_buf_wipe(&buf);

	cr_assert_eq(wg_devconf_set_string(&c->cake_ingress, ingress, strlen(ingress)), 0);
	cr_assert_str_eq(write_ok(c, &buf),
			 "set=1\ncake=bandwidth 100Mbit\ncake_ingress=besteffort\nprivate_key=" K1
			 "\nlisten_port=51820\npublic_key=" K2 "\n\n");
	round_trip(c);
	wg_devconf_buf_wipe(&buf);

	/* The underlay limit is cakewg's too: after the CAKE lines, before wg's. */
	c->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
	c->underlay_limit = 32768;
	cr_assert_str_eq(write_ok(c, &buf),
			 "set=1\ncake=bandwidth 100Mbit\ncake_ingress=besteffort\n"
			 "underlay_limit=32768\nprivate_key=" K1
			 "\nlisten_port=51820\npublic_key=" K2 "\n\n");
	round_trip(c);
	wg_devconf_buf_wipe(&buf);
	free(c->cake);
	free(c->cake_ingress);
	c->cake = c->cake_ingress = NULL;
	c->underlay_limit = WG_DEVCONF_UNDERLAY_LIMIT_OFF;
	cr_assert_str_eq(write_ok(c, &buf), "set=1\nunderlay_limit=off\nprivate_key=" K1
					    "\nlisten_port=51820\npublic_key=" K2 "\n\n");
	round_trip(c);
	wg_devconf_buf_wipe(&buf);
	c->underlay_limit = WG_DEVCONF_UNDERLAY_LIMIT_AUTO;
	cr_assert(strstr(write_ok(c, &buf), "set=1\nunderlay_limit=auto\nprivate_key="));
	round_trip(c);
	wg_devconf_buf_wipe(&buf);
	wg_devconf_free(c);
}

/* A wg-quick file as `cakewg up` reads it, sent to the daemon and read back. */
Test(uapi_set_write, wg_quick_file_round_trip)
{
	struct wg_devconf *c = parse_file("[Interface]\n"
					  "PrivateKey = " PRIV "\n"
					  "ListenPort = 51820\n"
					  "FwMark = 0x1234\n"
					  "Address = 10.0.0.1/24\n"
					  "Cake = bandwidth 20Mbit diffserv4\n"
					  "CakeIngress = bandwidth 100Mbit ingress\n"
					  "UnderlayLimit = 64kb\n"
					  "[Peer]\n"
					  "PublicKey = " PUB1 "\n"
					  "PresharedKey = " PRIV "\n"
					  "Endpoint = [2001:db8::1]:51820\n"
					  "AllowedIPs = 0.0.0.0/0, ::/0\n"
					  "PersistentKeepalive = 25\n"
					  "[Peer]\n"
					  "PublicKey = " PUB2 "\n"
					  "Endpoint = 192.0.2.7:1\n"
					  "AllowedIPs = 10.0.0.2/32, 10.1.0.0/16\n"
					  "AllowedIPs = +fd00::/64, -10.1.0.0/16\n");
	struct wg_devconf_buf buf = {0};
	char hex[WG_ENCODING_KEY_HEX_SIZE];

	round_trip(c);
	/* Keys go as lowercase hex, never as the file's base64. */
	write_ok(c, &buf);
	wg_encoding_key_to_hex(hex, c->private_key);
	cr_assert(strstr(buf.data, hex));
	cr_assert_null(strstr(buf.data, PRIV));
	cr_assert(strstr(buf.data, "\nfwmark=4660\n"));
	cr_assert(strstr(buf.data, "\ncake=bandwidth 20Mbit diffserv4\n"));
	cr_assert(strstr(buf.data, "\nunderlay_limit=65536\n"));
	cr_assert(strstr(buf.data, "\nendpoint=[2001:db8::1]:51820\n"));
	cr_assert(strstr(buf.data, "\nallowed_ip=-10.1.0.0/16\n"));
	wg_devconf_buf_wipe(&buf);
	wg_devconf_free(c);
}

/* The whole request, framing included, through the daemon's request reader. */
Test(uapi_set_write, request_reader_accepts_it)
{
	struct wg_devconf *c = parse_file("[Interface]\nPrivateKey = " PRIV "\n"
					  "[Peer]\nPublicKey = " PUB1 "\nAllowedIPs = 10.0.0.0/8\n"
					  "Endpoint = 192.0.2.1:51820\n");
	struct wg_devconf_buf buf = {0};
	struct wg_uapi_reader r;
	struct wg_devconf *got;
	size_t used = 0;

	write_ok(c, &buf);
	wg_uapi_reader_init(&r, 0);
	cr_assert_eq(wg_uapi_reader_feed(&r, buf.data, buf.len, &used), WG_UAPI_SET, "%s",
		     wg_uapi_reader_message(&r));
	cr_assert_eq(used, buf.len);
	got = wg_uapi_reader_take(&r);
	cr_assert(got);
	conf_eq(c, got);
	wg_devconf_free(got);
	wg_uapi_reader_deinit(&r);
	wg_devconf_buf_wipe(&buf);
	wg_devconf_free(c);
}

/* What cannot be expressed is refused, not written wrongly. */
Test(uapi_set_write, refusals)
{
	struct wg_devconf *c = wg_devconf_new();
	struct wg_devconf_buf buf = {0};
	struct wg_devconf_peer *p;
	static const struct {
		const char *cake, *ingress;
	} bad_strings[] = {
		{"bandwidth 1Mbit\nprivate_key=" K1, NULL},
		{NULL, "ingress\r"},
		{"\n", NULL},
	};

	cr_assert(c);
	for (size_t i = 0; i < sizeof(bad_strings) / sizeof(bad_strings[0]); i++) {
		c->cake = (char *)bad_strings[i].cake;
		c->cake_ingress = (char *)bad_strings[i].ingress;
		cr_assert_eq(wg_uapi_set_write(c, &buf), -EINVAL, "case %zu", i);
		wg_devconf_buf_wipe(&buf);
	}
	c->cake = c->cake_ingress = NULL;
	/* A limit the parser would refuse: out of range. */
	c->flags = WG_DEVCONF_HAS_UNDERLAY_LIMIT;
	for (size_t i = 0; i < 3; i++) {
		static const uint32_t bad[] = {1, WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES - 1,
					       WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES + 1};

		c->underlay_limit = bad[i];
		cr_assert_eq(wg_uapi_set_write(c, &buf), -EINVAL, "limit %u", bad[i]);
		wg_devconf_buf_wipe(&buf);
	}
	c->flags = 0;

	p = wg_devconf_add_peer(c);
	cr_assert(p);
	p->flags = WG_DEVCONF_PEER_HAS_ENDPOINT; /* no public key */
	cr_assert_eq(wg_uapi_set_write(c, &buf), -EINVAL);
	wg_devconf_buf_wipe(&buf);

	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
	strcpy(p->endpoint_host, "vpn.example.com");
	p->endpoint_port = 51820;
	cr_assert_eq(wg_uapi_set_write(c, &buf), -EDESTADDRREQ);
	wg_devconf_buf_wipe(&buf);

	/* HAS_ENDPOINT without an address family is a broken devconf. */
	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT;
	cr_assert_eq(wg_uapi_set_write(c, &buf), -EINVAL);
	wg_devconf_buf_wipe(&buf);

	/* Once resolved, the name is no obstacle: the address is sent, and the name after it
	 * as cakewg's endpoint_host=, for the daemon to resolve again. */
	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT_HOST |
		   WG_DEVCONF_PEER_HAS_ENDPOINT;
	p->endpoint.addr4.sin_family = AF_INET;
	p->endpoint.addr4.sin_port = htons(51820);
	p->endpoint.addr4.sin_addr.s_addr = htonl(0xc0000201);
	cr_assert(strstr(write_ok(c, &buf),
			 "\nendpoint=192.0.2.1:51820\nendpoint_host=vpn.example.com:51820\n"));
	wg_devconf_buf_wipe(&buf);
	wg_devconf_free(c);
}

static uint32_t pick(struct det_rng *r, uint32_t n)
{
	return (uint32_t)(det_rng_next(r) % n);
}

static void random_endpoint(struct det_rng *r, union wg_ipaddr_sockaddr *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (pick(r, 2)) {
		ep->addr4.sin_family = AF_INET;
		ep->addr4.sin_port = htons((uint16_t)pick(r, 65536));
		det_rng_fill(r, &ep->addr4.sin_addr, 4);
		return;
	}
	ep->addr6.sin6_family = AF_INET6;
	ep->addr6.sin6_port = htons((uint16_t)pick(r, 65536));
	det_rng_fill(r, &ep->addr6.sin6_addr, 16);
	if (pick(r, 4) == 0) { /* a link-local address with an interface index */
		ep->addr6.sin6_addr.s6_addr[0] = 0xfe;
		ep->addr6.sin6_addr.s6_addr[1] = 0x80;
		ep->addr6.sin6_scope_id = 1 + pick(r, 1000);
	}
}

static void random_allowedips(struct det_rng *r, struct wg_devconf_peer *p)
{
	uint32_t n = pick(r, 6);

	for (uint32_t i = 0; i < n; i++) {
		struct wg_ipaddr_prefix pfx = {0};
		bool v4 = pick(r, 2);

		pfx.addr.family = v4 ? AF_INET : AF_INET6;
		det_rng_fill(r, pfx.addr.bytes, v4 ? 4 : 16);
		pfx.cidr = (uint8_t)pick(r, v4 ? 33 : 129);
		if (pick(r, 2))
			wg_ipaddr_prefix_mask(&pfx);
		cr_assert_eq(wg_devconf_peer_add_allowedip(
				     p, &pfx, pick(r, 4) ? 0 : WG_DEVCONF_AIP_REMOVE_ME),
			     0);
	}
}

static void random_peer(struct det_rng *r, struct wg_devconf_peer *p)
{
	static const uint32_t optional[] = {
		WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS,
		WG_DEVCONF_PEER_HAS_PRESHARED_KEY,
		WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE,
		WG_DEVCONF_PEER_HAS_ENDPOINT,
		WG_DEVCONF_PEER_UPDATE_ONLY,
		WG_DEVCONF_PEER_REMOVE_ME,
	};

	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (pick(r, 3) == 0)
			p->flags |= optional[i];
	det_rng_fill(r, p->public_key, sizeof(p->public_key));
	det_rng_fill(r, p->preshared_key, sizeof(p->preshared_key));
	if (pick(r, 5) == 0) /* all zero: "remove the preshared key" */
		memset(p->preshared_key, 0, sizeof(p->preshared_key));
	p->persistent_keepalive_secs = (uint16_t)pick(r, 65536);
	random_endpoint(r, &p->endpoint);
	random_allowedips(r, p);
}

static struct wg_devconf *random_conf(struct det_rng *r)
{
	static const uint32_t optional[] = {
		WG_DEVCONF_REPLACE_PEERS,
		WG_DEVCONF_HAS_PRIVATE_KEY,
		WG_DEVCONF_HAS_LISTEN_PORT,
		WG_DEVCONF_HAS_FWMARK,
	};
	struct wg_devconf *c = wg_devconf_new();
	uint32_t n_peers;

	cr_assert(c);
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (pick(r, 2))
			c->flags |= optional[i];
	det_rng_fill(r, c->private_key, sizeof(c->private_key));
	c->listen_port = (uint16_t)pick(r, 65536);
	c->fwmark = (uint32_t)det_rng_next(r);
	if (pick(r, 2)) {
		const char *s = cake_strings[pick(r, 4)];

		cr_assert_eq(wg_devconf_set_string(&c->cake, s, strlen(s)), 0);
	}
	if (pick(r, 3) == 0) {
		const char *s = cake_strings[pick(r, 4)];

		cr_assert_eq(wg_devconf_set_string(&c->cake_ingress, s, strlen(s)), 0);
	}
	if (pick(r, 2)) {
		static const uint32_t limits[] = {
			WG_DEVCONF_UNDERLAY_LIMIT_AUTO, WG_DEVCONF_UNDERLAY_LIMIT_OFF,
			WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES, WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES};

		c->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
		c->underlay_limit =
			pick(r, 3)
				? limits[pick(r, 4)]
				: WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES +
					  pick(r, WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES -
							  WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES + 1);
	}
	n_peers = pick(r, 5);
	for (uint32_t i = 0; i < n_peers; i++) {
		struct wg_devconf_peer *p = wg_devconf_add_peer(c);

		cr_assert(p);
		random_peer(r, p);
	}
	return c;
}

/* A seeded sweep over flag combinations, address families, prefixes and zones. */
Test(uapi_set_write, random_round_trips)
{
	struct det_rng r = {.state = 0x5e7c0de};

	for (int i = 0; i < 2000; i++) {
		struct wg_devconf *c = random_conf(&r);

		round_trip(c);
		wg_devconf_free(c);
	}
}
