/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum rule {
	ANY,	 /* any arguments */
	NO_EXEC, /* the protection (argument 2 of mmap and mprotect) without PROT_EXEC */
	ARG0_IS, /* argument 0 (a socket's domain, an int: its low 32 bits) is .value */
	ARG1_IS, /* argument 1 (an ioctl's request) is .value */
	READ_ONLY, /* openat's flags (argument 2) open for reading only, and create nothing */
	FILE_EXEC, /* mmap with PROT_EXEC of a file (argument 4 is a descriptor) */
	REFUSE_ARG0, /* argument 0 is .value: refused with EACCES, not killed */
};

struct allowed {
	const char *name;
	enum rule rule;
	unsigned long value;
};

#define ALLOW(name) { name, ANY, 0 }
#define ALLOW_NO_EXEC(name) { name, NO_EXEC, 0 }
#define ALLOW_IOCTL(request) { "ioctl", ARG1_IS, request }
#define ALLOW_SOCKET(domain) { "socket", ARG0_IS, domain }
#define REFUSE_SOCKET(domain) { "socket", REFUSE_ARG0, domain }

/*
 * Every system call the daemon makes after the drop, x86_64 and arm64 names (a name the
 * architecture lacks is skipped). Grouped by who makes it.
 */
static const struct allowed daemon_calls[] = {
	/* libev's loop: epoll, its wake-up eventfd or pipe, signal delivery */
	ALLOW("epoll_wait"),
	ALLOW("epoll_pwait"),
	ALLOW("epoll_ctl"),
	ALLOW("rt_sigreturn"),
	/* the shaper's timer (src/edge/timerfd.c) */
	ALLOW("timerfd_settime"),
	/* clocks, when the vDSO falls back to the kernel */
	ALLOW("clock_gettime"),
	ALLOW("gettimeofday"),
	/* TUN reads and writes (vnet header and packet), UAPI connections, log lines */
	ALLOW("read"),
	ALLOW("readv"),
	ALLOW("write"),
	ALLOW("writev"),
	ALLOW("close"),
	/* underlay UDP: batched receive and send, GSO, the socket's own errors; sendto also
	 * for the ICMP errors' raw sockets (src/edge/icmp_out.c) and netlink's requests */
	ALLOW("recvmmsg"),
	ALLOW("recvmsg"),
	ALLOW("recvfrom"),
	ALLOW("sendmmsg"),
	ALLOW("sendmsg"),
	ALLOW("sendto"),
	/* what the underlay's send buffer holds (its byte limit, src/edge/udp.c) */
	ALLOW_IOCTL(SIOCOUTQ),
	/* rebinding on listen_port=, fwmark= (SO_MARK), the send-buffer limit; autorate's
	 * ICMP socket retried after a failure; syslog reconnecting to /dev/log */
	ALLOW_SOCKET(AF_INET), /* never a netlink socket: no new route or rule changes */
	ALLOW_SOCKET(AF_INET6),
	ALLOW_SOCKET(AF_UNIX), /* syslog */
	ALLOW("bind"),
	ALLOW("connect"),
	ALLOW("setsockopt"),
	ALLOW("getsockopt"),
	ALLOW("getsockname"),
	/* the UAPI socket: new connections; its file, unlinked on the way out */
	ALLOW("accept4"),
	ALLOW("unlink"),
	ALLOW("unlinkat"),
	/* memory: malloc and free (never executable) */
	ALLOW("brk"),
	ALLOW_NO_EXEC("mmap"),
	ALLOW_NO_EXEC("mprotect"),
	ALLOW("munmap"),
	ALLOW("mremap"),
	ALLOW("madvise"),
	ALLOW("futex"),
	/* the control thread (src/edge/control.c), started just before the filter: what
	 * glibc's thread start may still do after it, its nice value, its end and join */
	ALLOW("set_robust_list"),
	ALLOW("rseq"),
	ALLOW("gettid"),
	ALLOW("setpriority"),
	ALLOW("rt_sigprocmask"),
	/* the resolver thread's getaddrinfo (src/edge/resolver.c): the files it reads
	 * (nsswitch.conf, hosts, resolv.conf, gai.conf), its DNS sockets, the NSS modules it
	 * may load once (executable mappings of a file only: the daemon can create none) */
	{ "openat", READ_ONLY, 0 },
	ALLOW("lseek"),
	ALLOW("uname"), /* the host's name and domain, for search lists */
	ALLOW("poll"),
	ALLOW("ppoll"),
	ALLOW_IOCTL(FIONREAD),
	{ "mmap", FILE_EXEC, 0 },
	/* glibc sorts several answers by the local addresses, read over netlink: refused
	 * (the kept CAP_NET_ADMIN gets no new netlink socket), it sorts without them */
	REFUSE_SOCKET(AF_NETLINK),
	/* randomness (libsodium's randombytes_buf) */
	ALLOW("getrandom"),
	/* syslog's LOG_PID, stdio's first look at stderr */
	ALLOW("getpid"),
	ALLOW("newfstatat"),
	ALLOW("fstat"),
	/* the way out */
	ALLOW("exit"),
	ALLOW("exit_group"),
};

/* The janitor waits for its pipe to close, looks at the socket file and unlinks it. */
static const struct allowed janitor_calls[] = {
	ALLOW("read"),	  /* the pipe, until the daemon's end closes */
	ALLOW("newfstatat"), ALLOW("fstat"), ALLOW("lstat"), ALLOW("statx"), /* lstat(3) */
	ALLOW("unlink"),  ALLOW("unlinkat"), /* unlink(3) */
	ALLOW("exit"),	  ALLOW("exit_group"),
};

static const char *const mode_names[] = { "kill", "log", "off" };

const char *wg_seccomp_mode_name(enum wg_seccomp_mode mode)
{
	return mode_names[mode];
}

int wg_seccomp_mode_parse(const char *s, enum wg_seccomp_mode *out)
{
	if (!s) {
		*out = WG_SECCOMP_KILL;
		return 0;
	}
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(s, mode_names[i])) {
			*out = (enum wg_seccomp_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

static int add(scmp_filter_ctx ctx, const struct allowed *a)
{
	int nr = seccomp_syscall_resolve_name(a->name);

	if (nr == __NR_SCMP_ERROR)
		return 0; /* not a system call of this architecture */
	if (a->rule == ARG0_IS)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					SCMP_A0_32(SCMP_CMP_EQ, (uint32_t)a->value, 0));
	if (a->rule == ARG1_IS)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)a->value, 0));
	if (a->rule == NO_EXEC)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (a->rule == READ_ONLY)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					SCMP_A2_32(SCMP_CMP_MASKED_EQ,
						   O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND, O_RDONLY));
	if (a->rule == FILE_EXEC)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					SCMP_A4_32(SCMP_CMP_NE, (uint32_t)-1, 0));
	if (a->rule == REFUSE_ARG0)
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr, 1,
					SCMP_A0_32(SCMP_CMP_EQ, (uint32_t)a->value, 0));
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
}

static int load(const struct allowed *list, size_t n, uint32_t otherwise)
{
	scmp_filter_ctx ctx = seccomp_init(otherwise);
	/* Threads started before the load get the filter too (capabilities do not follow:
	 * drop before starting threads). */
	int ret = ctx ? seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) : -ENOMEM;

	for (size_t i = 0; !ret && i < n; i++)
		ret = add(ctx, &list[i]);
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	return ret;
}

int wg_seccomp_load_daemon(enum wg_seccomp_mode mode)
{
	if (mode == WG_SECCOMP_OFF)
		return 0;
	/* What libc loads on first use, it loads now: the time zone of the log lines'
	 * timestamps (localtime_r and syslog would open /etc/localtime later). */
	tzset();
	return load(daemon_calls, sizeof(daemon_calls) / sizeof(daemon_calls[0]),
		    mode == WG_SECCOMP_LOG ? SCMP_ACT_LOG : SCMP_ACT_KILL_PROCESS);
}

int wg_seccomp_load_janitor(void)
{
	return load(janitor_calls, sizeof(janitor_calls) / sizeof(janitor_calls[0]),
		    SCMP_ACT_KILL_PROCESS);
}

void wg_seccomp_test_forbidden_call(void)
{
	(void)syscall(SYS_mount, NULL, NULL, NULL, 0UL, NULL);
}
