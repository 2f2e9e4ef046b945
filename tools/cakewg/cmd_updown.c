/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg up | down | strip [ CONFIG_FILE | INTERFACE ]: wg-quick(8) for cakewg. The
 * work is in src/edge/wgquick*.c; this file parses the command line, catches the
 * signals that must interrupt `up` cleanly, and prints the one-line error.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/edge/wgquick.h"
#include "tools/cakewg/commands.h"


static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void usage(FILE *f, const char *cmd)
{
	fprintf(f,
		"Usage: %s %s [ CONFIG_FILE | INTERFACE ]\n\n"
		"  CONFIG_FILE is a configuration file, whose filename is the interface name\n"
		"  followed by `.conf'. Otherwise, INTERFACE is an interface name, with\n"
		"  configuration found at /etc/wireguard/INTERFACE.conf. The file is read as\n"
		"  wg-quick(8) reads it, with cakewg's Cake and CakeIngress keys in [Interface].\n",
		prog_name, cmd);
}

typedef int (*quick_fn)(const char *arg, const struct wg_quick_opts *opts, char *err,
			size_t err_size);

/* Returns -1 when argv is a valid call, else the exit code to return. */
static int check_args(int argc, char *argv[])
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout, argv[0]);
		return 0;
	}
	if (argc != 2) {
		usage(stderr, argv[0]);
		return 1;
	}
	return -1;
}

static int run(int argc, char *argv[], quick_fn fn)
{
	struct wg_quick_opts opts = {
		.daemon_exe = "/proc/self/exe",
		.config_dir = "/etc/wireguard",
		.trace = stderr,
		.interrupted = &interrupted,
	};
	char err[WG_QUICK_MSG_SIZE];
	int ret = check_args(argc, argv);

	if (ret >= 0)
		return ret;
	if (geteuid() != 0) {
		fprintf(stderr, "%s: %s must be run as root\n", prog_name, argv[0]);
		return 1;
	}
	catch_signals();
	if (fn(argv[1], &opts, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog_name, err);
		return 1;
	}
	return 0;
}

int up_main(int argc, char *argv[])
{
	return run(argc, argv, wg_quick_up);
}

int down_main(int argc, char *argv[])
{
	return run(argc, argv, wg_quick_down);
}

int strip_main(int argc, char *argv[])
{
	struct wg_quick_opts opts = {.config_dir = "/etc/wireguard", .trace = stderr};
	char err[WG_QUICK_MSG_SIZE];
	int ret = check_args(argc, argv);

	if (ret >= 0)
		return ret;
	if (wg_quick_strip(argv[1], &opts, stdout, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog_name, err);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
