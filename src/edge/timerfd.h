/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A one-shot CLOCK_MONOTONIC timer with nanosecond resolution, as a descriptor the loop
 * watches (timerfd): the shaper's next send time. libev's own timers wait in epoll_wait,
 * whose timeout is in whole milliseconds, rounded up: a shaper that wanted to send again
 * in 120 us slept a millisecond and then let a burst go. (The daemon rounds the
 * shaper's time up to a 131 us grid, WG_DAEMON_SHAPER_GRID_NS in daemon.c.)
 *
 * The timer is set only when the deadline changes (one system call), and reading the
 * descriptor after it fired is left to the caller's callback (wg_timerfd_expired).
 */
#ifndef CAKEWG_SRC_EDGE_TIMERFD_H
#define CAKEWG_SRC_EDGE_TIMERFD_H

#include <stdbool.h>
#include <stdint.h>

struct wg_timerfd {
	int fd;		  /* -1: not open */
	uint64_t at_ns;	  /* the deadline set (CLOCK_MONOTONIC); UINT64_MAX: none */
};

/* Opens the timer, not set. 0 or -errno. */
int wg_timerfd_open(struct wg_timerfd *t);
void wg_timerfd_close(struct wg_timerfd *t);
/* Sets the timer to fire at at_ns (CLOCK_MONOTONIC; one in the past fires at once), or
 * disarms it for UINT64_MAX; nothing when that is the deadline already set. 0 or -errno. */
int wg_timerfd_arm(struct wg_timerfd *t, uint64_t at_ns);
/* The descriptor became readable: reads the expiry, and the timer counts as not set. */
void wg_timerfd_expired(struct wg_timerfd *t);

#endif
