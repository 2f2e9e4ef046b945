/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUN batcher over a stand-in device: a SOCK_SEQPACKET socketpair keeps every
 * write() one message (virtio header + packet), so the test reads back exactly what the
 * kernel would have been handed, in order. An eventfd, which refuses writes of any size
 * but 8 with EINVAL, stands in for a kernel that refuses GSO writes.
 */
#include "src/edge/tun_gro.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qdisc/gso.h"
#include "src/core/device.h"
#include "src/edge/tun.h"
#include "tests/support/det_rng.h"
#include "tests/support/pktbuild.h"

enum {
	MSS = 1000,
	MAX_MSGS = 64,
	MSG_CAP = 70000,
};

struct msg {
	struct wg_vnet_hdr hdr;
	uint32_t len;
	uint8_t data[MSG_CAP];
};

static struct wg_device dev;
static struct det_rng rng_state = {.state = 42};
static struct wg_tun tun;
static struct wg_tun_gro gro;
static int peer_fd = -1;
static uint8_t payload[MSG_CAP];
static struct msg msgs[MAX_MSGS];
static uint8_t scratch[MSG_CAP];

static void no_tun_write(void *ctx, struct wg_pkt *pkt)
{
	(void)ctx;
	(void)pkt;
}

static void setup(void)
{
	struct wg_io_ops ops = {.tun_write = no_tun_write};
	struct wg_rng rng = det_rng_as_wg(&rng_state);
	int sv[2];

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 29 + (i >> 8));
	cr_assert_eq(wg_device_init(&dev, "gro0", &ops, &rng, 0), 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	memset(&tun, 0, sizeof(tun));
	tun.fd = sv[0];
	tun.vnet_hdr = true;
	peer_fd = sv[1];
	wg_tun_gro_init(&gro, &tun, &dev);
}

static void teardown(void)
{
	cr_expect_eq(dev.pool.outstanding, 0, "every small buffer went back");
	cr_expect_eq(dev.pool_large.outstanding, 0, "every large buffer went back");
	close(tun.fd);
	close(peer_fd);
	wg_device_deinit(&dev);
}

TestSuite(tun_gro, .init = setup, .fini = teardown);

/* Reads what was written so far into msgs[]; returns how many. */
static unsigned int drain(void)
{
	unsigned int n = 0;

	for (;;) {
		uint8_t raw[WG_VNET_HDR_LEN + MSG_CAP];
		ssize_t got = recv(peer_fd, raw, sizeof(raw), MSG_DONTWAIT);

		if (got < 0) {
			cr_assert_eq(errno, EAGAIN);
			return n;
		}
		cr_assert_lt(n, MAX_MSGS);
		if (tun.vnet_hdr) {
			cr_assert_geq(got, WG_VNET_HDR_LEN);
			msgs[n].len = (uint32_t)(got - WG_VNET_HDR_LEN);
			cr_assert_eq(wg_vnet_hdr_decode(&msgs[n].hdr, raw, msgs[n].len), 0);
			memcpy(msgs[n].data, raw + WG_VNET_HDR_LEN, msgs[n].len);
		} else {
			msgs[n].len = (uint32_t)got;
			memset(&msgs[n].hdr, 0, sizeof(msgs[n].hdr));
			memcpy(msgs[n].data, raw, (size_t)got);
		}
		n++;
	}
}

static struct pb_pkt flow_desc(uint8_t family, uint16_t sport)
{
	struct pb_pkt d = {.family = family,
			   .proto = PB_PROTO_TCP,
			   .sport = sport,
			   .dport = 443,
			   .seq = 1000000,
			   .ack = 77,
			   .tcp_flags = PB_TCP_ACK,
			   .frag = PB_IPV4_DF,
			   .ip_id = 100,
			   .payload_len = MSS};

	if (family == 4) {
		pb_addr4(d.src, 10, 0, 0, 2);
		pb_addr4(d.dst, 10, 0, 0, 1);
	} else {
		pb_addr6(d.src, 0xfd00, 2);
		pb_addr6(d.dst, 0xfd00, 1);
	}
	return d;
}

/* Segment i of flow d, built into a pool buffer as the receive path would hand it. */
static struct wg_pkt *seg(struct pb_pkt d, uint32_t i, uint32_t plen)
{
	struct wg_pkt *p = wg_device_pkt_get(&dev, false);

	cr_assert_not_null(p);
	d.seq += i * MSS;
	d.ip_id = (uint16_t)(d.ip_id + i);
	d.payload = payload + i * MSS;
	d.payload_len = plen;
	p->cp.len = (uint32_t)pb_build(p->cp.data, wg_pkt_room(p), &d);
	cr_assert_gt(p->cp.len, 0);
	return p;
}

/* The bytes segment i would have; for comparison. */
static uint32_t seg_bytes(uint8_t *out, struct pb_pkt d, uint32_t i, uint32_t plen)
{
	struct wg_pkt *p = seg(d, i, plen);
	uint32_t len = p->cp.len;

	memcpy(out, p->cp.data, len);
	wg_device_pkt_put(&dev, p);
	return len;
}

/* msgs[k] is a super-packet of segments first..first+n-1 of d (or the segment itself). */
static void expect_segments(unsigned int k, struct pb_pkt d, uint32_t first, uint32_t n)
{
	struct cake_vnet_hdr vh = {msgs[k].hdr.flags,	   msgs[k].hdr.gso_type,
				   msgs[k].hdr.hdr_len,	   msgs[k].hdr.gso_size,
				   msgs[k].hdr.csum_start, msgs[k].hdr.csum_offset};
	struct cake_gso_plan plan;
	static uint8_t want[MSG_CAP];

	if (n == 1) {
		uint32_t len = seg_bytes(want, d, first, MSS);

		cr_expect_eq(msgs[k].hdr.gso_type, WG_VNET_HDR_GSO_NONE, "message %u", k);
		cr_expect_eq(msgs[k].hdr.flags, 0, "message %u", k);
		cr_assert_eq(msgs[k].len, len, "message %u", k);
		cr_expect_eq(memcmp(msgs[k].data, want, len), 0, "message %u", k);
		return;
	}
	cr_expect_eq(msgs[k].hdr.gso_type,
		     d.family == 4 ? WG_VNET_HDR_GSO_TCPV4 : WG_VNET_HDR_GSO_TCPV6);
	cr_assert_eq(cake_gso_plan(msgs[k].data, msgs[k].len, &vh, &plan), 0, "message %u", k);
	cr_assert_eq(plan.segs, n, "message %u", k);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = seg_bytes(want, d, first + i, MSS);
		int got = cake_gso_segment(msgs[k].data, msgs[k].len, &plan, i, scratch,
					   sizeof(scratch));

		cr_assert_eq(got, (int)len, "message %u segment %u", k, i);
		cr_expect_eq(memcmp(scratch, want, len), 0, "message %u segment %u", k, i);
	}
}

Test(tun_gro, two_flows_interleaved_and_udp_passes_at_once)
{
	struct pb_pkt a = flow_desc(4, 1111), b = flow_desc(6, 2222), u = flow_desc(4, 53);
	struct wg_pkt *p;

	u.proto = PB_PROTO_UDP;
	for (uint32_t i = 0; i < 20; i++) {
		wg_tun_gro_add(&gro, seg(a, i, MSS));
		wg_tun_gro_add(&gro, seg(b, i, MSS));
		if (i == 10) {
			p = seg(u, 0, 300);
			wg_tun_gro_add(&gro, p);
			cr_assert_eq(drain(), 1, "the UDP packet is not held");
			cr_expect_eq(msgs[0].hdr.gso_type, WG_VNET_HDR_GSO_NONE);
			cr_expect_eq(msgs[0].data[9], PB_PROTO_UDP);
		}
	}
	cr_expect_eq(drain(), 0, "nothing written before the batch ends");
	wg_tun_gro_flush(&gro);
	cr_assert_eq(drain(), 2);
	expect_segments(0, a, 0, 20);
	expect_segments(1, b, 0, 20);
	cr_expect_eq(gro.stats.packets, 41);
	cr_expect_eq(gro.stats.writes, 3);
	cr_expect_eq(gro.stats.gso_writes, 2);
	cr_expect_eq(gro.stats.coalesced, 38);
	cr_expect_eq(gro.stats.write_errors, 0);
}

Test(tun_gro, flow_order_kept_around_a_packet_that_cannot_join)
{
	struct pb_pkt a = flow_desc(4, 1111), ack = a;
	struct wg_pkt *p;

	wg_tun_gro_add(&gro, seg(a, 0, MSS));
	wg_tun_gro_add(&gro, seg(a, 1, MSS));
	ack.payload_len = 0; /* a pure ACK of the same flow: not a candidate */
	p = wg_device_pkt_get(&dev, false);
	p->cp.len = (uint32_t)pb_build(p->cp.data, wg_pkt_room(p), &ack);
	wg_tun_gro_add(&gro, p);
	cr_assert_eq(drain(), 2, "the open super-packet goes first, then the ACK");
	expect_segments(0, a, 0, 2);
	cr_expect_eq(msgs[1].len, 40);
	wg_tun_gro_add(&gro, seg(a, 2, MSS));
	wg_tun_gro_add(&gro, seg(a, 4, MSS)); /* a gap: segment 2 goes alone */
	cr_assert_eq(drain(), 1);
	expect_segments(0, a, 2, 1);
	wg_tun_gro_flush(&gro);
	cr_assert_eq(drain(), 1);
	expect_segments(0, a, 4, 1);
	cr_expect_eq(gro.stats.coalesced, 1);
}

Test(tun_gro, psh_and_short_segment_written_without_waiting)
{
	struct pb_pkt a = flow_desc(6, 1111), psh = a;

	wg_tun_gro_add(&gro, seg(a, 0, MSS));
	wg_tun_gro_add(&gro, seg(a, 1, MSS));
	wg_tun_gro_add(&gro, seg(a, 2, 10));
	cr_assert_eq(drain(), 1, "a short segment ends the super-packet");
	cr_expect_eq(msgs[0].len, 40 + 20 + 2 * MSS + 10);
	psh.tcp_flags |= PB_TCP_PSH;
	wg_tun_gro_add(&gro, seg(psh, 7, MSS));
	cr_assert_eq(drain(), 1, "PSH on a lone segment: written at once");
	cr_expect_eq(gro.open, 0);
}

Test(tun_gro, ninth_flow_evicts_the_oldest)
{
	for (uint16_t f = 0; f < WG_TUN_GRO_FLOWS; f++)
		wg_tun_gro_add(&gro, seg(flow_desc(4, (uint16_t)(1000 + f)), 0, MSS));
	wg_tun_gro_add(&gro, seg(flow_desc(4, 1001), 1, MSS)); /* flow 1 is fresh now */
	cr_expect_eq(drain(), 0);
	wg_tun_gro_add(&gro, seg(flow_desc(4, 2000), 0, MSS));
	cr_assert_eq(drain(), 1);
	expect_segments(0, flow_desc(4, 1000), 0, 1);
	wg_tun_gro_add(&gro, seg(flow_desc(4, 3000), 0, MSS));
	cr_assert_eq(drain(), 1);
	expect_segments(0, flow_desc(4, 1002), 0, 1);
	wg_tun_gro_flush(&gro);
	cr_expect_eq(drain(), WG_TUN_GRO_FLOWS);
}

Test(tun_gro, switched_off_writes_each_packet)
{
	struct pb_pkt a = flow_desc(4, 1111);

	wg_tun_gro_add(&gro, seg(a, 0, MSS));
	wg_tun_gro_set_enabled(&gro, false);
	cr_expect_eq(drain(), 1, "switching off flushes");
	wg_tun_gro_add(&gro, seg(a, 1, MSS));
	wg_tun_gro_add(&gro, seg(a, 2, MSS));
	cr_assert_eq(drain(), 2);
	expect_segments(0, a, 1, 1);
	expect_segments(1, a, 2, 1);
	wg_tun_gro_set_enabled(&gro, true);
	cr_expect(gro.enabled);
	cr_expect_eq(gro.stats.writes, gro.stats.packets);
}

Test(tun_gro, off_without_vnet_header)
{
	struct pb_pkt a = flow_desc(4, 1111);

	tun.vnet_hdr = false;
	wg_tun_gro_init(&gro, &tun, &dev);
	cr_expect_not(gro.enabled);
	wg_tun_gro_set_enabled(&gro, true);
	cr_expect_not(gro.enabled);
	wg_tun_gro_add(&gro, seg(a, 0, MSS));
	wg_tun_gro_add(&gro, seg(a, 1, MSS));
	cr_assert_eq(drain(), 2);
	expect_segments(0, a, 0, 1);
	expect_segments(1, a, 1, 1);
}

Test(tun_gro, refused_gso_write_turns_gro_off_and_cuts_again)
{
	struct pb_pkt a = flow_desc(4, 1111);
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	cr_assert_geq(efd, 0);
	close(tun.fd);
	tun.fd = efd; /* every write of other than 8 bytes: EINVAL */
	for (uint32_t i = 0; i < 3; i++)
		wg_tun_gro_add(&gro, seg(a, i, MSS));
	wg_tun_gro_flush(&gro);
	cr_expect_eq(gro.stats.gso_refused, 1);
	cr_expect_not(gro.enabled);
	cr_expect_eq(gro.stats.writes, 1 + 3, "the refused write, then one per segment");
	cr_expect_eq(gro.stats.write_errors, 3, "the stand-in refuses those too");
	wg_tun_gro_set_enabled(&gro, true);
	cr_expect_not(gro.enabled, "for good");
	wg_tun_gro_add(&gro, seg(a, 3, MSS));
	cr_expect_eq(gro.stats.writes, 5);
}

/* GRO turned off mid-batch: the next packet of a flow still held waits for it. */
Test(tun_gro, refused_mid_batch_flushes_held_flows_first)
{
	struct pb_pkt a = flow_desc(4, 1111), b = flow_desc(6, 2222), ack = a;
	struct wg_pkt *p;
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	cr_assert_geq(efd, 0);
	close(tun.fd);
	tun.fd = efd;
	wg_tun_gro_add(&gro, seg(a, 0, MSS));
	wg_tun_gro_add(&gro, seg(a, 1, MSS));
	wg_tun_gro_add(&gro, seg(b, 0, MSS));
	ack.payload_len = 0;
	p = wg_device_pkt_get(&dev, false);
	p->cp.len = (uint32_t)pb_build(p->cp.data, wg_pkt_room(p), &ack);
	wg_tun_gro_add(&gro, p); /* flushes flow a: refused */
	cr_expect_not(gro.enabled);
	cr_expect_eq(gro.open, 1u << 1, "flow b still held");
	cr_expect_eq(gro.stats.writes, 1 + 2 + 1);
	wg_tun_gro_add(&gro, seg(b, 1, MSS));
	cr_expect_eq(gro.open, 0);
	cr_expect_eq(gro.stats.writes, 4 + 1 + 1, "b's held segment, then the new one");
}
