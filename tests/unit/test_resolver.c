/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The resolver thread (src/edge/resolver.h): a name from /etc/hosts answered on the
 * loop, the queue bounded (answers not yet handed over count), the tag and port carried
 * through, and stopping with lookups queued neither blocks nor leaks into the loop.
 * Only names /etc/hosts knows are asked, so no DNS server is needed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <netdb.h>
#include <string.h>

#include "src/edge/resolver.h"

struct got {
	unsigned int n;
	struct wg_resolver_answer last;
	uint64_t tags;
};

static void on_answer(void *ctx, const struct wg_resolver_answer *a)
{
	struct got *g = ctx;

	g->n++;
	g->last = *a;
	g->tags += a->tag;
}

/* Runs the loop until want answers came (or 10 s passed). */
static void run_until(struct ev_loop *loop, struct got *g, unsigned int want)
{
	for (int i = 0; i < 1000 && g->n < want; i++)
		ev_run(loop, EVRUN_NOWAIT), ev_sleep(0.01);
}

Test(resolver, localhost_is_answered_on_the_loop)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct wg_resolver *r;
	struct got g = {0};
	uint16_t port;

	cr_assert_eq(wg_resolver_start(&r, loop, on_answer, &g), 0);
	cr_assert_eq(wg_resolver_ask(r, 7, "localhost", 51820), 0);
	run_until(loop, &g, 1);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.last.tag, 7);
	cr_assert_str_eq(g.last.host, "localhost");
	cr_assert_eq(g.last.gai, 0, "%s", gai_strerror(g.last.gai));
	cr_assert(g.last.addr.addr.sa_family == AF_INET || g.last.addr.addr.sa_family == AF_INET6);
	port = ntohs(g.last.addr.addr.sa_family == AF_INET ? g.last.addr.addr4.sin_port
							    : g.last.addr.addr6.sin6_port);
	cr_assert_eq(port, 51820);
	wg_resolver_stop(r);
	ev_loop_destroy(loop);
}

Test(resolver, the_queue_is_bounded_until_answers_are_taken)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct wg_resolver *r;
	struct got g = {0};
	char longname[WG_DEVCONF_HOST_SIZE + 1];

	cr_assert_eq(wg_resolver_start(&r, loop, on_answer, &g), 0);
	for (unsigned int i = 0; i < WG_RESOLVER_QUEUE; i++)
		cr_assert_eq(wg_resolver_ask(r, i + 1, "localhost", 1), 0, "ask %u", i);
	cr_assert_eq(wg_resolver_ask(r, 99, "localhost", 1), -EAGAIN);
	run_until(loop, &g, WG_RESOLVER_QUEUE);
	cr_assert_eq(g.n, WG_RESOLVER_QUEUE);
	cr_assert_eq(g.tags, WG_RESOLVER_QUEUE * (WG_RESOLVER_QUEUE + 1) / 2, "every tag once");
	cr_assert_eq(wg_resolver_ask(r, 100, "localhost", 1), 0, "room again");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_assert_eq(wg_resolver_ask(r, 101, longname, 1), -ENAMETOOLONG);
	wg_resolver_stop(r);
	ev_loop_destroy(loop);
}

Test(resolver, stopping_with_lookups_queued_does_not_wait)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct wg_resolver *r;
	struct got g = {0};

	cr_assert_eq(wg_resolver_start(&r, loop, on_answer, &g), 0);
	for (unsigned int i = 0; i < 8; i++)
		cr_assert_eq(wg_resolver_ask(r, i, "localhost", 1), 0);
	wg_resolver_stop(r);
	ev_run(loop, EVRUN_NOWAIT);
	cr_assert_eq(g.n, 0, "nothing handed over after stop");
	ev_sleep(0.2); /* the worker lets go of the state on its own */
	ev_loop_destroy(loop);
	wg_resolver_stop(NULL);
}
