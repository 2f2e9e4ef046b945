/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nf_tables through libnftnl (the netfilter project's library over libmnl): a firewall
 * plan (src/core/fwrules.h) made into one transaction, and the tables of an interface
 * found and deleted. Every call opens its own NETLINK_NETFILTER socket and closes it: the
 * tables are kernel state that outlives us (they carry no owner flag), which is what keeps
 * a kill switch in place when the daemon dies.
 *
 * Errors are negative errnos. nf_tables being absent shows as -EPROTONOSUPPORT (no
 * nfnetlink), -EOPNOTSUPP (no nf_tables subsystem) or -EAFNOSUPPORT;
 * wg_nft_unavailable() tells those from a refused request.
 */
#ifndef CAKEWG_SRC_EDGE_NFT_H
#define CAKEWG_SRC_EDGE_NFT_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/compiler.h"
#include "src/core/fwrules.h"

/* True when err says that the kernel has no nf_tables for us. */
WG_MUST_CHECK bool wg_nft_unavailable(int err);

/*
 * Which of ifname's tables (wg_fwrules_table_names) exist: bit (1 << family) of
 * *present for each. Returns 0 or a negative errno.
 */
int wg_nft_find(const char *ifname, unsigned int *present);

/*
 * The fwmark in the postmangle rule of ifname's first wg-quick table among present (what
 * a crashed run's policy rules look up). Returns 0, -ENOENT or a negative errno.
 */
int wg_nft_fwmark(const char *ifname, unsigned int present, uint32_t *fwmark);

/*
 * One transaction: deletes the tables of ifname named by the bits of remove (as
 * wg_nft_find reports them), then adds every table, chain and rule of plan (NULL: none).
 * All of it or none of it happens. Returns 0 or a negative errno.
 */
int wg_nft_commit(const char *ifname, unsigned int remove, const struct wg_fw_plan *plan);

#endif
