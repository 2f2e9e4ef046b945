/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUN device: /dev/net/tun opened IFF_TUN | IFF_NO_PI, nonblocking.
 *
 * With WG_TUN_VNET_HDR every packet in either direction is preceded by a 10-byte
 * virtio_net_hdr (fixed little-endian with TUNSETVNETLE), and the kernel is told which
 * offloads we take (TUNSETOFFLOAD): checksum offload, TCP segmentation (TSO4/6) and, where
 * the kernel knows them (Linux >= 6.2), UDP segmentation (USO4/6). The kernel then hands
 * over up to 64 KiB "super-packets" and packets with a partial checksum (NEEDS_CSUM), and
 * accepts the same from us. Once any offload is on, every write must carry a header too
 * (all zero for a plain packet).
 *
 * There is no batch syscall for TUN: every packet is one read() or one write(). The batch
 * helpers only save the caller a loop; readv()/writev() keep the virtio header apart from
 * the packet so that packets land where the caller wants them (after its headroom) without
 * a copy.
 */
#ifndef CAKEWG_SRC_EDGE_TUN_H
#define CAKEWG_SRC_EDGE_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/core/compiler.h"

enum wg_tun_open_flags {
	WG_TUN_VNET_HDR = 1 << 0, /* IFF_VNET_HDR plus every offload the kernel accepts */
};

/* The offload bits of TUNSETOFFLOAD (linux/if_tun.h), for wg_tun.offloads. */
enum wg_tun_offloads {
	WG_TUN_F_CSUM = 0x01,
	WG_TUN_F_TSO4 = 0x02,
	WG_TUN_F_TSO6 = 0x04,
	WG_TUN_F_USO4 = 0x20, /* Linux >= 6.2 */
	WG_TUN_F_USO6 = 0x40,
};

enum wg_vnet_hdr_values {
	WG_VNET_HDR_LEN = 10, /* sizeof(struct virtio_net_hdr) */
	WG_VNET_HDR_F_NEEDS_CSUM = 1,
	WG_VNET_HDR_F_DATA_VALID = 2,
	WG_VNET_HDR_GSO_NONE = 0,
	WG_VNET_HDR_GSO_TCPV4 = 1,
	WG_VNET_HDR_GSO_TCPV6 = 4,
	WG_VNET_HDR_GSO_UDP_L4 = 5,
	WG_VNET_HDR_GSO_ECN = 0x80,
	/* Largest packet the kernel hands over with offloads on: IP's 16-bit length. */
	WG_TUN_MAX_PACKET_BYTES = 65535,
};

/* A virtio_net_hdr in host byte order. */
struct wg_vnet_hdr {
	uint8_t flags;	   /* WG_VNET_HDR_F_* */
	uint8_t gso_type;  /* WG_VNET_HDR_GSO_*, possibly | WG_VNET_HDR_GSO_ECN */
	uint16_t hdr_len;  /* bytes of headers (a hint) */
	uint16_t gso_size; /* payload bytes per segment */
	uint16_t csum_start;
	uint16_t csum_offset;
};

struct wg_tun {
	int fd;
	char name[IFNAMSIZ];
	bool vnet_hdr;
	unsigned int offloads; /* WG_TUN_F_* actually enabled */
};

/* One packet of a batch. */
struct wg_tun_pkt {
	void *buf;
	size_t cap;		/* read: room in buf */
	size_t len;		/* read: filled in; write: bytes to send */
	struct wg_vnet_hdr hdr; /* read: filled in when vnet_hdr; write: sent when vnet_hdr */
};

/*
 * Creates the device. name NULL or "" lets the kernel choose ("tun%d"); a name with %d
 * is a template. tun->name holds the final name. Offloads fall back step by step
 * (without USO, then checksum only, then none); tun->offloads says what is on.
 * The device is not persistent: it vanishes when the fd is closed.
 */
int wg_tun_open(struct wg_tun *tun, const char *name, unsigned int flags);
void wg_tun_close(struct wg_tun *tun);

/* Length of the kernel's queue toward us (the TUN tx queue, default 500 packets). */
int wg_tun_set_txqlen(const struct wg_tun *tun, unsigned int qlen);

/*
 * Reads one packet (its virtio header into *hdr, which may be NULL). Returns its length
 * (without the virtio header), -EAGAIN when there is none, -EBADMSG for a malformed virtio header,
 * or -errno. cap must hold the largest packet: the MTU, or WG_TUN_MAX_PACKET_BYTES with offloads (a
 * shorter buffer fails).
 */
ssize_t wg_tun_read(const struct wg_tun *tun, struct wg_vnet_hdr *hdr, void *buf, size_t cap);
/*
 * As wg_tun_read, with the packet filling buf first and running on into spill: a packet
 * that fits in buf (the common, MTU-sized case) costs no copy, and only a super-packet
 * has to be joined by the caller (its first cap bytes are in buf).
 */
ssize_t wg_tun_read_split(const struct wg_tun *tun, struct wg_vnet_hdr *hdr, void *buf, size_t cap,
			  void *spill, size_t spill_cap);
/*
 * Reads up to n packets, one read() each, stopping when the device is empty. Returns how
 * many were read (0 when none), or -errno if the first read failed. A packet with a
 * malformed header is skipped and counted in *bad (may be NULL).
 */
int wg_tun_read_batch(const struct wg_tun *tun, struct wg_tun_pkt *pkts, unsigned int n,
		      unsigned int *bad);

/* Writes one packet (hdr NULL: an all-zero header). 0 or -errno. */
int wg_tun_write(const struct wg_tun *tun, const struct wg_vnet_hdr *hdr, const void *pkt,
		 size_t len);
/*
 * Writes n packets, one write() each. Returns 0 when all went, else the -errno of the
 * first that failed; *written counts the packets before it (the kernel rejects bad
 * packets one by one, so the caller may drop that one and go on).
 */
int wg_tun_write_batch(const struct wg_tun *tun, const struct wg_tun_pkt *pkts, unsigned int n,
		       unsigned int *written);

/* Serialise/parse the 10-byte wire form (little-endian). */
void wg_vnet_hdr_encode(const struct wg_vnet_hdr *h, uint8_t out[WG_VNET_HDR_LEN]);
/*
 * Parses and checks the header against the packet it came with: known flags and GSO
 * types, a checksum location inside the packet, a non-zero segment size for GSO.
 * 0 or -EBADMSG.
 */
int wg_vnet_hdr_decode(struct wg_vnet_hdr *h, const uint8_t in[WG_VNET_HDR_LEN], size_t pkt_len);

#endif
