/* SPDX-License-Identifier: GPL-2.0-only */
#include "qdisc/cake_mq.h"

void cake_mq_touch(struct cake_mq_member *m, bool backlogged, uint64_t now_ns)
{
	m->last_active_ns = now_ns;
	m->backlogged = backlogged;
}

uint32_t cake_mq_count_active(struct cake_mq_member *members, uint32_t n, uint32_t self,
			      uint64_t now_ns)
{
	uint64_t since = members[self].last_check_ns;
	uint32_t active = 0;

	for (uint32_t i = 0; i < n; i++)
		if (members[i].backlogged || members[i].last_active_ns > since)
			active++;
	members[self].last_check_ns = now_ns;
	return active ? active : 1;
}

uint64_t cake_mq_share(uint64_t rate, uint32_t active)
{
	return active > 1 ? rate / active : rate;
}
