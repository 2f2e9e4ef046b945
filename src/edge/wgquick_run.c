/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE /* pipe2 */
/*
 * The programs `cakewg up/down` runs: the hooks (bash), and the plumbing to run a child
 * (resolvconf(8) and resolvectl(1) too: dns.c) with some stdin and, optionally, its stdout
 * captured.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/edge/wgquick_priv.h"

enum {
	EXIT_SIGNALED_BASE = 128, /* a shell's status for a child killed by a signal */
};

static const char default_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

bool wg_quick_find_program(const char *name, char *path, size_t size)
{
	const char *dirs = getenv("PATH");
	struct stat st;

	if (!dirs || !*dirs)
		dirs = default_path;
	while (*dirs) {
		size_t len = strcspn(dirs, ":");
		int n = snprintf(path, size, "%.*s/%s", (int)len, len ? dirs : ".", name);

		if (n > 0 && (size_t)n < size && !stat(path, &st) && S_ISREG(st.st_mode) &&
		    !access(path, X_OK))
			return true;
		dirs += len;
		if (*dirs == ':')
			dirs++;
	}
	return false;
}

/* In the child: wire stdin/stdout, then exec; reports errno on report_fd if exec fails. */
static void child(char *const argv[], int in_fd, int out_fd, int report_fd)
{
	int err;

	signal(SIGPIPE, SIG_DFL);
	if (in_fd >= 0 && dup2(in_fd, STDIN_FILENO) < 0)
		_exit(127);
	if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	execvp(argv[0], argv);
	err = errno;
	(void)!write(report_fd, &err, sizeof(err));
	_exit(127);
}

/* stdin is a socket so that a child that stops reading cannot kill us with SIGPIPE. */
static int feed(int fd, const char *input)
{
	size_t len = strlen(input);

	while (len) {
		ssize_t n = send(fd, input, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		input += n;
		len -= (size_t)n;
	}
	return 0;
}

static void drain(int fd, struct wg_devconf_buf *output)
{
	char chunk[4096];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		wg_devconf_buf_append(output, chunk, (size_t)n);
	}
}

static int reap(pid_t pid, int report_fd, int *status)
{
	int st = 0, err = 0;
	ssize_t n;

	do
		n = read(report_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (n == sizeof(err))
		return -err;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_SIGNALED_BASE + WTERMSIG(st);
	return 0;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

int wg_quick_run(char *const argv[], const char *input, struct wg_devconf_buf *output, int *status)
{
	/* [0] our end of stdin, [1] its; [2] our end of stdout, [3] its; [4], [5] report */
	int fd[6] = {-1, -1, -1, -1, -1, -1}, ret = 0;
	pid_t pid;

	if ((input && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd)) ||
	    (output && pipe2(fd + 2, O_CLOEXEC)) || pipe2(fd + 4, O_CLOEXEC)) {
		ret = -errno;
		close_fds(fd, 6);
		return ret;
	}
	fflush(NULL); /* nothing buffered may be written twice */
	pid = fork();
	if (pid == 0)
		child(argv, fd[1], fd[3], fd[5]);
	if (pid < 0) {
		ret = -errno;
		close_fds(fd, 6);
		return ret;
	}
	close(fd[1]);
	close(fd[3]);
	close(fd[5]);
	fd[1] = fd[3] = fd[5] = -1;
	if (input) {
		(void)feed(fd[0], input); /* a child that reads nothing is its own business */
		close_fds(fd, 1);
	}
	if (output)
		drain(fd[2], output);
	ret = reap(pid, fd[4], status);
	close_fds(fd, 6);
	return ret;
}

char *wg_quick_hook_expand(const char *hook, const char *ifname)
{
	size_t ilen = strlen(ifname), n = 0, len = strlen(hook);
	const char *p;
	char *out, *o;

	for (p = strstr(hook, "%i"); p; p = strstr(p + 2, "%i"))
		n++;
	if (n && ilen > 2 && n > (SIZE_MAX - len - 1) / (ilen - 2))
		return NULL;
	out = malloc(len + n * (ilen > 2 ? ilen - 2 : 0) + 1);
	if (!out)
		return NULL;
	for (o = out; *hook;) {
		if (hook[0] == '%' && hook[1] == 'i') {
			memcpy(o, ifname, ilen);
			o += ilen;
			hook += 2;
		} else {
			*o++ = *hook++;
		}
	}
	*o = '\0';
	return out;
}

int wg_quick_run_hooks(struct wg_quick *q, const struct wg_devconf_strlist *hooks,
		       const char *phase)
{
	for (size_t i = 0; i < hooks->n; i++) {
		char *cmd = wg_quick_hook_expand(hooks->v[i], q->cfg.ifname);
		char *argv[] = {"bash", "-e", "-o", "pipefail", "-c", cmd, NULL};
		int status = 0, ret;

		if (!cmd)
			return wg_quick_fail(q, -ENOMEM, "out of memory");
		wg_quick_trace(q, "%s", cmd);
		ret = wg_quick_run(argv, NULL, NULL, &status);
		if (ret)
			ret = wg_quick_fail(q, ret, "%s: cannot run bash: %s", phase,
					    strerror(-ret));
		else if (status)
			ret = wg_quick_fail(q, -ECHILD, "%s failed with exit status %d: `%s'",
					    phase, status, cmd);
		free(cmd);
		if (ret)
			return ret;
	}
	return 0;
}
