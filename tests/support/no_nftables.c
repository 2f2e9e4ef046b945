/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LD_PRELOAD for tests/netns/test-firewall.sh: this process sees a kernel without
 * nf_tables (a NETLINK_NETFILTER socket fails with EPROTONOSUPPORT, as without
 * nfnetlink), so `cakewg up` takes its iptables-restore fallback. Its children (the
 * daemon, iptables-restore) see the real kernel: the variable is gone before main().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <sys/socket.h>

__attribute__((constructor)) static void forget(void)
{
	unsetenv("LD_PRELOAD");
}

int socket(int domain, int type, int protocol)
{
	int (*real)(int, int, int) = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");

	if (domain == AF_NETLINK && protocol == NETLINK_NETFILTER) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real(domain, type, protocol);
}
