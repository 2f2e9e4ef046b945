/* SPDX-License-Identifier: GPL-2.0-only */
/* The control thread and its hand-off to the datapath's loop (control.h). */
#define _GNU_SOURCE
#include "src/edge/control.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "crypto/ct.h"
#include "src/core/compiler.h"
#include "src/core/device.h"
#include "src/core/device_conf.h"
#include "src/core/retired.h"
#include "src/edge/alloc.h"
#include "src/edge/log.h"
#include "src/edge/monoclock.h"

struct wg_control_job {
	struct wg_control_job *next;
	struct conn *conn;
	enum wg_uapi_event kind;
	struct wg_devconf *conf;	/* SET: the request */
	struct wg_device_change change; /* SET: prepared on the control thread */
	struct wg_device_snapshot snap; /* GET: taken on the datapath */
	struct wg_devconf_buf text;	/* EXT_GET: written on the datapath */
	const struct wg_peer *ext_next; /* EXT_GET: the next peer to write */
	struct wg_retired retired;	/* the device's, taken when done: freed here */
	bool begun;			/* the first slice ran */
	int ret;
	unsigned int slices;		/* on the datapath, for the log */
	uint64_t first_ns;
	uint64_t slice_max_ns, slice_max_cpu_ns; /* wall clock; the thread's CPU time */
};

static void job_free(struct wg_control_job *job)
{
	if (!job)
		return;
	if (job->kind == WG_UAPI_SET)
		wg_device_change_deinit(&job->change);
	wg_devconf_free(job->conf);
	wg_device_snapshot_deinit(&job->snap);
	wg_devconf_buf_wipe(&job->text);
	wg_retired_free(&job->retired);
	cw_memzero(job, sizeof(*job));
	free(job);
}

/* Puts job in *slot for the other thread and wakes its loop. */
static void hand_over(struct wg_control *ctl, struct wg_control_job **slot,
		      struct wg_control_job *job, struct ev_loop *to, ev_async *w)
{
	pthread_mutex_lock(&ctl->lock);
	*slot = job;
	pthread_mutex_unlock(&ctl->lock);
	ev_async_send(to, w);
}

/* What the other thread put in *slot, or NULL. */
static struct wg_control_job *take(struct wg_control *ctl, struct wg_control_job **slot)
{
	struct wg_control_job *job;

	pthread_mutex_lock(&ctl->lock);
	job = *slot;
	*slot = NULL;
	pthread_mutex_unlock(&ctl->lock);
	return job;
}

/* --- the datapath's side --- */

/* The request's first slice: what may refuse it, before anything changed. */
static int job_begin(struct wg_control *ctl, struct wg_control_job *job, uint64_t now_ns)
{
	int ret;

	job->begun = true;
	switch (job->kind) {
	case WG_UAPI_SET:
		/* What may refuse it, before the underlay changes: after set_begin, only a
		 * lack of memory can fail the first slice. */
		ret = wg_device_change_check(ctl->dev, &job->change, now_ns);
		if (!ret)
			ret = ctl->ops.set_begin(ctl->ops.ctx, job->conf);
		return ret ? ret : wg_device_change_begin(ctl->dev, &job->change, now_ns);
	case WG_UAPI_GET:
		return wg_device_snapshot_init(ctl->dev, &job->snap);
	case WG_UAPI_EXT_GET:
		job->ext_next = ctl->dev->peers_head;
		return ctl->ops.ext_get(ctl->ops.ctx, &job->text);
	default:
		return -EINVAL;
	}
}

/* One bounded piece of work: WG_DEVICE_CONF_MORE, 0 when done, or -errno. */
static int job_step(struct wg_control *ctl, struct wg_control_job *job, uint64_t now_ns)
{
	if (!job->begun) {
		int ret = job_begin(ctl, job, now_ns);

		return ret ? ret : WG_DEVICE_CONF_MORE;
	}
	if (job->kind == WG_UAPI_SET)
		return wg_device_change_step(ctl->dev, &job->change, WG_CONTROL_STEP_UNITS, now_ns);
	if (job->kind == WG_UAPI_EXT_GET)
		return wg_device_ext_get_peers(&job->ext_next, WG_CONTROL_STEP_UNITS, &job->text);
	return wg_device_snapshot_step(ctl->dev, &job->snap, WG_CONTROL_STEP_UNITS);
}

static const char *const kind_name[] = {
	[WG_UAPI_GET] = "get", [WG_UAPI_SET] = "set", [WG_UAPI_EXT_GET] = "cakewg_get",
};

static void job_finish(struct wg_control *ctl, struct wg_control_job *job, int ret)
{
	job->ret = ret;
	/* A slice's CPU time is what it held the datapath for; the wall clock adds the
	 * time the thread was preempted inside it. */
	wg_log_debug("UAPI %s done on the datapath in %u slices over %llu us, the longest "
		     "%llu us on the CPU, %llu us on the wall clock",
		     kind_name[job->kind], job->slices,
		     (unsigned long long)(wg_mono_ns() - job->first_ns) / 1000,
		     (unsigned long long)job->slice_max_cpu_ns / 1000,
		     (unsigned long long)job->slice_max_ns / 1000);
	if (job->kind == WG_UAPI_SET)
		ctl->ops.set_end(ctl->ops.ctx, ret);
	/* Unmapping a table's old array takes milliseconds: the control thread does it. */
	wg_retired_move(&job->retired, &ctl->dev->retired);
	ctl->active = NULL;
	hand_over(ctl, &ctl->finished, job, ctl->loop, &ctl->done_w);
}

/* Works on the active request for at most WG_CONTROL_SLICE_NS, then lets the loop run
 * its packets before the next slice. */
static void slice_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct wg_control *ctl = w->data;
	struct wg_control_job *job = ctl->active;
	uint64_t now_ns = ctl->ops.now(ctl->ops.ctx);
	uint64_t start_ns = wg_mono_ns(), cpu_ns = wg_clock_read_ns(CLOCK_THREAD_CPUTIME_ID);
	int ret;

	(void)revents;
	if (!job)
		return;
	if (!job->slices++)
		job->first_ns = start_ns;
	do
		ret = job_step(ctl, job, now_ns);
	while (ret == WG_DEVICE_CONF_MORE && wg_mono_ns() < start_ns + WG_CONTROL_SLICE_NS);
	job->slice_max_ns = WG_MAX(job->slice_max_ns, wg_mono_ns() - start_ns);
	job->slice_max_cpu_ns =
		WG_MAX(job->slice_max_cpu_ns, wg_clock_read_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_ns);
	if (ret == WG_DEVICE_CONF_MORE) {
		ev_timer_set(w, 0., 0.);
		ev_timer_start(loop, w);
		return;
	}
	job_finish(ctl, job, ret);
}

static void post_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct wg_control *ctl = w->data;

	(void)revents;
	if (!ctl->active)
		ctl->active = take(ctl, &ctl->posted);
	if (ctl->active && !ev_is_active(&ctl->slice_w))
		slice_cb(loop, &ctl->slice_w, 0);
}

/* --- the control thread's side --- */

static void reply(struct wg_control *ctl, struct wg_control_job *job)
{
	bool trim = job->kind == WG_UAPI_SET;

	switch (job->kind) {
	case WG_UAPI_SET:
		/* Once the device took the change set's identity, it is the device's. */
		if (job->change.identity_applied)
			ctl->identity = job->change.identity;
		wg_uapi_server_reply_set(job->conn, job->ret);
		break;
	case WG_UAPI_GET:
		wg_uapi_server_reply_get(job->conn, job->ret ? NULL : job->snap.conf);
		if (!job->ret)
			job->snap.conf = NULL;
		break;
	default:
		wg_uapi_server_reply_ext_get(job->conn, &job->text, job->ret);
		break;
	}
	job_free(job);
	/* What a set freed goes back to the kernel here, not inside a free() on the
	 * datapath (src/edge/alloc.h). */
	if (trim)
		wg_alloc_trim();
}

/* Hands the next waiting request to the datapath, its change set built first. */
static void start_next(struct wg_control *ctl)
{
	while (!ctl->in_flight && ctl->queue_head) {
		struct wg_control_job *job = ctl->queue_head;

		ctl->queue_head = job->next;
		if (!ctl->queue_head)
			ctl->queue_tail = NULL;
		if (job->kind == WG_UAPI_SET) {
			job->ret = job->conf ? wg_device_change_prepare(&job->change, job->conf,
									&ctl->identity)
					     : -ENOMEM;
			if (job->ret) {
				reply(ctl, job);
				continue;
			}
		}
		ctl->in_flight = job;
		hand_over(ctl, &ctl->posted, job, ctl->dp_loop, &ctl->post_w);
	}
}

static void done_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct wg_control *ctl = w->data;
	struct wg_control_job *job = take(ctl, &ctl->finished);

	(void)loop;
	(void)revents;
	if (!job)
		return;
	ctl->in_flight = NULL;
	reply(ctl, job);
	start_next(ctl);
}

static void request_cb(void *ctx, struct conn *conn, enum wg_uapi_event ev,
		       struct wg_devconf *conf)
{
	struct wg_control *ctl = ctx;
	struct wg_control_job *job = calloc(1, sizeof(*job));

	if (!job) {
		if (ev == WG_UAPI_SET)
			wg_uapi_server_reply_set(conn, -ENOMEM);
		else if (ev == WG_UAPI_GET)
			wg_uapi_server_reply_get(conn, NULL);
		else
			wg_uapi_server_reply_ext_get(conn, &(struct wg_devconf_buf){0}, -ENOMEM);
		wg_devconf_free(conf);
		return;
	}
	job->conn = conn;
	job->kind = ev;
	job->conf = conf;
	if (ctl->queue_tail)
		ctl->queue_tail->next = job;
	else
		ctl->queue_head = job;
	ctl->queue_tail = job;
	start_next(ctl);
}

static void stop_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static void *thread_main(void *arg)
{
	struct wg_control *ctl = arg;

	/* Where the CPU is short, the datapath goes first: preparing a large set is a
	 * core's worth of X25519 for a while. */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), WG_CONTROL_NICE))
		wg_log_debug("Control thread keeps its priority: %s", strerror(errno));
	ev_run(ctl->loop, 0);
	return NULL;
}

/* The control thread takes no signals: they are the datapath loop's. */
static int spawn(struct wg_control *ctl)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&ctl->thread, NULL, thread_main, ctl);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int wg_control_open(struct wg_control *ctl, struct ev_loop *dp_loop, struct wg_device *dev,
		    const char *ifname, const struct wg_control_ops *ops)
{
	struct wg_uapi_handlers handlers = { .ctx = ctl, .request = request_cb };
	int ret;

	memset(ctl, 0, sizeof(*ctl));
	ctl->uapi.fd = -1;
	ctl->dp_loop = dp_loop;
	ctl->dev = dev;
	ctl->ops = *ops;
	ctl->identity = dev->identity;
	ctl->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	if (!ctl->loop)
		return -ENOMEM;
	pthread_mutex_init(&ctl->lock, NULL);
	ret = wg_uapi_server_start(&ctl->uapi, ctl->loop, ifname, &handlers);
	if (ret) {
		wg_control_stop(ctl);
		return ret;
	}
	ev_async_init(&ctl->done_w, done_cb);
	ev_async_init(&ctl->stop_w, stop_cb);
	ev_async_init(&ctl->post_w, post_cb);
	ev_timer_init(&ctl->slice_w, slice_cb, 0., 0.);
	ctl->done_w.data = ctl->stop_w.data = ctl->post_w.data = ctl->slice_w.data = ctl;
	ev_async_start(ctl->loop, &ctl->done_w);
	ev_async_start(ctl->loop, &ctl->stop_w);
	ev_async_start(dp_loop, &ctl->post_w);
	return 0;
}

int wg_control_run(struct wg_control *ctl)
{
	int ret = spawn(ctl);

	if (ret) {
		wg_log_err("Unable to start the control thread: %s", strerror(-ret));
		wg_control_stop(ctl);
		return ret;
	}
	ctl->running = true;
	return 0;
}

int wg_control_start(struct wg_control *ctl, struct ev_loop *dp_loop, struct wg_device *dev,
		     const char *ifname, const struct wg_control_ops *ops)
{
	int ret = wg_control_open(ctl, dp_loop, dev, ifname, ops);

	return ret ? ret : wg_control_run(ctl);
}

void wg_control_stop(struct wg_control *ctl)
{
	struct wg_control_job *job;

	if (!ctl->loop)
		return;
	if (ctl->running) {
		ev_async_send(ctl->loop, &ctl->stop_w);
		pthread_join(ctl->thread, NULL);
		ctl->running = false;
	}
	wg_uapi_server_stop(&ctl->uapi);
	ev_async_stop(ctl->dp_loop, &ctl->post_w);
	ev_timer_stop(ctl->dp_loop, &ctl->slice_w);
	/* Unanswered: their connections are closed. in_flight is posted, active or
	 * finished. */
	while ((job = ctl->queue_head)) {
		ctl->queue_head = job->next;
		job_free(job);
	}
	job_free(ctl->in_flight);
	ev_loop_destroy(ctl->loop);
	pthread_mutex_destroy(&ctl->lock);
	cw_memzero(&ctl->identity, sizeof(ctl->identity));
	memset(ctl, 0, sizeof(*ctl));
}
