/* SPDX-License-Identifier: GPL-2.0-only */
/* A short EEVDF slice for the datapath thread: see sched.h. */
#define _GNU_SOURCE /* SCHED_BATCH */
#include "src/edge/sched.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

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

int wg_sched_set_slice(uint32_t slice_us)
{
	struct wg_sched_attr attr;
	int nice;

	if (!slice_us || slice_us > WG_SCHED_SLICE_MAX_US)
		return -EINVAL;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) < 0)
		return -errno;
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
		return -EOPNOTSUPP; /* real-time or deadline: someone chose that on purpose */
	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno)
		return -errno;
	attr.size = sizeof(attr);
	attr.sched_flags = WG_SCHED_FLAG_RESET_ON_FORK;
	attr.sched_nice = nice;
	attr.sched_priority = 0;
	attr.sched_runtime = (uint64_t)slice_us * WG_NS_PER_US;
	attr.sched_deadline = attr.sched_period = 0;
	attr.sched_util_min = attr.sched_util_max = 0;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
		return -errno;
	/* Before 6.12 the call succeeds and the slice is ignored: a fair task reads back 0. */
	memset(&attr, 0, sizeof(attr));
	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) < 0)
		return -errno;
	return attr.sched_runtime ? 0 : -EOPNOTSUPP;
}

int wg_sched_slice_from_env(const char *value, uint32_t *slice_us)
{
	unsigned long v;
	char *end;

	if (!value) {
		*slice_us = WG_SCHED_SLICE_DEFAULT_US;
		return 0;
	}
	if (*value < '0' || *value > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || *end || v > WG_SCHED_SLICE_MAX_US)
		return -EINVAL;
	*slice_us = (uint32_t)v;
	return 0;
}
