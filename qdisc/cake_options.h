/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration of one CAKE instance, as tc-cake(8) states it. The option-string
 * parser fills it; cake_configure() consumes it. Units follow the kernel's netlink
 * attributes: rate in bytes per second, times in microseconds.
 */
#ifndef CAKEWG_QDISC_CAKE_OPTIONS_H
#define CAKEWG_QDISC_CAKE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* Values as the kernel's enum (TCA_CAKE_DIFFSERV_MODE). */
enum cake_diffserv_mode {
	CAKE_DIFFSERV_DIFFSERV3 = 0,
	CAKE_DIFFSERV_DIFFSERV4,
	CAKE_DIFFSERV_DIFFSERV8,
	CAKE_DIFFSERV_BESTEFFORT,
	CAKE_DIFFSERV_PRECEDENCE,
};

/* Values as the kernel's flow-mode flags (TCA_CAKE_FLOW_MODE): SRC_IP=1, DST_IP=2, FLOWS=4. */
enum cake_flow_mode {
	CAKE_FLOW_NONE = 0,  /* flowblind */
	CAKE_FLOW_SRC_IP = 1, /* srchost */
	CAKE_FLOW_DST_IP = 2, /* dsthost */
	CAKE_FLOW_HOSTS = 3,  /* hosts */
	CAKE_FLOW_FLOWS = 4,  /* flows */
	CAKE_FLOW_DUAL_SRC = 5,
	CAKE_FLOW_DUAL_DST = 6,
	CAKE_FLOW_TRIPLE = 7, /* triple-isolate */
	CAKE_FLOW_MODE_MASK = 7,
};

enum cake_ack_filter_mode {
	CAKE_ACK_NONE = 0,
	CAKE_ACK_FILTER,
	CAKE_ACK_AGGRESSIVE,
};

enum cake_atm_mode {
	CAKE_ATM_NONE = 0,
	CAKE_ATM_ATM, /* ceil(len / 48) * 53 */
	CAKE_ATM_PTM, /* len + ceil(len / 64) */
};

/* Which fields an option string set; tc's `change` leaves the others as they were. */
enum cake_option_bits {
	CAKE_OPT_RATE = 1u << 0,
	CAKE_OPT_AUTORATE = 1u << 1,
	CAKE_OPT_RTT = 1u << 2,
	CAKE_OPT_DIFFSERV = 1u << 3,
	CAKE_OPT_FLOW_MODE = 1u << 4,
	CAKE_OPT_NAT = 1u << 5,
	CAKE_OPT_WASH = 1u << 6,
	CAKE_OPT_INGRESS = 1u << 7,
	CAKE_OPT_ACK_FILTER = 1u << 8,
	CAKE_OPT_SPLIT_GSO = 1u << 9,
	CAKE_OPT_OVERHEAD = 1u << 10, /* overhead, raw and the framing keywords */
	CAKE_OPT_MPU = 1u << 11,
	CAKE_OPT_ATM = 1u << 12,
	CAKE_OPT_MEMLIMIT = 1u << 13,
	CAKE_OPT_FWMARK = 1u << 14,
	CAKE_OPT_PEER_ISOLATION = 1u << 15,
	CAKE_OPT_AUTORATE_RANGE = 1u << 16, /* autorate MIN MAX, autorate off */
	CAKE_OPT_AUTORATE_TARGET = 1u << 17, /* autorate-target TIME */
};

struct cake_options {
	uint32_t present;              /* enum cake_option_bits */
	uint64_t rate_bytes_per_sec;   /* 0 = unlimited */
	bool autorate_ingress;
	uint32_t rtt_us;               /* interval; target = rtt / 20 (at least 1 us) */
	uint32_t target_us;
	enum cake_diffserv_mode diffserv;
	enum cake_flow_mode flow_mode;
	bool nat;
	bool wash;
	bool ingress;
	enum cake_ack_filter_mode ack_filter;
	bool split_gso;
	bool raw;                      /* no overhead keyword: count the length as given */
	int32_t overhead;              /* -64 .. 256 bytes, added per packet when !raw */
	uint32_t mpu;                  /* 0 .. 256 bytes */
	enum cake_atm_mode atm;
	uint64_t memlimit_bytes;       /* 0 = the kernel's default formula */
	uint32_t fwmark_mask;          /* accepted and stored; no effect in cakewg */
	/* cakewg extension: the "host" of host isolation is the WireGuard peer. */
	bool peer_isolation;
	/*
	 * cakewg extension: `autorate MIN MAX` — the shaper follows a link whose capacity
	 * changes, between MIN and MAX (bytes/s), driven by qdisc/autorate.h from the
	 * tunnel's own signals; rate_bytes_per_sec is the start rate. The CAKE instance
	 * itself only stores these; the device that owns the instance runs the controller.
	 */
	bool autorate;
	uint64_t autorate_min, autorate_max;
	uint32_t autorate_target_us; /* the queueing delay allowed; 0: the controller's default */
};

#endif
