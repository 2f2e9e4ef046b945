/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The calling thread's capability sets, through the raw capget/capset system calls of
 * linux/capability.h (version 3: two 32-bit words per set). No libcap: the daemon needs
 * only to read three masks and to write three, never capability text, and one package
 * fewer is one dependency fewer to audit.
 */
#ifndef CAKEWG_SRC_EDGE_CAPS_H
#define CAKEWG_SRC_EDGE_CAPS_H

#include <stdbool.h>
#include <stdint.h>

/* Bit (1 << CAP_x) for each capability; the kernel's numbers are below 64. */
struct wg_caps {
	uint64_t effective;
	uint64_t permitted;
	uint64_t inheritable;
};

#define WG_CAP_BIT(cap) (UINT64_C(1) << (cap))

/* 0 or -errno. */
int wg_caps_get(struct wg_caps *out);
int wg_caps_set(const struct wg_caps *caps);
/* Whether the capability is in the effective set (false when it cannot be read). */
bool wg_caps_effective_has(int cap);

#endif
