/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by the src/ core and edge. */
#ifndef CAKEWG_SRC_CORE_COMPILER_H
#define CAKEWG_SRC_CORE_COMPILER_H

#include <stddef.h>

#define WG_MUST_CHECK __attribute__((warn_unused_result))
#define WG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define wg_container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define WG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define WG_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
