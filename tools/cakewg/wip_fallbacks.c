/* SPDX-License-Identifier: GPL-2.0-only */
/* Temporary, while the subcommands land: weak definitions so the binary links. Removed
 * before release; never committed. */
#include <stdio.h>

#include "tools/cakewg/commands.h"

#define FALLBACK(fn)                                                                        \
	__attribute__((weak)) int fn(int argc, char *argv[])                                   \
	{                                                                                   \
		(void)argc;                                                                 \
		fprintf(stderr, "%s: `%s' is not in this build yet\n", prog_name, argv[0]); \
		return 1;                                                                   \
	}
FALLBACK(up_main)
FALLBACK(down_main)
