/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the link-event parser: the input is what one recv() on the
 * RTMGRP_LINK socket returned, copied to a buffer of exactly its size so ASan sees any
 * read past it. The parser must answer a count or -EINVAL, deliver exactly as many
 * events as it counts (never more than the headers that fit), each for a real interface
 * index with a terminated name, and nothing at all for a buffer larger than a receive.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/edge/netlink.h"
#include "src/edge/netlink_priv.h"

struct seen {
	int events;
};

static void on_event(void *ctx, const struct wg_nl_link_event *e)
{
	struct seen *s = ctx;

	if (e->kind != WG_NL_LINK_CHANGED && e->kind != WG_NL_LINK_DELETED)
		__builtin_trap();
	if (e->ifindex == 0 || e->ifindex > INT32_MAX)
		__builtin_trap();
	if (strnlen(e->name, sizeof(e->name)) == sizeof(e->name))
		__builtin_trap();
	s->events++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* malloc's alignment covers NLMSG_ALIGNTO, as a receive buffer's does. */
	uint8_t *buf = malloc(size ? size : 1);
	struct seen s = {0};
	int ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	ret = wg_netlink_events_parse(buf, size, on_event, &s);
	if (ret != -EINVAL && ret < 0)
		__builtin_trap();
	if (ret >= 0 && ret != s.events)
		__builtin_trap();
	if ((size_t)s.events > size / NLMSG_HDRLEN)
		__builtin_trap();
	if (size > WG_NL_RX_BYTES && (ret != -EINVAL || s.events))
		__builtin_trap(); /* no receive is larger */
	free(buf);
	return 0;
}
