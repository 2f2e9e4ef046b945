/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Passive delay signals from inner TCP (see tcpts.h for the API).
 *
 * Flows. A flow is named from our side: (local address, local port, remote address,
 * remote port), local being the source of OUT packets and the destination of IN ones,
 * so both directions of a connection meet in one entry. The 64-bit SipHash of that
 * name under the instance's key is the entry's tag; the table is 4-way set associative
 * (the low tag bits pick the set). A new flow takes an empty way, else one idle for
 * longer than FLOW_IDLE (300 s; 30 s for a flow that never gave a sample), else the
 * least recently seen one (an eviction). Only TCP packets create entries.
 *
 * RTT (pping). An OUT packet whose TSval is newer than any before on its flow is the
 * first to carry it: (TSval, now) goes into a ring of PENDING entries (when full the
 * TSval is skipped; an entry older than PENDING_MAX, 10 s, makes room). An IN packet's
 * TSecr equal to an entry gives RTT = now - then; entries up to the TSecr go. This
 * covers local senders (data out, ACK in) and remote senders (ACK out, data in).
 * Karn: a segment whose payload ends at or before the highest sequence already seen in
 * its direction is a retransmission; its TSval is not recorded and its TSecr (an old
 * TS.Recent) not matched. A SYN answered by a SYN-ACK, or a SYN-ACK answered by the
 * ACK of its sequence, gives one more sample, unless the SYN (SYN-ACK) was repeated.
 * A flow without timestamps takes its samples from the ring of OUT segment ends that
 * OUT delay uses (below): an IN ACK that ends exactly at one gives now - its send time,
 * the segment whose arrival made the peer ACK, so a delayed ACK's wait for the next
 * segment (a packet time per flow, long at low rates) does not add to it.
 *
 * Peer clock. The peer's TSval ticks at a fixed but unknown rate, one that stacks use
 * (1 us, 1 ms, 1/300 s, 4 ms, 10 ms). The first IN TSval of a flow and its arrival time
 * are an anchor; each candidate tick c predicts the arrival at anchor time + (TSval -
 * anchor TSval) x c, and the arrival's lateness against the prediction is, for the
 * right c, how much the queue before us grew (or shrank) since the anchor.
 * A queue that fills behind slow start grows by tens of ms a second for seconds, more
 * than a tolerance relative to the elapsed time allows; but no queue can have grown by
 * more than the largest RTT the flow has shown. So the nearest candidate fits when the
 * lateness is within 1/32 of the elapsed time plus that RTT, and at most a third of
 * the next nearest candidate's (no doubt which one it is), and every other
 * candidate's prediction lies more than twice that tolerance from the fitting one's, so
 * that no lateness the bounds allow (an anchor that waited in a queue which since
 * drained, say) can make one look like the other; it is then fixed. That is checked
 * every TICK_EARLY (100 ms) in the first second, once a second after. Until a flow's
 * tick is known it gives no one-way sample, and every flow starts blind: with only a
 * check at 1 s, a load that began with the shaper above the link (its rate from a
 * faster link before an idle spell) bloated unseen for that second (the benchmark's
 * lte rrul runs: ping at 40 to 70 ms over their first second). A Linux peer (1 ms)
 * fits from about 100 ms on, while the largest RTT is under 45 ms; a 4 ms clock, whose
 * neighbour at 3.33 ms predicts only a sixth less, needs about 19 times its largest RTT
 * (an RTT under 15 ms at 300 ms, under 52 ms at 1 s). A flow without a
 * fit after 16 s is rejected for one-way delay (RTT still counts). There is no division
 * per packet but by constants.
 *
 * One-way delay. With t_peer(TSval) = (TSval - anchor TSval) x tick on the anchor's
 * time axis, per flow and up to a constant offset (the clocks' difference):
 *   IN  delay = arrival time of an IN segment - t_peer(its TSval);
 *   OUT delay = t_peer(TSval of an IN ACK) - send time of the OUT data segment that
 *               ends at its ACK number (the one whose arrival made the peer ACK; a ring
 *               of SEGS segment ends per flow, as for the TSvals, emptied when a
 *               retransmission goes out: Karn).
 * Each flow keeps, per direction, a baseline: the minimum over the current and the
 * previous BASE_WINDOW (10 s), so a lower base is taken at once and a higher one (route
 * change, clock skew) after 10 to 20 s; the IN one starts from the anchor's delay (see
 * seed_in_base()). The sample over the baseline is the queueing delay that direction
 * added. The summary reports the median of a period's IN samples (data as it arrives:
 * little noise but the peer's scheduling) and the 25th percentile of its OUT samples,
 * as a delayed-ACK timer (40 ms) adds delay to some.
 *
 * ICMP echo. With no TCP to time (UDP or QUIC only), the owner sends sparse echo
 * requests through the tunnel; an OUT echo request is remembered (a ring of ECHOES,
 * keyed like a flow by addresses, identifier and sequence number) and the IN echo
 * reply that matches it gives an RTT sample like any other.
 *
 * Busy run (OUT). Each OUT sample also tells when its segment left the bottleneck, up
 * to a constant: its send time plus its queueing delay; the ring keeps the direction's
 * wire bytes sent up to each segment. Samples in a row that each show a queue (at
 * least BUSY_Q, 2 ms, over the baseline: more than a TSval tick) form a run, in which
 * the bottleneck never idled; bytes between its first and last over the time between
 * their departures is the bottleneck's rate, every byte counted, and exact but for the
 * peer's tick at each end: only peers whose clock ticks in 1 ms or less (BUSY_TICK_MAX,
 * as Linux, the BSDs and macOS do) give points. A sample under BUSY_Q ends it; one more
 * than BUSY_GAP (20 ms) after the last, or BUSY_BACK (2 ms) before it (the last was
 * late: a delayed ACK), starts a new one; a segment sent before the last point's
 * (another flow's ACK came later) is passed over. Each take reports the latest run of
 * its period, which goes on from its last point into the next.
 *
 * Delivered rate. IN: the wire bytes of every packet that arrives (the bottleneck
 * delivered them). OUT: the progress of the highest byte IN segments report received
 * (cumulative ACK, or the highest SACK edge past a hole), summed over flows, scaled by
 * the wire bytes per payload byte that OUT TCP carried. Each direction's summary also
 * has the other's wire bytes of every packet (IN arrived, OUT sent): which of the two
 * carries the data, and which only its ACKs. OUT also reports the wire bytes it sent
 * without TCP payload (the other direction's ACKs, UDP): ACK progress leaves them out,
 * yet they pass the same bottleneck.
 */
#include "qdisc/tcpts.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/csum.h"
#include "qdisc/cake_compiler.h"
#include "qdisc/delay_hist.h"
#include "qdisc/flowkey.h"
#include "qdisc/tcp_wire.h"

#define NS_PER_US 1000ull
#define NS_PER_S 1000000000ull

enum {
	WAYS = 4,
	PENDING = 4,
	SEGS = 4,
	MIN_FLOWS = 8,
	QUANTILE_Q256 = 64,		/* the 25th percentile */
	MEDIAN_Q256 = 128,
	TICK_TOL_SHIFT = 5,		/* a tick fits within 1/32 of the elapsed time ... */
	TICK_CLEAR = 3,			/* ... and 3 times better than the next candidate */
	MAX_ACK_STEP = 1u << 30,	/* more is a reset or garbage */
	RATIO_SHIFT = 16,		/* wire bytes per payload byte, fixed point */
	RATIO_MIN_PAYLOAD = 16384,	/* a period's ratio counts from this much payload */
	TICK_REJECTED = UINT32_MAX,
	ECHOES = 8,
	BUSY_Q_US = 2000,		/* a sample this far over its baseline shows a queue */
	BUSY_GAP_US = 20000,		/* samples further apart do not continue a run, */
	BUSY_BACK_US = 2000,		/* nor a later packet that left this much earlier */
	BUSY_TICK_MAX_NS = 1000000,	/* runs of peers whose TSval ticks in 1 ms or less */
};

static const uint64_t PENDING_MAX_NS = 10 * NS_PER_S;
static const uint64_t FLOW_IDLE_NS = 300 * NS_PER_S;
static const uint64_t FLOW_IDLE_UNSAMPLED_NS = 30 * NS_PER_S;
static const uint64_t TICK_MIN_ELAPSED_NS = NS_PER_S; /* checks once a second from here, */
static const uint64_t TICK_EARLY_NS = NS_PER_S / 10;   /* ... and this often before */
static const uint64_t TICK_GIVE_UP_NS = 16 * NS_PER_S;
static const uint64_t BASE_WINDOW_NS = 10 * NS_PER_S;
/* Peer TSval clocks seen in the wild, ns per tick. */
static const uint32_t tick_candidates[] = {1000, 1000000, 3333333, 4000000, 10000000};

enum flow_flags {
	F_END_OUT = 1u << 0, /* max_end[OUT] valid */
	F_END_IN = 1u << 1,
	F_ACK = 1u << 2,     /* last_ack valid */
	F_OUT_TS = 1u << 3,  /* last_out_tsval valid */
	F_ANCHOR = 1u << 4,
	F_BASE_OUT = 1u << 5,
	F_BASE_IN = 1u << 6,
	F_SAMPLED = 1u << 7, /* gave an RTT sample: kept for FLOW_IDLE */
};

/* Second flag byte. */
enum flow_flags2 {
	F2_TS_SEEN = 1u << 0, /* the flow carries timestamps: no RTT from segment ends */
};

enum syn_state { SYN_NONE, SYN_OUT, SYNACK_OUT, SYN_REPEATED, SYN_DONE };

struct owd_base {
	int32_t cur_us, prev_us;
	uint64_t window_ns;
};

struct flow {
	uint64_t tag; /* 0: empty */
	uint64_t last_ns;
	uint64_t pend_ns[PENDING];
	uint32_t pend_ts[PENDING];
	uint32_t last_out_tsval;
	uint32_t max_end[CAKE_TCPTS_DIRS];
	uint32_t last_ack;
	uint32_t anchor_tsval;
	uint64_t anchor_ns;
	uint64_t tick_check_ns;
	uint32_t tick_ns; /* 0 unknown, TICK_REJECTED */
	uint32_t rtt_max_us; /* the largest RTT sample of the flow */
	uint32_t syn_expect;
	uint64_t syn_ns;
	struct out_seg {    /* OUT data segments, oldest first, for OUT delay: */
		uint64_t ns;  /* when it was sent, */
		uint64_t cum; /* the OUT wire bytes sent up to it (for the busy run), */
		uint32_t end; /* and its end */
	} segs[SEGS];
	struct owd_base base[CAKE_TCPTS_DIRS];
	uint32_t epoch[CAKE_TCPTS_DIRS];
	uint8_t n_pend, n_seg;
	uint8_t flags, flags2;
	uint8_t syn_state;
};

/*
 * A busy run: one-way samples in a row whose delay shows a queue, as points (the time
 * the packet left the bottleneck, the direction's wire bytes up to it). See the top.
 */
struct busy_run {
	int64_t first_us, last_us;
	uint64_t first_cum, last_cum;
	bool on;
};

struct dir_acc {
	struct cake_dhist owd;
	struct cake_dhist recent; /* the samples since the last peek that reset */
	uint32_t flows;
	uint64_t bytes, bytes_taken; /* wire bytes of every packet (IN arrived, OUT sent)
				      * since the table was made, and at the last take */
};

struct cake_tcpts {
	struct cake_siphash_key key;
	uint32_t set_mask;
	uint32_t epoch;
	struct dir_acc acc[CAKE_TCPTS_DIRS];
	struct busy_run out_run;
	struct cake_dhist rtt;
	uint64_t acked_bytes, out_payload, out_wire;
	uint64_t ratio; /* wire per payload byte << RATIO_SHIFT */
	struct cake_tcpts_stats st;
	struct flow *flows;
	uint64_t clock_ns; /* the latest time given: flows age by it (see cake_tcpts_packet) */
	struct echo {
		uint64_t tag; /* 0: free */
		uint64_t ns;
	} echoes[ECHOES];
	uint32_t echo_next;
};

/* The TCP facts of one packet (ICMP: flags is the type, sport and dport the echo's
 * identifier and sequence number). */
struct seg {
	const uint8_t *addr_src, *addr_dst;
	uint8_t family, alen, flags;
	bool has_ts, has_sack;
	uint16_t sport, dport;
	uint32_t seq, ack, end, payload, tsval, tsecr, sack_hi;
};

static bool after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

struct cake_tcpts *cake_tcpts_new(uint32_t max_flows, const struct cake_siphash_key *key)
{
	struct cake_tcpts *t;
	uint32_t n = MIN_FLOWS;

	if (max_flows > CAKE_TCPTS_MAX_FLOWS)
		return NULL;
	while (n < max_flows)
		n <<= 1;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->flows = calloc(n, sizeof(*t->flows));
	if (!t->flows) {
		free(t);
		return NULL;
	}
	t->key = *key;
	t->set_mask = n / WAYS - 1;
	t->ratio = 1ull << RATIO_SHIFT;
	t->epoch = 1; /* a fresh flow's 0 never matches */
	for (int d = 0; d < CAKE_TCPTS_DIRS; d++) {
		cake_dhist_reset(&t->acc[d].owd);
		cake_dhist_reset(&t->acc[d].recent);
	}
	cake_dhist_reset(&t->rtt);
	return t;
}

void cake_tcpts_free(struct cake_tcpts *t)
{
	if (!t)
		return;
	free(t->flows);
	/* The flow-hash key keeps a remote sender from aiming collisions at the table. */
	explicit_bzero(&t->key, sizeof(t->key));
	free(t);
}

/*
 * The options of interest among the n option bytes at o: the timestamps (*has_ts) and
 * the highest right edge of the SACK blocks (*sack_hi, when *has_sack). A malformed
 * option ends the walk.
 */
static void tcp_options(const uint8_t *o, uint32_t n, struct seg *s)
{
	struct cake_tcpopt_walk w = cake_tcpopt_walk_init(o, n);
	const uint8_t *opt;
	uint32_t olen;

	while ((opt = cake_tcpopt_next(&w, &olen))) {
		if (opt[0] == CAKE_TCPOPT_TIMESTAMP && olen == CAKE_TCPOLEN_TIMESTAMP) {
			s->tsval = cake_get_be32(opt + 2);
			s->tsecr = cake_get_be32(opt + 6);
			s->has_ts = true;
		} else if (opt[0] == CAKE_TCPOPT_SACK) {
			for (uint32_t b = CAKE_TCPOLEN_SACK_BASE;
			     b + CAKE_TCPOLEN_SACK_BLOCK <= olen; b += CAKE_TCPOLEN_SACK_BLOCK) {
				uint32_t right = cake_get_be32(opt + b + 4);

				if (!s->has_sack || after(right, s->sack_hi))
					s->sack_hi = right;
				s->has_sack = true;
			}
		}
	}
}

enum seg_kind { SEG_TCP, SEG_ICMP, SEG_OTHER, SEG_BAD };

static void addresses(const uint8_t *d, const struct cake_flowkey_hdrs *h, struct seg *s)
{
	s->family = h->family;
	s->alen = h->family == 4 ? 4 : 16;
	s->addr_src = d + (h->family == 4 ? 12 : 8);
	s->addr_dst = s->addr_src + s->alen;
}

/* An unfragmented ICMP or ICMPv6 message: its type, identifier and sequence. */
static enum seg_kind parse_icmp(const uint8_t *d, const struct cake_flowkey_hdrs *h,
				struct seg *s)
{
	const uint8_t *ih = d + h->l3_len;

	if (h->fragment || h->proto != (h->family == 4 ? CAKE_IPPROTO_ICMP : CAKE_IPPROTO_ICMPV6) ||
	    (uint32_t)h->l3_len + CAKE_ICMP_ECHO_HDR_BYTES > h->ip_len)
		return SEG_OTHER;
	addresses(d, h, s);
	s->flags = ih[0];
	s->sport = cake_get_be16(ih + CAKE_ICMP_ECHO_ID_OFFSET);
	s->dport = cake_get_be16(ih + CAKE_ICMP_ECHO_SEQ_OFFSET);
	return SEG_ICMP;
}

static enum seg_kind parse(const uint8_t *d, uint32_t len, struct seg *s)
{
	struct cake_flowkey_hdrs h;
	const uint8_t *th;

	if (cake_flowkey_dissect(d, len, &h) != CAKE_FLOWKEY_OK)
		return SEG_BAD;
	if (h.proto != CAKE_IPPROTO_TCP || !h.l4_offset || h.fragment)
		return parse_icmp(d, &h, s);
	th = d + h.l4_offset;
	addresses(d, &h, s);
	s->sport = h.sport;
	s->dport = h.dport;
	s->flags = h.tcp_flags;
	s->seq = cake_get_be32(th + CAKE_TCP_SEQ_OFFSET);
	s->ack = cake_get_be32(th + CAKE_TCP_ACK_OFFSET);
	s->payload = h.ip_len - h.l4_offset - h.l4_hdr_len;
	s->end = s->seq + s->payload + !!(s->flags & CAKE_TCP_SYN) + !!(s->flags & CAKE_TCP_FIN);
	s->has_ts = s->has_sack = false;
	tcp_options(th + CAKE_TCP_HDR_BYTES, h.l4_hdr_len - CAKE_TCP_HDR_BYTES, s);
	return SEG_TCP;
}

static uint64_t flow_tag(const struct cake_tcpts *t, enum cake_tcpts_dir dir, const struct seg *s)
{
	uint8_t k[1 + 2 + 2 + 2 * 16];
	const uint8_t *local = dir == CAKE_TCPTS_OUT ? s->addr_src : s->addr_dst;
	const uint8_t *remote = dir == CAKE_TCPTS_OUT ? s->addr_dst : s->addr_src;
	uint64_t tag;

	k[0] = s->family;
	cake_put_be16(k + 1, dir == CAKE_TCPTS_OUT ? s->sport : s->dport);
	cake_put_be16(k + 3, dir == CAKE_TCPTS_OUT ? s->dport : s->sport);
	memcpy(k + 5, local, s->alen);
	memcpy(k + 5 + s->alen, remote, s->alen);
	tag = cake_siphash(&t->key, k, 5 + 2 * (size_t)s->alen);
	return tag ? tag : 1;
}

static bool stale(const struct flow *f, uint64_t now)
{
	uint64_t idle = f->flags & F_SAMPLED ? FLOW_IDLE_NS : FLOW_IDLE_UNSAMPLED_NS;

	return now - f->last_ns > idle;
}

static struct flow *set_of(const struct cake_tcpts *t, uint64_t tag)
{
	return &t->flows[(tag & t->set_mask) * WAYS];
}

static struct flow *find(const struct cake_tcpts *t, uint64_t tag)
{
	struct flow *set = set_of(t, tag);

	for (int w = 0; w < WAYS; w++)
		if (set[w].tag == tag)
			return &set[w];
	return NULL;
}

/* The flow of tag: found, or a fresh entry in its set. */
static struct flow *lookup(struct cake_tcpts *t, uint64_t tag, uint64_t now)
{
	struct flow *set = set_of(t, tag);
	struct flow *victim = find(t, tag);

	if (victim)
		return victim;
	for (int w = 0; w < WAYS && !victim; w++)
		if (!set[w].tag || stale(&set[w], now))
			victim = &set[w];
	if (!victim) {
		victim = &set[0];
		for (int w = 1; w < WAYS; w++)
			if (set[w].last_ns < victim->last_ns)
				victim = &set[w];
		t->st.evictions++;
	}
	if (!victim->tag)
		t->st.flows++;
	else if (victim->tick_ns && victim->tick_ns != TICK_REJECTED)
		t->st.ticks_known--;
	memset(victim, 0, sizeof(*victim));
	victim->tag = tag;
	return victim;
}

/* The RTT of a question sent at sent_ns and answered at now; none if the answer's time
 * is the earlier (an arrival's kernel time against a send time: clocks a hair apart). */
static void rtt_sample(struct cake_tcpts *t, struct flow *f, uint64_t sent_ns, uint64_t now)
{
	uint64_t us;

	if (now <= sent_ns)
		return;
	us = (now - sent_ns) / NS_PER_US;
	cake_dhist_add(&t->rtt, us > UINT32_MAX ? UINT32_MAX : (uint32_t)us);
	t->st.rtt_samples++;
	f->flags |= F_SAMPLED;
	if (us > f->rtt_max_us)
		f->rtt_max_us = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/*
 * An OUT one-way sample as a point of the busy run: its segment left the bottleneck at
 * at_us (up to a constant), after cum OUT wire bytes, q_us over its baseline.
 */
static void busy_point(struct busy_run *r, int64_t at_us, uint64_t cum, uint32_t q_us)
{
	if (q_us < BUSY_Q_US) {
		r->on = false;
		return;
	}
	if (r->on && cum <= r->last_cum)
		return; /* left before the last point (another flow's ACK came later) */
	if (!r->on || at_us - r->last_us > BUSY_GAP_US || at_us < r->last_us - BUSY_BACK_US) {
		r->first_us = at_us;
		r->first_cum = cum;
		r->on = true;
	}
	r->last_us = at_us;
	r->last_cum = cum;
}

/* The sample over the flow's baseline, us: the queueing delay it saw. */
static uint32_t owd_sample(struct cake_tcpts *t, struct flow *f, enum cake_tcpts_dir dir,
			   int64_t raw_ns, uint64_t now)
{
	struct owd_base *b = &f->base[dir];
	uint8_t have = dir == CAKE_TCPTS_OUT ? F_BASE_OUT : F_BASE_IN;
	int64_t us = raw_ns / (int64_t)NS_PER_US;
	int32_t raw = us > INT32_MAX ? INT32_MAX : us < -INT32_MAX ? -INT32_MAX : (int32_t)us;
	int32_t base;
	uint32_t q;

	if (!(f->flags & have) || (now > b->window_ns && now - b->window_ns > BASE_WINDOW_NS)) {
		b->prev_us = f->flags & have ? b->cur_us : raw;
		b->cur_us = raw;
		b->window_ns = now;
		f->flags |= have;
	} else if (raw < b->cur_us) {
		b->cur_us = raw;
	}
	base = b->cur_us < b->prev_us ? b->cur_us : b->prev_us;
	q = (uint32_t)((int64_t)raw - base); /* base <= raw; both within +-INT32_MAX */
	cake_dhist_add(&t->acc[dir].owd, q);
	cake_dhist_add(&t->acc[dir].recent, q);
	t->st.owd_samples[dir]++;
	if (f->epoch[dir] != t->epoch) {
		f->epoch[dir] = t->epoch;
		t->acc[dir].flows++;
	}
	return q;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * The candidate tick that dts peer ticks in elapsed ns fit (see the top of this file),
 * or 0; late_ns is how late against it the arrival may be (the flow's largest RTT).
 * The other candidates' predictions must also lie further than twice the tolerance
 * from the fitting one's.
 */
static uint32_t fit_tick(uint64_t elapsed, uint32_t dts, uint64_t late_ns)
{
	uint64_t best = UINT64_MAX, second = UINT64_MAX;
	uint64_t tol = (elapsed >> TICK_TOL_SHIFT) + late_ns;
	size_t n = sizeof(tick_candidates) / sizeof(tick_candidates[0]), pick = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t off = distance(elapsed, (uint64_t)dts * tick_candidates[i]);

		if (off < best) {
			second = best;
			best = off;
			pick = i;
		} else if (off < second) {
			second = off;
		}
	}
	if (best > tol || best > second / TICK_CLEAR)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (i != pick && distance((uint64_t)dts * tick_candidates[i],
					  (uint64_t)dts * tick_candidates[pick]) <= 2 * tol)
			return 0;
	return tick_candidates[pick];
}

/*
 * The anchor is the flow's first IN delay sample (0 on its own axis), and often the one
 * with the least queue (a SYN-ACK, or the first data before the buffer fills): without
 * it, the baseline would start from the queue the tick estimate waited through.
 */
static void seed_in_base(struct flow *f)
{
	f->base[CAKE_TCPTS_IN] = (struct owd_base){.cur_us = 0, .prev_us = 0,
						   .window_ns = f->anchor_ns};
	f->flags |= F_BASE_IN;
}

/* Learns the peer's tick from an IN TSval; keeps the anchor near (int32 differences). */
static void peer_clock(struct cake_tcpts *t, struct flow *f, uint32_t tsval, uint64_t now)
{
	int32_t dts;
	bool early;

	if (!(f->flags & F_ANCHOR)) {
		f->anchor_tsval = tsval;
		f->anchor_ns = now;
		f->tick_check_ns = now + TICK_EARLY_NS;
		f->flags |= F_ANCHOR;
		return;
	}
	dts = (int32_t)(tsval - f->anchor_tsval);
	if (f->tick_ns && f->tick_ns != TICK_REJECTED) {
		if (dts > INT32_MAX / 2 || dts < -INT32_MAX / 2) { /* move the anchor, same axis */
			f->anchor_ns += (uint64_t)((int64_t)dts * f->tick_ns);
			f->anchor_tsval = tsval;
		}
		return;
	}
	if (f->tick_ns || now < f->tick_check_ns)
		return;
	early = now - f->anchor_ns < TICK_MIN_ELAPSED_NS;
	f->tick_check_ns = now + (early ? TICK_EARLY_NS : TICK_MIN_ELAPSED_NS);
	if (dts > 0)
		f->tick_ns = fit_tick(now - f->anchor_ns, (uint32_t)dts,
				      (uint64_t)f->rtt_max_us * NS_PER_US);
	if (f->tick_ns) {
		t->st.ticks_known++;
		seed_in_base(f);
	} else if (now - f->anchor_ns >= TICK_GIVE_UP_NS) {
		f->tick_ns = TICK_REJECTED;
	}
}

static bool tick_known(const struct flow *f)
{
	return f->tick_ns && f->tick_ns != TICK_REJECTED;
}

/* t_peer(tsval) - anchor time, in ns. */
static int64_t peer_time(const struct flow *f, uint32_t tsval)
{
	return (int64_t)(int32_t)(tsval - f->anchor_tsval) * f->tick_ns;
}

/* Karn: a segment with payload that does not reach past what this direction sent. */
static bool retransmission(struct flow *f, enum cake_tcpts_dir dir, const struct seg *s)
{
	uint8_t have = dir == CAKE_TCPTS_OUT ? F_END_OUT : F_END_IN;
	bool old = (f->flags & have) && !after(s->end, f->max_end[dir]);

	if (!(f->flags & have) || after(s->end, f->max_end[dir])) {
		f->max_end[dir] = s->end;
		f->flags |= have;
	}
	return old && s->payload;
}

/* Marks tsval as sent; whether this packet is the first to carry it. */
static bool first_carrier(struct flow *f, uint32_t tsval)
{
	if ((f->flags & F_OUT_TS) && !after(tsval, f->last_out_tsval))
		return false;
	f->last_out_tsval = tsval;
	f->flags |= F_OUT_TS;
	return true;
}

static void record_out_ts(struct flow *f, const struct seg *s, uint64_t now)
{
	if (!first_carrier(f, s->tsval))
		return; /* not the first packet carrying this TSval: its send time stands */
	if (f->n_pend == PENDING && now - f->pend_ns[0] > PENDING_MAX_NS) {
		memmove(f->pend_ns, f->pend_ns + 1, (PENDING - 1) * sizeof(f->pend_ns[0]));
		memmove(f->pend_ts, f->pend_ts + 1, (PENDING - 1) * sizeof(f->pend_ts[0]));
		f->n_pend--;
	}
	if (f->n_pend < PENDING) {
		f->pend_ts[f->n_pend] = s->tsval;
		f->pend_ns[f->n_pend] = now;
		f->n_pend++;
	}
}

static void syn_out(struct flow *f, const struct seg *s, uint64_t now)
{
	bool ack = s->flags & CAKE_TCP_ACK;

	if (f->syn_state == SYN_NONE) {
		f->syn_state = ack ? SYNACK_OUT : SYN_OUT;
		f->syn_ns = now;
		f->syn_expect = s->seq + 1;
	} else if (f->syn_state == SYN_OUT || f->syn_state == SYNACK_OUT) {
		f->syn_state = SYN_REPEATED;
	}
}

static void syn_in(struct cake_tcpts *t, struct flow *f, const struct seg *s, uint64_t now)
{
	bool syn = s->flags & CAKE_TCP_SYN, ack = s->flags & CAKE_TCP_ACK;
	bool answer = (f->syn_state == SYN_OUT && syn && ack) ||
		      (f->syn_state == SYNACK_OUT && !syn && ack);

	if (f->syn_state == SYN_REPEATED && ack) {
		f->syn_state = SYN_DONE;
	} else if (answer && s->ack == f->syn_expect) {
		rtt_sample(t, f, f->syn_ns, now);
		t->st.syn_rtt_samples++;
		f->syn_state = SYN_DONE;
	}
}

static void packet_out(struct cake_tcpts *t, struct flow *f, const struct seg *s,
		       uint32_t wire_len, uint64_t now)
{
	bool retrans = retransmission(f, CAKE_TCPTS_OUT, s);

	if (s->flags & CAKE_TCP_SYN)
		syn_out(f, s, now);
	if (s->payload) {
		t->out_payload += s->payload;
		t->out_wire += wire_len;
	}
	if (s->has_ts)
		f->flags2 |= F2_TS_SEEN;
	if (s->payload && !retrans && f->n_seg < SEGS &&
	    (!f->n_seg || after(s->end, f->segs[f->n_seg - 1].end)))
		f->segs[f->n_seg++] =
			(struct out_seg){.ns = now, .cum = t->acc[CAKE_TCPTS_OUT].bytes, .end = s->end};
	if (retrans) {
		t->st.karn_skips++;
		f->n_seg = 0; /* Karn: an ACK may answer either copy */
		if (s->has_ts)
			(void)first_carrier(f, s->tsval); /* its TSval is no fresh one after it */
	} else if (s->has_ts) {
		record_out_ts(f, s, now);
	}
}

/* The IN segment's TSecr against the pending OUT TSvals: the RTT. */
static void match_echo(struct cake_tcpts *t, struct flow *f, const struct seg *s, uint64_t now)
{
	uint8_t n = 0;

	while (n < f->n_pend && !after(f->pend_ts[n], s->tsecr))
		n++;
	if (!n)
		return;
	if (f->pend_ts[n - 1] == s->tsecr) {
		rtt_sample(t, f, f->pend_ns[n - 1], now);
	}
	f->n_pend -= n;
	memmove(f->pend_ns, f->pend_ns + n, f->n_pend * sizeof(f->pend_ns[0]));
	memmove(f->pend_ts, f->pend_ts + n, f->n_pend * sizeof(f->pend_ts[0]));
}

/*
 * The OUT segment an IN ACK answers: OUT one-way delay, or without timestamps the RTT.
 * The peer stamped this ACK (its TSval) when the segment ending at its ACK number
 * arrived, the last one it covers, so the time that segment left is the send time.
 * (The TSecr names the first segment since the last ACK, up to a delayed-ACK pair
 * earlier: that would add a packet time at our rate to every sample.) Past a hole the
 * highest SACK edge names the segment instead, so losses do not starve it.
 */
static void answered(struct cake_tcpts *t, struct flow *f, const struct seg *s, uint64_t now)
{
	uint32_t hi = s->has_sack && after(s->sack_hi, s->ack) ? s->sack_hi : s->ack;
	const struct out_seg *last;
	uint8_t n = 0;

	while (n < f->n_seg && !after(f->segs[n].end, hi))
		n++;
	if (!n)
		return;
	last = &f->segs[n - 1];
	if (last->end == hi && s->has_ts && tick_known(f)) {
		int64_t raw = peer_time(f, s->tsval) - (int64_t)(last->ns - f->anchor_ns);
		uint32_t q = owd_sample(t, f, CAKE_TCPTS_OUT, raw, now);

		if (f->tick_ns <= BUSY_TICK_MAX_NS) /* a coarser clock blurs the span */
			busy_point(&t->out_run, (int64_t)(last->ns / NS_PER_US) + q, last->cum, q);
	} else if (last->end == hi && !(f->flags2 & F2_TS_SEEN)) {
		rtt_sample(t, f, last->ns, now); /* no timestamps: the RTT */
	}
	f->n_seg -= n;
	memmove(f->segs, f->segs + n, f->n_seg * sizeof(f->segs[0]));
}

/*
 * What the peer reports received: the cumulative ACK, or past a hole the highest SACK
 * edge, so a loss does not stall the delivered rate for the time its repair takes.
 */
static void ack_progress(struct cake_tcpts *t, struct flow *f, const struct seg *s)
{
	uint32_t hi = s->ack;

	if (!(s->flags & CAKE_TCP_ACK))
		return;
	if (s->has_sack && after(s->sack_hi, hi) && s->sack_hi - hi < MAX_ACK_STEP)
		hi = s->sack_hi;
	if ((f->flags & F_ACK) && after(hi, f->last_ack) && hi - f->last_ack < MAX_ACK_STEP)
		t->acked_bytes += hi - f->last_ack;
	if (!(f->flags & F_ACK) || after(hi, f->last_ack))
		f->last_ack = hi;
	f->flags |= F_ACK;
}

static void packet_in(struct cake_tcpts *t, struct flow *f, const struct seg *s, uint64_t now)
{
	bool retrans = retransmission(f, CAKE_TCPTS_IN, s);

	if (f->syn_state != SYN_NONE && f->syn_state != SYN_DONE)
		syn_in(t, f, s, now);
	ack_progress(t, f, s);
	if (s->has_ts)
		peer_clock(t, f, s->tsval, now);
	if ((s->flags & CAKE_TCP_ACK) && !retrans)
		answered(t, f, s, now);
	if (!s->has_ts)
		return;
	if (tick_known(f))
		(void)owd_sample(t, f, CAKE_TCPTS_IN,
				 (int64_t)(now - f->anchor_ns) - peer_time(f, s->tsval), now);
	if (retrans)
		t->st.karn_skips++;
	else if (s->tsecr)
		match_echo(t, f, s, now);
}

/* An OUT echo request is remembered; the IN reply that matches it is an RTT sample. */
static void icmp_echo(struct cake_tcpts *t, enum cake_tcpts_dir dir, struct seg *s, uint64_t now)
{
	bool v4 = s->family == 4;
	uint64_t tag;

	if (dir == CAKE_TCPTS_OUT && s->flags == (v4 ? CAKE_ICMP_ECHO : CAKE_ICMPV6_ECHO_REQUEST)) {
		struct echo *e = NULL;

		tag = flow_tag(t, dir, s);
		for (int i = 0; i < ECHOES && !e; i++) /* sent again: time the latest */
			if (t->echoes[i].tag == tag)
				e = &t->echoes[i];
		if (!e)
			e = &t->echoes[t->echo_next++ % ECHOES];
		e->tag = tag;
		e->ns = now;
		return;
	}
	if (dir != CAKE_TCPTS_IN || s->flags != (v4 ? CAKE_ICMP_ECHOREPLY : CAKE_ICMPV6_ECHO_REPLY))
		return;
	/* flow_tag() names IN ports the other way round; the echo's fields are not */
	tag = s->sport;
	s->sport = s->dport;
	s->dport = (uint16_t)tag;
	tag = flow_tag(t, dir, s);
	for (int i = 0; i < ECHOES; i++) {
		uint64_t us = (now - t->echoes[i].ns) / NS_PER_US;

		if (t->echoes[i].tag != tag || now < t->echoes[i].ns ||
		    now - t->echoes[i].ns > PENDING_MAX_NS)
			continue;
		t->echoes[i].tag = 0;
		cake_dhist_add(&t->rtt, (uint32_t)us);
		t->st.rtt_samples++;
		t->st.icmp_rtt_samples++;
		return;
	}
}

void cake_tcpts_packet(struct cake_tcpts *t, enum cake_tcpts_dir dir, const uint8_t *data,
		       uint32_t len, uint32_t wire_len, uint64_t now_ns)
{
	struct seg s;
	struct flow *f;

	t->st.packets++;
	if (!wire_len)
		wire_len = len;
	t->acc[dir].bytes += wire_len;
	switch (parse(data, len, &s)) {
	case SEG_TCP:
		break;
	case SEG_ICMP:
		icmp_echo(t, dir, &s, now_ns);
		return;
	case SEG_BAD:
		t->st.ignored++;
		return;
	default:
		return;
	}
	t->st.tcp_packets++;
	if (now_ns > t->clock_ns)
		t->clock_ns = now_ns;
	f = lookup(t, flow_tag(t, dir, &s), t->clock_ns);
	f->last_ns = t->clock_ns;
	if (dir == CAKE_TCPTS_OUT)
		packet_out(t, f, &s, wire_len, now_ns);
	else
		packet_in(t, f, &s, now_ns);
}


/* The queueing delay of direction d's samples in h: a low quantile OUT, the median IN. */
static uint32_t qdelay_of(const struct cake_dhist *h, int d)
{
	return cake_dhist_quantile(h, d == CAKE_TCPTS_OUT ? QUANTILE_Q256 : MEDIAN_Q256);
}

uint32_t cake_tcpts_peek(struct cake_tcpts *t, enum cake_tcpts_dir dir, uint32_t *qdelay_us,
			 bool reset)
{
	struct cake_dhist *h = &t->acc[dir].recent;
	uint32_t n = h->count;

	*qdelay_us = qdelay_of(h, dir);
	if (reset && n) /* an empty window is a fresh one already */
		cake_dhist_reset(h);
	return n;
}

/* The latest busy run of the period into *sig; it goes on from its last point. */
static void take_run(struct busy_run *r, struct cake_signal *sig)
{
	int64_t us = r->last_us - r->first_us;

	sig->busy_bytes = r->last_cum - r->first_cum;
	sig->busy_us = us <= 0 ? 0 : us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	r->first_us = r->last_us; /* so a run that ended is reported once */
	r->first_cum = r->last_cum;
}

void cake_tcpts_take(struct cake_tcpts *t, struct cake_signal out[CAKE_TCPTS_DIRS])
{
	uint32_t rtt_min = t->rtt.count ? t->rtt.min_us : 0;
	uint32_t rtt_p50 = cake_dhist_quantile(&t->rtt, MEDIAN_Q256);
	/* Saturated: ACK progress is the peer's word, each ACK up to MAX_ACK_STEP. */
	uint64_t acked_wire = cake_mul_div_sat(t->acked_bytes, t->ratio, 1ull << RATIO_SHIFT);
	uint64_t sent;

	if (t->out_payload >= RATIO_MIN_PAYLOAD) {
		t->ratio = (t->out_wire << RATIO_SHIFT) / t->out_payload;
		acked_wire = cake_mul_div_sat(t->acked_bytes, t->out_wire, t->out_payload);
	}
	for (int d = 0; d < CAKE_TCPTS_DIRS; d++) {
		struct dir_acc *a = &t->acc[d];

		out[d] = (struct cake_signal){
			.owd_samples = a->owd.count,
			.owd_flows = a->flows,
			.qdelay_us = qdelay_of(&a->owd, d),
			.rtt_samples = t->rtt.count,
			.rtt_min_us = rtt_min,
			.rtt_p50_us = rtt_p50,
			.delivered_bytes = a->bytes - a->bytes_taken,
		};
		cake_dhist_reset(&a->owd);
		cake_dhist_reset(&a->recent);
		a->flows = 0;
		a->bytes_taken = a->bytes;
	}
	sent = out[CAKE_TCPTS_OUT].delivered_bytes; /* the loop's OUT bytes are those sent */
	out[CAKE_TCPTS_IN].reverse_bytes = sent;
	out[CAKE_TCPTS_OUT].reverse_bytes = out[CAKE_TCPTS_IN].delivered_bytes;
	out[CAKE_TCPTS_OUT].other_bytes = sent > t->out_wire ? sent - t->out_wire : 0;
	out[CAKE_TCPTS_OUT].delivered_bytes = acked_wire;
	take_run(&t->out_run, &out[CAKE_TCPTS_OUT]);
	t->acked_bytes = t->out_payload = t->out_wire = 0;
	cake_dhist_reset(&t->rtt);
	t->epoch++;
}

uint32_t cake_tcpts_flow_tick(const struct cake_tcpts *t, enum cake_tcpts_dir dir,
			      const uint8_t *data, uint32_t len)
{
	const struct flow *f;
	struct seg s;

	if (parse(data, len, &s) != SEG_TCP)
		return 0;
	f = find(t, flow_tag(t, dir, &s));
	return f ? f->tick_ns : 0;
}

void cake_tcpts_get_stats(const struct cake_tcpts *t, struct cake_tcpts_stats *out)
{
	*out = t->st;
}
