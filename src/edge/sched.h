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

/*
 * Off unless asked for. Measured at 200 Mbit/s (same binary, 6 alternating runs each,
 * ping p99 minus idle under 4 up + 4 down): 100 us helped at a local bottleneck
 * (+4.5..8.9 ms against +8.0..15.0) and hurt at a remote one behind the shaper
 * (+3.5..5.8 against +2.0..4.4, with 5-20 % more daemon CPU): not a default.
 */
enum {
	WG_SCHED_SLICE_DEFAULT_US = 0,	/* the kernel's slice; it grants 100 us at least */
	WG_SCHED_SLICE_MAX_US = 100000, /* the longest */
};

/*
 * Asks for a slice of slice_us microseconds (1..WG_SCHED_SLICE_MAX_US) for the calling
 * thread, keeping its policy (SCHED_OTHER) and nice value. Returns 0, -EOPNOTSUPP when
 * the kernel ignored it (before 6.12) or -errno.
 */
int wg_sched_set_slice(uint32_t slice_us);

/* The calling thread's slice as the kernel reports it: 0 before 6.12, where a fair task
 * has none of its own. Returns 0 or -errno. */
int wg_sched_slice_ns(uint64_t *slice_ns);

/*
 * Reads CAKEWG_SLICE_US: unset gives WG_SCHED_SLICE_DEFAULT_US, "0" gives 0 (both: leave
 * the kernel's slice alone). Returns -EINVAL for anything else that is not a number of
 * microseconds in 1..WG_SCHED_SLICE_MAX_US.
 */
int wg_sched_slice_from_env(const char *value, uint32_t *slice_us);

#endif
