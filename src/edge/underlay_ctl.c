/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The underlay's control messages: handshake initiations and responses, cookie replies
 * and keepalives. Each goes out at once unless its family's socket is full or others of
 * its family still wait; then it waits, copied, in that family's ring, which the next
 * flush empties before any data message of the family goes (see underlay.h).
 */
#include <errno.h>
#include <string.h>

#include "src/core/messages.h"
#include "src/edge/underlay_priv.h"

enum {
	HANDSHAKE_TOS = 0x88, /* AF41, as Linux marks handshakes */
};

static struct wg_underlay_ctl_msg *ctl_at(struct wg_underlay_ctlq *q, unsigned int i)
{
	return &q->m[(q->head + i) % WG_UNDERLAY_CTL_QUEUE];
}

static void ctl_pop(struct wg_underlay_ctlq *q, unsigned int n)
{
	q->head = (q->head + n) % WG_UNDERLAY_CTL_QUEUE;
	q->n -= n;
}

/* Keeps a copy of the message for f's next flush; a full queue (or a message longer than
 * any control message) loses it, counted. */
static void ctl_push(struct wg_underlay *u, enum wg_udp_family f, const struct wg_endpoint *ep,
		     const uint8_t *msg, size_t len, uint8_t tos)
{
	struct wg_underlay_ctlq *q = &u->ctlq[f];
	struct wg_underlay_ctl_msg *m;

	if (q->n == WG_UNDERLAY_CTL_QUEUE || len > WG_UNDERLAY_CTL_MAX_LEN) {
		u->stats.ctl_dropped++;
		return;
	}
	m = ctl_at(q, q->n++);
	m->ep = *ep;
	m->len = (uint16_t)len;
	m->tos = tos;
	memcpy(m->msg, msg, len);
	u->stats.ctl_queued++;
}

/* The socket of f is full: the daemon waits for it. */
static int ctl_blocked(struct wg_underlay *u, enum wg_udp_family f)
{
	u->stats.blocked++;
	u->blocked_fd = u->udp.fd[f];
	return -EAGAIN;
}

int wg_underlay_ctl_flush(struct wg_underlay *u, enum wg_udp_family f)
{
	struct wg_underlay_ctlq *q = &u->ctlq[f];
	struct wg_udp_tx tx[WG_UDP_BATCH_MAX];
	struct wg_udp_send_result res;

	while (q->n) {
		/* the run up to the ring's end, then the rest from its start */
		unsigned int n = WG_MIN(q->n, WG_UNDERLAY_CTL_QUEUE - q->head);
		enum wg_udp_send_outcome o;

		n = WG_MIN(n, (unsigned int)WG_UDP_BATCH_MAX);
		for (unsigned int i = 0; i < n; i++) {
			struct wg_underlay_ctl_msg *m = ctl_at(q, i);

			tx[i] = (struct wg_udp_tx){
				.buf = m->msg, .len = m->len, .ep = &m->ep, .tos = m->tos};
		}
		o = wg_udp_send(&u->udp, tx, n, &res);
		ctl_pop(q, res.sent);
		if (o == WG_UDP_SEND_BLOCKED)
			return ctl_blocked(u, f);
		if (o == WG_UDP_SEND_FAILED) {
			u->stats.send_errors++; /* unreachable: this one cannot go */
			ctl_pop(q, 1);
		}
	}
	return 0;
}

void wg_underlay_ctl_drop_all(struct wg_underlay *u)
{
	for (int f = 0; f < WG_UDP_FAMILIES; f++) {
		u->stats.ctl_dropped += u->ctlq[f].n;
		u->ctlq[f].head = u->ctlq[f].n = 0;
	}
}

void wg_underlay_send_now(struct wg_underlay *u, const struct wg_endpoint *ep, const uint8_t *msg,
			  size_t len)
{
	enum wg_udp_family f = wg_udp_family_of(ep);
	uint8_t tos = len && msg[0] == MESSAGE_DATA ? 0 : HANDSHAKE_TOS;
	struct wg_endpoint to = *ep; /* udp.c may clear a source that is gone */
	struct wg_udp_tx tx = {.buf = msg, .len = len, .ep = &to, .tos = tos};
	struct wg_udp_send_result res;

	if (!len)
		return;
	if (f == WG_UDP_FAMILIES || u->udp.fd[f] < 0) {
		u->stats.send_errors++;
		return;
	}
	if (u->ctlq[f].n) { /* behind the ones that wait, which may go now */
		ctl_push(u, f, ep, msg, len, tos);
		(void)wg_underlay_ctl_flush(u, f);
		return;
	}
	switch (wg_udp_send(&u->udp, &tx, 1, &res)) {
	case WG_UDP_SENT_ALL:
		break;
	case WG_UDP_SEND_BLOCKED:
		ctl_push(u, f, &to, msg, len, tos);
		(void)ctl_blocked(u, f);
		break;
	case WG_UDP_SEND_FAILED:
		u->stats.send_errors++;
		break;
	}
}
