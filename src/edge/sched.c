/* SPDX-License-Identifier: GPL-2.0-only */
/* A short EEVDF slice for the datapath thread: see sched.h. */
#define _GNU_SOURCE /* SCHED_BATCH */
#include "src/edge/sched.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/core/encoding.h"

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER1); glibc 2.36 has no wrapper. */
struct wg_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

enum {
	WG_SCHED_FLAG_RESET_ON_FORK = 0x01, /* include/uapi/linux/sched.h */
	WG_NS_PER_US = 1000,
};

static int get_attr(struct wg_sched_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return syscall(SYS_sched_getattr, 0, attr, sizeof(*attr), 0) < 0 ? -errno : 0;
}

int wg_sched_set_slice(uint32_t slice_us)
{
	struct wg_sched_attr attr;
	uint64_t now_ns;
	int ret;

	if (!slice_us || slice_us > WG_SCHED_SLICE_MAX_US)
		return -EINVAL;
	ret = get_attr(&attr); /* a fair task's sched_nice is its nice value: kept below */
	if (ret)
		return ret;
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
		return -EOPNOTSUPP; /* real-time or deadline: someone chose that on purpose */
	attr.size = sizeof(attr);
	attr.sched_flags = WG_SCHED_FLAG_RESET_ON_FORK;
	attr.sched_runtime = (uint64_t)slice_us * WG_NS_PER_US;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
		return -errno;
	ret = wg_sched_slice_ns(&now_ns);
	if (ret)
		return ret;
	return now_ns ? 0 : -EOPNOTSUPP;
}

int wg_sched_slice_ns(uint64_t *slice_ns)
{
	struct wg_sched_attr attr;
	int ret = get_attr(&attr);

	*slice_ns = ret ? 0 : attr.sched_runtime;
	return ret;
}

int wg_sched_slice_from_env(const char *value, uint32_t *slice_us)
{
	uint64_t v;

	if (!value) {
		*slice_us = WG_SCHED_SLICE_DEFAULT_US;
		return 0;
	}
	if (!wg_encoding_parse_uint(&v, value, strlen(value), 10, WG_SCHED_SLICE_MAX_US))
		return -EINVAL;
	*slice_us = (uint32_t)v;
	return 0;
}
