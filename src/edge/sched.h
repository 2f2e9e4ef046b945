/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A short scheduler slice for the datapath thread.
 *
 * Under EEVDF (Linux 6.6 and later) a fair task's slice sets its virtual deadline, and
 * since 6.12 a task may choose its own (sched_attr.sched_runtime, clamped by the kernel
 * to 0.1-100 ms): one that wakes with a shorter slice than the running task's may
 * preempt it at once. The daemon sleeps until a packet arrives and then runs for a
 * short while; with the kernel's default slice (0.75 ms times 1 + log2 of the CPUs) it
 * waits, once woken, for a bulk sender's slice to run out, and every packet waits with
 * it. Its weight, and so its share of the CPU, stays that of its nice value.
 *
 * Older kernels accept the call and ignore the slice; wg_sched_set_slice reads it back
 * to tell. The setting is not inherited across fork (SCHED_FLAG_RESET_ON_FORK).
 */
#ifndef CAKEWG_SRC_EDGE_SCHED_H
#define CAKEWG_SRC_EDGE_SCHED_H

#include <stdint.h>

enum {
	WG_SCHED_SLICE_DEFAULT_US = 100, /* the shortest the kernel grants */
	WG_SCHED_SLICE_MAX_US = 100000,	 /* the longest */
};

/*
 * Asks for a slice of slice_us microseconds (1..WG_SCHED_SLICE_MAX_US) for the calling
 * thread, keeping its policy (SCHED_OTHER) and nice value. Returns 0, -EOPNOTSUPP when
 * the kernel ignored it (before 6.12) or -errno.
 */
int wg_sched_set_slice(uint32_t slice_us);

/*
 * Reads CAKEWG_SLICE_US: unset gives WG_SCHED_SLICE_DEFAULT_US, "0" gives 0 (leave the
 * kernel's slice alone). Returns -EINVAL for anything else that is not a number of
 * microseconds in 1..WG_SCHED_SLICE_MAX_US.
 */
int wg_sched_slice_from_env(const char *value, uint32_t *slice_us);

#endif
