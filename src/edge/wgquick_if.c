/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE /* EAI_NODATA */
/*
 * The interface side of `cakewg up/down`: starting the daemon (wg-quick's add_if
 * fallback to a userspace implementation), talking UAPI to it (set_config, `wg show`,
 * `wg set fwmark`), resolving endpoints as wg(8) does, and deleting the link.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "src/core/uapi_reply.h"
#include "src/core/uapi_set_write.h"
#include "src/edge/uapi_client.h"
#include "src/edge/uapi_server.h"
#include "src/edge/wgquick_priv.h"

enum {
	/* wg(8)'s parse_dns_retries() default, and its back-off: 1 s, x1.2, at most 20 s. */
	RESOLVE_RETRIES_DEFAULT = 15,
	RESOLVE_FIRST_WAIT_US = 1000000,
	RESOLVE_MAX_WAIT_US = 20000000,
	/* How long down waits for the daemon to let go of its socket. */
	SOCKET_GONE_WAIT_MS = 3000,
	SOCKET_POLL_MS = 20,
	US_PER_MS = 1000,
	NS_PER_US = 1000,
	US_PER_SEC = 1000000,
	EXEC_FAILED = 127, /* the shell's status for a command that cannot run */
};

static const char default_daemon[] = "/proc/self/exe";

/* The ListenPort (0 without one) is bound at start, so the daemon knows at its drop of
 * root whether it must keep the capability to bind a port below 1024
 * (src/edge/privdrop.h). */
static void pass_listen_port(const struct wg_devconf *conf)
{
	char port[sizeof("65535")];

	snprintf(port, sizeof(port), "%u",
		 conf->flags & WG_DEVCONF_HAS_LISTEN_PORT ? conf->listen_port : 0);
	setenv("CAKEWG_LISTEN_PORT", port, 1);
}

int wg_quick_start_daemon(struct wg_quick *q)
{
	const char *exe = q->opts->daemon_exe ? q->opts->daemon_exe : default_daemon;
	char *argv[] = {"cakewg", q->cfg.ifname, NULL};
	struct wg_nl_link link;
	int st = 0, ret;
	pid_t pid;

	wg_quick_trace(q, "cakewg %s", q->cfg.ifname);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* The daemon must detach, or up would wait for it forever. Its errors go
		 * to the system log; ours is the one line the user sees. */
		unsetenv("WG_PROCESS_FOREGROUND");
		pass_listen_port(q->conf);
		signal(SIGPIPE, SIG_DFL);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		if (!strcmp(exe, default_daemon)) {
			/* By its real path, so that the process is `cakewg' to ps and pgrep
			 * (the kernel names it after the file it executes: "exe"). */
			char self[PATH_MAX];
			ssize_t n = readlink(default_daemon, self, sizeof(self) - 1);

			if (n > 0) {
				self[n] = '\0';
				execv(self, argv);
			}
		}
		execv(exe, argv);
		_exit(EXEC_FAILED);
	}
	if (pid < 0)
		return wg_quick_fail(q, -errno, "fork: %s", strerror(errno));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return wg_quick_fail(q, -errno, "waitpid: %s", strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXEC_FAILED)
		return wg_quick_fail(q, -ENOEXEC, "cannot run the daemon `%s'", exe);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return wg_quick_fail(q, -ECHILD,
				     "the daemon for `%s' did not start (see the system log)",
				     q->cfg.ifname);
	ret = wg_netlink_link_get(q->nl, q->cfg.ifname, &link);
	if (ret)
		return wg_quick_fail(q, ret, "the daemon started, but `%s' is missing: %s",
				     q->cfg.ifname, strerror(-ret));
	q->ifindex = link.ifindex;
	q->have_if = true;
	return 0;
}

int wg_quick_parse_retries(const char *env, int *retries)
{
	char *end;
	unsigned long v;

	if (!env) {
		*retries = RESOLVE_RETRIES_DEFAULT;
		return 0;
	}
	if (!strcmp(env, "infinity")) {
		*retries = -1;
		return 0;
	}
	errno = 0;
	v = strtoul(env, &end, 10);
	if (!*env || *end || errno || v > INT32_MAX || env[0] == '-' || env[0] == '+' ||
	    env[0] == ' ')
		return -EINVAL;
	*retries = (int)v;
	return 0;
}

static const char *gai_reason(int ret, int saved_errno)
{
	return ret == EAI_SYSTEM ? strerror(saved_errno) : gai_strerror(ret);
}

static bool permanent(int ret)
{
	return ret == EAI_NONAME || ret == EAI_FAIL
#ifdef EAI_NODATA
	       || ret == EAI_NODATA
#endif
		;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = {.tv_sec = us / US_PER_SEC,
			      .tv_nsec = (long)(us % US_PER_SEC) * NS_PER_US};

	nanosleep(&ts, NULL); /* a signal cuts it short; the caller checks */
}

static int resolve_one(struct wg_quick *q, struct wg_devconf_peer *peer, int retries)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP};
	bool v6 = strchr(peer->endpoint_host, ':');
	char port[8], value[WG_DEVCONF_HOST_SIZE + 16];
	struct addrinfo *res = NULL;
	int ret;

	snprintf(port, sizeof(port), "%u", peer->endpoint_port);
	snprintf(value, sizeof(value), "%s%s%s:%u", v6 ? "[" : "", peer->endpoint_host,
		 v6 ? "]" : "", peer->endpoint_port);
	for (unsigned int wait = RESOLVE_FIRST_WAIT_US;;
	     wait = WG_MIN(RESOLVE_MAX_WAIT_US, wait * 6 / 5)) {
		ret = getaddrinfo(peer->endpoint_host, port, &hints, &res);
		if (!ret)
			break;
		if (permanent(ret) || (retries >= 0 && !retries--))
			return wg_quick_fail(q, -EHOSTUNREACH, "%s: `%s'", gai_reason(ret, errno),
					     value);
		if (q->opts->trace)
			fprintf(q->opts->trace, "%s: `%s'. Trying again in %.2f seconds...\n",
				gai_reason(ret, errno), value, wait / (double)US_PER_SEC);
		sleep_us(wait);
		if (wg_quick_check_interrupt(q))
			return q->ret;
	}
	ret = 0;
	if (res->ai_family == AF_INET && res->ai_addrlen == sizeof(struct sockaddr_in))
		memcpy(&peer->endpoint.addr4, res->ai_addr, sizeof(struct sockaddr_in));
	else if (res->ai_family == AF_INET6 && res->ai_addrlen == sizeof(struct sockaddr_in6))
		memcpy(&peer->endpoint.addr6, res->ai_addr, sizeof(struct sockaddr_in6));
	else
		ret = wg_quick_fail(q, -EAFNOSUPPORT, "Neither IPv4 nor IPv6 address found: `%s'",
				    value);
	freeaddrinfo(res);
	if (!ret)
		peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
	return ret;
}

int wg_quick_resolve_endpoints(struct wg_quick *q, int retries)
{
	for (size_t i = 0; i < q->conf->n_peers; i++) {
		struct wg_devconf_peer *peer = q->conf->peers[i];
		int ret;

		if (!(peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST) ||
		    (peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT))
			continue;
		ret = resolve_one(q, peer, retries);
		if (ret)
			return ret;
	}
	return 0;
}

/* One request to the daemon; the reply is handed over in *reply (wipe it). */
static int request(struct wg_quick *q, const struct wg_devconf_buf *req,
		   struct wg_devconf_buf *reply, const char *what)
{
	int remote = 0, ret;

	ret = wg_uapi_client_request(q->cfg.ifname, req->data, req->len, reply, &remote);
	if (ret)
		return wg_quick_fail(q, ret, "cannot talk to the daemon of `%s': %s", q->cfg.ifname,
				     strerror(-ret));
	if (remote)
		return wg_quick_fail(q, remote, "Unable to %s interface: %s", what,
				     strerror(-remote));
	return 0;
}

static int set_request(struct wg_quick *q, const struct wg_devconf_buf *req)
{
	struct wg_devconf_buf reply = {0};
	int ret = request(q, req, &reply, "modify");

	wg_devconf_buf_wipe(&reply);
	return ret;
}

int wg_quick_set_config(struct wg_quick *q)
{
	const char *env = getenv("WG_ENDPOINT_RESOLUTION_RETRIES");
	struct wg_devconf_buf req = {0};
	int retries, ret;

	if (wg_quick_parse_retries(env, &retries))
		return wg_quick_fail(q, -EINVAL,
				     "Unable to parse WG_ENDPOINT_RESOLUTION_RETRIES: `%s'", env);
	ret = wg_quick_resolve_endpoints(q, retries);
	if (ret)
		return ret;
	wg_quick_trace(q, "wg addconf %s <%s> (one UAPI set=1)", q->cfg.ifname, q->cfg.path);
	ret = wg_uapi_set_write(q->conf, &req);
	if (ret)
		wg_quick_fail(q, ret, "cannot write the UAPI request: %s", strerror(-ret));
	else
		ret = set_request(q, &req);
	wg_devconf_buf_wipe(&req);
	return ret;
}

int wg_quick_get_live(struct wg_quick *q)
{
	static const char get[] = "get=1\n\n";
	struct wg_devconf_buf req = {.data = (char *)get, .len = sizeof(get) - 1};
	struct wg_devconf_buf reply = {0};
	int ret = request(q, &req, &reply, "access");

	wg_devconf_free(q->live);
	q->live = NULL;
	if (!ret) {
		ret = wg_uapi_reply_get_parse(reply.data, reply.len, &q->live);
		if (ret)
			wg_quick_fail(q, ret, "unreadable answer from the daemon of `%s': %s",
				      q->cfg.ifname, strerror(-ret));
	}
	wg_devconf_buf_wipe(&reply);
	return ret;
}

int wg_quick_cake_get(struct wg_quick *q, struct wg_uapi_reply_cake *out)
{
	static const char req[] = "cakewg_get=1\n\n";
	struct wg_devconf_buf reply = {0};
	int remote = 0, ret;

	memset(out, 0, sizeof(*out));
	ret = wg_uapi_client_request(q->cfg.ifname, req, sizeof(req) - 1, &reply, &remote);
	if (!ret)
		ret = remote ? remote : wg_uapi_reply_cake_parse(reply.data, reply.len, out);
	wg_devconf_buf_wipe(&reply);
	return ret;
}

int wg_quick_set_fwmark(struct wg_quick *q, uint32_t fwmark)
{
	struct wg_devconf_buf req = {0};
	int ret;

	wg_quick_trace(q, "wg set %s fwmark %u", q->cfg.ifname, fwmark);
	wg_devconf_buf_printf(&req, "set=1\nfwmark=%u\n\n", fwmark);
	ret = req.failed ? wg_quick_fail(q, -ENOMEM, "out of memory") : set_request(q, &req);
	wg_devconf_buf_wipe(&req);
	if (!ret) {
		q->live->fwmark = fwmark;
		q->live->flags |= WG_DEVCONF_HAS_FWMARK;
	}
	return ret;
}

/* The daemon exits when its link goes; a new `up` must not find the old socket. */
static void wait_socket_gone(const char *ifname)
{
	char path[PATH_MAX];
	struct stat st;

	if (wg_uapi_socket_path(path, sizeof(path), ifname))
		return;
	for (int ms = 0; ms < SOCKET_GONE_WAIT_MS; ms += SOCKET_POLL_MS) {
		if (stat(path, &st) && errno == ENOENT)
			return;
		sleep_us(SOCKET_POLL_MS * US_PER_MS);
	}
}

int wg_quick_delete_link(struct wg_quick *q)
{
	int ret;

	wg_quick_trace(q, "ip link delete dev %s", q->cfg.ifname);
	ret = wg_netlink_link_delete(q->nl, q->cfg.ifname);
	if (ret)
		return wg_quick_fail(q, ret, "cannot delete `%s': %s", q->cfg.ifname,
				     strerror(-ret));
	q->have_if = false;
	wait_socket_gone(q->cfg.ifname);
	return 0;
}
