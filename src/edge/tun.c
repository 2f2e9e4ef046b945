/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TUN device I/O. See tun.h for the model: one syscall per packet, an optional virtio
 * header kept apart from the packet with readv()/writev().
 */
#include "src/edge/tun.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define TUN_DEVICE_PATH "/dev/net/tun"

/* Offload sets to try, richest first (USO needs Linux 6.2; TSO needs CSUM). */
static const unsigned int offload_sets[] = {
	WG_TUN_F_CSUM | WG_TUN_F_TSO4 | WG_TUN_F_TSO6 | WG_TUN_F_USO4 | WG_TUN_F_USO6,
	WG_TUN_F_CSUM | WG_TUN_F_TSO4 | WG_TUN_F_TSO6,
	WG_TUN_F_CSUM,
	0,
};

static int set_offloads(struct wg_tun *tun)
{
	int one = 1, hdr_len = WG_VNET_HDR_LEN;
	size_t i;

	if (ioctl(tun->fd, TUNSETVNETHDRSZ, &hdr_len) < 0)
		return -errno;
	/* Little-endian on every host; on little-endian hosts it is the default anyway. */
	if (ioctl(tun->fd, TUNSETVNETLE, &one) < 0 && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		return -errno;
	for (i = 0; i < WG_ARRAY_SIZE(offload_sets); i++) {
		if (ioctl(tun->fd, TUNSETOFFLOAD, (unsigned long)offload_sets[i]) == 0) {
			tun->offloads = offload_sets[i];
			return 0;
		}
		if (errno != EINVAL)
			return -errno;
	}
	return -EINVAL;
}

int wg_tun_open(struct wg_tun *tun, const char *name, unsigned int flags)
{
	struct ifreq ifr;
	int ret;

	memset(tun, 0, sizeof(*tun));
	tun->fd = -1;
	if (flags & ~(unsigned int)WG_TUN_VNET_HDR)
		return -EINVAL;
	if (name && strnlen(name, IFNAMSIZ) >= IFNAMSIZ)
		return -EINVAL;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	if (flags & WG_TUN_VNET_HDR)
		ifr.ifr_flags |= IFF_VNET_HDR;
	if (name)
		memcpy(ifr.ifr_name, name, strlen(name));
	tun->fd = open(TUN_DEVICE_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (tun->fd < 0)
		return -errno;
	if (ioctl(tun->fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		goto fail;
	}
	memcpy(tun->name, ifr.ifr_name, IFNAMSIZ);
	tun->name[IFNAMSIZ - 1] = '\0';
	if (flags & WG_TUN_VNET_HDR) {
		tun->vnet_hdr = true;
		ret = set_offloads(tun);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	wg_tun_close(tun);
	return ret;
}

void wg_tun_close(struct wg_tun *tun)
{
	if (tun->fd >= 0)
		close(tun->fd);
	tun->fd = -1;
}

int wg_tun_set_txqlen(const struct wg_tun *tun, unsigned int qlen)
{
	struct ifreq ifr;
	int sk, ret = 0;

	if (qlen > INT32_MAX)
		return -EINVAL;
	/* A device ioctl: any socket will do; AF_UNIX needs no protocol family enabled. */
	sk = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, tun->name, IFNAMSIZ);
	ifr.ifr_qlen = (int)qlen;
	if (ioctl(sk, SIOCSIFTXQLEN, &ifr) < 0)
		ret = -errno;
	close(sk);
	return ret;
}

void wg_vnet_hdr_encode(const struct wg_vnet_hdr *h, uint8_t out[WG_VNET_HDR_LEN])
{
	uint16_t v[4] = {htole16(h->hdr_len), htole16(h->gso_size), htole16(h->csum_start),
			 htole16(h->csum_offset)};

	out[0] = h->flags;
	out[1] = h->gso_type;
	memcpy(out + 2, v, sizeof(v));
}

static bool gso_ok(const struct wg_vnet_hdr *h, size_t pkt_len)
{
	uint8_t type = h->gso_type & (uint8_t)~WG_VNET_HDR_GSO_ECN;
	bool ecn = h->gso_type & WG_VNET_HDR_GSO_ECN;

	if (type == WG_VNET_HDR_GSO_NONE)
		return !ecn;
	if (type != WG_VNET_HDR_GSO_TCPV4 && type != WG_VNET_HDR_GSO_TCPV6 &&
	    type != WG_VNET_HDR_GSO_UDP_L4)
		return false;
	if (ecn && type == WG_VNET_HDR_GSO_UDP_L4)
		return false;
	return h->gso_size > 0 && h->hdr_len <= pkt_len;
}

int wg_vnet_hdr_decode(struct wg_vnet_hdr *h, const uint8_t in[WG_VNET_HDR_LEN], size_t pkt_len)
{
	uint16_t v[4];

	memcpy(v, in + 2, sizeof(v));
	h->flags = in[0];
	h->gso_type = in[1];
	h->hdr_len = le16toh(v[0]);
	h->gso_size = le16toh(v[1]);
	h->csum_start = le16toh(v[2]);
	h->csum_offset = le16toh(v[3]);
	if (h->flags & ~(WG_VNET_HDR_F_NEEDS_CSUM | WG_VNET_HDR_F_DATA_VALID))
		return -EBADMSG;
	if ((h->flags & WG_VNET_HDR_F_NEEDS_CSUM) &&
	    (size_t)h->csum_start + h->csum_offset + sizeof(uint16_t) > pkt_len)
		return -EBADMSG;
	return gso_ok(h, pkt_len) ? 0 : -EBADMSG;
}

ssize_t wg_tun_read_split(const struct wg_tun *tun, struct wg_vnet_hdr *hdr, void *buf, size_t cap,
			  void *spill, size_t spill_cap)
{
	struct wg_vnet_hdr ignored;
	uint8_t raw[WG_VNET_HDR_LEN];
	struct iovec iov[3] = {
		{.iov_base = raw, .iov_len = sizeof(raw)},
		{.iov_base = buf, .iov_len = cap},
		{.iov_base = spill, .iov_len = spill_cap},
	};
	int first = tun->vnet_hdr ? 0 : 1;
	int count = (spill && spill_cap ? 3 : 2) - first;
	ssize_t n;

	do {
		n = readv(tun->fd, iov + first, count);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (!tun->vnet_hdr)
		return n;
	if (n < (ssize_t)sizeof(raw))
		return -EBADMSG;
	n -= (ssize_t)sizeof(raw);
	if (wg_vnet_hdr_decode(hdr ? hdr : &ignored, raw, (size_t)n) < 0)
		return -EBADMSG;
	return n;
}

ssize_t wg_tun_read(const struct wg_tun *tun, struct wg_vnet_hdr *hdr, void *buf, size_t cap)
{
	return wg_tun_read_split(tun, hdr, buf, cap, NULL, 0);
}

int wg_tun_read_batch(const struct wg_tun *tun, struct wg_tun_pkt *pkts, unsigned int n,
		      unsigned int *bad)
{
	unsigned int got = 0;

	while (got < n) {
		struct wg_tun_pkt *p = &pkts[got];
		ssize_t len = wg_tun_read(tun, &p->hdr, p->buf, p->cap);

		if (len == -EBADMSG) {
			if (bad)
				(*bad)++;
			continue;
		}
		if (len < 0) {
			if (len == -EAGAIN || got > 0)
				break;
			return (int)len;
		}
		if (!tun->vnet_hdr)
			memset(&p->hdr, 0, sizeof(p->hdr));
		p->len = (size_t)len;
		got++;
	}
	return (int)got;
}

int wg_tun_write(const struct wg_tun *tun, const struct wg_vnet_hdr *hdr, const void *pkt,
		 size_t len)
{
	static const struct wg_vnet_hdr zero;
	uint8_t raw[WG_VNET_HDR_LEN];
	struct iovec iov[2] = {
		{.iov_base = raw, .iov_len = sizeof(raw)},
		{.iov_base = (void *)pkt, .iov_len = len},
	};
	ssize_t n;

	if (tun->vnet_hdr)
		wg_vnet_hdr_encode(hdr ? hdr : &zero, raw);
	do {
		n = tun->vnet_hdr ? writev(tun->fd, iov, 2) : write(tun->fd, pkt, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return 0;
}

int wg_tun_write_batch(const struct wg_tun *tun, const struct wg_tun_pkt *pkts, unsigned int n,
		       unsigned int *written)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		ret = wg_tun_write(tun, &pkts[i].hdr, pkts[i].buf, pkts[i].len);
		if (ret)
			break;
	}
	*written = i;
	return ret;
}
