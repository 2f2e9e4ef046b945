/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The arithmetic of CAKE's deficit-mode shaper: a rate held as fixed-point nanoseconds
 * per byte, and the per-packet link-layer compensation (overhead, MPU, ATM cells, PTM
 * 64/65 encoding) that turns a packet length into the bytes the bottleneck really
 * carries. The schedule itself (time of the next packet) lives with the scheduler.
 */
#ifndef CAKEWG_QDISC_SHAPER_H
#define CAKEWG_QDISC_SHAPER_H

#include <stdint.h>

#include "qdisc/cake_options.h"

enum cake_shaper_constants {
	/* rate_ns carries at most this many significant bits ... */
	CAKE_RATE_NS_BITS = 34,
	/* ... and rates below this many bytes per second are treated as this rate, so a
	 * packet never waits for ever. */
	CAKE_MIN_RATE_BYTES_PER_SEC = 64,
	/* ATM: a cell carries 48 payload bytes in 53 bytes on the line. */
	CAKE_ATM_CELL_PAYLOAD_BYTES = 48,
	CAKE_ATM_CELL_BYTES = 53,
	/* PTM (VDSL2 64/65 encoding): one byte per started 64 bytes. */
	CAKE_PTM_BLOCK_BYTES = 64,
};

/*
 * struct cake_rate - a shaping rate
 * @bytes_per_sec: the configured rate, 0 = unlimited
 * @rate_ns:       nanoseconds per byte, scaled up by 2^@rate_shft (0 if unlimited)
 * @rate_shft:     the scale of @rate_ns
 * The time a packet of len bytes occupies the link is (len * rate_ns) >> rate_shft.
 */
struct cake_rate {
	uint64_t bytes_per_sec;
	uint64_t rate_ns;
	uint8_t rate_shft;
};

/* Set *r to bytes_per_sec (0 = unlimited). */
void cake_rate_set(struct cake_rate *r, uint64_t bytes_per_sec);

/* How long len bytes occupy a link at rate r, truncated; 0 when unlimited. */
static inline uint64_t cake_rate_duration_ns(const struct cake_rate *r, uint32_t len)
{
	return ((uint64_t)len * r->rate_ns) >> r->rate_shft;
}

/*
 * The same, carrying the truncated fraction in *frac (in units of 2^-rate_shft ns) to
 * the next call. The kernel drops the fraction, which runs small packets at 10 Gbit/s
 * about 1% fast; carrying it keeps the long-run rate exact. *frac must be reset to 0
 * whenever the rate changes. len must stay below 2^29 bytes.
 */
static inline uint64_t cake_rate_advance_ns(const struct cake_rate *r, uint64_t *frac, uint32_t len)
{
	uint64_t scaled = (uint64_t)len * r->rate_ns + *frac;

	*frac = scaled & ((UINT64_C(1) << r->rate_shft) - 1);
	return scaled >> r->rate_shft;
}

/*
 * struct cake_framing - link-layer compensation
 * @overhead: bytes added to every packet (may be negative)
 * @mpu:      minimum packet unit: shorter packets count as this long
 * @atm:      cell framing applied after overhead and MPU
 */
struct cake_framing {
	int32_t overhead;
	uint32_t mpu;
	enum cake_atm_mode atm;
};

/*
 * The length the shaper charges for one packet of net_len bytes, as the kernel's
 * cake_calc_overhead: net_len + overhead, raised to mpu, then ATM cells
 * (ceil(len / 48) * 53) or PTM (len + ceil(len / 64)). A negative overhead larger
 * than the packet yields 0 before MPU (the kernel would wrap around).
 */
uint32_t cake_framing_adjust(const struct cake_framing *f, uint32_t net_len);

#endif
