/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The datapath's scheduler slice: CAKEWG_SLICE_US as read, and the slice as the kernel
 * reports it back (on a kernel before 6.12 the call must say it was ignored).
 */
#define _GNU_SOURCE
#include "src/edge/sched.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

Test(sched, env_values)
{
	static const struct {
		const char *v;
		int ret;
		uint32_t us;
	} cases[] = {
		{ NULL, 0, 0 },
		{ "0", 0, 0 },
		{ "100", 0, 100 },
		{ "750", 0, 750 },
		{ "100000", 0, 100000 },
		{ "100001", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+5", -EINVAL, 0 },
		{ " 5", -EINVAL, 0 },
		{ "5us", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "99999999999999999999999", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t us = 12345;
		int ret = wg_sched_slice_from_env(cases[i].v, &us);

		cr_assert_eq(ret, cases[i].ret, "\"%s\": %d", cases[i].v ? cases[i].v : "(unset)",
			     ret);
		if (!ret)
			cr_assert_eq(us, cases[i].us, "\"%s\"", cases[i].v);
		else
			cr_assert_eq(us, 12345, "a refused value leaves the output alone");
	}
}

/* In a child, so that the test runner's own slice and nice value stay as they were; no
 * criterion assertions there, only exit codes. */
Test(sched, slice_is_set_and_nice_kept)
{
	pid_t pid = fork();
	int status;

	cr_assert(pid >= 0);
	if (pid == 0) {
		uint64_t ns;
		int ret;

		if (setpriority(PRIO_PROCESS, 0, 3))
			_exit(10);
		if (wg_sched_set_slice(0) != -EINVAL ||
		    wg_sched_set_slice(WG_SCHED_SLICE_MAX_US + 1) != -EINVAL)
			_exit(16);
		ret = wg_sched_set_slice(250);
		if (wg_sched_slice_ns(&ns))
			_exit(20);
		errno = 0;
		if (getpriority(PRIO_PROCESS, 0) != 3 || errno)
			_exit(11);
		if (ret == -EOPNOTSUPP)
			_exit(ns == 0 ? 0 : 12); /* before 6.12: ignored, and said so */
		if (ret)
			_exit(13);
		if (ns != 250000 || sched_getscheduler(0) != (SCHED_OTHER | SCHED_RESET_ON_FORK))
			_exit(14);
		/* the kernel clamps below 0.1 ms */
		if (wg_sched_set_slice(1) || wg_sched_slice_ns(&ns) || ns != 100000)
			_exit(15);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "child check %d failed", WEXITSTATUS(status));
}
