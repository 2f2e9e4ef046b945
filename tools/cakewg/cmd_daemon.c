/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg [-f|--foreground] <ifname>: the wireguard-go invocation, so that
 * WG_QUICK_USERSPACE_IMPLEMENTATION=cakewg wg-quick up ... works unchanged.
 * Without -f (and without WG_PROCESS_FOREGROUND=1) the daemon detaches and logs to
 * syslog; the parent exits only once the interface and its UAPI socket exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/edge/daemon.h"
#include "src/edge/log.h"
#include "tools/cakewg/commands.h"

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-f/--foreground] INTERFACE-NAME\n", prog_name);
}

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

/* Forks the daemon; returns the parent's exit code once the child is ready or failed. */
static int run_detached(struct wg_daemon_opts *opts)
{
	int pipefd[2];
	char c;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		setsid();
		if (chdir("/"))
			_exit(1);
		detach_stdio();
		wg_log_init(opts->ifname, true);
		opts->ready_fd = pipefd[1];
		_exit(wg_daemon_run(opts));
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) == 1)
		return 0;
	/* The child died before it was ready: report its status. */
	{
		int status = 0;

		waitpid(pid, &status, 0);
		fprintf(stderr, "%s: failed to bring up %s (see the system log)\n", prog_name,
			opts->ifname);
	}
	return 1;
}

int daemon_main(int argc, char *argv[])
{
	struct wg_daemon_opts opts = { .ready_fd = -1 };
	const char *env = getenv("WG_PROCESS_FOREGROUND");
	int i = 1;

	opts.foreground = env && !strcmp(env, "1");
	if (argc == 3 && (!strcmp(argv[1], "-f") || !strcmp(argv[1], "--foreground"))) {
		opts.foreground = true;
		i = 2;
	} else if (argc != 2 || argv[1][0] == '-') {
		usage();
		return 1;
	}
	opts.ifname = argv[i];
	if (strlen(opts.ifname) >= IFNAMSIZ || strchr(opts.ifname, '/')) {
		fprintf(stderr, "%s: invalid interface name `%s'\n", prog_name, opts.ifname);
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "%s: creating a TUN device needs root (CAP_NET_ADMIN)\n", prog_name);
		return 1;
	}
	if (opts.foreground) {
		if (wg_log_init(opts.ifname, false))
			fprintf(stderr, "%s: unknown LOG_LEVEL `%s' (verbose, error, silent)\n",
				prog_name, getenv("LOG_LEVEL"));
		return wg_daemon_run(&opts);
	}
	return run_detached(&opts);
}
