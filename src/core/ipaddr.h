/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * IP addresses, prefixes and UDP endpoints as plain data, with their text forms.
 *
 * Parsing is by value only: literal addresses, never names (the edge resolves those).
 * Formatting follows RFC 5952 as Go's net/netip does, which is what wireguard-go prints
 * on the UAPI: lowercase, the longest run of two or more zero groups (the first on a
 * tie) shown as "::", IPv4-mapped addresses as ::ffff:a.b.c.d, IPv6 endpoints in
 * brackets.
 */
#ifndef CAKEWG_SRC_CORE_IPADDR_H
#define CAKEWG_SRC_CORE_IPADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "src/core/compiler.h"

enum wg_ipaddr_lengths {
	WG_IPADDR_V4_BITS = 32,
	WG_IPADDR_V6_BITS = 128,
	WG_IPADDR_V4_LEN = WG_IPADDR_V4_BITS / 8,
	WG_IPADDR_V6_LEN = WG_IPADDR_V6_BITS / 8,
	/* "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255" and a NUL */
	WG_IPADDR_STRLEN = 46,
	/* an optional '-', the address, "/128" */
	WG_IPADDR_PREFIX_STRLEN = 1 + WG_IPADDR_STRLEN + 4,
	/* '[' address '%' scope (10 digits) ']' ':' port (5 digits) */
	WG_IPADDR_ENDPOINT_STRLEN = 1 + WG_IPADDR_STRLEN + 1 + 10 + 2 + 5,
	WG_IPADDR_PORT_MAX = 65535,
	/* A DNS name is at most 253 characters as text (RFC 1035). */
	WG_IPADDR_HOST_NAME_MAX = 253,
};

/* One address; family is AF_INET, AF_INET6, or AF_UNSPEC when unset. */
struct wg_ipaddr {
	sa_family_t family;
	union {
		struct in_addr ip4;
		struct in6_addr ip6;
		uint8_t bytes[WG_IPADDR_V6_LEN];
	};
};

/* An address with a prefix length (0..32 or 0..128). */
struct wg_ipaddr_prefix {
	struct wg_ipaddr addr;
	uint8_t cidr;
};

/* A UDP endpoint: sa_family AF_INET or AF_INET6 (ports in network order), or AF_UNSPEC. */
union wg_ipaddr_sockaddr {
	struct sockaddr addr;
	struct sockaddr_in addr4;
	struct sockaddr_in6 addr6;
};

/* How a prefix's length is written. */
enum wg_ipaddr_prefix_syntax {
	/* wg(8) files: "/n" optional (full length when absent), leading zeros allowed. */
	WG_IPADDR_PREFIX_CIDR_OPTIONAL,
	/* UAPI, as Go's netip.ParsePrefix: "/n" required, no leading zeros. */
	WG_IPADDR_PREFIX_CIDR_REQUIRED,
};

enum wg_ipaddr_prefix_parse {
	WG_IPADDR_PREFIX_OK,
	WG_IPADDR_PREFIX_BAD_ADDR, /* the part before '/' is no IPv4 or IPv6 literal */
	WG_IPADDR_PREFIX_BAD_CIDR, /* the length is missing, malformed or too large */
};

/* Where a "host:port" string splits (wireguard-tools rules). */
enum wg_ipaddr_endpoint_split {
	WG_IPADDR_ENDPOINT_SPLIT_OK,
	WG_IPADDR_ENDPOINT_SPLIT_NO_BRACE, /* '[' without a matching ']' */
	WG_IPADDR_ENDPOINT_SPLIT_NO_PORT,  /* no ':' or nothing after it */
};

/* Bits in a family's address: 32, 128, or 0 for anything else. */
unsigned int wg_ipaddr_bits(sa_family_t family);

/* Parses a dotted-quad IPv4 or an IPv6 literal (no zone) of exactly len characters. */
WG_MUST_CHECK bool wg_ipaddr_parse(struct wg_ipaddr *out, const char *s, size_t len);

/*
 * How an address is written: RFC 5952 (the UAPI, as wireguard-go; wg-quick files), or
 * as libc's inet_ntop writes it (wireguard-tools' showconf). They differ only for an
 * IPv4-compatible address (::a.b.c.d, a.b not 0.0), which inet_ntop writes dotted and
 * RFC 5952 in hex (::102:304).
 */
enum wg_ipaddr_text {
	WG_IPADDR_TEXT_RFC5952,
	WG_IPADDR_TEXT_NTOP,
};

/* Writes the text form of a (AF_INET or AF_INET6) with a NUL; "?" for other families. */
void wg_ipaddr_format(char out[static WG_IPADDR_STRLEN], const struct wg_ipaddr *a);
void wg_ipaddr_format_as(char out[static WG_IPADDR_STRLEN], const struct wg_ipaddr *a,
			 enum wg_ipaddr_text text);

WG_MUST_CHECK bool wg_ipaddr_equal(const struct wg_ipaddr *a, const struct wg_ipaddr *b);

/* Parses "addr[/cidr]". The address is kept as written (host bits may be set). */
enum wg_ipaddr_prefix_parse wg_ipaddr_prefix_parse(struct wg_ipaddr_prefix *out, const char *s,
						   size_t len, enum wg_ipaddr_prefix_syntax syntax);

/* True when bits beyond cidr are set. */
WG_MUST_CHECK bool wg_ipaddr_prefix_has_host_bits(const struct wg_ipaddr_prefix *p);

/* Clears the bits beyond cidr. */
void wg_ipaddr_prefix_mask(struct wg_ipaddr_prefix *p);

/* "addr/cidr" with a NUL. */
void wg_ipaddr_prefix_format(char out[static WG_IPADDR_PREFIX_STRLEN],
			     const struct wg_ipaddr_prefix *p);
void wg_ipaddr_prefix_format_as(char out[static WG_IPADDR_PREFIX_STRLEN],
				const struct wg_ipaddr_prefix *p, enum wg_ipaddr_text text);

/*
 * Splits s into host and port as wireguard-tools does: "[host]:port" when s starts
 * with '[', otherwise at the last ':'. The port part is never empty on success.
 */
enum wg_ipaddr_endpoint_split wg_ipaddr_endpoint_split(const char *s, size_t len, const char **host,
						       size_t *host_len, const char **port,
						       size_t *port_len);

/* Decimal 0..65535, leading zeros allowed (Go's strconv.ParseUint(s, 10, 16)). */
WG_MUST_CHECK bool wg_ipaddr_port_parse(uint16_t *port, const char *s, size_t len);

/*
 * Builds an endpoint from a literal host: IPv4, IPv6, or IPv6 with a numeric zone
 * ("fe80::1%2", the interface index). False for anything else, names included.
 */
WG_MUST_CHECK bool wg_ipaddr_endpoint_from_host(union wg_ipaddr_sockaddr *out, const char *host,
						size_t len, uint16_t port);

/*
 * Parses an endpoint as the UAPI writes it (Go's netip.ParseAddrPort): "a.b.c.d:port"
 * or "[v6]:port", the IPv6 form with an optional numeric zone. Returns 0 or -EINVAL.
 */
int wg_ipaddr_endpoint_parse(union wg_ipaddr_sockaddr *out, const char *s, size_t len);

/* "a.b.c.d:port" or "[v6%zone]:port" with a NUL; "" for AF_UNSPEC. */
void wg_ipaddr_endpoint_format(char out[static WG_IPADDR_ENDPOINT_STRLEN],
			       const union wg_ipaddr_sockaddr *sa);
void wg_ipaddr_endpoint_format_as(char out[static WG_IPADDR_ENDPOINT_STRLEN],
				  const union wg_ipaddr_sockaddr *sa, enum wg_ipaddr_text as);

/*
 * True for a DNS name as text: 1-253 letters, digits, '-', '.', '_', and not only
 * digits and dots (that would be a malformed IPv4 address, not a name).
 */
WG_MUST_CHECK bool wg_ipaddr_is_host_name(const char *s, size_t len);

/* True for an IPv6 literal with a named zone ("fe80::1%eth0"), for the edge to resolve. */
WG_MUST_CHECK bool wg_ipaddr_is_zoned_v6_name(const char *s, size_t len);

/*
 * The socket address of a (port in host order, 0 for a raw socket) in *out; its
 * length, or 0 when a is neither IPv4 nor IPv6. A link-local IPv6 address gets
 * scope_id as its zone.
 */
WG_MUST_CHECK socklen_t wg_ipaddr_to_sockaddr(union wg_ipaddr_sockaddr *out, const struct wg_ipaddr *a,
					       uint16_t port, uint32_t scope_id);

/* True when sa holds an AF_INET or AF_INET6 endpoint. */
WG_MUST_CHECK bool wg_ipaddr_endpoint_is_set(const union wg_ipaddr_sockaddr *sa);

#endif
