/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * N CAKE instances sharing one rate (qdisc/cake_mq.h), as N workers of a multi-core
 * cakewg would: on virtual time, each instance is fed by a greedy source that is on or
 * off for exponentially distributed periods, recounts its active siblings every sync
 * period (the instances' phases staggered) and shapes at its share. Measured: the bytes
 * all instances sent against what the set rate allows over the time when at least one
 * instance had something to send. Pure and deterministic.
 */
#ifndef CAKEWG_TOOLS_SIM_MQ_SIM_H
#define CAKEWG_TOOLS_SIM_MQ_SIM_H

#include <stdint.h>

#include "qdisc/cake_compiler.h"
#include "qdisc/cake_mq.h"

struct cake_mq_sim_config {
	uint32_t instances;	     /* 1..CAKE_MQ_MAX_MEMBERS */
	uint64_t rate_bytes_per_sec; /* the one set rate */
	uint32_t pkt_bytes;	     /* every packet's wire size */
	uint64_t sync_ns;	     /* 0: CAKE_MQ_SYNC_NS */
	uint64_t on_ns, off_ns;	     /* mean on and off periods; off 0: always on */
	uint64_t duration_ns, warmup_ns;
	uint64_t seed;
};

struct cake_mq_sim_result {
	uint64_t busy_ns;	     /* measured time with at least one source backlogged */
	uint64_t sent_bytes;	     /* by all instances, over the measured time */
	double error;		     /* sent / (rate x busy) - 1 */
	double worst_window_error;   /* the same over each 10 ms window, largest magnitude */
	uint64_t rate_changes;	     /* share updates that changed an instance's rate */
	uint64_t per_instance_bytes[CAKE_MQ_MAX_MEMBERS];
};

/* 0, or -EINVAL (bad configuration) or -ENOMEM. */
int cake_mq_sim_run(const struct cake_mq_sim_config *cfg,
		    struct cake_mq_sim_result *res) CAKE_MUST_CHECK;

#endif
