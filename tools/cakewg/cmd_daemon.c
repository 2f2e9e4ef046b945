/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg [-f|--foreground] [--user USER | --no-drop-privileges] [--listen-port PORT]
 * <ifname>: the wireguard-go invocation, so that
 * WG_QUICK_USERSPACE_IMPLEMENTATION=cakewg wg-quick up ... works unchanged. The
 * options also come from CAKEWG_USER and CAKEWG_LISTEN_PORT (src/edge/privdrop.h);
 * CAKEWG_SECCOMP picks the filter's mode (src/edge/seccomp.h).
 * Without -f (and without WG_PROCESS_FOREGROUND=1) the daemon detaches and logs to
 * syslog; the parent exits only once the interface and its UAPI socket exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/edge/caps.h"
#include "src/edge/daemon.h"
#include "src/edge/log.h"
#include "tools/cakewg/commands.h"

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s [-f/--foreground] [--user USER | --no-drop-privileges] "
		"[--listen-port PORT] INTERFACE-NAME\n",
		prog_name);
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

/* PORT for --listen-port or CAKEWG_LISTEN_PORT: 0..65535, digits only. */
static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (!s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > UINT16_MAX || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* The options before the interface name; false (usage printed) on a bad one. */
static bool parse_options(int argc, char *argv[], struct wg_daemon_opts *opts)
{
	const char *user = NULL, *port = getenv("CAKEWG_LISTEN_PORT");
	const char *seccomp = getenv("CAKEWG_SECCOMP");
	bool keep_root = false;
	int i;

	if (port && !*port)
		port = NULL; /* an empty variable is an unset one */
	for (i = 1; i < argc - 1 && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--foreground"))
			opts->foreground = true;
		else if (!strcmp(argv[i], "--no-drop-privileges"))
			keep_root = true;
		else if (!strcmp(argv[i], "--user") && i + 2 < argc)
			user = argv[++i];
		else if (!strcmp(argv[i], "--listen-port") && i + 2 < argc)
			port = argv[++i];
		else
			break;
	}
	if (i != argc - 1 || argv[i][0] == '-') {
		usage();
		return false;
	}
	opts->ifname = argv[i];
	if (parse_port(port, &opts->listen_port)) {
		fprintf(stderr, "%s: invalid listen port `%s' (0-65535)\n", prog_name, port);
		return false;
	}
	if (wg_seccomp_mode_parse(seccomp, &opts->seccomp)) {
		fprintf(stderr, "%s: CAKEWG_SECCOMP is `%s', not kill, log or off\n", prog_name,
			seccomp);
		return false;
	}
	wg_privdrop_conf_init(&opts->priv, user, keep_root, getenv("CAKEWG_USER"));
	/* Without a port at start, the port is still to come through the UAPI (stock
	 * wg-quick sets ListenPort after it starts the daemon): keep the right to bind one
	 * below 1024. A port given at start decides it. */
	opts->priv.bind_service =
		!port || (opts->listen_port && opts->listen_port < IPPORT_RESERVED);
	return true;
}

int daemon_main(int argc, char *argv[])
{
	struct wg_daemon_opts opts = { .ready_fd = -1 };
	const char *env = getenv("WG_PROCESS_FOREGROUND");

	opts.foreground = env && !strcmp(env, "1");
	if (!parse_options(argc, argv, &opts))
		return 1;
	if (strlen(opts.ifname) >= IFNAMSIZ || strchr(opts.ifname, '/')) {
		fprintf(stderr, "%s: invalid interface name `%s'\n", prog_name, opts.ifname);
		return 1;
	}
	if (!wg_caps_effective_has(CAP_NET_ADMIN)) {
		fprintf(stderr, "%s: creating a TUN device needs the CAP_NET_ADMIN capability\n",
			prog_name);
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
