/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Header walk first (cake_flowkey_dissect), hashing second (cake_flowkey_parse). Every
 * read is preceded by a bounds check against the end the IP header declares, which is
 * itself checked against the buffer.
 */
#include "qdisc/flowkey.h"

#include <string.h>

#include "qdisc/csum.h"

enum {
	IPV4_ADDR_BYTES = 4,
	IPV6_ADDR_BYTES = 16,
	IPV4_FRAG_MASK = 0x3fff, /* MF flag and fragment offset */
	IPV4_FRAG_OFFSET_MASK = 0x1fff,
	IPV6_FRAG_HDR_BYTES = 8,
	IPV6_FRAG_OFFSET_MASK = 0xfff8,
	IPV6_FRAG_MORE = 0x0001,
	IPV6_MAX_EXT_HDRS = 32, /* more than any sane chain; each costs >= 8 bytes anyway */
	SCTP_HDR_BYTES = 12,
	DCCP_HDR_BYTES = 12,
	UDPLITE_HDR_BYTES = 8,
	MAX_L4_OFFSET = 0xffff - CAKE_TCP_MAX_HDR_BYTES,
	/* family, proto, sport, dport, src, dst */
	FLOW_KEY_MAX_BYTES = 1 + 1 + 2 + 2 + 2 * IPV6_ADDR_BYTES,
	HOST_KEY_MAX_BYTES = 1 + IPV6_ADDR_BYTES,
};

static enum cake_flowkey_verdict l4_hdr(const uint8_t *d, uint32_t off, uint32_t end,
					struct cake_flowkey_hdrs *h)
{
	uint32_t rem = end - off;
	uint32_t need;

	switch (h->proto) {
	case CAKE_IPPROTO_TCP:
		need = CAKE_TCP_HDR_BYTES;
		break;
	case CAKE_IPPROTO_UDP:
		need = CAKE_UDP_HDR_BYTES;
		break;
	case CAKE_IPPROTO_UDPLITE:
		need = UDPLITE_HDR_BYTES;
		break;
	case CAKE_IPPROTO_SCTP:
		need = SCTP_HDR_BYTES;
		break;
	case CAKE_IPPROTO_DCCP:
		need = DCCP_HDR_BYTES;
		break;
	default:
		return CAKE_FLOWKEY_OK; /* ICMP, ESP, no next header, unknown: no ports */
	}
	if (rem < need || off > MAX_L4_OFFSET)
		return CAKE_FLOWKEY_BAD_L4;
	if (h->proto == CAKE_IPPROTO_TCP) {
		uint32_t doff = (uint32_t)(d[off + CAKE_TCP_DOFF_OFFSET] >> 4) * 4;

		if (doff < CAKE_TCP_HDR_BYTES || doff > rem)
			return CAKE_FLOWKEY_BAD_L4;
		h->l4_offset = (uint16_t)off;
		h->l4_hdr_len = (uint16_t)doff;
		h->tcp_flags = d[off + CAKE_TCP_FLAGS_OFFSET];
	} else if (h->proto == CAKE_IPPROTO_UDP) {
		h->l4_offset = (uint16_t)off;
		h->l4_hdr_len = CAKE_UDP_HDR_BYTES;
	}
	h->sport = cake_get_be16(d + off);
	h->dport = cake_get_be16(d + off + 2);
	h->has_ports = true;
	return CAKE_FLOWKEY_OK;
}

static enum cake_flowkey_verdict ipv4_hdrs(const uint8_t *d, uint32_t len,
					   struct cake_flowkey_hdrs *h)
{
	uint32_t ihl, tot;

	if (len < CAKE_IPV4_HDR_BYTES)
		return CAKE_FLOWKEY_BAD;
	h->family = 4;
	h->tos = d[1];
	h->proto = d[9];
	ihl = (uint32_t)(d[0] & 0x0f) * 4;
	tot = cake_get_be16(d + 2);
	if (ihl < CAKE_IPV4_HDR_BYTES || tot < ihl || tot > len)
		return CAKE_FLOWKEY_BAD;
	h->l3_len = (uint16_t)ihl;
	h->ip_len = tot;
	if (cake_get_be16(d + 6) & IPV4_FRAG_MASK) {
		h->fragment = true;
		h->later_fragment = (cake_get_be16(d + 6) & IPV4_FRAG_OFFSET_MASK) != 0;
		return CAKE_FLOWKEY_OK;
	}
	return l4_hdr(d, ihl, tot, h);
}

/* Options-style extension header length, or 0 if it does not fit before end. */
static uint32_t ext_len(const uint8_t *d, uint32_t off, uint32_t end, uint8_t type)
{
	uint32_t n;

	if (end - off < 2)
		return 0;
	if (type == CAKE_IPPROTO_AH)
		n = ((uint32_t)d[off + 1] + 2) * 4;
	else
		n = ((uint32_t)d[off + 1] + 1) * 8;
	return n <= end - off ? n : 0;
}

static enum cake_flowkey_verdict ipv6_walk(const uint8_t *d, uint32_t end,
					   struct cake_flowkey_hdrs *h)
{
	uint32_t off = CAKE_IPV6_HDR_BYTES;
	uint8_t nh = h->proto;

	for (int i = 0; i < IPV6_MAX_EXT_HDRS; i++) {
		uint32_t n;

		switch (nh) {
		case CAKE_IPPROTO_HOPOPTS:
		case CAKE_IPPROTO_ROUTING:
		case CAKE_IPPROTO_DSTOPTS:
		case CAKE_IPPROTO_AH:
			n = ext_len(d, off, end, nh);
			if (!n)
				return CAKE_FLOWKEY_BAD_L4;
			break;
		case CAKE_IPPROTO_FRAGMENT:
			if (end - off < IPV6_FRAG_HDR_BYTES)
				return CAKE_FLOWKEY_BAD_L4;
			n = IPV6_FRAG_HDR_BYTES;
			/* An atomic fragment (offset 0, M clear) is no fragment: RFC 6946. */
			if (cake_get_be16(d + off + 2) & (IPV6_FRAG_OFFSET_MASK | IPV6_FRAG_MORE))
				h->fragment = true;
			h->later_fragment = (cake_get_be16(d + off + 2) & IPV6_FRAG_OFFSET_MASK) != 0;
			break;
		default:
			h->proto = nh;
			h->l3_len = (uint16_t)(off > 0xffff ? 0xffff : off);
			return l4_hdr(d, off, end, h);
		}
		h->proto = d[off];
		nh = d[off];
		off += n;
		if (h->fragment) {
			h->l3_len = (uint16_t)(off > 0xffff ? 0xffff : off);
			return CAKE_FLOWKEY_OK;
		}
	}
	return CAKE_FLOWKEY_BAD_L4;
}

static enum cake_flowkey_verdict ipv6_hdrs(const uint8_t *d, uint32_t len,
					   struct cake_flowkey_hdrs *h)
{
	uint32_t tot;

	if (len < CAKE_IPV6_HDR_BYTES)
		return CAKE_FLOWKEY_BAD;
	h->family = 6;
	h->tos = (uint8_t)(((d[0] & 0x0f) << 4) | (d[1] >> 4));
	h->proto = d[6];
	tot = CAKE_IPV6_HDR_BYTES + cake_get_be16(d + 4);
	if (tot > len)
		return CAKE_FLOWKEY_BAD;
	h->l3_len = CAKE_IPV6_HDR_BYTES;
	h->ip_len = tot;
	return ipv6_walk(d, tot, h);
}

enum cake_flowkey_verdict cake_flowkey_dissect(const uint8_t *data, uint32_t len,
					       struct cake_flowkey_hdrs *hdrs)
{
	memset(hdrs, 0, sizeof(*hdrs));
	if (!len)
		return CAKE_FLOWKEY_BAD;
	switch (data[0] >> 4) {
	case 4:
		return ipv4_hdrs(data, len, hdrs);
	case 6:
		return ipv6_hdrs(data, len, hdrs);
	default:
		return CAKE_FLOWKEY_NOT_IP;
	}
}

static uint32_t hash32(const struct cake_siphash_key *key, const uint8_t *buf, size_t n)
{
	return (uint32_t)cake_siphash(key, buf, n);
}

static uint32_t host_hash(const struct cake_siphash_key *key, uint8_t family, const uint8_t *addr,
			  size_t alen)
{
	uint8_t k[HOST_KEY_MAX_BYTES];

	k[0] = family;
	memcpy(k + 1, addr, alen);
	return hash32(key, k, 1 + alen);
}

static void hash_pkt(struct cake_pkt *pkt, const struct cake_flowkey_hdrs *h,
		     const struct cake_siphash_key *key)
{
	const uint8_t *d = pkt->data;
	size_t alen = h->family == 4 ? IPV4_ADDR_BYTES : IPV6_ADDR_BYTES;
	const uint8_t *src = d + (h->family == 4 ? 12 : 8);
	uint8_t k[FLOW_KEY_MAX_BYTES];
	bool ports = h->has_ports && !h->fragment;

	k[0] = h->family;
	k[1] = h->proto;
	cake_put_be16(k + 2, ports ? h->sport : 0);
	cake_put_be16(k + 4, ports ? h->dport : 0);
	memcpy(k + 6, src, 2 * alen); /* destination follows source in both headers */
	pkt->flow_hash = hash32(key, k, 6 + 2 * alen);
	pkt->src_hash = host_hash(key, h->family, src, alen);
	pkt->dst_hash = host_hash(key, h->family, src + alen, alen);
}

static uint8_t pkt_flags(const struct cake_flowkey_hdrs *h, enum cake_flowkey_verdict v)
{
	uint8_t f = h->family == 4 ? CAKE_PKT_IPV4 : CAKE_PKT_IPV6;
	uint8_t tf = h->tcp_flags;

	if (h->fragment)
		f |= CAKE_PKT_FRAGMENT;
	if (v != CAKE_FLOWKEY_OK || !h->l4_offset)
		return f;
	if (h->proto == CAKE_IPPROTO_UDP)
		return f | CAKE_PKT_UDP;
	f |= CAKE_PKT_TCP;
	if ((tf & CAKE_TCP_ACK) && !(tf & (CAKE_TCP_SYN | CAKE_TCP_FIN | CAKE_TCP_RST)) &&
	    h->ip_len == (uint32_t)h->l4_offset + h->l4_hdr_len)
		f |= CAKE_PKT_PURE_ACK;
	return f;
}

enum cake_flowkey_verdict cake_flowkey_parse(struct cake_pkt *pkt, uint8_t *data, uint32_t len,
					     const struct cake_siphash_key *key)
{
	static const uint8_t no_key[1];
	struct cake_flowkey_hdrs h;
	enum cake_flowkey_verdict v = cake_flowkey_dissect(data, len, &h);

	pkt->data = data;
	pkt->len = len;
	pkt->flags = 0;
	pkt->dscp = (uint8_t)(h.tos >> 2);
	pkt->ecn = h.tos & 3;
	pkt->l4_offset = 0;
	pkt->l4_hdr_len = 0;
	if (!h.family) {
		pkt->flow_hash = hash32(key, no_key, sizeof(no_key));
		pkt->src_hash = pkt->flow_hash;
		pkt->dst_hash = pkt->flow_hash;
		return v;
	}
	hash_pkt(pkt, &h, key);
	pkt->flags = pkt_flags(&h, v);
	if (v == CAKE_FLOWKEY_OK && h.l4_offset) {
		pkt->l4_offset = h.l4_offset;
		pkt->l4_hdr_len = h.l4_hdr_len;
	}
	return v;
}
