/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the whole receive path: wg_device_rx() on a device with one peer
 * and an established session, then (as the daemon does) ingress CAKE and the TUN
 * writer's GRO (src/edge/tun_gro.c, writing to /dev/null).
 *
 * Once, at start: device A (the peer) initiates a handshake with device B, B answers and
 * A derives the session; A's sending keypair is kept. Every input then starts B's peer
 * afresh (removed and added again) and has it consume the same initiation with B's RNG
 * back at the same state, so B derives the same session again. There are two Bs, one
 * without ingress CAKE and one with it (a new device per input would spend nearly all
 * the time creating and freeing CAKE instances); between inputs the clock moves on by
 * INPUT_GAP_SECS, past every rate limit and timeout, and B holds no packet, so what
 * one input leaves (CAKE's flow state, the pools' free buffers) is what a long-idle
 * device has anyway.
 *
 * Input: one config byte, then records until the input ends.
 *   config:  bit 0 ingress CAKE on (bits 3-4 choose its options), bit 1 GRO on,
 *            bit 2 the datagrams come from an IPv6 underlay
 *   record:  a header byte, a little-endian 16-bit length, that many bytes
 *     header bits 0-1  the outer header's ECN field
 *                 2    the bytes are an inner packet: encrypted with the session (so that
 *                      decryption succeeds) and sent as a data message; else they are the
 *                      datagram as it came off the socket
 *                 3    from another source port (roaming)
 *                 4    with the counter of the previous message (a replay)
 *                 5-7  the clock first advances: k = 1..6 by 8^k us, k = 7 by 61 s
 *                      (three of them pass REJECT_AFTER_TIME)
 *
 * Oracles, besides the sanitizers: what reaches TUN has the length its IP header gives
 * and a source inside the peer's allowed IPs (checked here against the prefixes, not
 * through the device's table); no more packets reach TUN than records went in; ingress
 * CAKE drains; and every packet buffer is back in the pools when the input is done.
 *
 * Building with -DFUZZ_WRITE_SEEDS gives a program that writes the seed corpus into the
 * directory named on its command line, from a normal build in build/:
 *   clang -DFUZZ_WRITE_SEEDS -I. tests/fuzz/fuzz_device_rx.c build/src/libcakewg_edge.a \
 *     build/src/libcakewg_core.a build/qdisc/libcw_qdisc.a build/crypto/libcw_crypto.a \
 *     -lsodium -o seeds && ./seeds tests/fuzz/corpus/fuzz_device_rx
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto/x25519.h"
#include "src/core/device.h"
#include "src/edge/tun.h"
#include "src/edge/tun_gro.h"
#include "tests/support/det_rng.h"

enum {
	MAX_RECORDS = 64,
	MAX_CONTROL = 256,    /* the largest handshake message */
	MAX_FLUSHES = 100000, /* rx_flush calls before ingress CAKE counts as stuck */
	CONF_INGRESS = 1 << 0,
	CONF_GRO = 1 << 1,
	CONF_V6 = 1 << 2,
	CONF_CAKE_SHIFT = 3,
	REC_ECN_MASK = 3,
	REC_PLAINTEXT = 1 << 2,
	REC_ROAM = 1 << 3,
	REC_REPLAY = 1 << 4,
	REC_TIME_SHIFT = 5,
	REC_TIME_JUMP = 7,
	TIME_JUMP_SECS = 61,
	INPUT_GAP_SECS = 600,
	SESSION_SEED = 2,
	PORT_A = 51820,
};

static const uint64_t T0_NS = 1000 * WG_NSEC_PER_SEC;

/* Ingress CAKE, by config bits 3-4: shaped, shaped with other tins, unlimited, slow. */
static const char *const ingress_options[] = {
	"bandwidth 10mbit ingress",
	"bandwidth 100mbit diffserv4 triple-isolate ingress",
	"unlimited besteffort flows",
	"bandwidth 64kbit diffserv8 nat ingress",
};

/* The peer's allowed IPs on B: 10.0.0.1/32, 10.1.0.0/16, fd00::1/128. */
static const uint8_t allowed4_host[4] = {10, 0, 0, 1};
static const uint8_t allowed4_net[2] = {10, 1};
static const uint8_t allowed6_host[16] = {0xfd, [15] = 1};

struct harness {
	struct wg_device a, bs[2], *b; /* b: bs[0] (no ingress CAKE) or bs[1] */
	struct det_rng a_rng, b_rng[2];
	uint8_t a_priv[32], a_pub[32], b_priv[32], b_pub[32];
	struct wg_keypair session; /* A's side of the session, copied once */
	uint8_t initiation[MAX_CONTROL];
	size_t initiation_len;
	uint8_t control[MAX_CONTROL]; /* the last control message either side sent */
	size_t control_len;
	struct wg_tun tun; /* /dev/null with a virtio header: GRO's output */
	struct wg_tun_gro gro;
	bool gro_on;
	size_t to_tun;
	uint64_t clock; /* B's time when the current input began */
};

static struct harness h;

static void check(bool ok)
{
	if (!ok)
		__builtin_trap();
}

static void op_send_control(void *ctx, const struct wg_endpoint *ep, const uint8_t *msg, size_t len)
{
	(void)ctx;
	(void)ep;
	if (len <= sizeof(h.control)) {
		memcpy(h.control, msg, len);
		h.control_len = len;
	}
}

static int op_send_data(void *ctx, const struct wg_endpoint *ep, struct wg_pkt *pkt)
{
	(void)ep;
	wg_device_pkt_put(ctx, pkt);
	return 0;
}

static bool in_allowed_ips(const uint8_t *ip)
{
	if (ip[0] >> 4 == 4) {
		const uint8_t *src = ip + WG_IPV4_SRC_OFFSET;

		return !memcmp(src, allowed4_host, 4) || !memcmp(src, allowed4_net, 2);
	}
	return !memcmp(ip + WG_IPV6_SRC_OFFSET, allowed6_host, 16);
}

/* What B hands to TUN: checked, then through GRO (when on) to /dev/null. */
static void op_tun_write(void *ctx, struct wg_pkt *pkt)
{
	const uint8_t *ip = pkt->cp.data;
	uint32_t len = pkt->cp.len;

	check(wg_ip_family(ip, len) != 0);
	if (ip[0] >> 4 == 4)
		check(((uint32_t)ip[2] << 8 | ip[3]) == len);
	else
		check(CAKE_IPV6_HDR_BYTES + ((uint32_t)ip[4] << 8 | ip[5]) == len);
	check(in_allowed_ips(ip));
	h.to_tun++;
	if (h.gro_on)
		wg_tun_gro_add(&h.gro, pkt);
	else
		wg_device_pkt_put(ctx, pkt);
}

static void device_up(struct wg_device *dev, struct det_rng *rng_state, uint64_t seed)
{
	struct wg_io_ops ops = {
		.ctx = dev,
		.send_data = op_send_data,
		.send_control = op_send_control,
		.tun_write = op_tun_write,
	};
	struct wg_rng rng;

	rng_state->state = seed;
	rng = det_rng_as_wg(rng_state);
	check(wg_device_init(dev, "fz", &ops, &rng, T0_NS) == 0);
}

static void add_allowed(struct wg_devconf_peer *pc, int family, const uint8_t *addr, size_t len,
			uint8_t cidr)
{
	struct wg_ipaddr_prefix pfx = {.addr.family = (uint8_t)family, .cidr = cidr};

	memcpy(family == AF_INET ? (void *)&pfx.addr.ip4 : (void *)&pfx.addr.ip6, addr, len);
	check(wg_devconf_peer_add_allowedip(pc, &pfx, 0) == 0);
}

/* The peer pub on dev; A's with its endpoint (B on 198.18.0.2). With priv, dev's key. */
static void configure(struct wg_device *dev, const uint8_t *priv, const uint8_t *pub, bool is_a,
		      uint64_t now)
{
	static const uint8_t b_net[4] = {10, 0, 0, 2}, a_net[4] = {10, 1, 0, 0};
	struct wg_devconf *conf = wg_devconf_new();
	struct wg_devconf_peer *pc;

	check(conf != NULL);
	pc = wg_devconf_add_peer(conf);
	if (priv) {
		conf->flags = WG_DEVCONF_HAS_PRIVATE_KEY;
		memcpy(conf->private_key, priv, 32);
	}
	pc->flags = WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	memcpy(pc->public_key, pub, 32);
	if (is_a) {
		pc->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
		pc->endpoint.addr4.sin_family = AF_INET;
		pc->endpoint.addr4.sin_port = htons(PORT_A);
		pc->endpoint.addr4.sin_addr.s_addr = htonl(0xc6120002);
		add_allowed(pc, AF_INET, b_net, 4, 32);
	} else {
		add_allowed(pc, AF_INET, allowed4_host, 4, 32);
		add_allowed(pc, AF_INET, a_net, 4, 16);
		add_allowed(pc, AF_INET6, allowed6_host, 16, 128);
	}
	check(wg_device_apply(dev, conf, now) == 0);
	wg_devconf_free(conf);
}

/* Where A's datagrams come from: 198.18.0.1 or fd00:18::1, port PORT_A + roam. */
static void source(struct wg_endpoint *ep, bool v6, uint16_t roam)
{
	memset(ep, 0, sizeof(*ep));
	if (v6) {
		ep->remote.addr6.sin6_family = AF_INET6;
		ep->remote.addr6.sin6_port = htons((uint16_t)(PORT_A + roam));
		ep->remote.addr6.sin6_addr.s6_addr[0] = 0xfd;
		ep->remote.addr6.sin6_addr.s6_addr[3] = 0x18;
		ep->remote.addr6.sin6_addr.s6_addr[15] = 1;
	} else {
		ep->remote.addr4.sin_family = AF_INET;
		ep->remote.addr4.sin_port = htons((uint16_t)(PORT_A + roam));
		ep->remote.addr4.sin_addr.s_addr = htonl(0xc6120001);
	}
}

static void deliver(struct wg_device *dev, const uint8_t *msg, size_t len,
		    const struct wg_endpoint *from, uint64_t now)
{
	struct wg_pkt *p = wg_device_pkt_get(dev, false);

	check(p != NULL && len <= wg_pkt_room(p) + DATA_HEADROOM_LEN);
	memcpy(wg_pkt_msg(p), msg, len);
	p->msg_len = (uint32_t)len;
	p->src = *from;
	wg_device_rx(dev, p, now);
}

/* B's peer as every input starts it: new, and the responder of A's session. */
static void b_session(struct det_rng *rng, bool v6)
{
	struct wg_endpoint from;

	if (h.b->peers_head)
		wg_device_remove_peer(h.b, h.b->peers_head);
	rng->state = SESSION_SEED;
	configure(h.b, NULL, h.a_pub, false, h.clock);
	source(&from, v6, 0);
	h.control_len = 0;
	deliver(h.b, h.initiation, h.initiation_len, &from, h.clock);
	check(h.control_len == MESSAGE_HANDSHAKE_RESPONSE_LEN);
}

static void keypair_of(const struct det_rng *seed, uint8_t *priv, uint8_t *pub)
{
	struct det_rng r = *seed;

	det_rng_fill(&r, priv, 32);
	cw_x25519_clamp(priv);
	check(cw_x25519_public(pub, priv));
}

/* The handshake, once: A's initiation is kept, and A's side of the session. */
static void setup(void)
{
	struct det_rng key_a = {.state = 101}, key_b = {.state = 102};
	uint8_t response[2][MESSAGE_HANDSHAKE_RESPONSE_LEN];
	struct wg_endpoint from_b;
	struct wg_peer *peer;
	struct wg_pkt *p;
	char err[128];

	keypair_of(&key_a, h.a_priv, h.a_pub);
	keypair_of(&key_b, h.b_priv, h.b_pub);
	h.clock = T0_NS;
	device_up(&h.a, &h.a_rng, 1);
	configure(&h.a, h.a_priv, h.b_pub, true, T0_NS);
	p = wg_device_pkt_get(&h.a, false);
	check(p != NULL);
	memset(p->cp.data, 0, CAKE_IPV4_HDR_BYTES);
	p->cp.data[0] = 0x45;
	p->cp.data[3] = CAKE_IPV4_HDR_BYTES;
	p->cp.data[16] = 10, p->cp.data[19] = 2;
	p->cp.len = CAKE_IPV4_HDR_BYTES;
	wg_device_tx(&h.a, p, T0_NS); /* staged: A initiates */
	check(h.control_len == MESSAGE_HANDSHAKE_INITIATION_LEN);
	memcpy(h.initiation, h.control, h.control_len);
	h.initiation_len = h.control_len;
	for (int i = 1; i >= 0; i--) {
		h.b = &h.bs[i];
		device_up(h.b, &h.b_rng[i], SESSION_SEED);
		configure(h.b, h.b_priv, h.a_pub, false, T0_NS);
		b_session(&h.b_rng[i], false);
		memcpy(response[i], h.control, sizeof(response[i]));
	}
	check(!memcmp(response[0], response[1], sizeof(response[0])));
	check(wg_device_set_cake(&h.bs[1], true, ingress_options[0], err, sizeof(err), T0_NS) == 0);
	memset(&from_b, 0, sizeof(from_b));
	from_b.remote.addr4.sin_family = AF_INET;
	from_b.remote.addr4.sin_port = htons(PORT_A);
	from_b.remote.addr4.sin_addr.s_addr = htonl(0xc6120002);
	deliver(&h.a, h.control, h.control_len, &from_b, T0_NS);
	peer = h.a.peers_head;
	check(peer && peer->has_handshake && peer->noise.current);
	h.session = *peer->noise.current;
	h.tun.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	h.tun.vnet_hdr = true;
	check(h.tun.fd >= 0);
}

/* Fills p with the datagram: the bytes as they are, or the inner packet they are
 * encrypted with the session (false if it may not send). */
static bool fill(struct wg_pkt *p, struct wg_keypair *kp, const uint8_t *bytes, size_t len,
		 uint8_t header)
{
	size_t room = wg_pkt_room(p) + DATA_HEADROOM_LEN, msg_len = 0;

	if (!(header & REC_PLAINTEXT)) {
		if (len > room)
			len = room;
		memcpy(wg_pkt_msg(p), bytes, len);
		p->msg_len = (uint32_t)len;
		return true;
	}
	if (len > wg_pkt_payload_room(p))
		len = wg_pkt_payload_room(p);
	if (header & REC_REPLAY && kp->send_counter)
		kp->send_counter--;
	memcpy(p->cp.data, bytes, len);
	/* A's clock stays at T0: the session is as young for it as B lets it be. */
	if (wg_keypair_encrypt(kp, wg_pkt_msg(p), len, room, h.b->mtu, T0_NS, &msg_len))
		return false;
	p->msg_len = (uint32_t)msg_len;
	return true;
}

static uint64_t advance(uint8_t header)
{
	unsigned int k = header >> REC_TIME_SHIFT;

	if (k == REC_TIME_JUMP)
		return TIME_JUMP_SECS * WG_NSEC_PER_SEC;
	return k ? (1ULL << (3 * k)) * (WG_NSEC_PER_MSEC / 1000) : 0;
}

/* Lets ingress CAKE go until it holds nothing; every packet reaches TUN or is dropped. */
static uint64_t drain(uint64_t now)
{
	for (int i = 0; i < MAX_FLUSHES; i++) {
		uint64_t next = wg_device_rx_flush(h.b, now);

		if (h.gro_on)
			wg_tun_gro_flush(&h.gro);
		if (next == UINT64_MAX)
			return now;
		if (next > now)
			now = next;
	}
	__builtin_trap(); /* the queue never emptied */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_keypair kp = h.session;
	uint64_t now;
	size_t records = 0, at = 1;
	uint8_t conf;
	char err[128];

	if (!h.initiation_len)
		setup();
	if (!size)
		return 0;
	conf = data[0];
	h.b = &h.bs[conf & CONF_INGRESS];
	if (conf & CONF_INGRESS)
		check(wg_device_set_cake(h.b, true, ingress_options[(conf >> CONF_CAKE_SHIFT) & 3],
					 err, sizeof(err), h.clock) == 0);
	b_session(&h.b_rng[conf & CONF_INGRESS], conf & CONF_V6);
	now = h.clock;
	h.gro_on = conf & CONF_GRO;
	wg_tun_gro_init(&h.gro, &h.tun, h.b);
	h.to_tun = 0;
	while (records < MAX_RECORDS && at + 3 <= size) {
		uint8_t header = data[at];
		size_t len = (size_t)(data[at + 1] | data[at + 2] << 8);
		struct wg_endpoint from;
		struct wg_pkt *p;

		at += 3;
		if (len > size - at)
			len = size - at;
		now += advance(header);
		source(&from, conf & CONF_V6, header & REC_ROAM ? 1 : 0);
		p = wg_device_pkt_get(h.b, false);
		check(p != NULL);
		if (fill(p, &kp, data + at, len, header)) {
			p->src = from;
			p->outer_ecn = header & REC_ECN_MASK;
			wg_device_rx(h.b, p, now);
		} else {
			wg_device_pkt_put(h.b, p);
		}
		at += len;
		records++;
		if (h.gro_on && !(records % 8))
			wg_tun_gro_flush(&h.gro); /* the daemon's receive batches */
	}
	if (h.gro_on)
		wg_tun_gro_flush(&h.gro);
	now = drain(now);
	check(h.to_tun <= records);
	check(!h.b->pool.outstanding && !h.b->pool_large.outstanding);
	h.clock = now + INPUT_GAP_SECS * WG_NSEC_PER_SEC;
	return 0;
}

#ifdef FUZZ_WRITE_SEEDS
#include "tests/support/fuzz_seed.h"

enum { SEED_MAX = 65536, SEG_BYTES = 1000, TCP_HDR = 20 };

static uint8_t seed[SEED_MAX];
static size_t seed_len;

static void rec(uint8_t header, const uint8_t *bytes, size_t len)
{
	if (seed_len + 3 + len > sizeof(seed))
		abort();
	seed[seed_len++] = header;
	seed[seed_len++] = (uint8_t)len;
	seed[seed_len++] = (uint8_t)(len >> 8);
	memcpy(seed + seed_len, bytes, len);
	seed_len += len;
}

static void ipv4_csum(uint8_t *ip)
{
	uint32_t sum = 0;

	ip[10] = ip[11] = 0;
	for (int i = 0; i < CAKE_IPV4_HDR_BYTES; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

/* An inner IPv4 packet from 10.0.0.src to 10.0.0.2 of protocol proto, payload n bytes
 * after an L4 header of l4 bytes; tos its TOS byte. */
static size_t ipv4(uint8_t *ip, uint8_t src, uint8_t proto, size_t l4, size_t n, uint8_t tos)
{
	size_t len = CAKE_IPV4_HDR_BYTES + l4 + n;

	memset(ip, 0, len);
	ip[0] = 0x45, ip[1] = tos;
	ip[2] = (uint8_t)(len >> 8), ip[3] = (uint8_t)len;
	ip[6] = 0x40, ip[8] = 64, ip[9] = proto;
	ip[12] = 10, ip[15] = src, ip[16] = 10, ip[19] = 2;
	ipv4_csum(ip);
	return len;
}

/* The TCP header at l4: ports 40000 -> 5201, sequence seq, ACK (and PSH if asked). */
static void tcp(uint8_t *l4, uint32_t seq, bool psh)
{
	l4[0] = 0x9c, l4[1] = 0x40, l4[2] = 0x14, l4[3] = 0x51;
	l4[4] = (uint8_t)(seq >> 24), l4[5] = (uint8_t)(seq >> 16);
	l4[6] = (uint8_t)(seq >> 8), l4[7] = (uint8_t)seq;
	l4[8] = 0, l4[9] = 0, l4[10] = 0x10, l4[11] = 1;
	l4[12] = 0x50, l4[13] = psh ? 0x18 : 0x10, l4[14] = 0xff, l4[15] = 0xff;
}

/* An inner IPv6 TCP segment from fd00::1 to fd00::2 with n payload bytes. */
static size_t ipv6_tcp(uint8_t *ip, uint32_t seq, size_t n, bool psh)
{
	size_t plen = TCP_HDR + n;

	memset(ip, 0, CAKE_IPV6_HDR_BYTES + plen);
	ip[0] = 0x60;
	ip[4] = (uint8_t)(plen >> 8), ip[5] = (uint8_t)plen;
	ip[6] = 6, ip[7] = 64;
	ip[8] = 0xfd, ip[23] = 1, ip[24] = 0xfd, ip[39] = 2;
	tcp(ip + CAKE_IPV6_HDR_BYTES, seq, psh);
	return CAKE_IPV6_HDR_BYTES + plen;
}

static void tcp4_train(uint8_t header, int n)
{
	uint8_t ip[CAKE_IPV4_HDR_BYTES + TCP_HDR + SEG_BYTES];

	for (int i = 0; i < n; i++) {
		size_t len = ipv4(ip, 1, 6, TCP_HDR, SEG_BYTES, 0);

		ip[4] = 0, ip[5] = (uint8_t)i; /* IDs that count up, as GRO wants */
		ipv4_csum(ip);
		tcp(ip + CAKE_IPV4_HDR_BYTES, 1 + (uint32_t)i * SEG_BYTES, i == n - 1);
		rec(header, ip, len);
	}
}

static void write_seed(const char *dir, const char *name)
{
	fuzz_seed_write(dir, name, seed, seed_len);
	seed_len = 0;
}

int main(int argc, char **argv)
{
	static const uint8_t runt[3] = {4, 0, 0};
	uint8_t ip[2048], msg[256];
	const uint8_t pt = REC_PLAINTEXT;

	if (argc != 2)
		return 2;
	seed[seed_len++] = 0;
	rec(pt, ip, ipv4(ip, 1, 17, 8, 64, 0));
	rec(pt, ip, 0); /* a keepalive */
	rec(pt | REC_REPLAY, ip, ipv4(ip, 1, 17, 8, 64, 0));
	write_seed(argv[1], "udp4-keepalive-replay");

	seed[seed_len++] = CONF_GRO;
	tcp4_train(pt | 1 << REC_TIME_SHIFT, 8);
	write_seed(argv[1], "tcp4-gro");

	seed[seed_len++] = CONF_GRO | CONF_INGRESS | 1 << CONF_CAKE_SHIFT | CONF_V6;
	for (int i = 0; i < 8; i++)
		rec(pt, ip, ipv6_tcp(ip, 1 + (uint32_t)i * SEG_BYTES, SEG_BYTES, i == 7));
	write_seed(argv[1], "tcp6-gro-ingress-v6-underlay");

	seed[seed_len++] = CONF_INGRESS | 3 << CONF_CAKE_SHIFT;
	for (int i = 0; i < 16; i++)
		rec(pt | 2 << REC_TIME_SHIFT, ip, ipv4(ip, 1, 17, 8, 600, (uint8_t)(i * 4)));
	write_seed(argv[1], "udp4-ingress-slow");

	seed[seed_len++] = 0;
	rec(pt | 3, ip, ipv4(ip, 1, 17, 8, 32, 2));	   /* CE over ECT(0): CE */
	rec(pt | 3, ip, ipv4(ip, 1, 17, 8, 32, 0));	   /* CE over not-ECT: dropped */
	rec(pt | 1, ip, ipv4(ip, 1, 17, 8, 32, 2));	   /* ECT(1) over ECT(0) */
	rec(pt | REC_ROAM, ip, ipv4(ip, 9, 17, 8, 32, 0)); /* a source not allowed */
	ip[0] = 0x55;
	rec(pt, ip, 40);			     /* not IPv4 nor IPv6 */
	rec(pt, ip, ipv4(ip, 1, 17, 8, 32, 0) - 10); /* shorter than it says */
	write_seed(argv[1], "ecn-source-inner");

	seed[seed_len++] = 0;
	for (int i = 0; i < 4; i++)
		rec(pt | REC_TIME_JUMP << REC_TIME_SHIFT, ip, ipv4(ip, 1, 1, 8, 16, 0));
	write_seed(argv[1], "session-expiry");

	seed[seed_len++] = CONF_V6;
	memset(msg, 0, sizeof(msg));
	msg[0] = MESSAGE_HANDSHAKE_INITIATION;
	rec(0, msg, MESSAGE_HANDSHAKE_INITIATION_LEN);
	msg[0] = MESSAGE_HANDSHAKE_RESPONSE;
	rec(0, msg, MESSAGE_HANDSHAKE_RESPONSE_LEN);
	msg[0] = MESSAGE_HANDSHAKE_COOKIE;
	rec(0, msg, MESSAGE_HANDSHAKE_COOKIE_LEN);
	msg[0] = MESSAGE_DATA;
	rec(0, msg, MESSAGE_MINIMUM_LENGTH + 16);
	rec(0, runt, sizeof(runt));
	write_seed(argv[1], "raw-messages");
	return 0;
}
#endif
