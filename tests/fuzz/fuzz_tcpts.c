/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the passive delay extractor and the controller behind it. The
 * input is a run of records: a byte whose low bit is the direction and whose other bits
 * advance the clock (in ms), a byte of length, then that many packet bytes, each copied
 * to a buffer of exactly its size so ASan sees any read past it. Every 8 records the
 * summaries are taken and fed to two controllers, whose rates must stay in range.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/autorate.h"
#include "qdisc/tcpts.h"

static const struct cake_siphash_key key = {.k = {0xf022, 0x7c975}};

static void check_signal(const struct cake_signal *s)
{
	if (s->owd_flows > s->owd_samples || (!s->owd_samples && s->qdelay_us))
		__builtin_trap();
	if (s->rtt_samples && s->rtt_p50_us < s->rtt_min_us)
		__builtin_trap();
}

static void take(struct cake_tcpts *t, struct cake_autorate ar[2], uint64_t now)
{
	struct cake_signal sig[CAKE_TCPTS_DIRS];

	cake_tcpts_take(t, sig);
	for (int d = 0; d < CAKE_TCPTS_DIRS; d++) {
		struct cake_autorate_input in = {
			.sig = sig[d],
			.shaped_bytes = sig[d].delivered_bytes + (now & 0xffff),
			.backlogged = now & 1,
		};
		uint64_t r;

		check_signal(&sig[d]);
		r = cake_autorate_tick(&ar[d], &in, now);
		if (r < ar[d].cfg.min_rate || r > ar[d].cfg.max_rate)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cake_autorate_config cfg = {.min_rate = 125000, .max_rate = 12500000};
	struct cake_tcpts *t = cake_tcpts_new(16, &key);
	struct cake_autorate ar[2];
	struct cake_tcpts_stats st;
	uint64_t now = 1000000000;
	size_t off = 0;
	int n = 0;

	if (!t)
		return 0;
	for (int d = 0; d < 2; d++)
		if (cake_autorate_init(&ar[d], &cfg, now))
			__builtin_trap();
	while (off + 2 <= size) {
		uint8_t head = data[off], len = data[off + 1];
		uint8_t *p;

		off += 2;
		if (len > size - off)
			len = (uint8_t)(size - off);
		now += (uint64_t)(head >> 1) * 1000000;
		p = malloc(len ? len : 1);
		if (len)
			memcpy(p, data + off, len);
		cake_tcpts_packet(t, (enum cake_tcpts_dir)(head & 1), p, len, len + 60, now);
		free(p);
		off += len;
		if (++n % 8 == 0)
			take(t, ar, now);
	}
	take(t, ar, now + 1);
	cake_tcpts_get_stats(t, &st);
	if (st.flows > 16 || st.tcp_packets + st.ignored > st.packets)
		__builtin_trap();
	cake_tcpts_free(t);
	return 0;
}
