/* SPDX-License-Identifier: GPL-2.0-only */
/* Literal IP addresses, prefixes and endpoints: parsing and RFC 5952 formatting. */
#include "src/core/ipaddr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "src/core/encoding.h"

/* Longest text that can be a literal address with a zone: longer is never valid. */
enum { LITERAL_MAX = 64 };

unsigned int wg_ipaddr_bits(sa_family_t family)
{
	switch (family) {
	case AF_INET:
		return WG_IPADDR_V4_BITS;
	case AF_INET6:
		return WG_IPADDR_V6_BITS;
	default:
		return 0;
	}
}

static const void *memchr_or_null(const char *s, size_t len, char c)
{
	return len ? memchr(s, c, len) : NULL;
}

bool wg_ipaddr_parse(struct wg_ipaddr *out, const char *s, size_t len)
{
	char buf[LITERAL_MAX];
	int family;

	memset(out, 0, sizeof(*out));
	out->family = AF_UNSPEC;
	if (!len || len >= sizeof(buf) || memchr(s, '\0', len))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* As wireguard-tools: a ':' means IPv6, anything else must be a dotted quad. */
	family = memchr(s, ':', len) ? AF_INET6 : AF_INET;
	if (inet_pton(family, buf, out->bytes) != 1) {
		memset(out->bytes, 0, sizeof(out->bytes));
		return false;
	}
	out->family = (sa_family_t)family;
	return true;
}

static void format_v4(char *out, size_t size, const uint8_t b[WG_IPADDR_V4_LEN])
{
	snprintf(out, size, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
}

/* The longest run of at least two zero groups; *start is -1 when there is none. */
static void longest_zero_run(const uint16_t w[8], int *start, int *len)
{
	*start = -1;
	*len = 0;
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && !w[j])
			j++;
		if (j - i > *len && j - i >= 2) {
			*start = i;
			*len = j - i;
		}
		i = j == i ? i + 1 : j;
	}
}

static void format_v6(char *out, size_t size, const uint8_t b[WG_IPADDR_V6_LEN])
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
	uint16_t w[8];
	size_t pos = 0;
	int start, run;

	if (!memcmp(b, mapped, sizeof(mapped))) {
		char v4[16];

		format_v4(v4, sizeof(v4), &b[12]);
		snprintf(out, size, "::ffff:%s", v4);
		return;
	}
	for (int i = 0; i < 8; i++)
		w[i] = (uint16_t)(b[2 * i] << 8 | b[2 * i + 1]);
	longest_zero_run(w, &start, &run);
	out[0] = '\0';
	for (int i = 0; i < 8 && pos < size; i++) {
		if (i == start) {
			pos += (size_t)snprintf(out + pos, size - pos, "::");
			i += run - 1;
			continue;
		}
		if (i && i != start + run)
			pos += (size_t)snprintf(out + pos, size - pos, ":");
		if (pos < size)
			pos += (size_t)snprintf(out + pos, size - pos, "%x", w[i]);
	}
}

void wg_ipaddr_format(char out[static WG_IPADDR_STRLEN], const struct wg_ipaddr *a)
{
	wg_ipaddr_format_as(out, a, WG_IPADDR_TEXT_RFC5952);
}

void wg_ipaddr_format_as(char out[static WG_IPADDR_STRLEN], const struct wg_ipaddr *a,
			 enum wg_ipaddr_text text)
{
	if (text == WG_IPADDR_TEXT_NTOP && a->family == AF_INET6 &&
	    inet_ntop(AF_INET6, a->bytes, out, WG_IPADDR_STRLEN))
		return;
	if (a->family == AF_INET)
		format_v4(out, WG_IPADDR_STRLEN, a->bytes);
	else if (a->family == AF_INET6)
		format_v6(out, WG_IPADDR_STRLEN, a->bytes);
	else
		snprintf(out, WG_IPADDR_STRLEN, "?");
}

bool wg_ipaddr_equal(const struct wg_ipaddr *a, const struct wg_ipaddr *b)
{
	unsigned int bits = wg_ipaddr_bits(a->family);

	return a->family == b->family && !memcmp(a->bytes, b->bytes, bits / 8);
}

static bool parse_cidr(uint8_t *cidr, const char *s, size_t len, unsigned int max,
		       enum wg_ipaddr_prefix_syntax syntax)
{
	uint64_t v;

	if (syntax == WG_IPADDR_PREFIX_CIDR_REQUIRED && len > 1 && s[0] == '0')
		return false;
	if (!wg_encoding_parse_uint(&v, s, len, 10, max))
		return false;
	*cidr = (uint8_t)v;
	return true;
}

enum wg_ipaddr_prefix_parse wg_ipaddr_prefix_parse(struct wg_ipaddr_prefix *out, const char *s,
						   size_t len, enum wg_ipaddr_prefix_syntax syntax)
{
	const char *slash = memchr_or_null(s, len, '/');
	size_t addr_len = slash ? (size_t)(slash - s) : len;

	memset(out, 0, sizeof(*out));
	if (!slash && syntax == WG_IPADDR_PREFIX_CIDR_REQUIRED)
		return WG_IPADDR_PREFIX_BAD_CIDR;
	if (!wg_ipaddr_parse(&out->addr, s, addr_len))
		return WG_IPADDR_PREFIX_BAD_ADDR;
	out->cidr = (uint8_t)wg_ipaddr_bits(out->addr.family);
	if (slash && !parse_cidr(&out->cidr, slash + 1, len - addr_len - 1, out->cidr, syntax))
		return WG_IPADDR_PREFIX_BAD_CIDR;
	return WG_IPADDR_PREFIX_OK;
}

/* The mask byte for byte i of a prefix of length cidr. */
static uint8_t mask_byte(unsigned int i, unsigned int cidr)
{
	if (cidr >= (i + 1) * 8)
		return 0xff;
	if (cidr <= i * 8)
		return 0;
	return (uint8_t)(0xff00 >> (cidr - i * 8));
}

bool wg_ipaddr_prefix_has_host_bits(const struct wg_ipaddr_prefix *p)
{
	unsigned int bytes = wg_ipaddr_bits(p->addr.family) / 8;

	for (unsigned int i = 0; i < bytes; i++) {
		if (p->addr.bytes[i] & (uint8_t)~mask_byte(i, p->cidr))
			return true;
	}
	return false;
}

void wg_ipaddr_prefix_mask(struct wg_ipaddr_prefix *p)
{
	unsigned int bytes = wg_ipaddr_bits(p->addr.family) / 8;

	for (unsigned int i = 0; i < bytes; i++)
		p->addr.bytes[i] &= mask_byte(i, p->cidr);
}

void wg_ipaddr_prefix_format(char out[static WG_IPADDR_PREFIX_STRLEN],
			     const struct wg_ipaddr_prefix *p)
{
	wg_ipaddr_prefix_format_as(out, p, WG_IPADDR_TEXT_RFC5952);
}

void wg_ipaddr_prefix_format_as(char out[static WG_IPADDR_PREFIX_STRLEN],
				const struct wg_ipaddr_prefix *p, enum wg_ipaddr_text text)
{
	char ip[WG_IPADDR_STRLEN];

	wg_ipaddr_format_as(ip, &p->addr, text);
	snprintf(out, WG_IPADDR_PREFIX_STRLEN, "%s/%u", ip, p->cidr);
}

enum wg_ipaddr_endpoint_split wg_ipaddr_endpoint_split(const char *s, size_t len, const char **host,
						       size_t *host_len, const char **port,
						       size_t *port_len)
{
	const char *colon;

	if (len && s[0] == '[') {
		const char *brace = memchr(s, ']', len);

		if (!brace)
			return WG_IPADDR_ENDPOINT_SPLIT_NO_BRACE;
		colon = brace + 1;
		if (colon >= s + len || *colon != ':' || colon + 1 == s + len)
			return WG_IPADDR_ENDPOINT_SPLIT_NO_PORT;
		*host = s + 1;
		*host_len = (size_t)(brace - s - 1);
	} else {
		colon = NULL;
		for (size_t i = len; i-- > 0;) {
			if (s[i] == ':') {
				colon = &s[i];
				break;
			}
		}
		if (!colon || colon + 1 == s + len)
			return WG_IPADDR_ENDPOINT_SPLIT_NO_PORT;
		*host = s;
		*host_len = (size_t)(colon - s);
	}
	*port = colon + 1;
	*port_len = (size_t)(s + len - *port);
	return WG_IPADDR_ENDPOINT_SPLIT_OK;
}

bool wg_ipaddr_port_parse(uint16_t *port, const char *s, size_t len)
{
	uint64_t v;

	if (!wg_encoding_parse_uint(&v, s, len, 10, WG_IPADDR_PORT_MAX))
		return false;
	*port = (uint16_t)v;
	return true;
}

bool wg_ipaddr_endpoint_from_host(union wg_ipaddr_sockaddr *out, const char *host, size_t len,
				  uint16_t port)
{
	const char *pct = memchr_or_null(host, len, '%');
	size_t addr_len = pct ? (size_t)(pct - host) : len;
	struct wg_ipaddr ip;
	uint64_t scope = 0;

	memset(out, 0, sizeof(*out));
	out->addr.sa_family = AF_UNSPEC;
	if (!wg_ipaddr_parse(&ip, host, addr_len))
		return false;
	if (pct && (ip.family != AF_INET6 ||
		    !wg_encoding_parse_uint(&scope, pct + 1, len - addr_len - 1, 10, UINT32_MAX)))
		return false;
	if (ip.family == AF_INET) {
		out->addr4.sin_family = AF_INET;
		out->addr4.sin_port = htons(port);
		out->addr4.sin_addr = ip.ip4;
	} else {
		out->addr6.sin6_family = AF_INET6;
		out->addr6.sin6_port = htons(port);
		out->addr6.sin6_addr = ip.ip6;
		out->addr6.sin6_scope_id = (uint32_t)scope;
	}
	return true;
}

int wg_ipaddr_endpoint_parse(union wg_ipaddr_sockaddr *out, const char *s, size_t len)
{
	const char *host, *port;
	size_t host_len, port_len;
	uint16_t p;
	bool bracketed = len && s[0] == '[';

	memset(out, 0, sizeof(*out));
	out->addr.sa_family = AF_UNSPEC;
	if (wg_ipaddr_endpoint_split(s, len, &host, &host_len, &port, &port_len) ||
	    !wg_ipaddr_port_parse(&p, port, port_len) ||
	    !wg_ipaddr_endpoint_from_host(out, host, host_len, p))
		return -EINVAL;
	/* IPv6 needs the brackets and IPv4 must not have them. */
	if ((out->addr.sa_family == AF_INET6) != bracketed) {
		memset(out, 0, sizeof(*out));
		out->addr.sa_family = AF_UNSPEC;
		return -EINVAL;
	}
	return 0;
}

void wg_ipaddr_endpoint_format(char out[static WG_IPADDR_ENDPOINT_STRLEN],
			       const union wg_ipaddr_sockaddr *sa)
{
	wg_ipaddr_endpoint_format_as(out, sa, WG_IPADDR_TEXT_RFC5952);
}

void wg_ipaddr_endpoint_format_as(char out[static WG_IPADDR_ENDPOINT_STRLEN],
				  const union wg_ipaddr_sockaddr *sa, enum wg_ipaddr_text as)
{
	struct wg_ipaddr ip = {.family = sa->addr.sa_family};
	char text[WG_IPADDR_STRLEN];

	if (sa->addr.sa_family == AF_INET) {
		ip.ip4 = sa->addr4.sin_addr;
		wg_ipaddr_format(text, &ip);
		snprintf(out, WG_IPADDR_ENDPOINT_STRLEN, "%s:%u", text, ntohs(sa->addr4.sin_port));
	} else if (sa->addr.sa_family == AF_INET6) {
		ip.ip6 = sa->addr6.sin6_addr;
		wg_ipaddr_format_as(text, &ip, as);
		if (sa->addr6.sin6_scope_id)
			snprintf(out, WG_IPADDR_ENDPOINT_STRLEN, "[%s%%%u]:%u", text,
				 sa->addr6.sin6_scope_id, ntohs(sa->addr6.sin6_port));
		else
			snprintf(out, WG_IPADDR_ENDPOINT_STRLEN, "[%s]:%u", text,
				 ntohs(sa->addr6.sin6_port));
	} else {
		out[0] = '\0';
	}
}

socklen_t wg_ipaddr_to_sockaddr(union wg_ipaddr_sockaddr *out, const struct wg_ipaddr *a,
				uint16_t port, uint32_t scope_id)
{
	memset(out, 0, sizeof(*out));
	if (a->family == AF_INET6) {
		out->addr6.sin6_family = AF_INET6;
		out->addr6.sin6_port = htons(port);
		out->addr6.sin6_addr = a->ip6;
		if (IN6_IS_ADDR_LINKLOCAL(&a->ip6))
			out->addr6.sin6_scope_id = scope_id;
		return sizeof(out->addr6);
	}
	if (a->family == AF_INET) {
		out->addr4.sin_family = AF_INET;
		out->addr4.sin_port = htons(port);
		out->addr4.sin_addr = a->ip4;
		return sizeof(out->addr4);
	}
	return 0;
}

bool wg_ipaddr_endpoint_is_set(const union wg_ipaddr_sockaddr *sa)
{
	return sa->addr.sa_family == AF_INET || sa->addr.sa_family == AF_INET6;
}

static bool name_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '-' || c == '.' || c == '_';
}

bool wg_ipaddr_is_host_name(const char *s, size_t len)
{
	bool numeric = true;

	if (!len || len > WG_IPADDR_HOST_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!name_char(s[i]))
			return false;
		numeric &= (s[i] >= '0' && s[i] <= '9') || s[i] == '.';
	}
	return !numeric;
}

bool wg_ipaddr_is_zoned_v6_name(const char *s, size_t len)
{
	const char *pct = memchr_or_null(s, len, '%');
	struct wg_ipaddr ip;

	if (!pct || pct + 1 == s + len || len > WG_IPADDR_HOST_NAME_MAX ||
	    !wg_ipaddr_parse(&ip, s, (size_t)(pct - s)) || ip.family != AF_INET6)
		return false;
	for (const char *c = pct + 1; c < s + len; c++) {
		if (!name_char(*c))
			return false;
	}
	return true;
}
