/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/resolver.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PORT_TEXT = 8 };

struct wg_resolver {
	pthread_mutex_t lock;
	pthread_cond_t work;
	/* requests [req_head, req_head + n_req) and answers, rings of WG_RESOLVER_QUEUE */
	struct wg_resolver_answer req[WG_RESOLVER_QUEUE], ans[WG_RESOLVER_QUEUE];
	unsigned int req_head, n_req, ans_head, n_ans;
	bool busy;     /* the worker holds a request */
	bool stopping; /* the loop's side let go: no wake-ups any more */
	unsigned int refs;
	struct ev_loop *loop;
	ev_async wake;
	wg_resolver_answer_fn fn;
	void *ctx;
};

static void unref_locked(struct wg_resolver *r, bool *last)
{
	*last = --r->refs == 0;
}

static void destroy(struct wg_resolver *r)
{
	pthread_cond_destroy(&r->work);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static void lookup(struct wg_resolver_answer *a)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP};
	struct addrinfo *res = NULL;
	char port[PORT_TEXT];

	snprintf(port, sizeof(port), "%u", a->port);
	a->gai = getaddrinfo(a->host, port, &hints, &res);
	a->sys_errno = errno;
	if (a->gai)
		return;
	memset(&a->addr, 0, sizeof(a->addr));
	if (res->ai_family == AF_INET && res->ai_addrlen == sizeof(struct sockaddr_in))
		memcpy(&a->addr.addr4, res->ai_addr, sizeof(struct sockaddr_in));
	else if (res->ai_family == AF_INET6 && res->ai_addrlen == sizeof(struct sockaddr_in6))
		memcpy(&a->addr.addr6, res->ai_addr, sizeof(struct sockaddr_in6));
	else
		a->gai = EAI_FAMILY;
	freeaddrinfo(res);
}

static void *worker(void *arg)
{
	struct wg_resolver *r = arg;
	bool last;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		struct wg_resolver_answer a;

		while (!r->stopping && !r->n_req)
			pthread_cond_wait(&r->work, &r->lock);
		if (r->stopping)
			break;
		a = r->req[r->req_head];
		r->req_head = (r->req_head + 1) % WG_RESOLVER_QUEUE;
		r->n_req--;
		r->busy = true;
		pthread_mutex_unlock(&r->lock);
		lookup(&a);
		pthread_mutex_lock(&r->lock);
		r->busy = false;
		if (r->stopping)
			break;
		r->ans[(r->ans_head + r->n_ans) % WG_RESOLVER_QUEUE] = a;
		r->n_ans++;
		ev_async_send(r->loop, &r->wake);
	}
	unref_locked(r, &last);
	pthread_mutex_unlock(&r->lock);
	if (last)
		destroy(r);
	return NULL;
}

/* On the loop: hand the answers over, outside the lock. */
static void wake_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct wg_resolver *r = w->data;
	struct wg_resolver_answer got[WG_RESOLVER_QUEUE];
	unsigned int n;

	(void)loop;
	(void)revents;
	pthread_mutex_lock(&r->lock);
	n = r->n_ans;
	for (unsigned int i = 0; i < n; i++)
		got[i] = r->ans[(r->ans_head + i) % WG_RESOLVER_QUEUE];
	r->ans_head = (r->ans_head + n) % WG_RESOLVER_QUEUE;
	r->n_ans = 0;
	pthread_mutex_unlock(&r->lock);
	for (unsigned int i = 0; i < n; i++)
		r->fn(r->ctx, &got[i]);
}

int wg_resolver_start(struct wg_resolver **out, struct ev_loop *loop, wg_resolver_answer_fn fn,
		      void *ctx)
{
	struct wg_resolver *r = calloc(1, sizeof(*r));
	sigset_t all, old;
	pthread_t t;
	int ret;

	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->work, NULL);
	r->loop = loop;
	r->fn = fn;
	r->ctx = ctx;
	r->refs = 2;
	ev_async_init(&r->wake, wake_cb);
	r->wake.data = r;
	ev_async_start(loop, &r->wake);
	/* Signals stay with the loop's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&t, NULL, worker, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		ev_async_stop(loop, &r->wake);
		destroy(r);
		return -ret;
	}
	pthread_detach(t);
	*out = r;
	return 0;
}

int wg_resolver_ask(struct wg_resolver *r, uint64_t tag, const char *host, uint16_t port)
{
	struct wg_resolver_answer *a;
	int ret = 0;

	if (strlen(host) >= sizeof(a->host))
		return -ENAMETOOLONG;
	pthread_mutex_lock(&r->lock);
	if (r->n_req + r->n_ans + r->busy >= WG_RESOLVER_QUEUE) {
		ret = -EAGAIN;
	} else {
		a = &r->req[(r->req_head + r->n_req) % WG_RESOLVER_QUEUE];
		memset(a, 0, sizeof(*a));
		a->tag = tag;
		snprintf(a->host, sizeof(a->host), "%s", host);
		a->port = port;
		r->n_req++;
		pthread_cond_signal(&r->work);
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void wg_resolver_stop(struct wg_resolver *r)
{
	bool last;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = true; /* from here on the worker sends no wake-up */
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->lock);
	ev_async_stop(r->loop, &r->wake); /* our reference keeps r */
	pthread_mutex_lock(&r->lock);
	unref_locked(r, &last);
	pthread_mutex_unlock(&r->lock);
	if (last)
		destroy(r);
}

const char *wg_resolver_reason(const struct wg_resolver_answer *a,
			       char buf[static WG_RESOLVER_REASON_SIZE])
{
	if (a->gai == EAI_SYSTEM)
		snprintf(buf, WG_RESOLVER_REASON_SIZE, "%s", strerror(a->sys_errno));
	else
		snprintf(buf, WG_RESOLVER_REASON_SIZE, "%s", gai_strerror(a->gai));
	return buf;
}
