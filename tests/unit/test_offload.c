/* SPDX-License-Identifier: GPL-2.0-only */
/* A TUN packet and its virtio header made ready for the egress queue (src/core/offload.h). */
#include "src/core/offload.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/pktbuild.h"

enum { BIG = 70000, HEADROOM = 64 };

static uint8_t payload[BIG];

/* A buffer as the pool hands it out, holding the len bytes of pkt. */
static struct wg_pkt *pkt_of(const uint8_t *bytes, size_t len)
{
	struct wg_pkt *p = calloc(1, sizeof(*p) + BIG);

	cr_assert_not_null(p);
	p->cap = BIG;
	p->cp.data = p->buf + HEADROOM;
	memcpy(p->cp.data, bytes, len);
	p->cp.len = (uint32_t)len;
	return p;
}

static struct pb_pkt desc(uint8_t family, uint8_t proto, size_t plen)
{
	struct pb_pkt d = {.family = family,
			   .proto = proto,
			   .sport = 443,
			   .dport = 51000,
			   .tcp_flags = PB_TCP_ACK,
			   .payload = payload,
			   .payload_len = plen,
			   .partial_csum = true};

	for (size_t i = 0; i < plen; i++)
		payload[i] = (uint8_t)(i * 131 + (i >> 8));
	if (family == 4)
		pb_addr4(d.dst, 10, 0, 0, 1); /* from 0.0.0.0: the addresses do not matter */
	else
		pb_addr6(d.dst, 0xfd00, 1);
	return d;
}

/* The header Linux writes for d: the L4 checksum field holds the pseudo-header sum. */
static struct cake_vnet_hdr vnet(const struct pb_pkt *d, uint8_t type, uint16_t mss)
{
	struct cake_vnet_hdr vh = {CAKE_VNET_F_NEEDS_CSUM, type, 0, mss, 0, 0};

	vh.csum_start = (uint16_t)pb_ip_hdr_len(d);
	vh.hdr_len = (uint16_t)(vh.csum_start + pb_l4_hdr_len(d));
	vh.csum_offset = d->proto == PB_PROTO_TCP ? 16 : 6;
	if (!d->partial_csum)
		vh.flags = 0;
	return vh;
}

/* A super-packet is planned and left as it is: CAKE or the send path cut it later. */
Test(offload, super_packet_is_planned_not_touched)
{
	static uint8_t bytes[BIG];
	struct pb_pkt d = desc(4, PB_PROTO_TCP, 10 * 1400 + 5);
	size_t len = pb_build(bytes, sizeof(bytes), &d);
	struct cake_vnet_hdr vh = vnet(&d, CAKE_VNET_GSO_TCPV4, 1400);
	struct wg_pkt *p = pkt_of(bytes, len);

	cr_assert_eq(wg_offload_prepare(p, &vh), 0);
	cr_assert_eq(p->gso.segs, 11);
	cr_assert_eq(p->cp.gso_type, CAKE_GSO_TCPV4);
	cr_assert_eq(p->cp.gso_size, 1400);
	cr_assert_eq(p->cp.gso_segs, 11);
	cr_assert_eq(p->cp.len, len);
	cr_assert_eq(memcmp(p->cp.data, bytes, len), 0, "the bytes wait for segmentation");
	free(p);
}

/* A single packet: its partial checksum completed in place, no plan kept. */
Test(offload, single_packet_gets_its_checksum)
{
	static uint8_t bytes[BIG], want[BIG];
	const uint8_t types[] = {CAKE_VNET_GSO_NONE, CAKE_VNET_GSO_UDP_L4};

	for (size_t t = 0; t < WG_ARRAY_SIZE(types); t++) {
		struct pb_pkt d = desc(6, PB_PROTO_UDP, 333);
		size_t len = pb_build(bytes, sizeof(bytes), &d);
		/* a GSO header over a payload that fits one segment is one packet too */
		struct cake_vnet_hdr vh = vnet(&d, types[t], types[t] ? 1400 : 0);
		struct wg_pkt *p = pkt_of(bytes, len);

		d.partial_csum = false;
		cr_assert_eq(pb_build(want, sizeof(want), &d), len);
		cr_assert_eq(wg_offload_prepare(p, &vh), 0);
		cr_assert_eq(p->gso.segs, 0);
		cr_assert_eq(p->cp.len, len);
		cr_assert_eq(memcmp(p->cp.data, want, len), 0, "type %u", types[t]);
		cr_assert(pb_l4_csum_ok(p->cp.data, len, PB_IPV6_HDR, PB_PROTO_UDP));
		free(p);
	}
}

Test(offload, packet_without_flags_is_left_alone)
{
	static uint8_t bytes[BIG];
	struct pb_pkt d = desc(4, PB_PROTO_TCP, 100);
	size_t len;
	struct cake_vnet_hdr vh;
	struct wg_pkt *p;

	d.partial_csum = false;
	len = pb_build(bytes, sizeof(bytes), &d);
	vh = vnet(&d, CAKE_VNET_GSO_NONE, 0);
	p = pkt_of(bytes, len);
	cr_assert_eq(wg_offload_prepare(p, &vh), 0);
	cr_assert_eq(p->gso.segs, 0);
	cr_assert_eq(memcmp(p->cp.data, bytes, len), 0);
	free(p);
}

/* What the header does not describe is refused: the caller drops it. */
Test(offload, header_that_does_not_fit_is_refused)
{
	static uint8_t bytes[BIG];
	struct pb_pkt d = desc(4, PB_PROTO_TCP, 5000);
	size_t len = pb_build(bytes, sizeof(bytes), &d);
	struct cake_vnet_hdr vh = vnet(&d, CAKE_VNET_GSO_UDP, 1400); /* UFO */
	struct wg_pkt *p = pkt_of(bytes, len);

	cr_assert_eq(wg_offload_prepare(p, &vh), -EINVAL);
	vh = vnet(&d, CAKE_VNET_GSO_NONE, 0);
	vh.csum_start = (uint16_t)len; /* the checksum lies past the packet */
	cr_assert_eq(wg_offload_prepare(p, &vh), -EINVAL);
	free(p);
}
