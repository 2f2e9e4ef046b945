/* SPDX-License-Identifier: GPL-2.0-only */
/* Rate arithmetic and link-layer compensation for CAKE's shaper. */
#include "qdisc/shaper.h"

/*
 * rate_ns = 2^34 * 1e9 / rate, then halved (and the shift lowered) until it fits in 34
 * bits, so (len * rate_ns) stays well inside 64 bits for any 32-bit length.
 */
void cake_rate_set(struct cake_rate *r, uint64_t bytes_per_sec)
{
	const uint64_t ns_per_sec = 1000000000;
	uint64_t rate_ns = 0;
	uint8_t shft = 0;

	if (bytes_per_sec) {
		uint64_t rate = bytes_per_sec;

		if (rate < CAKE_MIN_RATE_BYTES_PER_SEC)
			rate = CAKE_MIN_RATE_BYTES_PER_SEC;
		shft = CAKE_RATE_NS_BITS;
		rate_ns = (ns_per_sec << shft) / rate;
		while (rate_ns >> CAKE_RATE_NS_BITS) {
			rate_ns >>= 1;
			shft--;
		}
	}
	r->bytes_per_sec = bytes_per_sec;
	r->rate_ns = rate_ns;
	r->rate_shft = shft;
}

uint32_t cake_framing_adjust(const struct cake_framing *f, uint32_t net_len)
{
	int64_t signed_len = (int64_t)net_len + f->overhead;
	uint64_t len = signed_len > 0 ? (uint64_t)signed_len : 0;

	if (len < f->mpu)
		len = f->mpu;

	if (f->atm == CAKE_ATM_ATM) {
		len = (len + CAKE_ATM_CELL_PAYLOAD_BYTES - 1) / CAKE_ATM_CELL_PAYLOAD_BYTES;
		len *= CAKE_ATM_CELL_BYTES;
	} else if (f->atm == CAKE_ATM_PTM) {
		/* one byte per 64 or part thereof: conservative and cheap, as the kernel */
		len += (len + CAKE_PTM_BLOCK_BYTES - 1) / CAKE_PTM_BLOCK_BYTES;
	}
	return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}
