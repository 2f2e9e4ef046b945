/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/retired.h"

#include <criterion/criterion.h>
#include <stdlib.h>

Test(retired, keeps_what_it_is_given_and_frees_it_all)
{
	struct wg_retired r = {0};
	void *a = malloc(16), *b = malloc(1 << 20);

	wg_retired_add(&r, NULL);
	cr_assert_eq(r.len, 0, "NULL is not kept");
	wg_retired_add(&r, a);
	wg_retired_add(&r, b);
	cr_assert_eq(r.len, 2);
	cr_assert_eq(r.ptrs[0], a);
	cr_assert_eq(r.ptrs[1], b);
	wg_retired_free(&r);
	cr_assert_eq(r.len, 0);
	cr_assert_null(r.ptrs);
	wg_retired_free(&r); /* twice: nothing left */
}

/* A full list frees what comes next at once (the sanitizer build sees it freed). */
Test(retired, a_full_list_frees_at_once)
{
	struct wg_retired r = {0};

	for (int i = 0; i < WG_RETIRED_MAX + 10; i++)
		wg_retired_add(&r, malloc(32));
	cr_assert_eq(r.len, WG_RETIRED_MAX);
	wg_retired_free(&r);
}

Test(retired, no_list_frees_at_once)
{
	wg_retired_add(NULL, malloc(32));
}

/* What the datapath collected moves to a request's list whole; the device's is empty
 * after, and more can be added to both. */
Test(retired, move_takes_everything)
{
	struct wg_retired dev = {0}, job = {0};
	void *a = malloc(8), *b = malloc(8);

	wg_retired_add(&dev, a);
	wg_retired_add(&dev, b);
	wg_retired_move(&job, &dev);
	cr_assert_eq(dev.len, 0);
	cr_assert_eq(job.len, 2);
	cr_assert_eq(job.ptrs[0], a);
	cr_assert_eq(job.ptrs[1], b);
	wg_retired_add(&dev, malloc(8));
	wg_retired_move(&job, &dev);
	cr_assert_eq(job.len, 3, "appended to a list that holds some");
	cr_assert_eq(dev.len, 0);
	wg_retired_free(&dev);
	wg_retired_free(&job);
}
