/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The header walk is the dissector's (qdisc/flowkey.c), so that what an error may answer
 * is read the way CAKE reads the packet; the sums are qdisc/csum.c's.
 */
#include "src/core/icmp_error.h"

#include <string.h>

#include "qdisc/csum.h"
#include "src/core/pkt.h"

enum {
	IPV4_VERSION_IHL5 = 0x45,
	IPV4_TOS_MASK = 0x1e, /* RFC 1349's TOS bits: kept, as Linux keeps RT_TOS() */
	IPV4_TOTLEN_OFFSET = 2,
	IPV4_TTL_OFFSET = 8,
	IPV4_PROTO_OFFSET = 9,
	IPV6_VERSION = 0x60,
	IPV6_PLEN_OFFSET = 4,
	IPV6_NEXTHDR_OFFSET = 6,
	IPV6_HOPLIMIT_OFFSET = 7,
	ICMP_CODE_OFFSET = 1,
	ICMP_CHECK_OFFSET = 2,
	IPV4_MULTICAST_NIBBLE = 0xe, /* 224.0.0.0/4 */
	IPV4_CLASS_E_NIBBLE = 0xf,   /* 240.0.0.0/4, 255.255.255.255 among them */
	IPV4_THIS_NET = 0,	     /* 0.0.0.0/8 */
	IPV4_LOOPBACK_NET = 127,     /* 127.0.0.0/8 */
	IPV6_MULTICAST_BYTE = 0xff,  /* ff00::/8 */
};

static const uint8_t ipv6_unspecified[WG_IPADDR_V6_LEN];
static const uint8_t ipv6_loopback[WG_IPADDR_V6_LEN] = {[15] = 1};
static const uint8_t ipv4_broadcast[WG_IPADDR_V4_LEN] = {0xff, 0xff, 0xff, 0xff};

/* An IPv4 source that names a single host: not 0/8, 127/8, multicast or class E. */
static bool ipv4_source_ok(const uint8_t *a)
{
	return a[0] != IPV4_THIS_NET && a[0] != IPV4_LOOPBACK_NET &&
	       a[0] >> 4 != IPV4_MULTICAST_NIBBLE && a[0] >> 4 != IPV4_CLASS_E_NIBBLE;
}

static bool ipv4_dest_ok(const uint8_t *a)
{
	return a[0] >> 4 != IPV4_MULTICAST_NIBBLE && memcmp(a, ipv4_broadcast, WG_IPADDR_V4_LEN);
}

static bool ipv6_source_ok(const uint8_t *a)
{
	return a[0] != IPV6_MULTICAST_BYTE && memcmp(a, ipv6_unspecified, WG_IPADDR_V6_LEN) &&
	       memcmp(a, ipv6_loopback, WG_IPADDR_V6_LEN);
}

/* Whether the ICMP (ICMPv6) message of type `type` is one an error must not answer. */
static bool is_error_type(bool v6, uint8_t type)
{
	if (v6)
		return type < WG_ICMPV6_INFO_MIN_TYPE || type == WG_ICMPV6_REDIRECT;
	return type > WG_ICMP_MAX_KNOWN_TYPE || type == WG_ICMP_DEST_UNREACH ||
	       type == WG_ICMP_SOURCE_QUENCH || type == WG_ICMP_REDIRECT ||
	       type == WG_ICMP_TIME_EXCEEDED || type == WG_ICMP_PARAMETERPROB;
}

/* What the headers of the packet allow: BUILT when it may be answered. */
static enum wg_icmp_error_verdict check(const uint8_t *pkt, size_t len,
					struct cake_flowkey_hdrs *h)
{
	bool v6;
	const uint8_t *src, *dst;

	if (len > UINT32_MAX || cake_flowkey_dissect(pkt, (uint32_t)len, h) != CAKE_FLOWKEY_OK)
		return WG_ICMP_ERROR_MALFORMED;
	v6 = h->family == 6;
	src = pkt + (v6 ? WG_IPV6_SRC_OFFSET : WG_IPV4_SRC_OFFSET);
	dst = pkt + (v6 ? WG_IPV6_DST_OFFSET : WG_IPV4_DST_OFFSET);
	if (h->later_fragment)
		return WG_ICMP_ERROR_REFUSED;
	if (v6 ? !ipv6_source_ok(src) || dst[0] == IPV6_MULTICAST_BYTE
	       : !ipv4_source_ok(src) || !ipv4_dest_ok(dst))
		return WG_ICMP_ERROR_REFUSED;
	if (h->proto == (v6 ? CAKE_IPPROTO_ICMPV6 : CAKE_IPPROTO_ICMP)) {
		if (h->l3_len >= h->ip_len)
			return WG_ICMP_ERROR_MALFORMED; /* no type byte to judge it by */
		if (is_error_type(v6, pkt[h->l3_len]))
			return WG_ICMP_ERROR_REFUSED;
	}
	return WG_ICMP_ERROR_BUILT;
}

/* The ICMP header and the quote at icmp; returns their sum (without a pseudo-header). */
static uint16_t put_icmp(uint8_t *icmp, uint8_t type, uint8_t code, const uint8_t *pkt,
			 size_t quote)
{
	memset(icmp, 0, WG_ICMP_ERROR_HDR_BYTES);
	icmp[0] = type;
	icmp[ICMP_CODE_OFFSET] = code;
	memcpy(icmp + WG_ICMP_ERROR_HDR_BYTES, pkt, quote);
	return cake_csum_partial(icmp, WG_ICMP_ERROR_HDR_BYTES + quote, 0);
}

/* Where the two families differ. */
struct family {
	size_t hdr_bytes, max_bytes, src_offset, dst_offset, addr_bytes;
	uint8_t type, code;
};

static const struct family ipv4 = {CAKE_IPV4_HDR_BYTES, WG_ICMP_ERROR_MAX_V4, WG_IPV4_SRC_OFFSET,
				   WG_IPV4_DST_OFFSET, WG_IPADDR_V4_LEN, WG_ICMP_DEST_UNREACH,
				   WG_ICMP_HOST_UNREACH};
static const struct family ipv6 = {CAKE_IPV6_HDR_BYTES, WG_ICMP_ERROR_MAX_V6, WG_IPV6_SRC_OFFSET,
				   WG_IPV6_DST_OFFSET, WG_IPADDR_V6_LEN, WG_ICMPV6_DEST_UNREACH,
				   WG_ICMPV6_ADDR_UNREACH};

/* The IPv4 header: ID 0 (the kernel picks one), no DF; its checksum. */
static void ipv4_header(uint8_t *out, const uint8_t *pkt, size_t total)
{
	out[0] = IPV4_VERSION_IHL5;
	out[1] = (uint8_t)(WG_ICMP_ERROR_TOS | (pkt[1] & IPV4_TOS_MASK));
	cake_put_be16(out + IPV4_TOTLEN_OFFSET, (uint16_t)total);
	out[IPV4_TTL_OFFSET] = WG_ICMP_ERROR_TTL;
	out[IPV4_PROTO_OFFSET] = CAKE_IPPROTO_ICMP;
	cake_csum_ipv4_header_set(out, CAKE_IPV4_HDR_BYTES);
}

/* The IPv6 header (traffic class and flow label 0); the pseudo-header's sum. */
static uint16_t ipv6_header(uint8_t *out, uint32_t l4_len)
{
	out[0] = IPV6_VERSION;
	cake_put_be16(out + IPV6_PLEN_OFFSET, (uint16_t)l4_len);
	out[IPV6_NEXTHDR_OFFSET] = CAKE_IPPROTO_ICMPV6;
	out[IPV6_HOPLIMIT_OFFSET] = WG_ICMP_ERROR_TTL;
	return cake_csum_pseudo_v6(out + WG_IPV6_SRC_OFFSET, out + WG_IPV6_DST_OFFSET,
				   CAKE_IPPROTO_ICMPV6, l4_len);
}

static size_t build(const uint8_t *pkt, uint32_t ip_len, const struct wg_ipaddr *src,
		    const struct family *f, uint8_t *out)
{
	size_t quote = f->max_bytes - f->hdr_bytes - WG_ICMP_ERROR_HDR_BYTES;
	uint8_t *icmp = out + f->hdr_bytes;
	uint32_t l4_len;
	uint16_t sum;

	quote = ip_len < quote ? ip_len : quote;
	l4_len = (uint32_t)(WG_ICMP_ERROR_HDR_BYTES + quote);
	memset(out, 0, f->hdr_bytes);
	memcpy(out + f->src_offset, src->bytes, f->addr_bytes);
	memcpy(out + f->dst_offset, pkt + f->src_offset, f->addr_bytes); /* back to the sender */
	sum = put_icmp(icmp, f->type, f->code, pkt, quote);
	if (f == &ipv6)
		sum = cake_csum_add(sum, ipv6_header(out, l4_len));
	else
		ipv4_header(out, pkt, f->hdr_bytes + l4_len);
	cake_put_be16(icmp + ICMP_CHECK_OFFSET, cake_csum_finish(sum));
	return f->hdr_bytes + l4_len;
}

enum wg_icmp_error_verdict wg_icmp_error_judge(const uint8_t *pkt, size_t len,
					       struct cake_flowkey_hdrs *h)
{
	return check(pkt, len, h);
}

enum wg_icmp_error_verdict wg_icmp_error_check(const uint8_t *pkt, size_t len)
{
	struct cake_flowkey_hdrs h;

	return check(pkt, len, &h);
}

enum wg_icmp_error_verdict wg_icmp_error_write(const uint8_t *pkt,
					       const struct cake_flowkey_hdrs *h,
					       const struct wg_ipaddr *src,
					       uint8_t out[WG_ICMP_ERROR_MAX], size_t *out_len)
{
	*out_len = 0;
	if (src->family != (h->family == 6 ? AF_INET6 : AF_INET))
		return WG_ICMP_ERROR_REFUSED;
	*out_len = build(pkt, h->ip_len, src, h->family == 6 ? &ipv6 : &ipv4, out);
	return WG_ICMP_ERROR_BUILT;
}

enum wg_icmp_error_verdict wg_icmp_error_build(const uint8_t *pkt, size_t len,
					       const struct wg_ipaddr *src,
					       uint8_t out[WG_ICMP_ERROR_MAX], size_t *out_len)
{
	struct cake_flowkey_hdrs h;
	enum wg_icmp_error_verdict v = check(pkt, len, &h);

	*out_len = 0;
	return v == WG_ICMP_ERROR_BUILT ? wg_icmp_error_write(pkt, &h, src, out, out_len) : v;
}
