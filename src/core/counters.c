/* SPDX-License-Identifier: GPL-2.0-only */
/* The counter tables of counters.h, and the producer's writer. */
#include "src/core/counters.h"

#include <string.h>

#include "src/core/compiler.h"

#define ROW_(id, key, json, unit, section, role, label, before, after)                             \
	{key,                                                                                      \
	 json,                                                                                     \
	 WG_COUNTER_UNIT_##unit,                                                                   \
	 WG_COUNTER_SECTION_##section,                                                             \
	 WG_COUNTER_ROLE_##role,                                                                   \
	 label,                                                                                    \
	 before,                                                                                   \
	 after},

static const struct wg_counter_def device_defs[WG_DEVICE_COUNTERS_N] = {WG_DEVICE_COUNTERS(ROW_)};
static const struct wg_counter_def peer_defs[WG_PEER_COUNTERS_N] = {WG_PEER_COUNTERS(ROW_)};

const struct wg_counter_def *wg_counters_table(enum wg_counter_scope scope, unsigned int *n)
{
	if (scope == WG_COUNTER_SCOPE_PEER) {
		*n = WG_ARRAY_SIZE(peer_defs);
		return peer_defs;
	}
	*n = WG_ARRAY_SIZE(device_defs);
	return device_defs;
}

int wg_counters_find(enum wg_counter_scope scope, const char *key, size_t klen)
{
	unsigned int n;
	const struct wg_counter_def *defs = wg_counters_table(scope, &n);

	for (unsigned int i = 0; i < n; i++) {
		if (strlen(defs[i].key) == klen && !memcmp(defs[i].key, key, klen))
			return (int)i;
	}
	return -1;
}

void wg_counters_write(struct wg_devconf_buf *out, enum wg_counter_scope scope, uint64_t has,
		       const uint64_t *v)
{
	unsigned int n;
	const struct wg_counter_def *defs = wg_counters_table(scope, &n);

	for (unsigned int i = 0; i < n; i++) {
		if (has & (UINT64_C(1) << i))
			wg_devconf_buf_printf(out, "%s=%llu\n", defs[i].key,
					      (unsigned long long)v[i]);
	}
}
