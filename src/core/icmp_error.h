/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ICMP error for a packet read from the TUN device that no peer's allowed IPs hold,
 * as Linux's wg_xmit answers it: ICMP destination unreachable, host unreachable (RFC 792)
 * for IPv4, ICMPv6 destination unreachable, address unreachable (RFC 4443 section 3.1)
 * for IPv6. A whole IP packet from src (an address of the TUN device, in the packet's
 * family) to the offending packet's source, quoting as much of that packet as fits in
 * 576 bytes (IPv4: RFC 1812 section 4.3.2.3, as Linux's icmp_send) or 1280 (IPv6: RFC
 * 4443 section 2.4(c)), with its checksums.
 *
 * Never answered (RFC 1122 section 3.2.2, RFC 4443 section 2.4(e)), as Linux does not:
 * an ICMP error or an ICMP type Linux does not know (IPv4), an ICMPv6 error (type < 128)
 * or redirect, a fragment other than the first, a packet to a multicast or the limited
 * broadcast address, and one from an address that names no single host (unspecified,
 * loopback, multicast, broadcast, IPv4's 0/8 and class E). A packet whose headers lie
 * about their lengths gets nothing either.
 *
 * Pure: reads only the len bytes at pkt, writes only out.
 */
#ifndef CAKEWG_SRC_CORE_ICMP_ERROR_H
#define CAKEWG_SRC_CORE_ICMP_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qdisc/flowkey.h"
#include "src/core/ipaddr.h"

enum wg_icmp_error_values {
	/* ICMP (RFC 792): destination unreachable, host unreachable; Linux's NR_ICMP_TYPES */
	WG_ICMP_DEST_UNREACH = 3,
	WG_ICMP_HOST_UNREACH = 1,
	WG_ICMP_SOURCE_QUENCH = 4,
	WG_ICMP_REDIRECT = 5,
	WG_ICMP_TIME_EXCEEDED = 11,
	WG_ICMP_PARAMETERPROB = 12,
	WG_ICMP_MAX_KNOWN_TYPE = 18,
	/* ICMPv6 (RFC 4443): destination unreachable, address unreachable; types below 128
	 * are errors (section 2.1); redirect from RFC 4861 */
	WG_ICMPV6_DEST_UNREACH = 1,
	WG_ICMPV6_ADDR_UNREACH = 3,
	WG_ICMPV6_INFO_MIN_TYPE = 128,
	WG_ICMPV6_REDIRECT = 137,
	/* the error's header: type, code, checksum, 4 unused bytes */
	WG_ICMP_ERROR_HDR_BYTES = 8,
	/* the largest error: IPv4's 576 (RFC 1812 4.3.2.3), IPv6's minimum MTU (RFC 8200) */
	WG_ICMP_ERROR_MAX_V4 = 576,
	WG_ICMP_ERROR_MAX_V6 = 1280,
	WG_ICMP_ERROR_MAX = WG_ICMP_ERROR_MAX_V6,
	/* the error's own IP header: Linux's defaults (ip_default_ttl, hop_limit), and the
	 * precedence of network control for IPv4 (RFC 1812 section 4.3.2.5) */
	WG_ICMP_ERROR_TTL = 64,
	WG_ICMP_ERROR_TOS = 0xc0,
};

enum wg_icmp_error_verdict {
	WG_ICMP_ERROR_BUILT = 0,
	WG_ICMP_ERROR_MALFORMED, /* not IPv4 or IPv6, or headers that lie about lengths */
	WG_ICMP_ERROR_REFUSED,	 /* one of the packets an error must not answer */
};

/* BUILT when the len bytes at pkt may be answered, else why not. */
enum wg_icmp_error_verdict wg_icmp_error_check(const uint8_t *pkt, size_t len);

/*
 * The two halves of wg_icmp_error_build, for a caller that decides between them (the
 * device asks its rate limit only for a packet that may be answered) without reading
 * the headers twice: wg_icmp_error_judge fills *h for wg_icmp_error_write, which
 * writes the error for a packet judged BUILT (same result as wg_icmp_error_build).
 */
enum wg_icmp_error_verdict wg_icmp_error_judge(const uint8_t *pkt, size_t len,
					       struct cake_flowkey_hdrs *h);
enum wg_icmp_error_verdict wg_icmp_error_write(const uint8_t *pkt,
					       const struct cake_flowkey_hdrs *h,
					       const struct wg_ipaddr *src,
					       uint8_t out[WG_ICMP_ERROR_MAX], size_t *out_len);

/*
 * Writes the error for the len bytes at pkt, from src (of the packet's family), into
 * out[WG_ICMP_ERROR_MAX] and its length into *out_len. Anything but BUILT leaves *out_len
 * at 0.
 */
enum wg_icmp_error_verdict wg_icmp_error_build(const uint8_t *pkt, size_t len,
					       const struct wg_ipaddr *src,
					       uint8_t out[WG_ICMP_ERROR_MAX], size_t *out_len);

#endif
