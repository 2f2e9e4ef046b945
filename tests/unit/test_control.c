/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control thread's hand-off (src/edge/control.h), through a real UAPI socket: a
 * large `set` is applied in slices while the datapath loop keeps iterating, a `get`
 * sent while it is applied sees all of it, a refused `set` changes nothing, and
 * cakewg_get=1 (its peers written in slices too) names every peer.
 * Needs root for /var/run/wireguard.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "src/edge/control.h"
#include "tests/support/device_pair.h"

enum {
	N_SET_PEERS = 5000,
	/* the datapath may be held this long at most, with a wide margin for a loaded
	 * machine: slices are WG_CONTROL_SLICE_NS; the whole set took ~300 ms at once */
	MAX_GAP_NS = 30 * 1000 * 1000,
	MIN_ITERATIONS = 2, /* the set took several slices: the loop ran in between */
};

static struct ev_loop *loop;
static struct wg_control ctl;
static ev_async quit_w;
static ev_check check_w;
static char ifname[16];
static atomic_bool applying;
static unsigned int iterations; /* of the datapath loop while a set was applied */
static uint64_t last_iter_ns, max_gap_ns;

/* what the client thread saw */
static int set_errno = 1, bad_errno = 1;
static long get_peers = -1, get_after_bad = -1, ext_peers = -1;

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t op_now(void *ctx)
{
	(void)ctx;
	return now;
}

static int op_set_begin(void *ctx, const struct wg_devconf *conf)
{
	(void)ctx;
	(void)conf;
	last_iter_ns = mono();
	atomic_store(&applying, true);
	return 0;
}

static void op_set_end(void *ctx, int ret)
{
	(void)ctx;
	(void)ret;
	atomic_store(&applying, false);
}

static int op_ext_get(void *ctx, struct wg_devconf_buf *out)
{
	(void)ctx;
	wg_devconf_buf_printf(out, "x=1\n");
	return 0;
}

/* Each loop iteration while a set is applied: how long the datapath waited. */
static void check_cb(struct ev_loop *l, ev_check *w, int revents)
{
	uint64_t t = mono();

	(void)l;
	(void)w;
	(void)revents;
	if (!atomic_load(&applying))
		return;
	iterations++;
	if (t - last_iter_ns > max_gap_ns)
		max_gap_ns = t - last_iter_ns;
	last_iter_ns = t;
}

static void quit_cb(struct ev_loop *l, ev_async *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(l, EVBREAK_ALL);
}

static int uapi_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/%s.sock", WG_UAPI_SOCKET_DIR, ifname);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	return fd;
}

static void send_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = send(fd, s, len, MSG_NOSIGNAL);

		cr_assert_gt(n, 0);
		s += n;
		len -= (size_t)n;
	}
}

/* Reads one reply (up to its blank line); returns its errno= and counts public_key=. */
static int read_reply(int fd, long *peers)
{
	static char buf[4 << 20];
	size_t len = 0;
	int err = 1;

	while (len < 2 || memcmp(buf + len - 2, "\n\n", 2)) {
		ssize_t n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);

		cr_assert_gt(n, 0, "the reply ended early");
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (peers) {
		*peers = 0;
		for (char *p = buf; (p = strstr(p, "public_key=")); p++)
			++*peers;
	}
	(void)sscanf(strstr(buf, "errno=") + 6, "%d", &err);
	return err;
}

static long get(const char *req)
{
	int fd = uapi_connect();
	long peers;

	send_all(fd, req, strlen(req));
	cr_assert_eq(read_reply(fd, &peers), 0);
	close(fd);
	return peers;
}

static void *client(void *arg)
{
	struct wg_devconf_buf req = {0};
	int fd = uapi_connect(), fd_get;

	(void)arg;
	wg_devconf_buf_printf(&req, "set=1\n");
	for (uint32_t i = 0; i < N_SET_PEERS; i++) {
		wg_devconf_buf_printf(&req, "public_key=");
		for (uint32_t j = 0; j < 8; j++)
			wg_devconf_buf_printf(&req, "%08x", (i + 1) * 2654435761U + j * 0x9e3779b9U);
		wg_devconf_buf_printf(&req, "\nallowed_ip=10.%u.%u.0/24\n", i >> 8, i & 0xff);
	}
	wg_devconf_buf_printf(&req, "\n");
	send_all(fd, req.data, req.len);
	/* once the datapath applies the set, a get: it waits for the whole set */
	while (!atomic_load(&applying))
		usleep(100);
	fd_get = uapi_connect();
	send_all(fd_get, "get=1\n\n", 7);
	set_errno = read_reply(fd, NULL);
	cr_assert_eq(read_reply(fd_get, &get_peers), 0);
	close(fd_get);
	/* refused by its CAKE options, with a new peer: nothing changes */
	wg_devconf_buf_wipe(&req);
	wg_devconf_buf_printf(&req, "set=1\ncake=bandwidth 20mbit autorate 80mbit 2mbit\n"
				    "public_key=%064x\n\n", 7);
	send_all(fd, req.data, req.len);
	bad_errno = read_reply(fd, NULL);
	get_after_bad = get("get=1\n\n");
	ext_peers = get("cakewg_get=1\n\n");
	close(fd);
	wg_devconf_buf_wipe(&req);
	ev_async_send(loop, &quit_w);
	return NULL;
}

Test(control, set_in_slices_and_get_after_it)
{
	struct wg_control_ops ops = { .now = op_now, .set_begin = op_set_begin,
				      .set_end = op_set_end, .ext_get = op_ext_get };
	pthread_t thread;

	if (geteuid() != 0)
		cr_skip_test("needs root for %s", WG_UAPI_SOCKET_DIR);
	now = 1000 * WG_NSEC_PER_SEC;
	side_init(&A, 1, 1);
	snprintf(ifname, sizeof(ifname), "ctl%05u", (unsigned int)getpid() % 100000);
	loop = ev_loop_new(EVFLAG_AUTO);
	ev_async_init(&quit_w, quit_cb);
	ev_async_start(loop, &quit_w);
	ev_check_init(&check_w, check_cb);
	ev_check_start(loop, &check_w);
	cr_assert_eq(wg_control_start(&ctl, loop, &A.dev, ifname, &ops), 0);
	cr_assert_eq(pthread_create(&thread, NULL, client, NULL), 0);
	ev_run(loop, 0);
	pthread_join(thread, NULL);
	wg_control_stop(&ctl);
	ev_loop_destroy(loop);

	cr_assert_eq(set_errno, 0);
	cr_assert_eq(A.dev.n_peers, N_SET_PEERS);
	cr_assert_eq(get_peers, N_SET_PEERS, "the get saw %ld peers: all or none", get_peers);
	cr_assert_geq(iterations, MIN_ITERATIONS, "the loop ran %u times during the set",
		      iterations);
	cr_assert_leq(max_gap_ns, MAX_GAP_NS, "the datapath was held for %llu us",
		      (unsigned long long)max_gap_ns / 1000);
	cr_log_info("set of %d peers: %u loop iterations, longest hold %llu us", N_SET_PEERS,
		    iterations, (unsigned long long)max_gap_ns / 1000);
	cr_assert_neq(bad_errno, 0);
	cr_assert_eq(get_after_bad, N_SET_PEERS, "a refused set changed nothing");
	cr_assert_eq(ext_peers, N_SET_PEERS, "cakewg_get=1 wrote every peer");
	wg_device_deinit(&A.dev);
}
