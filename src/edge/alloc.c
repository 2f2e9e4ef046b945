/* SPDX-License-Identifier: GPL-2.0-only */
/* glibc malloc's settings for a datapath that never waits on free() (alloc.h). */
#include "src/edge/alloc.h"

#include <limits.h>
#include <malloc.h>

#include "src/edge/log.h"

enum { MMAP_THRESHOLD = 128 * 1024 }; /* glibc's default, fixed */

void wg_alloc_tune(void)
{
	if (!mallopt(M_MXFAST, 0) || !mallopt(M_TRIM_THRESHOLD, INT_MAX) ||
	    !mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
		wg_log_debug("malloc settings not all taken: freeing may hold the datapath longer");
}

void wg_alloc_trim(void)
{
	(void)malloc_trim(0);
}
