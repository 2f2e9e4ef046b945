/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Host name lookups off the loop: one worker thread runs getaddrinfo() for the requests
 * of a bounded queue and hands each answer back through an ev_async watcher, so that a
 * slow or dead DNS server never stalls the datapath. The answer callback runs on the
 * loop's thread.
 *
 * Why a thread of our own and not glibc's getaddrinfo_a(): that one starts a thread per
 * request in flight and reports by a signal or by a further thread (SIGEV_THREAD) that
 * would still have to wake the loop, needs libanl, and is missing from musl; a request
 * it is running cannot be taken back either. Here one thread serves every request in
 * order, its wake-up is libev's own, and stopping never waits: a lookup still running
 * then finishes on its own, its answer dropped, and the last side to let go frees the
 * state.
 */
#ifndef CAKEWG_SRC_EDGE_RESOLVER_H
#define CAKEWG_SRC_EDGE_RESOLVER_H

#include <ev.h>
#include <stdint.h>

#include "src/core/devconf.h"
#include "src/core/ipaddr.h"

enum {
	/* Lookups queued, running or answered and not yet handed over, at most. */
	WG_RESOLVER_QUEUE = 64,
	WG_RESOLVER_REASON_SIZE = 128,
};

struct wg_resolver_answer {
	uint64_t tag; /* the asker's, as given */
	char host[WG_DEVCONF_HOST_SIZE];
	uint16_t port;
	int gai;	/* 0, or getaddrinfo's EAI_* */
	int sys_errno;	/* errno, for EAI_SYSTEM */
	union wg_ipaddr_sockaddr addr; /* the first IPv4 or IPv6 address, when gai is 0 */
};

typedef void (*wg_resolver_answer_fn)(void *ctx, const struct wg_resolver_answer *a);

struct wg_resolver;

/* Starts the worker (all signals blocked in it). Returns 0 or -errno. */
int wg_resolver_start(struct wg_resolver **out, struct ev_loop *loop, wg_resolver_answer_fn fn,
		      void *ctx);
/* Queues a lookup of host:port (UDP). Returns 0, -EAGAIN when the queue is full, or
 * -ENAMETOOLONG. */
int wg_resolver_ask(struct wg_resolver *r, uint64_t tag, const char *host, uint16_t port);
/* Stops the watcher and lets go; NULL is fine. Never blocks on a lookup. */
void wg_resolver_stop(struct wg_resolver *r);

/* getaddrinfo's words for a failed answer ("Name or service not known"). */
const char *wg_resolver_reason(const struct wg_resolver_answer *a,
			       char buf[static WG_RESOLVER_REASON_SIZE]);

#endif
