/* SPDX-License-Identifier: GPL-2.0-only */
/* The seed writers of the fuzz targets (built with -DFUZZ_WRITE_SEEDS): one file. */
#ifndef CAKEWG_TESTS_SUPPORT_FUZZ_SEED_H
#define CAKEWG_TESTS_SUPPORT_FUZZ_SEED_H

#include <stdio.h>
#include <stdlib.h>

/* Writes len bytes at p to dir/name; aborts on any error. */
static inline void fuzz_seed_write(const char *dir, const char *name, const void *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f))
		abort();
}

#endif
