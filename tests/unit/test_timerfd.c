/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shaper's timer: a deadline in the past fires at once, one far ahead does not, the
 * same deadline again sets nothing, disarming clears it, and a 200 us deadline (which
 * epoll's millisecond timeout cannot express) fires, not before its time. Only the last
 * case waits, for at most 5 ms.
 */
#include "src/edge/timerfd.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>

#include "src/core/clock.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * WG_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static bool readable(const struct wg_timerfd *t, int wait_ms)
{
	struct pollfd p = {.fd = t->fd, .events = POLLIN};

	return poll(&p, 1, wait_ms) == 1 && (p.revents & POLLIN);
}

Test(timerfd, past_fires_future_does_not)
{
	struct wg_timerfd t;

	cr_assert_eq(wg_timerfd_open(&t), 0);
	cr_assert_eq(t.at_ns, UINT64_MAX, "not set when opened");
	cr_assert_not(readable(&t, 0));
	cr_assert_eq(wg_timerfd_arm(&t, now_ns() + 3600 * WG_NSEC_PER_SEC), 0);
	cr_assert_not(readable(&t, 0), "an hour ahead");
	cr_assert_eq(wg_timerfd_arm(&t, 1), 0);
	cr_assert(readable(&t, 0), "a deadline in the past fires at once");
	wg_timerfd_expired(&t);
	cr_assert_eq(t.at_ns, UINT64_MAX);
	cr_assert_not(readable(&t, 0), "the expiry was read");
	cr_assert_eq(wg_timerfd_arm(&t, 0), 0);
	cr_assert(readable(&t, 0), "the clock's origin is in the past too");
	wg_timerfd_close(&t);
	cr_assert_eq(t.fd, -1);
	cr_assert_eq(wg_timerfd_arm(&t, 1), -EBADF);
}

Test(timerfd, disarm_and_same_deadline)
{
	struct wg_timerfd t;
	uint64_t at = now_ns() + 3600 * WG_NSEC_PER_SEC;

	cr_assert_eq(wg_timerfd_open(&t), 0);
	cr_assert_eq(wg_timerfd_arm(&t, at), 0);
	cr_assert_eq(t.at_ns, at);
	cr_assert_eq(wg_timerfd_arm(&t, at), 0, "the same deadline: nothing to do");
	cr_assert_eq(wg_timerfd_arm(&t, UINT64_MAX), 0);
	cr_assert_eq(t.at_ns, UINT64_MAX);
	/* Set behind the wrapper's back: the wrapper, thinking it disarmed, must not skip a
	 * real change. */
	cr_assert_eq(wg_timerfd_arm(&t, 1), 0);
	cr_assert(readable(&t, 0));
	wg_timerfd_close(&t);
}

Test(timerfd, sub_millisecond)
{
	struct wg_timerfd t;
	uint64_t start = now_ns(), took;

	cr_assert_eq(wg_timerfd_open(&t), 0);
	cr_assert_eq(wg_timerfd_arm(&t, start + 200 * 1000), 0);
	cr_assert(readable(&t, 5));
	took = now_ns() - start;
	cr_assert_geq(took, 200 * 1000, "fired early: %llu ns", (unsigned long long)took);
	wg_timerfd_close(&t);
}
