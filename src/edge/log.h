/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging as wireguard-go does it: LOG_LEVEL=verbose|error|silent (default error), to
 * stderr in the foreground and to syslog when daemonized, every line prefixed with the
 * interface name. The sink and level are the only process-wide state of the edge.
 * Never pass a key to these functions.
 */
#ifndef CAKEWG_SRC_EDGE_LOG_H
#define CAKEWG_SRC_EDGE_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include "src/core/device.h"

/* Reads LOG_LEVEL; returns -EINVAL (and keeps the default) for an unknown value. */
int wg_log_init(const char *ifname, bool use_syslog);
void wg_log_set_level(enum wg_log_level max);
bool wg_log_enabled(enum wg_log_level level);
void wg_log_vprintf(enum wg_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void wg_log(enum wg_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define wg_log_err(...) wg_log(WG_LOG_ERROR, __VA_ARGS__)
#define wg_log_info(...) wg_log(WG_LOG_INFO, __VA_ARGS__)
#define wg_log_debug(...) wg_log(WG_LOG_DEBUG, __VA_ARGS__)

/* The device's log op: forwards to wg_log_vprintf. */
void wg_log_device_op(void *ctx, enum wg_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
