/* SPDX-License-Identifier: GPL-2.0-only */
/* The UAPI text protocol: set parsing, get output and the request reader. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/uapi.h"

#define K1   "e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a"
#define K2   "b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33"
#define K3   "188515093e952f5f22e865cef3012e72f8b5f0b598ac0309d5dacce3b70fcf52"
#define K4   "58402E695BA1772B1CC9309755F043251EA77FDCF10FBE63989CEB7E19321376"
#define ZERO "0000000000000000000000000000000000000000000000000000000000000000"

static struct wg_devconf *set_ok(const char *body)
{
	struct wg_devconf *c = NULL;
	int ret = wg_uapi_set_parse(body, strlen(body), &c);

	cr_assert_eq(ret, 0, "refused (%d):\n%s", ret, body);
	cr_assert(c);
	return c;
}

static void hex_is(const uint8_t key[WG_ENCODING_KEY_LEN], const char *hex)
{
	uint8_t want[WG_ENCODING_KEY_LEN];

	cr_assert(wg_encoding_key_from_hex(want, hex, strlen(hex)));
	cr_assert_eq(memcmp(key, want, sizeof(want)), 0);
}

static void aip_is(const struct wg_devconf_allowedip *a, const char *text, uint32_t flags)
{
	char got[WG_IPADDR_PREFIX_STRLEN];

	wg_ipaddr_prefix_format(got, &a->prefix);
	cr_assert_str_eq(got, text);
	cr_assert_eq(a->flags, flags);
}

/* What wireguard-tools' userspace_set_device (ipc-uapi.h) sends for `wg setconf`. */
Test(uapi, set_as_wg_sends_it)
{
	struct wg_devconf *c = set_ok("private_key=" K1 "\n"
				      "listen_port=51820\n"
				      "fwmark=0\n"
				      "replace_peers=true\n"
				      "public_key=" K2 "\n"
				      "preshared_key=" K3 "\n"
				      "endpoint=[2001:db8::1]:51820\n"
				      "persistent_keepalive_interval=25\n"
				      "replace_allowed_ips=true\n"
				      "allowed_ip=10.0.0.0/8\n"
				      "allowed_ip=-fd00::/8\n"
				      "public_key=" K4 "\n"
				      "remove=true\n");

	cr_assert_eq(c->flags, WG_DEVCONF_HAS_PRIVATE_KEY | WG_DEVCONF_HAS_LISTEN_PORT |
				       WG_DEVCONF_HAS_FWMARK | WG_DEVCONF_REPLACE_PEERS);
	hex_is(c->private_key, K1);
	cr_assert_eq(c->listen_port, 51820);
	cr_assert_eq(c->fwmark, 0);
	cr_assert_eq(c->n_peers, 2);
	cr_assert_eq(c->peers[0]->flags, WG_DEVCONF_PEER_HAS_PUBLIC_KEY |
						 WG_DEVCONF_PEER_HAS_PRESHARED_KEY |
						 WG_DEVCONF_PEER_HAS_ENDPOINT |
						 WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE |
						 WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS);
	hex_is(c->peers[0]->public_key, K2);
	hex_is(c->peers[0]->preshared_key, K3);
	cr_assert_eq(c->peers[0]->endpoint.addr6.sin6_family, AF_INET6);
	cr_assert_eq(c->peers[0]->endpoint.addr6.sin6_port, htons(51820));
	cr_assert_eq(c->peers[0]->persistent_keepalive_secs, 25);
	cr_assert_eq(c->peers[0]->n_allowedips, 2);
	aip_is(&c->peers[0]->allowedips[0], "10.0.0.0/8", 0);
	aip_is(&c->peers[0]->allowedips[1], "fd00::/8", WG_DEVCONF_AIP_REMOVE_ME);
	/* Upper-case hex is hex too (Go's hex.DecodeString). */
	hex_is(c->peers[1]->public_key, K4);
	cr_assert_eq(c->peers[1]->flags,
		     WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_REMOVE_ME);
	wg_devconf_free(c);
}

Test(uapi, set_semantics_in_order)
{
	struct wg_devconf *c =
		set_ok("private_key=" ZERO "\n" /* removes the key */
		       "public_key=" K2 "\n"
		       "allowed_ip=10.0.0.0/8\n"
		       "allowed_ip=10.1.0.0/16\n"
		       "replace_allowed_ips=true\n" /* forgets the two above */
		       "allowed_ip=10.2.0.0/16\n"
		       "allowed_ip=-10.2.0.0/16\n"
		       "allowed_ip=10.3.2.1/16\n" /* host bits: masked when applied */
		       "protocol_version=1\n"
		       "update_only=true\n"
		       "endpoint=1.2.3.4:5\n"
		       "endpoint=[fe80::1%7]:6\n" /* the last one counts */
		       "preshared_key=" ZERO "\n"
		       "persistent_keepalive_interval=0\n"
		       "public_key=" K2 "\n" /* the same peer again: a second record */
		       "allowed_ip=::/0\n");

	cr_assert_eq(c->flags, WG_DEVCONF_HAS_PRIVATE_KEY);
	hex_is(c->private_key, ZERO);
	cr_assert_eq(c->n_peers, 2);
	cr_assert_eq(c->peers[0]->n_allowedips, 3);
	aip_is(&c->peers[0]->allowedips[0], "10.2.0.0/16", 0);
	aip_is(&c->peers[0]->allowedips[1], "10.2.0.0/16", WG_DEVCONF_AIP_REMOVE_ME);
	aip_is(&c->peers[0]->allowedips[2], "10.3.2.1/16", 0);
	cr_assert(c->peers[0]->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS);
	cr_assert(c->peers[0]->flags & WG_DEVCONF_PEER_UPDATE_ONLY);
	cr_assert(c->peers[0]->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY);
	cr_assert(c->peers[0]->flags & WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE);
	cr_assert_eq(c->peers[0]->endpoint.addr6.sin6_scope_id, 7);
	cr_assert_eq(c->peers[0]->endpoint.addr6.sin6_port, htons(6));
	cr_assert_eq(c->peers[1]->flags, WG_DEVCONF_PEER_HAS_PUBLIC_KEY);
	cr_assert_eq(c->peers[1]->n_allowedips, 1);
	wg_devconf_free(c);

	/* An empty request is valid and changes nothing. */
	c = set_ok("");
	cr_assert_eq(c->flags, 0);
	cr_assert_eq(c->n_peers, 0);
	wg_devconf_free(c);
}

/* Every error kind, with wireguard-go's errno. */
static const struct {
	const char *body;
	int err;
} bad_sets[] = {
	{"listen_port", -EPROTO},
	{"public_key=" K2 "\nendpoint", -EPROTO},
	{"\x01\x02", -EPROTO},
	{"=1", -EINVAL},
	{"bogus=1", -EINVAL},
	{"Private_Key=" K1, -EINVAL}, /* keys are case-sensitive */
	{"private_key =" K1, -EINVAL},
	{"private_key=" K1 " ", -EINVAL},
	{"private_key=zz", -EINVAL},
	{"private_key=" ZERO "0", -EINVAL},
	{"private_key=yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=", -EINVAL},
	{"listen_port=65536", -EINVAL},
	{"listen_port=-1", -EINVAL},
	{"listen_port=+1", -EINVAL},
	{"listen_port= 1", -EINVAL},
	{"listen_port=", -EINVAL},
	{"fwmark=0x10", -EINVAL}, /* decimal only on the UAPI */
	{"fwmark=4294967296", -EINVAL},
	{"replace_peers=false", -EINVAL},
	{"replace_peers=TRUE", -EINVAL},
	{"protocol_version=1", -EINVAL}, /* a peer key */
	{"remove=true", -EINVAL},	 /* no peer yet */
	{"public_key=" K2 "0", -EINVAL},
	{"public_key=", -EINVAL},
	{"public_key=" K2 "\nremove=1", -EINVAL},
	{"public_key=" K2 "\nupdate_only=false", -EINVAL},
	{"public_key=" K2 "\npreshared_key=abc", -EINVAL},
	{"public_key=" K2 "\nendpoint=1.2.3.4", -EINVAL},
	{"public_key=" K2 "\nendpoint=[1.2.3.4]:1", -EINVAL},
	{"public_key=" K2 "\nendpoint=::1:1", -EINVAL},
	{"public_key=" K2 "\nendpoint=host.example:1", -EINVAL},
	{"public_key=" K2 "\nendpoint=[fe80::1%eth0]:1", -EINVAL},
	{"public_key=" K2 "\nendpoint=1.2.3.4:65536", -EINVAL},
	{"public_key=" K2 "\npersistent_keepalive_interval=65536", -EINVAL},
	{"public_key=" K2 "\npersistent_keepalive_interval=off", -EINVAL},
	{"public_key=" K2 "\nreplace_allowed_ips=yes", -EINVAL},
	{"public_key=" K2 "\nallowed_ip=10.0.0.0", -EINVAL},
	{"public_key=" K2 "\nallowed_ip=10.0.0.0/33", -EINVAL},
	{"public_key=" K2 "\nallowed_ip=10.0.0.0/08", -EINVAL},
	{"public_key=" K2 "\nallowed_ip=--10.0.0.0/8", -EINVAL},
	{"public_key=" K2 "\nallowed_ip=+10.0.0.0/8", -EINVAL},
	{"public_key=" K2 "\nallowed_ip=fe80::%1/64", -EINVAL},
	{"public_key=" K2 "\nallowed_ip=", -EINVAL},
	{"public_key=" K2 "\nprotocol_version=2", -EINVAL},
	{"public_key=" K2 "\nprotocol_version=01", -EINVAL},
	{"public_key=" K2 "\nlisten_port=1", -EINVAL}, /* device keys come first */
	{"public_key=" K2 "\nlast_handshake_time_sec=0", -EINVAL},
	{"public_key=" K2 "\nrx_bytes=0", -EINVAL},
	{"underlay_limit=", -EINVAL},
	{"underlay_limit=0", -EINVAL},
	{"underlay_limit=8191", -EINVAL},
	{"underlay_limit=1mb", -EINVAL},
	{"underlay_limit=-32kb", -EINVAL},
	{"underlay_limit=32kb ", -EINVAL},
	{"underlay_limit=learn", -EINVAL},
	{"Underlay_Limit=auto", -EINVAL},
	{"public_key=" K2 "\nunderlay_limit=auto", -EINVAL}, /* a device key */
};

Test(uapi, set_errors)
{
	for (size_t i = 0; i < sizeof(bad_sets) / sizeof(bad_sets[0]); i++) {
		struct wg_devconf *c = (struct wg_devconf *)1;
		int ret = wg_uapi_set_parse(bad_sets[i].body, strlen(bad_sets[i].body), &c);

		cr_assert_eq(ret, bad_sets[i].err, "case %zu: got %d for\n%s", i, ret,
			     bad_sets[i].body);
		cr_assert_null(c);
	}
}

/* After an error nothing is kept, later lines are refused, and no key is in the log. */
Test(uapi, set_error_is_sticky_and_quiet)
{
	struct wg_uapi_set s;
	struct wg_devconf *c = (struct wg_devconf *)1;
	static const char bad_key[] = "private_key=" K1 "0";

	cr_assert_eq(wg_uapi_set_init(&s), 0);
	cr_assert_eq(wg_uapi_set_line(&s, "listen_port=1", 13), 0);
	cr_assert_eq(wg_uapi_set_line(&s, bad_key, strlen(bad_key)), -EINVAL);
	cr_assert_null(s.conf);
	cr_assert_null(strstr(s.msg, "e84b5a6d"), "%s", s.msg);
	cr_assert_str_eq(s.msg, "failed to set private_key: not 64 hex digits");
	cr_assert_eq(wg_uapi_set_line(&s, "fwmark=1", 8), -EINVAL);
	cr_assert_eq(wg_uapi_set_finish(&s, &c), -EINVAL);
	cr_assert_null(c);
	wg_uapi_set_deinit(&s);

	cr_assert_eq(wg_uapi_set_init(&s), 0);
	cr_assert_eq(wg_uapi_set_line(&s, "public_key=" K2, 11 + 64), 0);
	cr_assert_eq(wg_uapi_set_line(&s, "fwmark=1", 8), -EINVAL);
	cr_assert_str_eq(s.msg, "invalid UAPI peer key: `fwmark'");
	wg_uapi_set_deinit(&s);
}

static struct wg_devconf_peer *snap_peer(struct wg_devconf *c, const char *pub)
{
	struct wg_devconf_peer *p = wg_devconf_add_peer(c);

	cr_assert(p);
	cr_assert(wg_encoding_key_from_hex(p->public_key, pub, 64));
	p->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	return p;
}

static void add_aip(struct wg_devconf_peer *p, const char *text)
{
	struct wg_ipaddr_prefix pfx;

	cr_assert_eq(
		wg_ipaddr_prefix_parse(&pfx, text, strlen(text), WG_IPADDR_PREFIX_CIDR_REQUIRED),
		WG_IPADDR_PREFIX_OK);
	cr_assert_eq(wg_devconf_peer_add_allowedip(p, &pfx, 0), 0);
}

/* The key order of wireguard-go's IpcGetOperation. */
Test(uapi, get_output)
{
	struct wg_devconf *c = wg_devconf_new();
	struct wg_devconf_buf out = {0};
	struct wg_devconf_peer *p;

	c->flags = WG_DEVCONF_HAS_PRIVATE_KEY | WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK;
	cr_assert(wg_encoding_key_from_hex(c->private_key, K1, 64));
	c->listen_port = 51820;
	c->fwmark = 0; /* omitted */
	p = snap_peer(c, K2);
	p->flags |= WG_DEVCONF_PEER_HAS_PRESHARED_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT;
	cr_assert(wg_encoding_key_from_hex(p->preshared_key, K3, 64));
	cr_assert_eq(wg_ipaddr_endpoint_parse(&p->endpoint, "[2001:db8::1]:51820", 19), 0);
	p->last_handshake_sec = 1700000000;
	p->last_handshake_nsec = 123456789;
	p->tx_bytes = 18446744073709551615ULL;
	p->rx_bytes = 42;
	p->persistent_keepalive_secs = 25;
	p->protocol_version = 1;
	add_aip(p, "10.0.0.0/8");
	add_aip(p, "fd00::/64");
	p = snap_peer(c, K4); /* no psk, no endpoint, never shook hands */
	add_aip(p, "192.168.1.1/32");

	cr_assert_eq(wg_uapi_get_write(c, &out), 0);
	cr_assert_str_eq(
		out.data,
		"private_key=" K1 "\n"
		"listen_port=51820\n"
		"public_key=" K2 "\n"
		"preshared_key=" K3 "\n"
		"protocol_version=1\n"
		"endpoint=[2001:db8::1]:51820\n"
		"last_handshake_time_sec=1700000000\n"
		"last_handshake_time_nsec=123456789\n"
		"tx_bytes=18446744073709551615\n"
		"rx_bytes=42\n"
		"persistent_keepalive_interval=25\n"
		"allowed_ip=10.0.0.0/8\n"
		"allowed_ip=fd00::/64\n"
		"public_key=58402e695ba1772b1cc9309755f043251ea77fdcf10fbe63989ceb7e19321376\n"
		"preshared_key=" ZERO "\n"
		"protocol_version=1\n"
		"last_handshake_time_sec=0\n"
		"last_handshake_time_nsec=0\n"
		"tx_bytes=0\n"
		"rx_bytes=0\n"
		"persistent_keepalive_interval=0\n"
		"allowed_ip=192.168.1.1/32\n"
		"errno=0\n"
		"\n");
	wg_devconf_buf_wipe(&out);

	wg_devconf_free(c);

	/* fwmark when set; no private key when it is zero; a v4 endpoint. */
	c = wg_devconf_new();
	c->flags = WG_DEVCONF_HAS_PRIVATE_KEY | WG_DEVCONF_HAS_LISTEN_PORT | WG_DEVCONF_HAS_FWMARK;
	c->fwmark = 77;
	p = snap_peer(c, K2);
	p->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
	cr_assert_eq(wg_ipaddr_endpoint_parse(&p->endpoint, "192.0.2.7:9", 11), 0);
	cr_assert_eq(wg_uapi_get_write(c, &out), 0);
	cr_assert_eq(strncmp(out.data, "fwmark=77\npublic_key=" K2 "\n", 21 + 64 + 1), 0, "%s",
		     out.data);
	cr_assert(strstr(out.data, "\nprotocol_version=1\nendpoint=192.0.2.7:9\n"));
	wg_devconf_buf_wipe(&out);
	wg_devconf_free(c);

	c = wg_devconf_new();
	cr_assert_eq(wg_uapi_get_write(c, &out), 0);
	cr_assert_str_eq(out.data, "errno=0\n\n");
	wg_devconf_buf_wipe(&out);
	wg_devconf_free(c);
}

Test(uapi, errno_reply)
{
	struct wg_devconf_buf out = {0};

	cr_assert_eq(wg_uapi_errno_write(&out, -EINVAL), 0);
	cr_assert_str_eq(out.data, "errno=-22\n\n");
	wg_devconf_buf_wipe(&out);
}

/* Feeds all of s; returns the events seen, one letter each (G S F C; X: cakewg_get). */
static void feed_all(struct wg_uapi_reader *r, const char *s, size_t len, char *events)
{
	size_t pos = 0, n = 0;

	while (pos < len) {
		size_t used;
		enum wg_uapi_event ev = wg_uapi_reader_feed(r, s + pos, len - pos, &used);

		cr_assert_leq(used, len - pos);
		pos += used;
		if (ev == WG_UAPI_NEED_MORE) {
			cr_assert_eq(pos, len);
			break;
		}
		events[n++] = "?GSFCX"[ev];
		if (ev == WG_UAPI_SET)
			wg_devconf_free(wg_uapi_reader_take(r));
		if (ev == WG_UAPI_CLOSE)
			break;
	}
	events[n] = '\0';
}

Test(reader, pipelined_requests)
{
	static const char in[] = "get=1\n\n"
				 "set=1\nlisten_port=1\n\n"
				 "set=1\nbogus=1\nlisten_port=2\n\n"
				 "get=1\n\n"
				 "set=1\n\n";
	struct wg_uapi_reader r;
	char ev[16];

	wg_uapi_reader_init(&r, 0);
	feed_all(&r, in, sizeof(in) - 1, ev);
	cr_assert_str_eq(ev, "GSFGS");
	wg_uapi_reader_deinit(&r);
}

Test(reader, byte_by_byte)
{
	static const char in[] =
		"set=1\nprivate_key=" K1 "\npublic_key=" K2 "\nallowed_ip=10.0.0.0/8\n\nget=1\n\n";
	struct wg_uapi_reader r;
	struct wg_devconf *c = NULL;
	size_t used, i;
	int gets = 0;

	wg_uapi_reader_init(&r, 0);
	for (i = 0; i < sizeof(in) - 1; i++) {
		enum wg_uapi_event ev = wg_uapi_reader_feed(&r, &in[i], 1, &used);

		cr_assert_eq(used, 1);
		if (ev == WG_UAPI_SET) {
			cr_assert_null(c);
			c = wg_uapi_reader_take(&r);
			cr_assert_null(wg_uapi_reader_take(&r));
			cr_assert_eq(in[i - 1], '\n');
		} else if (ev == WG_UAPI_GET) {
			gets++;
			cr_assert_eq(i, sizeof(in) - 2);
		} else {
			cr_assert_eq(ev, WG_UAPI_NEED_MORE, "event %d at %zu", ev, i);
		}
	}
	cr_assert_eq(gets, 1);
	cr_assert(c);
	hex_is(c->private_key, K1);
	cr_assert_eq(c->n_peers, 1);
	cr_assert_eq(c->peers[0]->n_allowedips, 1);
	wg_devconf_free(c);
	wg_uapi_reader_deinit(&r);
}

Test(reader, bad_requests)
{
	static const struct {
		const char *in;
		const char *events;
		int err;
	} t[] = {
		{"foo=1\n", "C", 0}, /* unknown operation: close, no reply */
		{"\n", "C", 0},
		{"get=2\n\n", "C", 0},
		{"set=1\r\n\n", "C", 0},
		{"get=1\nx\n", "C", -EINVAL}, /* trailing character in UAPI get */
		{"set=1\nfoo\n\n", "F", -EPROTO},
		{"set=1\nlisten_port=x\n\n", "F", -EINVAL},
		{"set=1\nlisten_port=1\n\nfoo\n", "SC", 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wg_uapi_reader r;
		char ev[16];

		wg_uapi_reader_init(&r, 0);
		feed_all(&r, t[i].in, strlen(t[i].in), ev);
		cr_assert_str_eq(ev, t[i].events, "case %zu", i);
		cr_assert_eq(wg_uapi_reader_error(&r), t[i].err, "case %zu", i);
		wg_uapi_reader_deinit(&r);
	}
}

/* A failed set leaves the reader ready for the next request on the connection. */
Test(reader, failed_set_then_good_one)
{
	static const char in[] = "set=1\npublic_key=" K2 "\nallowed_ip=1.2.3.4\n"
				 "allowed_ip=10.0.0.0/8\n\nset=1\nfwmark=9\n\n";
	struct wg_uapi_reader r;
	struct wg_devconf *c;
	size_t used, pos;

	wg_uapi_reader_init(&r, 0);
	cr_assert_eq(wg_uapi_reader_feed(&r, in, sizeof(in) - 1, &used), WG_UAPI_FAILED);
	cr_assert_eq(wg_uapi_reader_error(&r), -EINVAL);
	cr_assert_str_eq(wg_uapi_reader_message(&r), "failed to set allowed ip");
	cr_assert_null(wg_uapi_reader_take(&r));
	pos = used;
	cr_assert_eq(wg_uapi_reader_feed(&r, in + pos, sizeof(in) - 1 - pos, &used), WG_UAPI_SET);
	cr_assert_eq(pos + used, sizeof(in) - 1);
	c = wg_uapi_reader_take(&r);
	cr_assert_eq(c->fwmark, 9);
	cr_assert_eq(c->flags, WG_DEVCONF_HAS_FWMARK);
	wg_devconf_free(c);
	wg_uapi_reader_deinit(&r);
}

Test(reader, limits)
{
	struct wg_uapi_reader r;
	char junk[4096], ev[16];
	size_t used;

	/* A flood without newlines is refused once a line is over the limit. */
	memset(junk, 'A', sizeof(junk));
	wg_uapi_reader_init(&r, 0);
	cr_assert_eq(wg_uapi_reader_feed(&r, junk, WG_UAPI_LINE_MAX_BYTES - 1, &used),
		     WG_UAPI_NEED_MORE);
	cr_assert_eq(wg_uapi_reader_feed(&r, junk, 1, &used), WG_UAPI_CLOSE);
	cr_assert_eq(wg_uapi_reader_error(&r), -EMSGSIZE);
	cr_assert_eq(wg_uapi_reader_feed(&r, "get=1\n\n", 8, &used), WG_UAPI_CLOSE);
	cr_assert_eq(wg_uapi_reader_eof(&r), WG_UAPI_CLOSE);
	wg_uapi_reader_deinit(&r);

	/* A line of exactly the limit (1023 bytes and '\n') is still a line. */
	wg_uapi_reader_init(&r, 0);
	memcpy(junk, "set=1\n", 6);
	memset(junk + 6, 'x', WG_UAPI_LINE_MAX_BYTES - 1);
	junk[6 + WG_UAPI_LINE_MAX_BYTES - 1] = '\n';
	junk[6 + WG_UAPI_LINE_MAX_BYTES] = '\n';
	feed_all(&r, junk, 6 + WG_UAPI_LINE_MAX_BYTES + 1, ev);
	cr_assert_str_eq(ev, "F");
	cr_assert_eq(wg_uapi_reader_error(&r), -EPROTO);
	wg_uapi_reader_deinit(&r);

	/* Many short, valid lines: the request size bound stops them. */
	wg_uapi_reader_init(&r, 1000);
	cr_assert_eq(wg_uapi_reader_feed(&r, "set=1\n", 6, &used), WG_UAPI_NEED_MORE);
	for (int i = 0;; i++) {
		enum wg_uapi_event e = wg_uapi_reader_feed(&r, "fwmark=1\n", 9, &used);

		if (e == WG_UAPI_CLOSE) {
			cr_assert_geq(i, 100);
			cr_assert_leq(i, 111);
			break;
		}
		cr_assert_eq(e, WG_UAPI_NEED_MORE);
	}
	cr_assert_eq(wg_uapi_reader_error(&r), -EMSGSIZE);
	wg_uapi_reader_deinit(&r);
}

Test(reader, eof)
{
	struct wg_uapi_reader r;
	struct wg_devconf *c;
	size_t used;

	/* wireguard-go applies a set whose stream ends without the blank line. */
	wg_uapi_reader_init(&r, 0);
	cr_assert_eq(wg_uapi_reader_feed(&r, "set=1\nlisten_port=5", 19, &used), WG_UAPI_NEED_MORE);
	cr_assert_eq(wg_uapi_reader_eof(&r), WG_UAPI_SET);
	c = wg_uapi_reader_take(&r);
	cr_assert_eq(c->listen_port, 5);
	wg_devconf_free(c);
	wg_uapi_reader_deinit(&r);

	wg_uapi_reader_init(&r, 0);
	cr_assert_eq(wg_uapi_reader_feed(&r, "set=1\nnope\n", 12, &used), WG_UAPI_NEED_MORE);
	cr_assert_eq(wg_uapi_reader_eof(&r), WG_UAPI_FAILED);
	cr_assert_eq(wg_uapi_reader_error(&r), -EPROTO);
	wg_uapi_reader_deinit(&r);

	wg_uapi_reader_init(&r, 0);
	cr_assert_eq(wg_uapi_reader_feed(&r, "get=1\n", 6, &used), WG_UAPI_NEED_MORE);
	cr_assert_eq(wg_uapi_reader_eof(&r), WG_UAPI_CLOSE);
	cr_assert_eq(wg_uapi_reader_error(&r), 0);
	wg_uapi_reader_deinit(&r);

	/* Requests never taken are freed, by the next one or by deinit (ASan checks). */
	wg_uapi_reader_init(&r, 0);
	cr_assert_eq(wg_uapi_reader_feed(&r, "set=1\n\nset=1\n\n", 14, &used), WG_UAPI_SET);
	cr_assert_eq(used, 7);
	cr_assert_eq(wg_uapi_reader_feed(&r, "set=1\n\n", 7, &used), WG_UAPI_SET);
	wg_uapi_reader_deinit(&r);
}

/* cakewg's extensions: `cake=`/`cake_ingress=` carry tc-cake options, checked at parse
 * time so a bad word refuses the whole request; `cakewg_get=1` is its own request. */
Test(uapi, cake_extension_keys)
{
	struct wg_devconf *c = set_ok("cake=bandwidth 50mbit diffserv4 ack-filter\n"
				      "cake_ingress=bandwidth 100mbit ingress\nlisten_port=7\n");
	struct wg_devconf *bad = NULL;

	cr_assert_str_eq(c->cake, "bandwidth 50mbit diffserv4 ack-filter");
	cr_assert_str_eq(c->cake_ingress, "bandwidth 100mbit ingress");
	cr_assert_eq(c->listen_port, 7);
	wg_devconf_free(c);
	cr_assert_eq(wg_uapi_set_parse("listen_port=7\ncake=bandwidth 50mbitz\n",
				       strlen("listen_port=7\ncake=bandwidth 50mbitz\n"), &bad),
		     -EINVAL);
	cr_assert_null(bad);
	cr_assert_eq(wg_uapi_set_parse("cake_ingress=wobble\n", strlen("cake_ingress=wobble\n"),
				       &bad),
		     -EINVAL);
	/* `none` turns ingress shaping off; it is no tc-cake word, so egress refuses it. */
	c = set_ok("cake_ingress=none\n");
	cr_assert_str_eq(c->cake_ingress, "none");
	wg_devconf_free(c);
	cr_assert_eq(wg_uapi_set_parse("cake=none\n", strlen("cake=none\n"), &bad), -EINVAL);
}

Test(reader, cakewg_get_extension)
{
	static const char in[] = "cakewg_get=1\n\nget=1\n\ncakewg_get=1\nx\n";
	struct wg_uapi_reader r;
	char ev[16];

	wg_uapi_reader_init(&r, 0);
	feed_all(&r, in, sizeof(in) - 1, ev);
	cr_assert_str_eq(ev, "XGC");
	wg_uapi_reader_deinit(&r);
}

/* cakewg's `underlay_limit=`: auto, off or a size, a device key like cake=; a bad value
 * refuses the request with a message that names it. */
Test(uapi, underlay_limit_key)
{
	static const struct {
		const char *body;
		uint32_t want;
	} good[] = {
		{"underlay_limit=auto\n", WG_DEVCONF_UNDERLAY_LIMIT_AUTO},
		{"underlay_limit=off\n", WG_DEVCONF_UNDERLAY_LIMIT_OFF},
		{"underlay_limit=32768\n", 32768},
		{"underlay_limit=32kb\n", 32768},
		{"cake=besteffort\nunderlay_limit=off\nunderlay_limit=20000\nlisten_port=7\n",
		 20000},
	};
	struct wg_uapi_set s;
	struct wg_devconf *c;

	for (size_t i = 0; i < WG_ARRAY_SIZE(good); i++) {
		c = set_ok(good[i].body);
		cr_assert(c->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT, "%s", good[i].body);
		cr_assert_eq(c->underlay_limit, good[i].want, "%s", good[i].body);
		wg_devconf_free(c);
	}
	c = set_ok("listen_port=7\n");
	cr_assert_eq(c->flags & WG_DEVCONF_HAS_UNDERLAY_LIMIT, 0);
	wg_devconf_free(c);

	cr_assert_eq(wg_uapi_set_init(&s), 0);
	cr_assert_eq(wg_uapi_set_line(&s, "underlay_limit=2mb", 18), -EINVAL);
	cr_assert_str_eq(s.msg, "failed to set underlay_limit: `2mb' is neither auto, off nor "
				"8192-393216 bytes");
	wg_uapi_set_deinit(&s);
}
