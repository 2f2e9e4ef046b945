// SPDX-License-Identifier: GPL-2.0-only
/* ICMP errors in the device: a packet no peer holds, the source per family, the rate. */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "src/core/device.h"
#include "src/core/device_icmp.h"
#include "src/core/icmp_error.h"
#include "tests/support/det_rng.h"
#include "tests/support/pktbuild.h"

static const uint64_t T0 = 10 * WG_NSEC_PER_SEC;

static struct wg_device dev;
static struct det_rng rng_state = {.state = 17};
static unsigned int sent;
static uint8_t last[WG_ICMP_ERROR_MAX];
static size_t last_len;

static void io_send_icmp(void *ctx, const uint8_t *pkt, size_t len)
{
	(void)ctx;
	sent++;
	cr_assert_leq(len, sizeof(last));
	memcpy(last, pkt, len);
	last_len = len;
}

static void setup(void)
{
	struct wg_io_ops ops = {.send_icmp = io_send_icmp};
	struct wg_rng rng = det_rng_as_wg(&rng_state);

	sent = 0;
	cr_assert_eq(wg_device_init(&dev, "t", &ops, &rng, T0), 0);
}

static void teardown(void)
{
	wg_device_deinit(&dev);
}

TestSuite(device_icmp, .init = setup, .fini = teardown);

static struct wg_ipaddr addr(int family, const char *text)
{
	struct wg_ipaddr a = {.family = (sa_family_t)family};

	cr_assert_eq(inet_pton(family, text, a.bytes), 1);
	return a;
}

/* A UDP packet from 198.19.0.1 (fd00:19::1) to .99, which no peer holds, read at now_ns. */
static void tx(uint8_t family, uint64_t now_ns)
{
	static const uint8_t payload[64];
	struct pb_pkt d = {.family = family, .proto = PB_PROTO_UDP, .sport = 1, .dport = 2,
			   .payload = payload, .payload_len = sizeof(payload)};
	struct wg_pkt *pkt = wg_device_pkt_get(&dev, false);

	cr_assert_not_null(pkt);
	inet_pton(family == 4 ? AF_INET : AF_INET6, family == 4 ? "198.19.0.1" : "fd00:19::1",
		  d.src);
	inet_pton(family == 4 ? AF_INET : AF_INET6, family == 4 ? "198.19.0.99" : "fd00:19::99",
		  d.dst);
	pkt->cp.len = (uint32_t)pb_build(pkt->cp.data, wg_pkt_payload_room(pkt), &d);
	wg_device_tx(&dev, pkt, now_ns);
}

Test(device_icmp, no_source_no_error)
{
	tx(4, T0);
	tx(6, T0);
	cr_expect_eq(sent, 0);
	cr_expect_eq(dev.stats.tx_no_peer, 2);
	cr_expect_eq(dev.stats.tx_icmp_unreach, 0);
}

Test(device_icmp, from_the_source_of_the_family)
{
	struct wg_ipaddr a4 = addr(AF_INET, "198.19.0.1"), a6 = addr(AF_INET6, "fd00:19::1");

	cr_expect(wg_device_set_icmp_source(&dev, AF_INET, &a4));
	cr_expect_not(wg_device_set_icmp_source(&dev, AF_INET, &a4), "no change");
	tx(4, T0);
	cr_assert_eq(sent, 1);
	cr_expect_eq(last[9], 1, "ICMP");
	cr_expect_arr_eq(last + 12, a4.bytes, 4);
	tx(6, T0);
	cr_expect_eq(sent, 1, "no IPv6 source yet");
	cr_expect(wg_device_set_icmp_source(&dev, AF_INET6, &a6));
	tx(6, T0);
	cr_assert_eq(sent, 2);
	cr_expect_eq(last[6], 58, "ICMPv6");
	cr_expect_arr_eq(last + 8, a6.bytes, 16);
	cr_expect_eq(dev.stats.tx_no_peer, 3, "each packet is still dropped");
	cr_expect_eq(dev.stats.tx_icmp_unreach, 2);
	cr_expect(wg_device_set_icmp_source(&dev, AF_INET, NULL), "the address went");
	tx(4, T0);
	cr_expect_eq(sent, 2);
}

Test(device_icmp, rate_limited_on_virtual_time)
{
	struct wg_ipaddr a4 = addr(AF_INET, "198.19.0.1");

	(void)wg_device_set_icmp_source(&dev, AF_INET, &a4);
	for (int i = 0; i < 200; i++)
		tx(4, T0);
	cr_expect_eq(sent, WG_ICMP_ERRORS_BURST);
	tx(4, T0 + WG_ICMP_ERROR_COST_NS);
	cr_expect_eq(sent, WG_ICMP_ERRORS_BURST + 1);
	cr_expect_eq(dev.stats.tx_icmp_unreach, sent);
	cr_expect_eq(dev.stats.tx_no_peer, 201);
}

/* A packet that gets no error takes no token: it cannot starve the others. */
Test(device_icmp, refused_packets_take_no_token)
{
	struct wg_ipaddr a4 = addr(AF_INET, "198.19.0.1");
	struct wg_pkt *pkt;

	(void)wg_device_set_icmp_source(&dev, AF_INET, &a4);
	for (int i = 0; i < 200; i++) {
		pkt = wg_device_pkt_get(&dev, false);
		memset(pkt->cp.data, 0, 28);
		pkt->cp.data[0] = 0x45; /* tot_len 0: malformed */
		pkt->cp.len = 28;
		wg_device_tx(&dev, pkt, T0);
	}
	cr_expect_eq(sent, 0);
	tx(4, T0);
	cr_expect_eq(sent, 1);
}
