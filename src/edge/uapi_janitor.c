/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/uapi_janitor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/edge/caps.h"
#include "src/edge/seccomp.h"

static const char janitor_name[] = "cakewg-janitor";

/* The janitor's life: never returns. */
static void janitor(int fd, const char *path, const struct stat *ours)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2 };
	const struct wg_caps none = {0};
	struct stat now;
	char buf[64];
	ssize_t n;

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	(void)prctl(PR_SET_NAME, janitor_name, 0, 0, 0);
	if (fd > 0)
		close_range(0, (unsigned int)fd - 1, 0);
	close_range((unsigned int)fd + 1, ~0U, 0);
	if (wg_caps_set(&none) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    wg_seccomp_load_janitor())
		_exit(1);
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
	if (!lstat(path, &now) && now.st_dev == ours->st_dev && now.st_ino == ours->st_ino)
		unlink(path);
	_exit(0);
}

int wg_uapi_janitor_start(const char *path)
{
	struct stat ours;
	int p[2];
	pid_t pid;

	if (lstat(path, &ours) || pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		close(p[1]);
		janitor(p[0], path, &ours);
	}
	close(p[0]);
	return 0; /* p[1] stays open until the daemon exits */
}
