/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A network namespace of the test's own, for tests against the real kernel: criterion
 * forks per test, so the namespace dies with the test process. unshare() is a GNU
 * extension: a test file that includes a system header before this one defines
 * _GNU_SOURCE at its top, as the guard below can only do it for a first include.
 */
#ifndef CAKEWG_TESTS_SUPPORT_NETNS_H
#define CAKEWG_TESTS_SUPPORT_NETNS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* unshare() */
#endif

#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "src/edge/netlink.h"

/* Skips unless root; otherwise moves this test process into a fresh namespace, lo up. */
static inline void support_enter_netns(void)
{
	struct wg_nl *nl;
	struct wg_nl_link lo;

	if (geteuid() != 0)
		cr_skip_test("needs root for unshare(CLONE_NEWNET)");
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(wg_netlink_open(&nl), 0);
	cr_assert_eq(wg_netlink_link_get(nl, "lo", &lo), 0);
	cr_assert_eq(wg_netlink_link_set_up(nl, lo.ifindex, true), 0);
	wg_netlink_close(nl);
}

#endif /* CAKEWG_TESTS_SUPPORT_NETNS_H */
