/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg-sim's link mode: a tunnel endpoint before a link whose capacity follows a
 * trace (tools/sim/link_sim.h), with bulk TCP uploads and downloads, printed every
 * 100 ms and summed up at the end.
 */
#ifndef CAKEWG_TOOLS_CAKEWG_SIM_LINK_MODE_H
#define CAKEWG_TOOLS_CAKEWG_SIM_LINK_MODE_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/cake_options.h"
#include "tools/sim/link_sim.h"

struct link_mode {
	bool on;	    /* a link option was given */
	bool down_set;	    /* the downlink has its own trace */
	bool ingress_set;   /* --cake-ingress was given */
	bool flows_set;
	struct cake_options ingress;
	struct cake_link_config cfg;
};

void link_mode_init(struct link_mode *m);
/* 0 if the option was link mode's and good, -EINVAL (said on stderr) if bad, 1 if not its. */
int link_mode_option(struct link_mode *m, const char *name, const char *v);
/* Run and print; egress is --cake's options. duration 0: the longest trace. 0 or -errno. */
int link_mode_run(struct link_mode *m, const struct cake_options *egress, uint64_t duration_ns,
		  uint64_t seed);

#endif
