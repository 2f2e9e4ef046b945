/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/edge/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

static struct {
	enum wg_log_level max; /* 0: silent */
	bool syslog;
	char ifname[32];
} sink = { .max = WG_LOG_ERROR };

int wg_log_init(const char *ifname, bool use_syslog)
{
	const char *lvl = getenv("LOG_LEVEL");
	int ret = 0;

	snprintf(sink.ifname, sizeof(sink.ifname), "%s", ifname ? ifname : "cakewg");
	sink.syslog = use_syslog;
	if (use_syslog)
		openlog("cakewg", LOG_PID, LOG_DAEMON);
	if (!lvl || !*lvl || !strcmp(lvl, "error"))
		sink.max = WG_LOG_ERROR;
	else if (!strcmp(lvl, "verbose") || !strcmp(lvl, "debug"))
		sink.max = WG_LOG_DEBUG;
	else if (!strcmp(lvl, "info"))
		sink.max = WG_LOG_INFO;
	else if (!strcmp(lvl, "silent"))
		sink.max = 0;
	else
		ret = -EINVAL;
	return ret;
}

void wg_log_set_level(enum wg_log_level max)
{
	sink.max = max;
}

bool wg_log_enabled(enum wg_log_level level)
{
	return level <= sink.max;
}

void wg_log_vprintf(enum wg_log_level level, const char *fmt, va_list ap)
{
	static const int prio[] = { [WG_LOG_ERROR] = LOG_ERR, [WG_LOG_INFO] = LOG_INFO,
				    [WG_LOG_DEBUG] = LOG_DEBUG };
	char line[512];
	struct timespec ts;
	struct tm tm;

	if (!wg_log_enabled(level))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (sink.syslog) {
		syslog(prio[level], "%s: %s", sink.ifname, line);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	fprintf(stderr, "%s: %s: %04d/%02d/%02d %02d:%02d:%02d %s\n",
		level == WG_LOG_ERROR ? "ERROR" : "DEBUG", sink.ifname, tm.tm_year + 1900,
		tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, line);
}

void wg_log(enum wg_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wg_log_vprintf(level, fmt, ap);
	va_end(ap);
}

void wg_log_device_op(void *ctx, enum wg_log_level level, const char *fmt, va_list ap)
{
	(void)ctx;
	wg_log_vprintf(level, fmt, ap);
}
