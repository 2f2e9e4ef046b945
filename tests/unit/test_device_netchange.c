/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device's side of endpoint names and network changes (src/core/device_netchange.h),
 * on two devices back to back: a name kept and forgotten as requests say, an answer that
 * moves the endpoint and starts a handshake, a failed lookup that keeps it, and a
 * route that moved: the sticky source forgotten, a handshake once per REKEY_TIMEOUT.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "src/core/device_netchange.h"
#include "src/core/messages.h"
#include "tests/support/device_pair.h"

TestSuite(device_netchange, .init = setup, .fini = teardown);

/* A request for A's peer (B): an endpoint, a name, or both. */
static void set_endpoint(const char *host, bool with_addr)
{
	struct wg_devconf *conf = wg_devconf_new();
	struct wg_devconf_peer *pc = wg_devconf_add_peer(conf);

	pc->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	memcpy(pc->public_key, B.pub, 32);
	if (with_addr) {
		pc->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
		pc->endpoint = B.addr.remote;
	}
	if (host) {
		pc->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
		strcpy(pc->endpoint_host, host);
		pc->endpoint_port = 51820;
	}
	cr_assert_eq(wg_device_apply(&A.dev, conf, now), 0);
	wg_devconf_free(conf);
}

static char *ext_get(void)
{
	struct wg_devconf_buf out = {0};

	cr_assert_eq(wg_device_ext_get_write(&A.dev, NULL, &out), 0);
	return out.data;
}

Test(device_netchange, a_name_is_kept_until_an_address_comes_alone)
{
	struct wg_peer *peer;
	char *text;

	handshake_and_ping(NULL);
	peer = A.dev.peers_head;
	set_endpoint("vpn.example.com", true);
	cr_assert_str_eq(peer->endpoint_host, "vpn.example.com");
	cr_assert_eq(wg_reresolve_due_ns(&peer->reresolve, peer->last_handshake_ns,
					 WG_RERESOLVE_AFTER_NS),
		     now + WG_RERESOLVE_AFTER_NS, "resolved already: due after the period");
	text = ext_get();
	cr_assert(strstr(text, "\nendpoint_host=vpn.example.com:51820\n"), "%s", text);
	free(text);
	set_endpoint(NULL, false); /* a keepalive-only record keeps it */
	cr_assert_str_eq(peer->endpoint_host, "vpn.example.com");
	set_endpoint("other.example.com", false);
	cr_assert_str_eq(peer->endpoint_host, "other.example.com");
	cr_assert_eq(wg_reresolve_due_ns(&peer->reresolve, 0, WG_RERESOLVE_AFTER_NS), 0,
		     "a name without an address: due at once");
	set_endpoint(NULL, true); /* stock `wg set ... endpoint IP:port` */
	cr_assert_str_eq(peer->endpoint_host, "");
	text = ext_get();
	cr_assert_null(strstr(text, "endpoint_host="), "%s", text);
	free(text);
}

Test(device_netchange, an_answer_with_another_address_moves_the_endpoint)
{
	struct wg_peer *peer;
	struct wg_endpoint moved;
	size_t before;

	handshake_and_ping(NULL);
	peer = A.dev.peers_head;
	set_endpoint("vpn.example.com", true);
	peer->endpoint.has_src = true;
	cr_assert(wg_reresolve_start(&peer->reresolve, now, 0, 0));
	before = A.n_wire;
	cr_assert_not(wg_device_endpoint_resolved(&A.dev, peer, &B.addr.remote, now));
	cr_assert(peer->endpoint.has_src, "the same address: nothing changes");
	cr_assert_eq(A.n_wire, before);

	now += REKEY_TIMEOUT_NS;
	endpoint4(&moved, 99, 51820);
	cr_assert(wg_reresolve_start(&peer->reresolve, now, 0, 0));
	cr_assert(wg_device_endpoint_resolved(&A.dev, peer, &moved.remote, now));
	cr_assert(wg_endpoint_same_remote(&peer->endpoint, &moved));
	cr_assert_not(peer->endpoint.has_src);
	cr_assert_eq(A.n_wire, before + 1, "a handshake to the new address");
	cr_assert_eq(peer->reresolve.changes, 1);
	cr_assert_eq(peer->reresolve.lookups, 2);
}

Test(device_netchange, a_failed_lookup_keeps_the_endpoint_and_is_counted)
{
	struct wg_peer *peer;
	char *text;

	handshake_and_ping(NULL);
	peer = A.dev.peers_head;
	set_endpoint("vpn.example.com", true);
	for (int i = 0; i < 3; i++) {
		now += WG_RERESOLVE_AFTER_NS;
		cr_assert(wg_reresolve_start(&peer->reresolve, now, peer->last_handshake_ns,
					     WG_RERESOLVE_AFTER_NS));
		wg_device_endpoint_resolve_failed(&A.dev, peer, "Name or service not known", now);
	}
	cr_assert(wg_endpoint_same_remote(&peer->endpoint, &B.addr));
	text = ext_get();
	cr_assert(strstr(text, "\nresolve_lookups=3\nresolve_failures=3\n"), "%s", text);
	free(text);
}

Test(device_netchange, a_route_is_a_change_when_it_differs_from_the_last)
{
	struct wg_path p = {.oif = 2, .src = {198, 18, 0, 1}}, q = p;
	struct wg_peer *peer;

	configure(&A, &B, 2, true, NULL);
	peer = A.dev.peers_head;
	cr_assert_not(wg_device_peer_path_note(peer, &p), "the first is the baseline");
	cr_assert_not(wg_device_peer_path_note(peer, &q), "the same route");
	q.oif = 3;
	cr_assert(wg_device_peer_path_note(peer, &q), "another interface");
	q.gateway[0] = 10;
	cr_assert(wg_device_peer_path_note(peer, &q), "another gateway");
	q = (struct wg_path){.err = -ENETUNREACH};
	cr_assert(wg_device_peer_path_note(peer, &q), "unreachable");
	cr_assert(wg_device_peer_path_note(peer, &p), "and back");
}

Test(device_netchange, a_moved_route_handshakes_once_per_rekey_timeout)
{
	struct wg_peer *peer;
	size_t before;

	handshake_and_ping(NULL);
	peer = A.dev.peers_head;
	set_endpoint("vpn.example.com", true);
	peer->endpoint.has_src = true;
	now += REKEY_TIMEOUT_NS;
	before = A.n_wire;
	cr_assert(wg_device_peer_path_changed(&A.dev, peer, now));
	cr_assert_not(peer->endpoint.has_src, "the sticky source is forgotten");
	cr_assert_eq(A.n_wire, before + 1, "a handshake at once");
	cr_assert_eq(wg_reresolve_due_ns(&peer->reresolve, peer->last_handshake_ns,
					 WG_RERESOLVE_AFTER_NS),
		     0, "the name is due");
	cr_assert(wg_device_peer_path_changed(&A.dev, peer, now + REKEY_TIMEOUT_NS - 1));
	cr_assert_eq(A.n_wire, before + 1, "not twice within REKEY_TIMEOUT");
	pump();
	cr_assert_eq(A.dev.peers_head->stats.handshakes_completed, 2);
}

Test(device_netchange, idle_peers_are_left_alone)
{
	size_t before;

	configure(&A, &B, 2, true, NULL);
	A.dev.peers_head->endpoint.has_src = true;
	before = A.n_wire;
	cr_assert_not(wg_device_peer_path_changed(&A.dev, A.dev.peers_head, now));
	cr_assert_eq(A.n_wire, before, "no session, nothing waiting, no keepalive");
	cr_assert_not(A.dev.peers_head->endpoint.has_src);
}
