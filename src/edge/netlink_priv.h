/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals shared by netlink.c (requests) and netlink_dump.c (dumps, snapshot and link
 * events). Not part of the edge's API.
 */
#ifndef CAKEWG_SRC_EDGE_NETLINK_PRIV_H
#define CAKEWG_SRC_EDGE_NETLINK_PRIV_H

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/compiler.h"
#include "src/edge/netlink.h"

enum {
	/* Requests are a header and a few attributes; names are bounded by IFNAMSIZ. */
	WG_NL_REQ_BYTES = 512,
	/* Large enough for any dump part: the kernel sizes them to at most 32 KiB. */
	WG_NL_RX_BYTES = 32768,
	WG_NL_ADDR_MAX_BYTES = 16,
};

/* A request under construction, aligned for struct nlmsghdr. */
union wg_nl_req {
	struct nlmsghdr hdr;
	uint8_t buf[WG_NL_REQ_BYTES];
};

/*
 * Called once per answer message of the current request. Returns 0 or -errno; after an
 * error, the rest of the answer is still read (and ignored) so that nothing stale stays
 * in the socket.
 */
typedef int (*wg_nl_msg_fn)(const struct nlmsghdr *nlh, void *data);

/* Builds the header of a request of `type` with NLM_F_REQUEST | flags. */
struct nlmsghdr *wg_netlink_put_req(union wg_nl_req *req, uint16_t type, uint16_t flags);
/* Sends nlh (adding NLM_F_ACK unless it is a dump) and reads the whole answer. */
int wg_netlink_talk(struct wg_nl *nl, struct nlmsghdr *nlh, wg_nl_msg_fn fn, void *data);

/*
 * Fills tb[0..max] with the attributes after a fixed header of hdr_len bytes; unknown
 * types are skipped. -EINVAL if the message is shorter than its fixed header.
 */
int wg_netlink_parse(const struct nlmsghdr *nlh, size_t hdr_len, const struct nlattr **tb,
		     uint16_t max);
/*
 * Typed, validated attribute reads: false (and *out untouched) when absent or malformed.
 * Not WG_MUST_CHECK on purpose: for optional attributes the caller keeps its default.
 */
bool wg_netlink_attr_u32(const struct nlattr *a, uint32_t *out);
bool wg_netlink_attr_u8(const struct nlattr *a, uint8_t *out);
bool wg_netlink_attr_str(const struct nlattr *a, char *out, size_t cap);
/* An address of `family` (4 or 16 bytes) into out[16], zero-padded. */
bool wg_netlink_attr_addr(const struct nlattr *a, uint8_t family,
			  uint8_t out[WG_NL_ADDR_MAX_BYTES]);

/* RTAX_MTU inside an RTA_METRICS nest; false when absent (or 0) or malformed. */
bool wg_netlink_metrics_mtu(const struct nlattr *metrics, uint32_t *mtu);

/*
 * Whether a complete message starts at nlh with `rest` bytes left. Unlike
 * mnl_nlmsg_ok(), safe for any nlmsg_len (it compares unsigned): a huge length must
 * not wrap the walk around to the same message forever.
 */
static inline bool wg_netlink_msg_ok(const struct nlmsghdr *nlh, size_t rest)
{
	return rest >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) && nlh->nlmsg_len <= rest;
}

/* The message after nlh; *rest shrinks (to 0 at most) by its aligned length. */
static inline const struct nlmsghdr *wg_netlink_msg_next(const struct nlmsghdr *nlh, size_t *rest)
{
	size_t step = NLMSG_ALIGN((size_t)nlh->nlmsg_len);

	step = step < *rest ? step : *rest;
	*rest -= step;
	return (const struct nlmsghdr *)((const uint8_t *)nlh + step);
}

/* Address bytes of a family: 4, 16, or 0 for anything else. */
size_t wg_netlink_addr_len(uint8_t family);

#endif
