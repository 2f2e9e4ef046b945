/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's system-call filter, loaded in a child process: an allowed call goes
 * through (reading a file, an executable mapping of a file), a call outside the list (the
 * test hook's mount(2), an anonymous executable mapping, an ioctl other than SIOCOUTQ and
 * FIONREAD, an open for writing, any socket in the janitor) kills the child with SIGSYS,
 * a netlink socket is refused with EACCES, and log mode lets the same calls through. Needs no privilege: the filter sets
 * no_new_privs itself.
 */
#define _GNU_SOURCE
#include "src/edge/seccomp.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum what {
	ALLOWED,   /* getpid, write, an anonymous read-write mapping */
	FORBIDDEN, /* the test hook */
	EXEC_MAP,  /* anonymous mmap with PROT_EXEC */
	FILE_EXEC_MAP, /* mmap of a file with PROT_EXEC (an NSS module): allowed */
	IOCTL,	   /* FIONBIO: neither SIOCOUTQ nor FIONREAD */
	SOCKET,	   /* a UDP socket: allowed in the daemon, not in the janitor */
	NETLINK,   /* a netlink socket: refused with EACCES in the daemon */
	OPEN_READ, /* openat for reading: allowed (getaddrinfo's files) */
	OPEN_WRITE, /* openat for writing */
};

/* The child's exit, past the sanitizers' _exit interceptor (LeakSanitizer would trace
 * the process, which the filter forbids). */
static void leave(int status)
{
	syscall(SYS_exit_group, status);
}

static void act(enum what w, int fd)
{
	int n;

	switch (w) {
	case ALLOWED:
		if (getpid() <= 0 || write(fd, "x", 1) != 1 ||
		    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
			    MAP_FAILED)
			leave(2);
		break;
	case FORBIDDEN:
		wg_seccomp_test_forbidden_call();
		break;
	case EXEC_MAP:
		(void)mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case FILE_EXEC_MAP: {
		int f = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

		if (f < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0) == MAP_FAILED)
			leave(2);
		break;
	}
	case IOCTL:
		n = 1;
		(void)ioctl(fd, FIONBIO, &n);
		break;
	case OPEN_READ:
		if (open("/etc/hosts", O_RDONLY | O_CLOEXEC) < 0)
			leave(2);
		break;
	case OPEN_WRITE:
		(void)open("/dev/null", O_WRONLY | O_CLOEXEC);
		break;
	case SOCKET:
		(void)socket(AF_INET, SOCK_DGRAM, 0);
		break;
	case NETLINK:
		if (socket(AF_NETLINK, SOCK_RAW, 0) >= 0 || errno != EACCES)
			leave(4);
		break;
	}
}

/* The child's wait status after loading the filter (janitor's or the daemon's in
 * mode) and doing w. */
static int run(bool janitor, enum wg_seccomp_mode mode, enum what w)
{
	int p[2], st = 0;
	pid_t pid;

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		if (janitor ? wg_seccomp_load_janitor() : wg_seccomp_load_daemon(mode))
			_exit(3);
		act(w, p[1]);
		leave(0);
	}
	close(p[1]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	close(p[0]);
	return st;
}

static bool killed(int st)
{
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS;
}

Test(seccomp, mode_names)
{
	static const struct {
		const char *s;
		int ret;
		enum wg_seccomp_mode mode;
	} cases[] = {
		{ NULL, 0, WG_SECCOMP_KILL }, { "kill", 0, WG_SECCOMP_KILL },
		{ "log", 0, WG_SECCOMP_LOG },	  { "off", 0, WG_SECCOMP_OFF },
		{ "", -EINVAL, 0 },		  { "KILL", -EINVAL, 0 },
		{ "on", -EINVAL, 0 },		  { "log ", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum wg_seccomp_mode m = WG_SECCOMP_OFF;

		cr_expect_eq(wg_seccomp_mode_parse(cases[i].s, &m), cases[i].ret, "case %zu", i);
		if (!cases[i].ret) {
			cr_expect_eq(m, cases[i].mode, "case %zu", i);
			cr_expect_str_eq(wg_seccomp_mode_name(m), cases[i].s ? cases[i].s : "kill");
		}
	}
}

Test(seccomp, daemon_kill_mode)
{
	int st = run(false, WG_SECCOMP_KILL, ALLOWED);

	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "allowed calls: status %#x", st);
	cr_expect(killed(run(false, WG_SECCOMP_KILL, FORBIDDEN)), "mount(2) did not kill");
	cr_expect(killed(run(false, WG_SECCOMP_KILL, EXEC_MAP)), "PROT_EXEC did not kill");
	cr_expect(killed(run(false, WG_SECCOMP_KILL, IOCTL)), "FIONBIO did not kill");
	cr_expect(killed(run(false, WG_SECCOMP_KILL, OPEN_WRITE)), "open for writing did not kill");
	st = run(false, WG_SECCOMP_KILL, NETLINK);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "AF_NETLINK not refused: status %#x", st);
	st = run(false, WG_SECCOMP_KILL, SOCKET);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "socket(2): status %#x", st);
	st = run(false, WG_SECCOMP_KILL, OPEN_READ);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "open for reading: status %#x", st);
	st = run(false, WG_SECCOMP_KILL, FILE_EXEC_MAP);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a file's exec mapping: status %#x", st);
}

Test(seccomp, daemon_log_and_off_modes)
{
	static const enum what calls[] = { ALLOWED, FORBIDDEN, EXEC_MAP, IOCTL };

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		int log = run(false, WG_SECCOMP_LOG, calls[i]), off = run(false, WG_SECCOMP_OFF, calls[i]);

		cr_expect(WIFEXITED(log) && WEXITSTATUS(log) == 0, "log, call %zu: %#x", i, log);
		cr_expect(WIFEXITED(off) && WEXITSTATUS(off) == 0, "off, call %zu: %#x", i, off);
	}
}

Test(seccomp, janitor)
{
	cr_expect(killed(run(true, WG_SECCOMP_KILL, SOCKET)), "the janitor may open a socket");
	cr_expect(killed(run(true, WG_SECCOMP_KILL, FORBIDDEN)), "the janitor may mount");
}
