/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The UAPI socket janitor. The socket lives in root's /var/run/wireguard (mode 0755), so
 * a daemon that has dropped to an unprivileged user can no longer unlink it when it
 * exits, and wg(8), `cakewg down` and the tests expect it gone. Before the drop the
 * daemon forks this janitor: it keeps uid 0 (the directory's owner, which needs no
 * capability to remove an entry) but drops every capability, sets no_new_privs, loads
 * a filter of a few system calls, closes every file descriptor but the read end of a pipe
 * and ignores the signals that end the daemon. When the daemon exits, however it exits
 * (SIGKILL and a seccomp kill included), the pipe closes and the janitor unlinks the
 * socket file, if it is still the daemon's (same device and inode), then exits. It
 * reads nothing but that pipe and is named "cakewg-janitor" in ps and /proc/PID/comm.
 */
#ifndef CAKEWG_SRC_EDGE_UAPI_JANITOR_H
#define CAKEWG_SRC_EDGE_UAPI_JANITOR_H

/* Forks the janitor for the socket at path; returns 0 or -errno. The daemon keeps the
 * pipe's write end (close-on-exec) open until it exits. */
int wg_uapi_janitor_start(const char *path);

#endif
