/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main() of every unit test: criterion's own, plus an exit code that tells ctest about
 * skips. Criterion exits 0 when cases were skipped (cr_skip_test: not root, no ip(8),
 * a kernel without UDP GSO), so a binary whose cases all skipped said Passed. Here,
 * when nothing failed but a case skipped, each skipped case is named and the binary
 * exits SKIP_EXIT (the unit tests' SKIP_RETURN_CODE in tests/CMakeLists.txt), and ctest
 * reports the test as skipped. Under CI (the environment's CI set, and not to "false"
 * or "0"), where the test command installed everything and runs as root, a skip is a
 * failure: exit 1, and ctest reports it failed.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SKIP_EXIT = 77 };

static size_t skipped;

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	for (struct criterion_suite_stats *s = stats->suites; s; s = s->next)
		for (struct criterion_test_stats *t = s->tests; t; t = t->next)
			if (t->test_status == CR_STATUS_SKIPPED) {
				fprintf(stderr, "SKIP: %s::%s: %s\n", t->test->category,
					t->test->name, t->message ? t->message : "(no reason given)");
				skipped++;
			}
}

static bool under_ci(void)
{
	const char *ci = getenv("CI");

	return ci && *ci && strcmp(ci, "false") && strcmp(ci, "0");
}

int main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 0;

	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	if (result || !skipped)
		return result;
	if (under_ci()) {
		fprintf(stderr, "FAIL: %zu case(s) skipped under CI, where every case must run\n",
			skipped);
		return 1;
	}
	fprintf(stderr, "%zu case(s) skipped: reported to ctest as a skip\n", skipped);
	return SKIP_EXIT;
}
