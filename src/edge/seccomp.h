/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's system-call allowlist (libseccomp), loaded once its devices, sockets and
 * UAPI socket are open and its privileges dropped (src/edge/privdrop.h). The list is one
 * table in seccomp.c, a line per system call with the reason it is there: a new code
 * path that needs a new call adds a line.
 *
 * Anything outside the list kills the process (SCMP_ACT_KILL_PROCESS: the kernel logs
 * "audit: type=1326 ... comm="cakewg" ... sig=31 ... syscall=N"). CAKEWG_SECCOMP=log
 * lets such calls through and only logs them (sig=0), which lists every missing call of
 * a scenario in one run; CAKEWG_SECCOMP=off loads no filter.
 */
#ifndef CAKEWG_SRC_EDGE_SECCOMP_H
#define CAKEWG_SRC_EDGE_SECCOMP_H

enum wg_seccomp_mode {
	WG_SECCOMP_KILL, /* the default */
	WG_SECCOMP_LOG,
	WG_SECCOMP_OFF,
};

/* CAKEWG_SECCOMP's value: NULL or "kill", "log", "off"; -EINVAL for anything else. */
int wg_seccomp_mode_parse(const char *s, enum wg_seccomp_mode *out);
const char *wg_seccomp_mode_name(enum wg_seccomp_mode mode);
/* Loads the daemon's filter (sets no_new_privs); 0 or -errno. */
int wg_seccomp_load_daemon(enum wg_seccomp_mode mode);
/* The UAPI socket janitor's filter (src/edge/uapi_janitor.h): it waits, looks and unlinks. */
int wg_seccomp_load_janitor(void);
/*
 * Test hook, for tests/netns/test-privdrop.sh only: makes one system call that is not on
 * the list (mount(2) with no arguments, which fails harmlessly where it is allowed).
 */
void wg_seccomp_test_forbidden_call(void);

#endif
