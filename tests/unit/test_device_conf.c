/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A `set` applied as a change set in bounded steps (src/core/device_conf.h) leaves the
 * device exactly as applying it at once; one refused in its first step changes nothing;
 * a snapshot taken in steps is the snapshot taken at once.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "src/core/device_conf.h"
#include "src/core/uapi.h"
#include "tests/support/device_pair.h"

enum { N_PEERS = 300, SMALL_BUDGET = 7 };

/* A peer key that is a valid point: the public key of a private one drawn from seed. */
static void peer_key(uint8_t pub[32], uint32_t i)
{
	uint8_t priv[32] = {0};

	memcpy(priv + 1, &i, sizeof(i)); /* byte 0 loses bits to clamping */
	priv[31] = 0x40;
	cw_x25519_clamp(priv);
	cr_assert(cw_x25519_public(pub, priv));
}

/* n peers from first on: endpoint, keepalive on every third, psk on every fifth, and two
 * allowed IPs each (10.x.y.0/24 and an IPv6 /128). */
static struct wg_devconf *many_peers(uint32_t first, uint32_t n, const uint8_t *priv)
{
	struct wg_devconf *conf = wg_devconf_new();

	if (priv) {
		conf->flags |= WG_DEVCONF_HAS_PRIVATE_KEY | WG_DEVCONF_HAS_LISTEN_PORT;
		memcpy(conf->private_key, priv, 32);
		conf->listen_port = 51999;
	}
	for (uint32_t i = first; i < first + n; i++) {
		struct wg_devconf_peer *pc = wg_devconf_add_peer(conf);
		struct wg_ipaddr_prefix v4 = {.addr.family = AF_INET, .cidr = 24};
		struct wg_ipaddr_prefix v6 = {.addr.family = AF_INET6, .cidr = 128};

		pc->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY | WG_DEVCONF_PEER_HAS_ENDPOINT;
		peer_key(pc->public_key, i);
		pc->endpoint.addr4.sin_family = AF_INET;
		pc->endpoint.addr4.sin_port = htons((uint16_t)(1000 + i));
		pc->endpoint.addr4.sin_addr.s_addr = htonl(0xc6130000 | i);
		if (i % 3 == 0) {
			pc->flags |= WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE;
			pc->persistent_keepalive_secs = 25;
		}
		if (i % 5 == 0) {
			pc->flags |= WG_DEVCONF_PEER_HAS_PRESHARED_KEY;
			memset(pc->preshared_key, (int)i, 32);
		}
		v4.addr.ip4.s_addr = htonl(0x0a000000 | (i << 8));
		v6.addr.ip6.s6_addr[0] = 0xfd;
		memcpy(&v6.addr.ip6.s6_addr[12], &i, sizeof(i));
		cr_assert_eq(wg_devconf_peer_add_allowedip(pc, &v4, 0), 0);
		cr_assert_eq(wg_devconf_peer_add_allowedip(pc, &v6, 0), 0);
	}
	return conf;
}

/* The device as `get` prints it. */
static char *state(struct wg_device *dev)
{
	struct wg_devconf *snap = wg_device_snapshot(dev, now);
	struct wg_devconf_buf out = {0};

	cr_assert_not_null(snap);
	cr_assert_eq(wg_uapi_get_write(snap, &out), 0);
	wg_devconf_free(snap);
	return out.data;
}

/* Applies conf in steps of budget; returns the result and how many steps it took. */
static int apply_sliced(struct wg_device *dev, const struct wg_devconf *conf,
			const struct wg_noise_identity *id, unsigned int budget, unsigned int *steps)
{
	struct wg_device_change c;
	int ret = wg_device_change_prepare(&c, conf, id);

	*steps = 0;
	if (!ret)
		ret = wg_device_change_begin(dev, &c, now);
	while (!ret) {
		ret = wg_device_change_step(dev, &c, budget, now);
		++*steps;
		if (ret != WG_DEVICE_CONF_MORE)
			break;
		ret = 0;
	}
	wg_device_change_deinit(&c);
	return ret;
}

TestSuite(device_conf, .init = setup, .fini = teardown);

/* The same requests, at once on A and in small steps on B, leave the same devices. */
Test(device_conf, sliced_set_equals_set_at_once)
{
	struct wg_devconf *add = many_peers(1, N_PEERS, A.priv);
	struct wg_devconf *more = many_peers(N_PEERS / 2, N_PEERS, B.priv);
	unsigned int steps;
	char *a, *b;

	/* a second request: a new key (every peer precomputed again, in steps), half of
	 * the peers known, one removed, one given fresh allowed IPs */
	more->peers[0]->flags |= WG_DEVCONF_PEER_REMOVE_ME;
	more->peers[1]->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
	cr_assert_eq(wg_device_apply(&A.dev, add, now), 0);
	cr_assert_eq(apply_sliced(&B.dev, add, &B.dev.identity, SMALL_BUDGET, &steps), 0);
	cr_assert_gt(steps, N_PEERS / SMALL_BUDGET, "applied in %u steps", steps);
	cr_assert_eq(wg_device_apply(&A.dev, more, now), 0);
	cr_assert_eq(apply_sliced(&B.dev, more, &B.dev.identity, SMALL_BUDGET, &steps), 0);
	a = state(&A.dev);
	b = state(&B.dev);
	cr_assert_eq(A.dev.n_peers, N_PEERS + (N_PEERS / 2 - 1) - 1, "%u", A.dev.n_peers);
	cr_assert_str_eq(a, b);
	for (struct wg_peer *pa = A.dev.peers_head, *pb = B.dev.peers_head; pa;
	     pa = pa->next, pb = pb->next)
		cr_assert_eq(memcmp(pa->noise.precomputed_static_static,
				    pb->noise.precomputed_static_static, 32),
			     0, "precomputed under the new key");
	free(a);
	free(b);
	wg_devconf_free(add);
	wg_devconf_free(more);
}

/* replace_peers, in steps too. */
Test(device_conf, sliced_replace_peers)
{
	struct wg_devconf *add = many_peers(1, N_PEERS, A.priv);
	struct wg_devconf *repl = many_peers(N_PEERS, 10, NULL);
	unsigned int steps;
	char *a, *b;

	repl->flags |= WG_DEVCONF_REPLACE_PEERS;
	cr_assert_eq(wg_device_apply(&A.dev, add, now), 0);
	cr_assert_eq(wg_device_apply(&A.dev, repl, now), 0);
	cr_assert_eq(apply_sliced(&B.dev, add, &B.dev.identity, SMALL_BUDGET, &steps), 0);
	cr_assert_eq(apply_sliced(&B.dev, repl, &B.dev.identity, SMALL_BUDGET, &steps), 0);
	cr_assert_gt(steps, N_PEERS / SMALL_BUDGET, "the old peers went in steps");
	cr_assert_eq(B.dev.n_peers, 10);
	a = state(&A.dev);
	b = state(&B.dev);
	cr_assert_str_eq(a, b);
	free(a);
	free(b);
	wg_devconf_free(add);
	wg_devconf_free(repl);
}

/* Built with a stale copy of the identity, the fresh peers are precomputed again. */
Test(device_conf, stale_identity_is_caught)
{
	struct wg_devconf *key = many_peers(1, 0, A.priv);
	struct wg_devconf *add = many_peers(1, 20, NULL);
	struct wg_noise_identity none;
	unsigned int steps;

	memset(&none, 0, sizeof(none));
	cr_assert_eq(wg_device_apply(&A.dev, key, now), 0);
	cr_assert_eq(wg_device_apply(&B.dev, key, now), 0);
	cr_assert_eq(wg_device_apply(&A.dev, add, now), 0);
	cr_assert_eq(apply_sliced(&B.dev, add, &none, SMALL_BUDGET, &steps), 0);
	for (struct wg_peer *pa = A.dev.peers_head, *pb = B.dev.peers_head; pa;
	     pa = pa->next, pb = pb->next) {
		cr_assert_not(cw_is_zero(pb->noise.precomputed_static_static, 32));
		cr_assert_eq(memcmp(pa->noise.precomputed_static_static,
				    pb->noise.precomputed_static_static, 32),
			     0);
	}
	wg_devconf_free(key);
	wg_devconf_free(add);
}

/* Refused by its CAKE options, a request changes nothing: not the key, not the port,
 * not one of its peers. */
Test(device_conf, refused_set_changes_nothing)
{
	struct wg_devconf *add = many_peers(1, 50, A.priv);
	struct wg_devconf *bad = many_peers(100, N_PEERS, B.priv);
	unsigned int steps;
	char *before, *after;

	cr_assert_eq(wg_device_apply(&A.dev, add, now), 0);
	before = state(&A.dev);
	bad->peers[0]->flags |= WG_DEVCONF_PEER_REMOVE_ME;
	bad->flags |= WG_DEVCONF_REPLACE_PEERS;
	bad->listen_port = 40000;
	bad->cake = strdup("bandwidth 20mbit autorate 80mbit 2mbit");
	cr_assert_neq(apply_sliced(&A.dev, bad, &A.dev.identity, SMALL_BUDGET, &steps), 0);
	cr_assert_eq(steps, 0, "refused before the first step");
	after = state(&A.dev);
	cr_assert_str_eq(before, after);
	free(after);
	cr_assert_neq(wg_device_apply(&A.dev, bad, now), 0, "at once too");
	after = state(&A.dev);
	cr_assert_str_eq(before, after);
	free(before);
	free(after);
	wg_devconf_free(add);
	wg_devconf_free(bad);
}

static char last_error[256];

static void log_error(void *ctx, enum wg_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void log_error(void *ctx, enum wg_log_level level, const char *fmt, va_list ap)
{
	(void)ctx;
	if (level == WG_LOG_ERROR)
		vsnprintf(last_error, sizeof(last_error), fmt, ap);
}

/* conf's result, and the error line it logged, in err. */
static int apply_logged(const struct wg_devconf *conf, char err[sizeof(last_error)])
{
	unsigned int steps;
	int ret;

	last_error[0] = 0;
	ret = apply_sliced(&A.dev, conf, &A.dev.identity, SMALL_BUDGET, &steps);
	memcpy(err, last_error, sizeof(last_error));
	return ret;
}

/* One request: egress options the egress takes, ingress ones refused (against a new
 * instance's defaults, then against an instance in force). */
static void refuse_ingress(const char *ingress_bad)
{
	struct wg_devconf *both = many_peers(100, 20, NULL);
	struct wg_devconf *alone = wg_devconf_new();
	struct cake_options egress = A.dev.egress.opts;
	struct wg_egress *ingress = A.dev.ingress;
	struct cake_options ingress_opts;
	char err_alone[sizeof(last_error)], err_both[sizeof(last_error)];
	char *before = state(&A.dev), *after;
	int ret_alone, ret_both;

	if (ingress)
		ingress_opts = ingress->opts;
	alone->cake_ingress = strdup(ingress_bad);
	both->cake = strdup("bandwidth 7mbit diffserv4");
	both->cake_ingress = strdup(ingress_bad);
	ret_alone = apply_logged(alone, err_alone);
	ret_both = apply_logged(both, err_both);
	cr_assert_neq(ret_alone, 0, "%s refused", ingress_bad);
	cr_assert_eq(ret_both, ret_alone, "refused as the ingress string alone is");
	cr_assert_str_eq(err_both, err_alone);
	cr_assert_neq(err_both[0], 0, "the reason logged");
	cr_assert_eq(memcmp(&A.dev.egress.opts, &egress, sizeof(egress)), 0, "egress unchanged");
	cr_assert_eq(A.dev.ingress, ingress, "no ingress instance made or dropped");
	if (ingress)
		cr_assert_eq(memcmp(&ingress->opts, &ingress_opts, sizeof(ingress_opts)), 0);
	after = state(&A.dev);
	cr_assert_str_eq(before, after, "no peer added");
	free(before);
	free(after);
	wg_devconf_free(alone);
	wg_devconf_free(both);
}

/* Both CAKE strings are checked before either instance changes. */
Test(device_conf, refused_ingress_keeps_egress)
{
	struct wg_devconf *add = many_peers(1, 20, A.priv);
	struct wg_devconf *ingress = wg_devconf_new();

	A.dev.ops.log = log_error;
	cr_assert_eq(wg_device_apply(&A.dev, add, now), 0);
	cr_assert_null(A.dev.ingress);
	refuse_ingress("bandwidth 20mbit autorate 80mbit 2mbit");
	refuse_ingress("bandwidth fast");
	ingress->cake_ingress = strdup("bandwidth 100mbit");
	cr_assert_eq(wg_device_apply(&A.dev, ingress, now), 0);
	cr_assert_not_null(A.dev.ingress);
	refuse_ingress("bandwidth 20mbit autorate 80mbit 2mbit");
	refuse_ingress("rtt");
	wg_devconf_free(add);
	wg_devconf_free(ingress);
}

/* A snapshot in steps is the snapshot at once. */
Test(device_conf, sliced_snapshot_equals_snapshot)
{
	struct wg_devconf *add = many_peers(1, N_PEERS, A.priv);
	struct wg_device_snapshot s;
	struct wg_devconf_buf text = {0};
	unsigned int steps = 0;
	char *whole;
	int ret;

	cr_assert_eq(wg_device_apply(&A.dev, add, now), 0);
	whole = state(&A.dev);
	cr_assert_eq(wg_device_snapshot_init(&A.dev, &s), 0);
	while ((ret = wg_device_snapshot_step(&A.dev, &s, SMALL_BUDGET)) == WG_DEVICE_CONF_MORE)
		steps++;
	cr_assert_eq(ret, 0);
	cr_assert_gt(steps, N_PEERS / SMALL_BUDGET);
	cr_assert_eq(wg_uapi_get_write(s.conf, &text), 0);
	cr_assert_str_eq(text.data, whole);
	wg_device_snapshot_deinit(&s);
	free(whole);
	wg_devconf_buf_wipe(&text);
	wg_devconf_free(add);
}

/* Removing most peers halves the public-key table: its old arrays wait on the device's
 * retired list (src/core/retired.h) for the edge to free, the peers left are found by
 * key, and the device's deinit frees what the list holds. */
Test(device_conf, old_table_arrays_are_retired)
{
	struct wg_devconf *add = many_peers(1, N_PEERS, A.priv);
	struct wg_devconf *repl = many_peers(N_PEERS, 10, NULL);
	unsigned int steps;

	repl->flags |= WG_DEVCONF_REPLACE_PEERS;
	cr_assert_eq(apply_sliced(&B.dev, add, &B.dev.identity, SMALL_BUDGET, &steps), 0);
	wg_retired_free(&B.dev.retired); /* what the edge does once a request is done */
	cr_assert_eq(apply_sliced(&B.dev, repl, &B.dev.identity, SMALL_BUDGET, &steps), 0);
	cr_assert_gt(B.dev.retired.len, 0, "the arrays halved out of are retired");
	for (size_t i = 0; i < B.dev.retired.len; i++)
		cr_assert_neq(B.dev.retired.ptrs[i], B.dev.peers_by_key.slots, "not the one in use");
	for (struct wg_peer *p = B.dev.peers_head; p; p = p->next)
		cr_assert_eq(wg_pubkey_table_lookup(&B.dev.peers_by_key, p->noise.remote_static), p);
	cr_assert_eq(wg_pubkey_table_count(&B.dev.peers_by_key), 10);
	wg_devconf_free(add);
	wg_devconf_free(repl);
}
