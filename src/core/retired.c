/* SPDX-License-Identifier: GPL-2.0-only */
/* The list of arrays freed later, elsewhere (retired.h). */
#include "src/core/retired.h"

#include <stdlib.h>
#include <string.h>

enum { RETIRED_MIN_CAP = 8 };

void wg_retired_add(struct wg_retired *r, void *p)
{
	if (!p)
		return;
	if (!r) {
		free(p);
		return;
	}
	if (r->len == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : RETIRED_MIN_CAP;
		void **ptrs = cap <= WG_RETIRED_MAX ? realloc(r->ptrs, cap * sizeof(*ptrs)) : NULL;

		if (!ptrs) {
			free(p);
			return;
		}
		r->ptrs = ptrs;
		r->cap = cap;
	}
	r->ptrs[r->len++] = p;
}

void wg_retired_move(struct wg_retired *to, struct wg_retired *from)
{
	if (!to->len) {
		struct wg_retired empty = *to;

		*to = *from;
		*from = empty;
		return;
	}
	for (size_t i = 0; i < from->len; i++)
		wg_retired_add(to, from->ptrs[i]);
	from->len = 0;
}

void wg_retired_free(struct wg_retired *r)
{
	for (size_t i = 0; i < r->len; i++)
		free(r->ptrs[i]);
	free(r->ptrs);
	memset(r, 0, sizeof(*r));
}
