/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the virtio_net_hdr check on TUN reads: the first 10 input bytes
 * are the header as the kernel writes it (little-endian), the next 4 (little-endian, 0
 * when absent) the length of the packet that came with it. What decodes must keep the
 * header's promises (tun.h): known flags and GSO types, a checksum location inside the
 * packet, a non-zero segment size for GSO; and it must encode back to the same bytes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "src/edge/tun.h"

static void check_valid(const struct wg_vnet_hdr *h, const uint8_t raw[WG_VNET_HDR_LEN],
			size_t pkt_len)
{
	uint8_t type = h->gso_type & (uint8_t)~WG_VNET_HDR_GSO_ECN;
	bool ecn = h->gso_type & WG_VNET_HDR_GSO_ECN;
	uint8_t again[WG_VNET_HDR_LEN];

	if (h->flags & ~(WG_VNET_HDR_F_NEEDS_CSUM | WG_VNET_HDR_F_DATA_VALID))
		__builtin_trap();
	if ((h->flags & WG_VNET_HDR_F_NEEDS_CSUM) &&
	    (size_t)h->csum_start + h->csum_offset + sizeof(uint16_t) > pkt_len)
		__builtin_trap();
	if (type == WG_VNET_HDR_GSO_NONE) {
		if (ecn)
			__builtin_trap();
	} else if (type == WG_VNET_HDR_GSO_TCPV4 || type == WG_VNET_HDR_GSO_TCPV6 ||
		   type == WG_VNET_HDR_GSO_UDP_L4) {
		if (!h->gso_size || (ecn && type == WG_VNET_HDR_GSO_UDP_L4))
			__builtin_trap();
	} else {
		__builtin_trap();
	}
	wg_vnet_hdr_encode(h, again);
	if (memcmp(again, raw, sizeof(again)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t raw[WG_VNET_HDR_LEN];
	struct wg_vnet_hdr h;
	size_t pkt_len = 0;
	int ret;

	if (size < WG_VNET_HDR_LEN)
		return 0;
	memcpy(raw, data, sizeof(raw));
	for (size_t i = 0; i < 4 && WG_VNET_HDR_LEN + i < size; i++)
		pkt_len |= (size_t)data[WG_VNET_HDR_LEN + i] << (8 * i);
	ret = wg_vnet_hdr_decode(&h, raw, pkt_len);
	if (ret == 0)
		check_valid(&h, raw, pkt_len);
	else if (ret != -EBADMSG)
		__builtin_trap();
	return 0;
}
