/* SPDX-License-Identifier: GPL-2.0-only */
/* Client-side UAPI replies: `get=1`, cakewg's `cakewg_get=1`, and show's text helpers. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/uapi.h"
#include "src/core/uapi_reply.h"

#define K1   "e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a"
#define K2   "b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33"
#define K3   "188515093e952f5f22e865cef3012e72f8b5f0b598ac0309d5dacce3b70fcf52"
#define K4   "58402e695ba1772b1cc9309755f043251ea77fdcf10fbe63989ceb7e19321376"
#define ZERO "0000000000000000000000000000000000000000000000000000000000000000"

/* A reply with every key, in the order wireguard-go's IpcGetOperation writes them. */
static const char full_get[] = "private_key=" K1 "\n"
			       "listen_port=51820\n"
			       "fwmark=3405691582\n"
			       "public_key=" K2 "\n"
			       "preshared_key=" K3 "\n"
			       "protocol_version=1\n"
			       "endpoint=[2001:db8::1]:51821\n"
			       "last_handshake_time_sec=1700000000\n"
			       "last_handshake_time_nsec=123456789\n"
			       "tx_bytes=4782969\n"
			       "rx_bytes=1291401630\n"
			       "persistent_keepalive_interval=25\n"
			       "allowed_ip=10.0.0.0/8\n"
			       "allowed_ip=fd00::/64\n"
			       "public_key=" K4 "\n"
			       "preshared_key=" ZERO "\n"
			       "protocol_version=1\n"
			       "last_handshake_time_sec=0\n"
			       "last_handshake_time_nsec=0\n"
			       "tx_bytes=0\n"
			       "rx_bytes=0\n"
			       "persistent_keepalive_interval=0\n"
			       "errno=0\n"
			       "\n";

static void key_is(const uint8_t key[WG_ENCODING_KEY_LEN], const char *hex)
{
	uint8_t want[WG_ENCODING_KEY_LEN];

	cr_assert(wg_encoding_key_from_hex(want, hex, strlen(hex)));
	cr_assert_eq(memcmp(key, want, sizeof(want)), 0);
}

static void aip_is(const struct wg_devconf_allowedip *a, const char *text)
{
	char got[WG_IPADDR_PREFIX_STRLEN];

	wg_ipaddr_prefix_format(got, &a->prefix);
	cr_assert_str_eq(got, text);
	cr_assert_eq(a->flags, 0);
}

static struct wg_devconf *get_ok(const char *text)
{
	struct wg_devconf *c = (struct wg_devconf *)1;
	int ret = wg_uapi_reply_get_parse(text, strlen(text), &c);

	cr_assert_eq(ret, 0, "refused (%d):\n%s", ret, text);
	cr_assert(c);
	return c;
}

Test(uapi_reply, get_every_key)
{
	struct wg_devconf *c = get_ok(full_get);
	struct wg_devconf_peer *p;
	char ep[WG_IPADDR_ENDPOINT_STRLEN];

	cr_assert_eq(c->flags, WG_DEVCONF_HAS_PRIVATE_KEY | WG_DEVCONF_HAS_LISTEN_PORT |
				       WG_DEVCONF_HAS_FWMARK);
	key_is(c->private_key, K1);
	cr_assert_eq(c->listen_port, 51820);
	cr_assert_eq(c->fwmark, 0xcafebabeU);
	cr_assert_eq(c->n_peers, 2);

	p = c->peers[0];
	key_is(p->public_key, K2);
	key_is(p->preshared_key, K3);
	cr_assert_eq(p->flags, WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_PRESHARED_KEY |
				       WG_DEVCONF_PEER_HAS_ENDPOINT |
				       WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE);
	wg_ipaddr_endpoint_format(ep, &p->endpoint);
	cr_assert_str_eq(ep, "[2001:db8::1]:51821");
	cr_assert_eq(p->last_handshake_sec, 1700000000);
	cr_assert_eq(p->last_handshake_nsec, 123456789);
	cr_assert_eq(p->tx_bytes, 4782969);
	cr_assert_eq(p->rx_bytes, 1291401630);
	cr_assert_eq(p->persistent_keepalive_secs, 25);
	cr_assert_eq(p->protocol_version, 1);
	cr_assert_eq(p->n_allowedips, 2);
	aip_is(&p->allowedips[0], "10.0.0.0/8");
	aip_is(&p->allowedips[1], "fd00::/64");

	/* An all-zero preshared key means none, as wg reads it. */
	p = c->peers[1];
	key_is(p->public_key, K4);
	cr_assert_eq(p->flags,
		     WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE);
	cr_assert_eq(p->n_allowedips, 0);
	cr_assert_eq(p->persistent_keepalive_secs, 0);
	wg_devconf_free(c);
}

/* Whatever the server's writer says, this parser reads back to the same configuration. */
Test(uapi_reply, get_round_trips_the_server_writer)
{
	struct wg_devconf *a = get_ok(full_get), *b;
	struct wg_devconf_buf w1 = {0}, w2 = {0};

	cr_assert_eq(wg_uapi_get_write(a, &w1), 0);
	b = get_ok(w1.data);
	cr_assert_eq(wg_uapi_get_write(b, &w2), 0);
	cr_assert_str_eq(w1.data, w2.data);
	cr_assert_eq(b->n_peers, 2);
	cr_assert_eq(b->peers[0]->rx_bytes, 1291401630);
	wg_devconf_buf_wipe(&w1);
	wg_devconf_buf_wipe(&w2);
	wg_devconf_free(a);
	wg_devconf_free(b);
}

Test(uapi_reply, get_empty_device)
{
	struct wg_devconf *c = get_ok("errno=0\n\n");

	cr_assert_eq(c->flags, 0);
	cr_assert_eq(c->n_peers, 0);
	wg_devconf_free(c);
}

/* Nothing after the blank line is read: a pipelined next reply is not ours. */
Test(uapi_reply, get_stops_at_the_blank_line)
{
	struct wg_devconf *c = get_ok("listen_port=1\nerrno=0\n\nlisten_port=2\ngarbage");

	cr_assert_eq(c->listen_port, 1);
	wg_devconf_free(c);
}

Test(uapi_reply, get_skips_unknown_and_misplaced_keys)
{
	struct wg_devconf *c = get_ok("future_device_key=whatever\n"
				      "rx_bytes=5\n" /* a peer key before any peer */
				      "listen_port=7\n"
				      "public_key=" K2 "\n"
				      "listen_port=9\n" /* a device key inside a peer */
				      "future_peer_key=x=y\n"
				      "protocol_version=not-a-number\n"
				      "errno=0\n\n");

	cr_assert_eq(c->listen_port, 7);
	cr_assert_eq(c->n_peers, 1);
	cr_assert_eq(c->peers[0]->rx_bytes, 0);
	cr_assert_eq(c->peers[0]->protocol_version, 0);
	wg_devconf_free(c);
}

/* Only the preshared key's zero means none: a zero private or public key is still said. */
Test(uapi_reply, get_zero_keys)
{
	struct wg_devconf *c = get_ok("private_key=" ZERO "\npublic_key=" ZERO "\n"
				      "preshared_key=" K3 "\npreshared_key=" ZERO "\nerrno=0\n\n");

	cr_assert_eq(c->flags, WG_DEVCONF_HAS_PRIVATE_KEY);
	cr_assert_eq(c->n_peers, 1);
	cr_assert_eq(c->peers[0]->flags, WG_DEVCONF_PEER_HAS_PUBLIC_KEY);
	key_is(c->peers[0]->preshared_key, ZERO);
	wg_devconf_free(c);
}

Test(uapi_reply, get_endpoint_forms)
{
	static const struct {
		const char *value;
		uint32_t flag;
		const char *text; /* formatted address, or the kept host */
		uint16_t port;
	} cases[] = {
		{"192.0.2.1:51820", WG_DEVCONF_PEER_HAS_ENDPOINT, "192.0.2.1:51820", 51820},
		{"[::ffff:192.0.2.1]:1", WG_DEVCONF_PEER_HAS_ENDPOINT, "[::ffff:192.0.2.1]:1", 1},
		{"[fe80::1%2]:9", WG_DEVCONF_PEER_HAS_ENDPOINT, "[fe80::1%2]:9", 9},
		{"[fe80::1%eth0]:9", WG_DEVCONF_PEER_HAS_ENDPOINT_HOST, "fe80::1%eth0", 9},
		{"vpn.example.org:443", WG_DEVCONF_PEER_HAS_ENDPOINT_HOST, "vpn.example.org", 443},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512], ep[WG_IPADDR_ENDPOINT_STRLEN];
		struct wg_devconf *c;
		struct wg_devconf_peer *p;

		snprintf(text, sizeof(text), "public_key=" K2 "\nendpoint=%s\nerrno=0\n\n",
			 cases[i].value);
		c = get_ok(text);
		p = c->peers[0];
		cr_assert_eq(p->flags & (WG_DEVCONF_PEER_HAS_ENDPOINT |
					 WG_DEVCONF_PEER_HAS_ENDPOINT_HOST),
			     cases[i].flag, "%s", cases[i].value);
		if (cases[i].flag == WG_DEVCONF_PEER_HAS_ENDPOINT) {
			wg_ipaddr_endpoint_format(ep, &p->endpoint);
			cr_assert_str_eq(ep, cases[i].text);
		} else {
			cr_assert_str_eq(p->endpoint_host, cases[i].text);
			cr_assert_eq(p->endpoint_port, cases[i].port);
		}
		wg_devconf_free(c);
	}
}

Test(uapi_reply, get_daemon_errno_either_sign)
{
	static const struct {
		const char *text;
		int want;
	} cases[] = {
		{"errno=-22\n\n", -EINVAL},
		{"errno=22\n\n", -EINVAL},
		{"errno=-71\n\n", -EPROTO},
		{"listen_port=5\nerrno=5\n\n", -EIO},
		/* the last errno line counts */
		{"errno=5\nerrno=0\n\n", 0},
		{"errno=0\nerrno=-98\n\n", -EADDRINUSE},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wg_devconf *c = (struct wg_devconf *)1;
		int ret = wg_uapi_reply_get_parse(cases[i].text, strlen(cases[i].text), &c);

		cr_assert_eq(ret, cases[i].want, "%zu: %d", i, ret);
		cr_assert_eq(c == NULL, ret != 0);
		wg_devconf_free(c);
	}
}

Test(uapi_reply, get_refuses_malformed_replies)
{
	static const char *const bad[] = {
		"",
		"\n",			    /* blank line without errno */
		"errno=0\n",		    /* no blank line */
		"errno=0",		    /* last line cut */
		"listen_port\nerrno=0\n\n", /* no '=' */
		"errno=\n\n",
		"errno=x\n\n",
		"errno=--1\n\n",
		"errno=+1\n\n",
		"errno=2147483648\n\n",
		"errno= 0\n\n",
		"private_key=" K1 "0\nerrno=0\n\n",
		"private_key=zz" K1 "\nerrno=0\n\n",
		"listen_port=65536\nerrno=0\n\n",
		"listen_port=-1\nerrno=0\n\n",
		"listen_port=\nerrno=0\n\n",
		"fwmark=0x10\nerrno=0\n\n",
		"fwmark=4294967296\nerrno=0\n\n",
		"public_key=abc\nerrno=0\n\n",
		"public_key=" K2 "\npreshared_key=xyz\nerrno=0\n\n",
		"public_key=" K2 "\nendpoint=\nerrno=0\n\n",
		"public_key=" K2 "\nendpoint=192.0.2.1\nerrno=0\n\n",
		"public_key=" K2 "\nendpoint=[::1:51820\nerrno=0\n\n",
		"public_key=" K2 "\nendpoint=192.0.2.1:65536\nerrno=0\n\n",
		"public_key=" K2 "\nendpoint=bad host:1\nerrno=0\n\n",
		"public_key=" K2 "\nallowed_ip=10.0.0.1\nerrno=0\n\n",
		"public_key=" K2 "\nallowed_ip=10.0.0.0/33\nerrno=0\n\n",
		"public_key=" K2 "\nallowed_ip=fd00::/129\nerrno=0\n\n",
		"public_key=" K2 "\nallowed_ip=10.0.0.0/\nerrno=0\n\n",
		"public_key=" K2 "\nallowed_ip=-10.0.0.0/8\nerrno=0\n\n",
		"public_key=" K2 "\npersistent_keepalive_interval=65536\nerrno=0\n\n",
		"public_key=" K2 "\nlast_handshake_time_sec=9223372036854775808\nerrno=0\n\n",
		"public_key=" K2 "\nlast_handshake_time_nsec=-1\nerrno=0\n\n",
		"public_key=" K2 "\nrx_bytes=18446744073709551616\nerrno=0\n\n",
		"public_key=" K2 "\ntx_bytes=1e3\nerrno=0\n\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wg_devconf *c = (struct wg_devconf *)1;
		int ret = wg_uapi_reply_get_parse(bad[i], strlen(bad[i]), &c);

		cr_assert_eq(ret, -EPROTO, "accepted (%d): %s", ret, bad[i]);
		cr_assert_null(c);
	}
}

Test(uapi_reply, get_refuses_a_nul_in_a_line)
{
	static const char text[] = "listen_port=1\0"
				   "2\nerrno=0\n\n";
	struct wg_devconf *c;

	cr_assert_eq(wg_uapi_reply_get_parse(text, sizeof(text) - 1, &c), -EPROTO);
	cr_assert_null(c);
}

/* Every cut of a complete reply short of its blank line is a protocol error. */
Test(uapi_reply, get_truncated_anywhere)
{
	size_t len = strlen(full_get);

	for (size_t n = 0; n < len; n++) {
		struct wg_devconf *c;

		cr_assert_eq(wg_uapi_reply_get_parse(full_get, n, &c), -EPROTO, "cut at %zu", n);
		cr_assert_null(c);
	}
}

/* ---- cakewg_get=1 ---- */

static const char full_cake[] =
	"cake_egress=bandwidth 10Mbit diffserv3 triple-isolate nonat nowash no-ack-filter "
	"split-gso rtt 100ms raw overhead 0\n"
	"cake_egress_stats= Sent 1000 bytes 10 pkt (dropped 1, overlimits 2 requeues 0) \n"
	"cake_egress_stats= backlog 0b 0p requeues 0\n"
	"cake_egress_stats=\n"
	"cake_egress_stats=                   Bulk  Best Effort        Voice\n"
	"cake_egress_json={\"kind\":\"cake\",\"options\":{\"bandwidth\":1250000},"
	"\"tins\":[{\"drops\":1}]}\n"
	"cake_ingress=unlimited besteffort\n"
	"cake_ingress_stats= Sent 0 bytes 0 pkt\t(x)\n"
	"cake_ingress_json={}\n"
	"backpressure_stalls=42\n"
	"underlay_starved=7\n"
	"underlay_overflows=0\n"
	"underlay_limit=16384\n"
	"underlay_drain_rate=9800000\n"
	"underlay_limit_setting=auto\n"
	"underlay_sent=274764\n"
	"underlay_trains=61567\n"
	"tun_writes=171229\n"
	"ingress_gulps=18446744073709551615\n"
	"shaper_late=3\n"
	"shaper_late_ns=41250000\n"
	"public_key=" K2 "\n"
	"egress_drops=3\n"
	"staged_drops=4\n"
	"roams=5\n"
	"public_key=" K4 "\n"
	"roams=0\n"
	"errno=0\n"
	"\n";

static void cake_ok(const char *text, struct wg_uapi_reply_cake *cake)
{
	int ret = wg_uapi_reply_cake_parse(text, strlen(text), cake);

	cr_assert_eq(ret, 0, "refused (%d):\n%s", ret, text);
}

Test(uapi_reply, cake_every_key)
{
	struct wg_uapi_reply_cake r;
	const struct wg_uapi_reply_cake_peer *p;
	uint8_t k2[WG_ENCODING_KEY_LEN], k4[WG_ENCODING_KEY_LEN], k3[WG_ENCODING_KEY_LEN];

	cake_ok(full_cake, &r);
	cr_assert_str_eq(r.egress.options, "bandwidth 10Mbit diffserv3 triple-isolate nonat nowash "
					   "no-ack-filter split-gso rtt 100ms raw overhead 0");
	cr_assert_eq(r.egress.stats.n, 4);
	cr_assert_str_eq(r.egress.stats.v[0],
			 " Sent 1000 bytes 10 pkt (dropped 1, overlimits 2 requeues 0) ");
	cr_assert_str_eq(r.egress.stats.v[1], " backlog 0b 0p requeues 0");
	cr_assert_str_eq(r.egress.stats.v[2], "");
	cr_assert_str_eq(r.egress.stats.v[3], "                   Bulk  Best Effort        Voice");
	cr_assert_str_eq(r.egress.json, "{\"kind\":\"cake\",\"options\":{\"bandwidth\":1250000},"
					"\"tins\":[{\"drops\":1}]}");
	cr_assert_str_eq(r.ingress.options, "unlimited besteffort");
	cr_assert_eq(r.ingress.stats.n, 1);
	cr_assert_str_eq(r.ingress.stats.v[0], " Sent 0 bytes 0 pkt\t(x)");
	cr_assert_str_eq(r.ingress.json, "{}");
	cr_assert(wg_device_counters_has(&r.counters, WG_COUNTER_BACKPRESSURE_STALLS));
	cr_assert_eq(r.counters.v[WG_COUNTER_BACKPRESSURE_STALLS], 42);
	cr_assert(r.has_underlay_limit && r.has_underlay_drain_rate &&
		  r.has_underlay_limit_setting);
	cr_assert_eq(r.underlay_limit, 16384);
	cr_assert_eq(r.underlay_drain_rate, 9800000);
	cr_assert_eq(r.underlay_limit_setting, WG_DEVCONF_UNDERLAY_LIMIT_AUTO);
	cr_assert_eq(
		r.counters.has,
		(UINT64_C(1) << WG_COUNTER_UNDERLAY_SENT) | (UINT64_C(1) << WG_COUNTER_UNDERLAY_TRAINS) |
			(UINT64_C(1) << WG_COUNTER_TUN_WRITES) | (UINT64_C(1) << WG_COUNTER_INGRESS_GULPS) |
			(UINT64_C(1) << WG_COUNTER_SHAPER_LATE) | (UINT64_C(1) << WG_COUNTER_SHAPER_LATE_NS) |
			(UINT64_C(1) << WG_COUNTER_BACKPRESSURE_STALLS) |
			(UINT64_C(1) << WG_COUNTER_UNDERLAY_STARVED) |
			(UINT64_C(1) << WG_COUNTER_UNDERLAY_OVERFLOWS),
		"only the counters sent");
	cr_assert_eq(r.counters.v[WG_COUNTER_UNDERLAY_STARVED], 7);
	cr_assert_eq(r.counters.v[WG_COUNTER_UNDERLAY_OVERFLOWS], 0);
	cr_assert_eq(r.counters.v[WG_COUNTER_UNDERLAY_SENT], 274764);
	cr_assert_eq(r.counters.v[WG_COUNTER_UNDERLAY_TRAINS], 61567);
	cr_assert_eq(r.counters.v[WG_COUNTER_TUN_WRITES], 171229);
	cr_assert_eq(r.counters.v[WG_COUNTER_INGRESS_GULPS], UINT64_MAX);
	cr_assert_eq(r.counters.v[WG_COUNTER_SHAPER_LATE], 3);
	cr_assert_eq(r.counters.v[WG_COUNTER_SHAPER_LATE_NS], 41250000);
	cr_assert_eq(r.n_peers, 2);

	cr_assert(wg_encoding_key_from_hex(k2, K2, strlen(K2)));
	cr_assert(wg_encoding_key_from_hex(k3, K3, strlen(K3)));
	cr_assert(wg_encoding_key_from_hex(k4, K4, strlen(K4)));
	p = wg_uapi_reply_cake_find_peer(&r, k2);
	cr_assert_eq(p, &r.peers[0]);
	cr_assert_eq(p->counters.has, (UINT64_C(1) << WG_PEER_COUNTER_EGRESS_DROPS) |
					      (UINT64_C(1) << WG_PEER_COUNTER_STAGED_DROPS) |
					      (UINT64_C(1) << WG_PEER_COUNTER_ROAMS));
	cr_assert_eq(p->counters.v[WG_PEER_COUNTER_EGRESS_DROPS], 3);
	cr_assert_eq(p->counters.v[WG_PEER_COUNTER_STAGED_DROPS], 4);
	cr_assert_eq(p->counters.v[WG_PEER_COUNTER_ROAMS], 5);
	p = wg_uapi_reply_cake_find_peer(&r, k4);
	cr_assert_eq(p, &r.peers[1]);
	cr_assert_eq(p->counters.has, UINT64_C(1) << WG_PEER_COUNTER_ROAMS);
	cr_assert_null(wg_uapi_reply_cake_find_peer(&r, k3));
	wg_uapi_reply_cake_free(&r);
	cr_assert_null(r.egress.options);
	cr_assert_eq(r.n_peers, 0);
}

/* A daemon without ingress shaping (or an older one) sends only part of the keys. */
Test(uapi_reply, cake_partial_and_unknown_keys)
{
	struct wg_uapi_reply_cake r;

	cake_ok("roams=9\n" /* before any peer: skipped */
		"cake_egress=unlimited\n"
		"cake_egress_future=1\n"
		"cake_future=2\n"
		"future=3\n"
		"public_key=" K2 "\n"
		"future_peer_counter=4\n"
		"cake_egress=bandwidth 1Mbit\n" /* anywhere; the last one wins */
		"errno=0\n\n",
		&r);
	cr_assert_str_eq(r.egress.options, "bandwidth 1Mbit");
	cr_assert_null(r.egress.json);
	cr_assert_eq(r.egress.stats.n, 0);
	cr_assert_null(r.ingress.options);
	cr_assert_not(wg_device_counters_has(&r.counters, WG_COUNTER_BACKPRESSURE_STALLS));
	cr_assert_not(r.has_underlay_limit || r.has_underlay_drain_rate ||
		      r.has_underlay_limit_setting);
	cr_assert_eq(r.counters.has, 0);
	cr_assert_eq(r.n_peers, 1);
	cr_assert_eq(r.peers[0].counters.has, 0);
	wg_uapi_reply_cake_free(&r);
}

/* The underlay lines: device keys anywhere, even after a peer; the last one wins. */
Test(uapi_reply, cake_underlay_limit_keys)
{
	static const struct {
		const char *line;
		uint32_t setting;
	} settings[] = {
		{"underlay_limit_setting=auto\n", WG_DEVCONF_UNDERLAY_LIMIT_AUTO},
		{"underlay_limit_setting=off\n", WG_DEVCONF_UNDERLAY_LIMIT_OFF},
		{"underlay_limit_setting=32768\n", 32768},
		{"underlay_limit_setting=393216\n", WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES},
	};
	struct wg_uapi_reply_cake r;
	char text[256];

	for (size_t i = 0; i < WG_ARRAY_SIZE(settings); i++) {
		snprintf(text, sizeof(text),
			 "public_key=" K2 "\nunderlay_limit=1\nunderlay_limit=4294967295\n%s"
			 "roams=1\nunderlay_drain_rate=18446744073709551615\nerrno=0\n\n",
			 settings[i].line);
		cake_ok(text, &r);
		cr_assert(r.has_underlay_limit_setting, "%s", settings[i].line);
		cr_assert_eq(r.underlay_limit_setting, settings[i].setting, "%s", settings[i].line);
		cr_assert_eq(r.underlay_limit, UINT32_MAX);
		cr_assert_eq(r.underlay_drain_rate, UINT64_MAX);
		/* The peer's counter still goes to the peer. */
		cr_assert_eq(r.n_peers, 1);
		cr_assert_eq(r.peers[0].counters.has, UINT64_C(1) << WG_PEER_COUNTER_ROAMS);
		wg_uapi_reply_cake_free(&r);
	}
	cake_ok("underlay_drain_rate=0\nerrno=0\n\n", &r);
	cr_assert(r.has_underlay_drain_rate);
	cr_assert_not(r.has_underlay_limit || r.has_underlay_limit_setting);
	cr_assert_eq(r.underlay_drain_rate, 0);
	wg_uapi_reply_cake_free(&r);
}

/* autorate_probe=: an address, v4 or v6; anything else refuses the reply. */
Test(uapi_reply, cake_autorate_probe_key)
{
	struct wg_uapi_reply_cake r;
	struct wg_ipaddr want;

	cake_ok("autorate_probe=10.0.0.9\nerrno=0\n\n", &r);
	cr_assert(r.has_autorate_probe);
	cr_assert(wg_ipaddr_parse(&want, "10.0.0.9", 8));
	cr_assert_eq(memcmp(&r.autorate_probe, &want, sizeof(want)), 0);
	wg_uapi_reply_cake_free(&r);
	cake_ok("autorate_probe=fd00::53\nerrno=0\n\n", &r);
	cr_assert(r.has_autorate_probe);
	cr_assert_eq(r.autorate_probe.family, AF_INET6);
	wg_uapi_reply_cake_free(&r);
	cake_ok("errno=0\n\n", &r);
	cr_assert_not(r.has_autorate_probe);
	wg_uapi_reply_cake_free(&r);
	{
		static const char bad[] = "autorate_probe=10.0.0\nerrno=0\n\n";

		cr_assert_eq(wg_uapi_reply_cake_parse(bad, strlen(bad), &r), -EPROTO);
	}
}

Test(uapi_reply, cake_refusals)
{
	static const struct {
		const char *text;
		int want;
	} cases[] = {
		{"errno=-22\n\n", -EINVAL}, /* wireguard-go-like: no such operation */
		{"errno=95\n\n", -EOPNOTSUPP},
		{"cake_egress=unlimited\n", -EPROTO},
		{"cake_egress=unlimited\n\n", -EPROTO},
		{"cake_egress_json={\"a\":1\nerrno=0\n\n", -EPROTO},
		{"cake_egress_json=[1]\nerrno=0\n\n", -EPROTO},
		{"cake_ingress_json={} x\nerrno=0\n\n", -EPROTO},
		{"cake_egress_stats=\x1b[2J\nerrno=0\n\n", -EPROTO},
		{"cake_egress=a\rb\nerrno=0\n\n", -EPROTO},
		{"cake_ingress=\x7f\nerrno=0\n\n", -EPROTO},
		{"cake_egress_stats=caf\xc3\xa9\nerrno=0\n\n", -EPROTO},
		{"backpressure_stalls=-1\nerrno=0\n\n", -EPROTO},
		{"underlay_limit=4294967296\nerrno=0\n\n", -EPROTO},
		{"underlay_limit=16k\nerrno=0\n\n", -EPROTO},
		{"underlay_limit=\nerrno=0\n\n", -EPROTO},
		{"underlay_drain_rate=-1\nerrno=0\n\n", -EPROTO},
		{"tun_writes=x\nerrno=0\n\n", -EPROTO},
		{"underlay_rx_trains=18446744073709551616\nerrno=0\n\n", -EPROTO},
		{"underlay_drain_rate=18446744073709551616\nerrno=0\n\n", -EPROTO},
		{"underlay_limit_setting=\nerrno=0\n\n", -EPROTO},
		{"underlay_limit_setting=learnt\nerrno=0\n\n", -EPROTO},
		{"underlay_limit_setting=0\nerrno=0\n\n", -EPROTO},
		{"underlay_limit_setting=1mb\nerrno=0\n\n", -EPROTO},
		{"public_key=" K2 "\negress_drops=x\nerrno=0\n\n", -EPROTO},
		{"public_key=" K2 "\nstaged_drops=\nerrno=0\n\n", -EPROTO},
		{"public_key=" K2 "\nroams=18446744073709551616\nerrno=0\n\n", -EPROTO},
		{"public_key=nothex\nerrno=0\n\n", -EPROTO},
		{"no equals sign\nerrno=0\n\n", -EPROTO},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wg_uapi_reply_cake r;
		int ret = wg_uapi_reply_cake_parse(cases[i].text, strlen(cases[i].text), &r);

		cr_assert_eq(ret, cases[i].want, "%zu: %d for %s", i, ret, cases[i].text);
		wg_uapi_reply_cake_free(&r);
	}
}

Test(uapi_reply, cake_truncated_anywhere)
{
	size_t len = strlen(full_cake);

	for (size_t n = 0; n < len; n++) {
		struct wg_uapi_reply_cake r;

		cr_assert_eq(wg_uapi_reply_cake_parse(full_cake, n, &r), -EPROTO, "cut at %zu", n);
		wg_uapi_reply_cake_free(&r);
	}
}

/* With one public key twice, the counters of the later record are the ones found. */
Test(uapi_reply, cake_find_peer_takes_the_last_record)
{
	struct wg_uapi_reply_cake r;
	uint8_t k2[WG_ENCODING_KEY_LEN];

	cake_ok("public_key=" K2 "\nroams=1\npublic_key=" K2 "\nroams=2\nerrno=0\n\n", &r);
	cr_assert(wg_encoding_key_from_hex(k2, K2, strlen(K2)));
	cr_assert_eq(wg_uapi_reply_cake_find_peer(&r, k2)->counters.v[WG_PEER_COUNTER_ROAMS], 2);
	wg_uapi_reply_cake_free(&r);
}

Test(uapi_reply, cake_many_peers_grow)
{
	struct wg_devconf_buf b = {0};
	struct wg_uapi_reply_cake r;

	for (unsigned int i = 0; i < 100; i++)
		wg_devconf_buf_printf(&b, "public_key=%064x\negress_drops=%u\n", i, i * 7);
	wg_devconf_buf_printf(&b, "errno=0\n\n");
	cake_ok(b.data, &r);
	cr_assert_eq(r.n_peers, 100);
	for (unsigned int i = 0; i < 100; i++) {
		cr_assert_eq(r.peers[i].counters.v[WG_PEER_COUNTER_EGRESS_DROPS], i * 7);
		cr_assert_eq(r.peers[i].public_key[31], (uint8_t)i);
	}
	wg_uapi_reply_cake_free(&r);
	wg_devconf_buf_wipe(&b);
}

/* 20,000 peers, one in ten a repeat of an earlier key: each key finds its last record,
 * as a search of the whole array would; a key not in the reply finds nothing. */
Test(uapi_reply, cake_find_peer_among_many)
{
	enum { N = 20000 };
	struct wg_devconf_buf b = {0};
	struct wg_uapi_reply_cake r;
	static unsigned int key_of[N]; /* record i carries key number key_of[i] */
	uint8_t key[WG_ENCODING_KEY_LEN] = {0};

	for (unsigned int i = 0; i < N; i++) {
		/* 2654435761: a multiplier that scatters the keys' order */
		key_of[i] = i % 10 == 9 ? key_of[i / 2] : i;
		wg_devconf_buf_printf(&b, "public_key=%056x%08x\nroams=%u\n", 0u,
				      key_of[i] * 2654435761u, i);
	}
	wg_devconf_buf_printf(&b, "errno=0\n\n");
	cake_ok(b.data, &r);
	cr_assert_eq(r.n_peers, N);
	for (unsigned int i = 0; i < N; i++) {
		const struct wg_uapi_reply_cake_peer *p = wg_uapi_reply_cake_find_peer(&r,
										   r.peers[i].public_key);
		unsigned int last = i;

		for (unsigned int j = i + 1; j < N && i % 97 == 0; j++) /* the brute force, sampled */
			if (key_of[j] == key_of[i])
				last = j;
		cr_assert_not_null(p);
		cr_assert(!memcmp(p->public_key, r.peers[i].public_key, sizeof(key)));
		cr_assert_geq(p->counters.v[WG_PEER_COUNTER_ROAMS], i, "no earlier record");
		if (i % 97 == 0)
			cr_assert_eq(p->counters.v[WG_PEER_COUNTER_ROAMS], last, "record %u", i);
	}
	key[31] = 1; /* only key number 244002641 would end in 00000001 */
	cr_assert_null(wg_uapi_reply_cake_find_peer(&r, key));
	wg_uapi_reply_cake_free(&r);
	wg_devconf_buf_wipe(&b);
}

/* ---- JSON ---- */

Test(uapi_reply, json_object_validity)
{
	static const struct {
		const char *text;
		bool ok;
	} cases[] = {
		{"{}", true},
		{" { } ", true},
		{"{\"a\":1}", true},
		{"{\"a\":-0.5e+10,\"b\":[1,2,{\"c\":null}],\"d\":true,\"e\":false}", true},
		{"{\"s\":\"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"}", true},
		{"{\"a\":[]}", true},
		{"{\"k\":0,\"tins\":[{\"x\":12.5E3}]}", true},
		{"{\"a\":\"caf\xc3\xa9\"}", true},
		{"", false},
		{"[]", false},
		{"\"x\"", false},
		{"1", false},
		{"{", false},
		{"}", false},
		{"{}{}", false},
		{"{} x", false},
		{"{\"a\"}", false},
		{"{\"a\":}", false},
		{"{a:1}", false},
		{"{\"a\":1,}", false},
		{"{,}", false},
		{"{\"a\":[1,]}", false},
		{"{\"a\":01}", false},
		{"{\"a\":1.}", false},
		{"{\"a\":.5}", false},
		{"{\"a\":1e}", false},
		{"{\"a\":-}", false},
		{"{\"a\":+1}", false},
		{"{\"a\":tru}", false},
		{"{\"a\":nul}", false},
		{"{\"a\":\"\\x\"}", false},
		{"{\"a\":\"\\u00g0\"}", false},
		{"{\"a\":\"\\u00\"}", false},
		{"{\"a\":\"tab\there\"}", false},
		{"{\"a\":\"open}", false},
		{"{\"a\" 1}", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(wg_uapi_reply_json_object_valid(cases[i].text, strlen(cases[i].text)),
			     cases[i].ok, "%s", cases[i].text);
}

Test(uapi_reply, json_depth_is_bounded)
{
	char deep[8 * WG_UAPI_REPLY_JSON_MAX_DEPTH];

	/* {"a":[[...[{}]...]]} nests `levels` containers. */
	for (unsigned int levels = 2; levels <= WG_UAPI_REPLY_JSON_MAX_DEPTH + 2; levels++) {
		size_t n = (size_t)sprintf(deep, "{\"a\":");

		for (unsigned int i = 0; i < levels - 2; i++)
			deep[n++] = '[';
		deep[n++] = '{';
		deep[n++] = '}';
		for (unsigned int i = 0; i < levels - 2; i++)
			deep[n++] = ']';
		deep[n++] = '}';
		deep[n] = '\0';
		cr_assert_eq(wg_uapi_reply_json_object_valid(deep, n),
			     levels <= WG_UAPI_REPLY_JSON_MAX_DEPTH, "%u levels: %s", levels, deep);
	}
}

Test(uapi_reply, json_string_escapes)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{"wg0", 3, "\"wg0\""},
		{"", 0, "\"\""},
		{"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
		{"x\ny\tz", 5, "\"x\\ny\\tz\""},
		{"\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\""},
		{"n\0l", 3, "\"n\\u0000l\""},
		{"/caf\xc3\xa9", 6, "\"/caf\xc3\xa9\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wg_devconf_buf b = {0};

		wg_uapi_reply_json_string(&b, cases[i].in, cases[i].len);
		cr_assert_str_eq(b.data, cases[i].out);
		/* and what it writes is a JSON string a parser accepts */
		wg_devconf_buf_wipe(&b);
		wg_devconf_buf_printf(&b, "{\"k\":");
		wg_uapi_reply_json_string(&b, cases[i].in, cases[i].len);
		wg_devconf_buf_printf(&b, "}");
		cr_assert(wg_uapi_reply_json_object_valid(b.data, b.len), "%s", b.data);
		wg_devconf_buf_wipe(&b);
	}
}

/* ---- show's text, as wireguard-tools' show.c writes it ---- */

Test(uapi_reply, fmt_duration)
{
	static const struct {
		uint64_t secs;
		const char *out;
	} cases[] = {
		{0, ""},
		{1, "1 second"},
		{2, "2 seconds"},
		{59, "59 seconds"},
		{60, "1 minute"},
		{63, "1 minute, 3 seconds"},
		{120, "2 minutes"},
		{3600, "1 hour"},
		{3661, "1 hour, 1 minute, 1 second"},
		{86400, "1 day"},
		{90061, "1 day, 1 hour, 1 minute, 1 second"},
		{172800 + 7200 + 5, "2 days, 2 hours, 5 seconds"},
		{31536000, "1 year"},
		{31536000 + 86400, "1 year, 1 day"},
		{63072000 + 59, "2 years, 59 seconds"},
		{UINT64_MAX, "584942417355 years, 26 days, 7 hours, 15 seconds"},
	};
	char buf[WG_UAPI_REPLY_FMT_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_str_eq(wg_uapi_reply_fmt_duration(buf, sizeof(buf), cases[i].secs, false),
				 cases[i].out);
}

Test(uapi_reply, fmt_ago_and_every)
{
	static const struct {
		int64_t then, now;
		const char *out;
	} cases[] = {
		{1000, 1000, "Now"},
		{1000, 1001, "1 second ago"},
		{1000, 1063, "1 minute, 3 seconds ago"},
		{1000, 1000 + 86400 * 3, "3 days ago"},
		{1001, 1000, "(System clock wound backward; connection problems may ensue.)"},
		{0, INT64_MAX, "292471208677 years, 195 days, 15 hours, 30 minutes, 7 seconds ago"},
	};
	char buf[WG_UAPI_REPLY_FMT_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_str_eq(
			wg_uapi_reply_fmt_ago(buf, sizeof(buf), cases[i].then, cases[i].now, false),
			cases[i].out);
	cr_assert_str_eq(wg_uapi_reply_fmt_every(buf, sizeof(buf), 25, false), "every 25 seconds");
	cr_assert_str_eq(wg_uapi_reply_fmt_every(buf, sizeof(buf), 65535, false),
			 "every 18 hours, 12 minutes, 15 seconds");
	cr_assert_str_eq(wg_uapi_reply_fmt_every(buf, sizeof(buf), 1, false), "every 1 second");
}

Test(uapi_reply, fmt_bytes)
{
	static const struct {
		uint64_t bytes;
		const char *out;
	} cases[] = {
		{0, "0 B"},
		{1, "1 B"},
		{1023, "1023 B"},
		{1024, "1.00 KiB"},
		{1536, "1.50 KiB"},
		{1048575, "1024.00 KiB"}, /* wg rounds within the unit it picked */
		{1048576, "1.00 MiB"},
		{1289748, "1.23 MiB"},
		{4781506, "4.56 MiB"},
		{1073741823, "1024.00 MiB"},
		{1073741824, "1.00 GiB"},
		{UINT64_C(1) << 40, "1.00 TiB"},
		{UINT64_C(5) << 39, "2.50 TiB"},
		{UINT64_C(1) << 50, "1024.00 TiB"},
		{UINT64_MAX, "16777216.00 TiB"},
	};
	char buf[WG_UAPI_REPLY_FMT_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_str_eq(wg_uapi_reply_fmt_bytes(buf, sizeof(buf), cases[i].bytes, false),
				 cases[i].out);
}

Test(uapi_reply, fmt_colour_wraps_unit_words)
{
	char buf[WG_UAPI_REPLY_FMT_SIZE];

	cr_assert_str_eq(wg_uapi_reply_fmt_ago(buf, sizeof(buf), 0, 63, true),
			 "1 \x1b[36mminute\x1b[0m, 3 \x1b[36mseconds\x1b[0m ago");
	cr_assert_str_eq(wg_uapi_reply_fmt_bytes(buf, sizeof(buf), 1289748, true),
			 "1.23 \x1b[36mMiB\x1b[0m");
	cr_assert_str_eq(wg_uapi_reply_fmt_bytes(buf, sizeof(buf), 7, true), "7 \x1b[36mB\x1b[0m");
	cr_assert_str_eq(wg_uapi_reply_fmt_ago(buf, sizeof(buf), 2, 1, true),
			 "(\x1b[31mSystem clock wound backward; connection problems may "
			 "ensue.\x1b[0m)");
}

/* A buffer too small truncates and stays terminated. */
Test(uapi_reply, fmt_small_buffers)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	wg_uapi_reply_fmt_duration(buf, sizeof(buf), 3661, false);
	cr_assert_str_eq(buf, "1 hour,");
	wg_uapi_reply_fmt_ago(buf, 4, 0, 1, false);
	cr_assert_str_eq(buf, "1 s");
	wg_uapi_reply_fmt_bytes(buf, 5, 1536, false);
	cr_assert_str_eq(buf, "1.50");
	wg_uapi_reply_fmt_every(buf, 1, 5, false);
	cr_assert_str_eq(buf, "");
}

/* endpoint_host= belongs to the peer opened last; showconf and SaveConfig take it over. */
Test(uapi_reply, cake_endpoint_host)
{
	static const char text[] = "public_key=" K1 "\nendpoint_host=vpn.example.com:51820\n"
				   "resolve_failures=3\npublic_key=" K2 "\nerrno=0\n\n";
	static const char *const bad[] = {
		"endpoint_host=vpn.example.com:51820\nerrno=0\n\n", /* before any peer */
		"public_key=" K1 "\nendpoint_host=vpn.example.com\nerrno=0\n\n",
		"public_key=" K1 "\nendpoint_host=192.0.2.1:51820\nerrno=0\n\n",
		"public_key=" K1 "\nendpoint_host=vpn.example.com:65536\nerrno=0\n\n",
	};
	struct wg_uapi_reply_cake r;
	struct wg_devconf *conf = wg_devconf_new();
	struct wg_devconf_peer *p1 = wg_devconf_add_peer(conf), *p2 = wg_devconf_add_peer(conf);

	cake_ok(text, &r);
	cr_assert_eq(r.n_peers, 2);
	cr_assert_str_eq(r.peers[0].endpoint_host, "vpn.example.com");
	cr_assert_eq(r.peers[0].endpoint_port, 51820);
	cr_assert_eq(r.peers[0].counters.v[WG_PEER_COUNTER_RESOLVE_FAILURES], 3);
	cr_assert_str_eq(r.peers[1].endpoint_host, "");
	cr_assert(wg_encoding_key_from_hex(p1->public_key, K1, 64));
	cr_assert(wg_encoding_key_from_hex(p2->public_key, K2, 64));
	p1->flags = p2->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT;
	wg_uapi_reply_cake_names(&r, conf);
	cr_assert_eq(p1->flags, WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
	cr_assert_str_eq(p1->endpoint_host, "vpn.example.com");
	cr_assert_eq(p1->endpoint_port, 51820);
	cr_assert_eq(p2->flags, WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT,
		     "no name: the address stays");
	wg_uapi_reply_cake_free(&r);
	wg_devconf_free(conf);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(wg_uapi_reply_cake_parse(bad[i], strlen(bad[i]), &r), -EPROTO, "%s",
			     bad[i]);
		wg_uapi_reply_cake_free(&r);
	}
}
