/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Semantics follow net/sched/sch_cake.c (cake_ack_filter, cake_tcph_may_drop,
 * cake_tcph_sack_compare); sequence comparisons are modulo 2^32 as in before()/after().
 * The 6in4 special case of the kernel is left out: inner packets here are what a TUN
 * device carries, and an IPv6-in-IPv4 packet is simply not TCP to us.
 */
#include "qdisc/ackfilter.h"

#include <stdbool.h>
#include <string.h>

#include "qdisc/csum.h"
#include "qdisc/flowkey.h"
#include "qdisc/tcp_wire.h"

enum {
	TCP_RESERVED_MASK = 0x0f,   /* low nibble of the data offset byte: must be clear */
	TCP_FLAGS_SAFE_MASK = 0x3f, /* every flag but ECE/CWR */
	TCP_ECN_FLAGS = CAKE_TCP_ECE | CAKE_TCP_CWR,
};

/* A TCP header of a parsed packet, bounds checked. */
struct tcp_view {
	const uint8_t *th;
	uint32_t hlen;
	const uint8_t *addrs; /* source then destination address */
	uint32_t alen;	      /* bytes of both addresses */
};

static bool seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) < 0;
}

static bool seq_before(uint32_t a, uint32_t b)
{
	return seq_after(b, a);
}

static bool tcp_view(const struct cake_pkt *p, struct tcp_view *v)
{
	uint32_t end = (uint32_t)p->l4_offset + p->l4_hdr_len;

	if (!(p->flags & CAKE_PKT_TCP) || (p->flags & CAKE_PKT_FRAGMENT) || !p->data)
		return false;
	if (p->l4_hdr_len < CAKE_TCP_HDR_BYTES || end > p->len)
		return false;
	v->alen = (p->flags & CAKE_PKT_IPV4) ? 8 : 32;
	if (p->l4_offset < (p->flags & CAKE_PKT_IPV4 ? CAKE_IPV4_HDR_BYTES : CAKE_IPV6_HDR_BYTES))
		return false;
	v->addrs = p->data + ((p->flags & CAKE_PKT_IPV4) ? 12 : 8);
	v->th = p->data + p->l4_offset;
	v->hlen = p->l4_hdr_len;
	return true;
}

static bool same_connection(const struct tcp_view *a, const struct tcp_view *b)
{
	return a->alen == b->alen && !memcmp(a->th, b->th, 4) &&
	       !memcmp(a->addrs, b->addrs, a->alen);
}

/* The options of a TCP header, walked as the kernel's cake_get_tcpopt and
 * cake_tcph_may_drop step through them (see tcp_wire.h). */
static struct cake_tcpopt_walk options_of(const struct tcp_view *v)
{
	return cake_tcpopt_walk_init(v->th + CAKE_TCP_HDR_BYTES, v->hlen - CAKE_TCP_HDR_BYTES);
}

/* The first option of kind code (pointer to its contents, *oplen its total length). */
static const uint8_t *tcp_option(const struct tcp_view *v, uint8_t code, uint32_t *oplen)
{
	struct cake_tcpopt_walk w = options_of(v);
	const uint8_t *opt;
	uint32_t size;

	while ((opt = cake_tcpopt_next(&w, &size))) {
		if (opt[0] == code) {
			*oplen = size;
			return opt + 2;
		}
	}
	return NULL;
}

static void tcp_tstamp(const struct tcp_view *v, uint32_t *tsval, uint32_t *tsecr)
{
	uint32_t oplen;
	const uint8_t *ts = tcp_option(v, CAKE_TCPOPT_TIMESTAMP, &oplen);

	*tsval = 0;
	*tsecr = 0;
	if (ts && oplen == CAKE_TCPOLEN_TIMESTAMP) {
		*tsval = cake_get_be32(ts);
		*tsecr = cake_get_be32(ts + 4);
	}
}

/* cake_tcph_may_drop: flags exactly ACK (ECE/CWR aside) and only harmless options. */
static bool may_drop(const struct tcp_view *v, uint32_t tsval_new, uint32_t tsecr_new)
{
	struct cake_tcpopt_walk w = options_of(v);
	const uint8_t *opt;
	uint32_t size;

	if ((v->th[CAKE_TCP_DOFF_OFFSET] & TCP_RESERVED_MASK) ||
	    (v->th[CAKE_TCP_FLAGS_OFFSET] & TCP_FLAGS_SAFE_MASK) != CAKE_TCP_ACK)
		return false;
	while ((opt = cake_tcpopt_next(&w, &size))) {
		if (opt[0] == CAKE_TCPOPT_SACK) {
			if (size % CAKE_TCPOLEN_SACK_BLOCK != CAKE_TCPOLEN_SACK_BASE)
				return false;
		} else if (opt[0] == CAKE_TCPOPT_TIMESTAMP) {
			if (size != CAKE_TCPOLEN_TIMESTAMP ||
			    seq_after(cake_get_be32(opt + 2), tsval_new) ||
			    seq_after(cake_get_be32(opt + 6), tsecr_new))
				return false;
		} else if (opt[0] != CAKE_TCPOPT_MD5SIG) {
			return false; /* MSS, window scale, SACK-permitted, fast open, unknown */
		}
	}
	return true;
}

/* SACK blocks of a view: pointer and number of whole blocks (0 if none). */
static uint32_t sack_blocks(const struct tcp_view *v, const uint8_t **blocks)
{
	uint32_t oplen = 0;

	*blocks = tcp_option(v, CAKE_TCPOPT_SACK, &oplen);
	if (!*blocks || oplen < CAKE_TCPOLEN_SACK_BASE)
		return 0;
	return (oplen - CAKE_TCPOLEN_SACK_BASE) / CAKE_TCPOLEN_SACK_BLOCK;
}

/*
 * cake_tcph_sack_compare(a = old, b = new): -1 if a SACKs something b does not (or
 * carries a DSACK), 1 if b SACKs strictly more bytes, else 0.
 */
static int sack_compare(const struct tcp_view *a, const struct tcp_view *b)
{
	const uint8_t *sa, *sb;
	uint32_t na = sack_blocks(a, &sa), nb = sack_blocks(b, &sb);
	uint32_t ack_a = cake_get_be32(a->th + CAKE_TCP_ACK_OFFSET);
	uint32_t bytes_a = 0, bytes_b = 0;

	if (!na || !nb)
		return na ? -1 : (nb ? 1 : 0);
	for (uint32_t i = 0; i < na; i++) {
		uint32_t start_a = cake_get_be32(sa + i * CAKE_TCPOLEN_SACK_BLOCK);
		uint32_t end_a = cake_get_be32(sa + i * CAKE_TCPOLEN_SACK_BLOCK + 4);
		bool found = false;

		if (seq_before(start_a, ack_a))
			return -1; /* DSACK: always keep */
		bytes_a += end_a - start_a;
		for (uint32_t j = 0; j < nb; j++) {
			uint32_t start_b = cake_get_be32(sb + j * CAKE_TCPOLEN_SACK_BLOCK);
			uint32_t end_b = cake_get_be32(sb + j * CAKE_TCPOLEN_SACK_BLOCK + 4);

			if (i == 0)
				bytes_b += end_b - start_b;
			if (!seq_after(start_b, start_a) && !seq_before(end_b, end_a)) {
				found = true;
				if (i > 0)
					break;
			}
		}
		if (!found)
			return -1;
	}
	return bytes_b > bytes_a ? 1 : 0;
}

/* An eligible pure ACK, given a candidate of the same connection as the new packet. */
static bool eligible(const struct cake_pkt *p, const struct tcp_view *c, const struct tcp_view *n,
		     uint32_t tsval, uint32_t tsecr)
{
	uint32_t ack_c = cake_get_be32(c->th + CAKE_TCP_ACK_OFFSET);
	uint32_t ack_n = cake_get_be32(n->th + CAKE_TCP_ACK_OFFSET);
	int cmp;

	if (!(p->flags & CAKE_PKT_PURE_ACK) || !may_drop(c, tsval, tsecr) ||
	    seq_after(ack_c, ack_n))
		return false;
	cmp = sack_compare(c, n);
	return !(cmp < 0 || (ack_c == ack_n && cmp == 0));
}

struct cake_pkt *cake_ack_filter(struct cake_pkt *head, const struct cake_pkt *new_pkt,
				 enum cake_ack_filter_mode mode, struct cake_pkt **prev)
{
	struct cake_pkt *elig = NULL, *elig_prev = NULL, *before = NULL, *unused;
	struct tcp_view n, c;
	uint32_t tsval, tsecr;
	uint8_t elig_flags = 0;
	int found = 0;

	if (!prev)
		prev = &unused;
	*prev = NULL;
	if (mode == CAKE_ACK_NONE || !tcp_view(new_pkt, &n))
		return NULL;
	if ((n.th[CAKE_TCP_FLAGS_OFFSET] & (CAKE_TCP_ACK | CAKE_TCP_SYN)) != CAKE_TCP_ACK)
		return NULL;
	tcp_tstamp(&n, &tsval, &tsecr);

	for (struct cake_pkt *p = head; p && p != new_pkt; before = p, p = p->next) {
		if (!tcp_view(p, &c) || !same_connection(&c, &n))
			continue;
		/* ECE/CWR changed since the first eligible ACK: dropping it would lose them. */
		if (elig && (c.th[CAKE_TCP_FLAGS_OFFSET] & TCP_ECN_FLAGS) != elig_flags) {
			elig = NULL;
			elig_prev = NULL;
			found--;
		}
		if (!eligible(p, &c, &n, tsval, tsecr))
			continue;
		if (!elig) {
			elig = p;
			elig_prev = before;
			elig_flags = c.th[CAKE_TCP_FLAGS_OFFSET] & TCP_ECN_FLAGS;
		}
		if (found++ > 0)
			goto drop;
	}
	if (elig && mode == CAKE_ACK_AGGRESSIVE && (elig->next == new_pkt || !elig->next) &&
	    elig_flags == (n.th[CAKE_TCP_FLAGS_OFFSET] & TCP_ECN_FLAGS))
		goto drop;
	return NULL;
drop:
	*prev = elig_prev;
	return elig;
}

void cake_ack_filter_unlink(struct cake_pkt **head, struct cake_pkt **tail, struct cake_pkt *drop,
			    struct cake_pkt *prev)
{
	if (prev)
		prev->next = drop->next;
	else
		*head = drop->next;
	if (tail && *tail == drop)
		*tail = prev;
	drop->next = NULL;
}
