/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the inner-packet dissector and what runs on its output: the
 * input is one packet, copied to a buffer of exactly its size so ASan sees any read
 * past it. Whatever parses must describe a transport header inside the packet; the
 * ACK filter runs over a queue of that packet and its copies; ECN marking and
 * decapsulation must keep a valid IPv4 header checksum valid. The ICMP error a packet
 * no peer holds would get (src/core/icmp_error.h), which reads it with the dissector's
 * walk, must stay within its size, carry valid checksums and quote the packet.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/ackfilter.h"
#include "qdisc/csum.h"
#include "qdisc/ecn.h"
#include "qdisc/flowkey.h"
#include "src/core/icmp_error.h"

static const struct cake_siphash_key key = { .k = { 0x5eed, 0xf00d } };

static void check_parse(const struct cake_pkt *p, enum cake_flowkey_verdict v, size_t size)
{
	if (v > CAKE_FLOWKEY_NOT_IP || p->len != size)
		__builtin_trap();
	if ((uint32_t)p->l4_offset + p->l4_hdr_len > size)
		__builtin_trap();
	if ((p->flags & (CAKE_PKT_TCP | CAKE_PKT_UDP)) && (v != CAKE_FLOWKEY_OK || !p->l4_offset))
		__builtin_trap();
	if ((p->flags & CAKE_PKT_PURE_ACK) && !(p->flags & CAKE_PKT_TCP))
		__builtin_trap();
}

static bool ipv4_csum_ok(const uint8_t *d, size_t size)
{
	size_t ihl = (size_t)(d[0] & 0x0f) * 4;

	return size >= 20 && d[0] >> 4 == 4 && ihl >= 20 && ihl <= size &&
	       cake_csum_partial(d, ihl, 0) == 0xffff;
}

static void check_ecn(uint8_t *d, size_t size)
{
	bool ok_before = ipv4_csum_ok(d, size);

	if (cake_ecn_set_ce(d, (uint32_t)size) && cake_ecn_get(d, (uint32_t)size) != CAKE_ECN_CE)
		__builtin_trap();
	(void)cake_ecn_decapsulate(d, (uint32_t)size, (uint8_t)(size & 3));
	if (ok_before && !ipv4_csum_ok(d, size))
		__builtin_trap();
}

static void check_icmp_error(const uint8_t *d, size_t size)
{
	struct wg_ipaddr src = {.family = AF_INET6, .bytes = {0xfd, [15] = 1}};
	uint8_t out[WG_ICMP_ERROR_MAX];
	enum wg_icmp_error_verdict v;
	size_t len, hdr;
	uint16_t sum;

	if (size && d[0] >> 4 == 4)
		src = (struct wg_ipaddr){.family = AF_INET, .bytes = {10, 0, 0, 1}};
	v = wg_icmp_error_build(d, size, &src, out, &len);
	if (v != wg_icmp_error_check(d, size) || (v != WG_ICMP_ERROR_BUILT && len))
		__builtin_trap();
	if (v != WG_ICMP_ERROR_BUILT)
		return;
	hdr = src.family == AF_INET ? 20 : 40;
	if (len > (src.family == AF_INET ? WG_ICMP_ERROR_MAX_V4 : WG_ICMP_ERROR_MAX_V6) ||
	    len <= hdr + WG_ICMP_ERROR_HDR_BYTES || len - hdr - WG_ICMP_ERROR_HDR_BYTES > size ||
	    memcmp(out + hdr + WG_ICMP_ERROR_HDR_BYTES, d, len - hdr - WG_ICMP_ERROR_HDR_BYTES))
		__builtin_trap();
	sum = cake_csum_partial(out + hdr, len - hdr, 0);
	if (src.family == AF_INET6)
		sum = cake_csum_add(sum, cake_csum_pseudo_v6(out + 8, out + 24, 58,
							     (uint32_t)(len - hdr)));
	else if (!ipv4_csum_ok(out, len))
		__builtin_trap();
	if (sum != 0xffff)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cake_pkt p[3], *prev;
	uint8_t *copy[3];
	enum cake_flowkey_verdict v;

	if (size > 0x20000)
		return 0;
	for (int i = 0; i < 3; i++) {
		copy[i] = malloc(size ? size : 1);
		if (size)
			memcpy(copy[i], data, size);
		memset(&p[i], 0, sizeof(p[i]));
		v = cake_flowkey_parse(&p[i], copy[i], (uint32_t)size, &key);
		check_parse(&p[i], v, size);
		p[i].next = i < 2 ? &p[i + 1] : NULL;
	}
	if (p[0].flow_hash != p[1].flow_hash || p[0].src_hash != p[2].src_hash)
		__builtin_trap();
	for (int mode = CAKE_ACK_NONE; mode <= CAKE_ACK_AGGRESSIVE; mode++) {
		struct cake_pkt *drop = cake_ack_filter(&p[0], &p[2], mode, &prev);

		if (drop && drop != &p[0] && drop != &p[1])
			__builtin_trap();
	}
	check_icmp_error(copy[1], size);
	check_ecn(copy[0], size);
	for (int i = 0; i < 3; i++)
		free(copy[i]);
	return 0;
}
