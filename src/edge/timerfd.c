/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/edge/timerfd.h"

#include <errno.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "src/core/clock.h"

int wg_timerfd_open(struct wg_timerfd *t)
{
	t->at_ns = UINT64_MAX;
	t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	return t->fd < 0 ? -errno : 0;
}

void wg_timerfd_close(struct wg_timerfd *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->at_ns = UINT64_MAX;
}

int wg_timerfd_arm(struct wg_timerfd *t, uint64_t at_ns)
{
	struct itimerspec its = {0};

	if (t->fd < 0)
		return -EBADF;
	if (at_ns == t->at_ns)
		return 0;
	if (at_ns != UINT64_MAX) {
		/* 0 would disarm it: a deadline at the clock's origin is long past anyway. */
		its.it_value.tv_sec = (time_t)(at_ns / WG_NSEC_PER_SEC);
		its.it_value.tv_nsec = (long)(at_ns % WG_NSEC_PER_SEC);
		if (!at_ns)
			its.it_value.tv_nsec = 1;
	}
	if (timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	t->at_ns = at_ns;
	return 0;
}

void wg_timerfd_expired(struct wg_timerfd *t)
{
	uint64_t n;

	if (t->fd >= 0)
		(void)!read(t->fd, &n, sizeof(n));
	t->at_ns = UINT64_MAX;
}
