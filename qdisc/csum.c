/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RFC 1071 section 2 makes the sum independent of byte order and of the word size it
 * is accumulated in: we add native 32-bit loads into a 64-bit accumulator, fold, and
 * swap the final 16 bits on little-endian hosts. Eight loads per iteration keep the
 * loop short for 64 KiB GSO payloads.
 */
#include "qdisc/csum.h"

#include <errno.h>
#include <string.h>

enum {
	WORD_BYTES = 4,
	BLOCK_BYTES = 32,
	IPV4_CHECK_OFFSET = 10,
	PSEUDO_V6_BYTES = 40,
};

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t fold64(uint64_t s)
{
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)s;
}

/* Native-order folded sum to network-order number. */
static inline uint16_t to_be_number(uint16_t s)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint16_t)((s << 8) | (s >> 8));
#else
	return s;
#endif
}

uint16_t cake_csum_partial(const void *buf, size_t len, uint16_t sum)
{
	const uint8_t *p = buf;
	uint64_t acc = 0;
	uint8_t tail[WORD_BYTES] = {0};

	while (len >= BLOCK_BYTES) {
		acc += (uint64_t)load32(p) + load32(p + 4) + load32(p + 8) + load32(p + 12);
		acc += (uint64_t)load32(p + 16) + load32(p + 20) + load32(p + 24) + load32(p + 28);
		p += BLOCK_BYTES;
		len -= BLOCK_BYTES;
	}
	while (len >= WORD_BYTES) {
		acc += load32(p);
		p += WORD_BYTES;
		len -= WORD_BYTES;
	}
	/* Zero padding at the end keeps an odd last byte in the high half of its word. */
	memcpy(tail, p, len);
	acc += load32(tail);
	return cake_csum_add(sum, to_be_number(fold64(acc)));
}

uint16_t cake_csum_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)((s & 0xffffu) + (s >> 16));
}

uint16_t cake_csum_sub(uint16_t a, uint16_t b)
{
	return cake_csum_add(a, (uint16_t)~b);
}

uint16_t cake_csum_pseudo_v4(const uint8_t saddr[4], const uint8_t daddr[4], uint8_t proto,
			     uint32_t l4_len)
{
	uint16_t s = cake_csum_partial(saddr, 4, 0);

	s = cake_csum_partial(daddr, 4, s);
	s = cake_csum_add(s, proto);
	s = cake_csum_add(s, (uint16_t)(l4_len >> 16));
	return cake_csum_add(s, (uint16_t)l4_len);
}

uint16_t cake_csum_pseudo_v6(const uint8_t saddr[16], const uint8_t daddr[16], uint8_t proto,
			     uint32_t l4_len)
{
	uint8_t ph[PSEUDO_V6_BYTES];

	memcpy(ph, saddr, 16);
	memcpy(ph + 16, daddr, 16);
	cake_put_be32(ph + 32, l4_len);
	cake_put_be32(ph + 36, proto);
	return cake_csum_partial(ph, sizeof(ph), 0);
}

uint16_t cake_csum_update16(uint16_t check, uint16_t old_word, uint16_t new_word)
{
	/* HC' = ~(~HC + ~m + m') */
	uint16_t s = cake_csum_add((uint16_t)~check, (uint16_t)~old_word);

	return (uint16_t)~cake_csum_add(s, new_word);
}

uint16_t cake_csum_update32(uint16_t check, uint32_t old_val, uint32_t new_val)
{
	check = cake_csum_update16(check, (uint16_t)(old_val >> 16), (uint16_t)(new_val >> 16));
	return cake_csum_update16(check, (uint16_t)old_val, (uint16_t)new_val);
}

void cake_csum_ipv4_header_set(uint8_t *iph, size_t ihl_bytes)
{
	cake_put_be16(iph + IPV4_CHECK_OFFSET, 0);
	cake_put_be16(iph + IPV4_CHECK_OFFSET,
		      cake_csum_finish(cake_csum_partial(iph, ihl_bytes, 0)));
}

int cake_csum_complete_partial(uint8_t *pkt, uint32_t len, uint16_t csum_start,
			       uint16_t csum_offset)
{
	uint32_t field = (uint32_t)csum_start + csum_offset;
	uint16_t check;

	if (field + CAKE_CSUM_FIELD_BYTES > len)
		return -EINVAL;
	check = cake_csum_finish(cake_csum_partial(pkt + csum_start, len - csum_start, 0));
	cake_put_be16(pkt + field, check ? check : CAKE_CSUM_MANGLED_0);
	return 0;
}
