/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Autorate's probe socket: one that cannot open (bound to a device that does not exist)
 * is retried on the backoff's schedule, never before, without leaking a descriptor; and,
 * with the privilege to open one, a retry that succeeds ends the run of failures.
 */
#include "src/edge/probe.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <unistd.h>

#define S WG_NSEC_PER_SEC

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static struct wg_ipaddr loopback(void)
{
	struct wg_ipaddr a = {.family = AF_INET};

	a.ip4.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

Test(probe, failure_is_retried_with_backoff)
{
	struct wg_ipaddr dst = loopback();
	struct wg_probe p;
	int fds = open_fds();

	wg_probe_init(&p, "cakewg-nodev0", 1);
	wg_probe_send(&p, &dst, 10 * S);
	cr_assert_eq(p.fd[0], -1);
	cr_assert_eq(p.retry[0].delay_ns, 1 * S, "the first failure waits 1 s");
	wg_probe_send(&p, &dst, 11 * S - 1);
	cr_assert_eq(p.retry[0].delay_ns, 1 * S, "not retried before its time");
	wg_probe_send(&p, &dst, 11 * S);
	cr_assert_eq(p.retry[0].delay_ns, 2 * S, "retried, and failed again");
	for (uint64_t t = 13 * S; p.retry[0].delay_ns < WG_BACKOFF_MAX_NS; t += 60 * S)
		wg_probe_send(&p, &dst, t);
	cr_assert_eq(p.fd[0], -1);
	cr_assert_eq(open_fds(), fds, "no descriptor leaked by the failed attempts");
	wg_probe_close(&p);
}

Test(probe, retry_that_succeeds_ends_the_failure)
{
	struct wg_ipaddr dst = loopback();
	struct wg_probe p;

	if (geteuid() != 0)
		cr_skip_test("needs CAP_NET_RAW for a socket bound to lo");
	wg_probe_init(&p, "lo", 1);
	(void)wg_backoff_failed(&p.retry[0], 0); /* as if the first attempt had failed */
	wg_probe_send(&p, &dst, 1 * S - 1);
	cr_assert_eq(p.fd[0], -1, "not before its time");
	wg_probe_send(&p, &dst, 1 * S);
	cr_assert_geq(p.fd[0], 0);
	cr_assert_eq(p.retry[0].delay_ns, 0, "the schedule starts over");
	wg_probe_close(&p);
	cr_assert_eq(p.fd[0], -1);
}
