/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg-sim's mq mode: N CAKE instances sharing one rate (tools/sim/mq_sim.h), the
 * aggregate's error against the set rate, per instance what it sent.
 */
#ifndef CAKEWG_TOOLS_CAKEWG_SIM_MQ_MODE_H
#define CAKEWG_TOOLS_CAKEWG_SIM_MQ_MODE_H

#include <stdbool.h>

#include "qdisc/cake_options.h"
#include "tools/sim/mq_sim.h"

struct mq_mode {
	bool on; /* --mq was given */
	struct cake_mq_sim_config cfg;
};

void mq_mode_init(struct mq_mode *m);
/* 0 if the option was mq mode's and good, -EINVAL (said on stderr) if bad, 1 if not its. */
int mq_mode_option(struct mq_mode *m, const char *name, const char *v);
/* Run and print at --cake's rate. 0 or -errno (said on stderr). */
int mq_mode_run(struct mq_mode *m, const struct cake_options *cake, uint64_t duration_ns,
		uint64_t warmup_ns, uint64_t seed);

#endif
