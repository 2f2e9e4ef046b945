/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Memory the core no longer uses but does not free itself: a table's old array after it
 * grew or halved. Freeing a large array unmaps it, which took the datapath 1.2-2.1 ms at
 * 100,000 peers (doc/architecture.md §6a); so the core puts it on this list, pure data,
 * and the edge frees the list's arrays off the datapath (src/edge/control.c, on the
 * control thread once a request is done), or wg_retired_free does where no other thread
 * can (a device's deinit, the tests).
 *
 * The list holds at most WG_RETIRED_MAX arrays: one more is freed at once, as it is when
 * the list cannot grow, so that a datapath with no request to carry the list off keeps a
 * bounded amount.
 */
#ifndef CAKEWG_SRC_CORE_RETIRED_H
#define CAKEWG_SRC_CORE_RETIRED_H

#include <stddef.h>

enum { WG_RETIRED_MAX = 64 };

/* Zeroed: empty. */
struct wg_retired {
	void **ptrs;
	size_t len, cap;
};

/* Puts p (from malloc; NULL is ignored) on the list, or frees it at once when there is no
 * list (r NULL) or it is full or cannot grow. */
void wg_retired_add(struct wg_retired *r, void *p);

/* Moves every array on from to the end of to (to's own arrays stay); from is emptied.
 * What does not fit into to is freed. */
void wg_retired_move(struct wg_retired *to, struct wg_retired *from);

/* Frees every array on the list and the list itself: r is zeroed. */
void wg_retired_free(struct wg_retired *r);

#endif
