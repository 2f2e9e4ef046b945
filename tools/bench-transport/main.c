/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-transport: one-core throughput of WireGuard data messages, encrypted and then
 * decrypted in place on a transport keypair (the core's wg_keypair_encrypt/decrypt, padding
 * and replay window included), timed with CLOCK_MONOTONIC, or with -c with the thread's CPU
 * clock (CLOCK_THREAD_CPUTIME_ID: on a busy machine, time spent preempted is not counted).
 *
 *   bench-transport [-n packets] [-s plaintext bytes] [-m mtu] [-b batch] [-c]
 *
 * Packets go in batches: the batch is encrypted, then decrypted, and each phase is timed on
 * its own. Throughput counts plaintext bits.
 */
#include <errno.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/core/keypair.h"

enum { MAX_BATCH = 1024 };

struct options {
	uint64_t packets;
	size_t size;
	unsigned int mtu;
	size_t batch;
	clockid_t clock;
};

static uint64_t clock_ns(const struct options *o)
{
	struct timespec ts;

	clock_gettime(o->clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max) {
		fprintf(stderr, "bench-transport: not a number in 1..%" PRIu64 ": `%s'\n", max, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	uint64_t v;
	int c;

	*o = (struct options){
		.packets = 2000000, .size = DEFAULT_MTU, .mtu = DEFAULT_MTU, .batch = 64,
		.clock = CLOCK_MONOTONIC};
	while ((c = getopt(argc, argv, "n:s:m:b:c")) != -1) {
		if (c == 'c') {
			o->clock = CLOCK_THREAD_CPUTIME_ID;
			continue;
		}
		if (c == '?' || parse_u64(optarg,
					  c == 'n'   ? UINT64_MAX
					  : c == 'b' ? MAX_BATCH
						     : 65535 - 32,
					  &v))
			return -EINVAL;
		if (c == 'n')
			o->packets = v;
		else if (c == 's')
			o->size = (size_t)v;
		else if (c == 'm')
			o->mtu = (unsigned int)v;
		else
			o->batch = (size_t)v;
	}
	if (optind != argc) {
		fprintf(stderr,
			"usage: bench-transport [-n packets] [-s bytes] [-m mtu] [-b batch] [-c]\n");
		return -EINVAL;
	}
	return 0;
}

/* Two mirror-image keypairs, as a handshake leaves them. -ENOMEM if the AEAD failed. */
static int keypairs_init(struct wg_keypair *tx, struct wg_keypair *rx)
{
	uint8_t a[NOISE_SYMMETRIC_KEY_LEN], b[NOISE_SYMMETRIC_KEY_LEN];
	int err;

	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	randombytes_buf(a, sizeof(a));
	randombytes_buf(b, sizeof(b));
	err = wg_keypair_set_keys(tx, a, b);
	if (!err)
		err = wg_keypair_set_keys(rx, b, a);
	sodium_memzero(a, sizeof(a));
	sodium_memzero(b, sizeof(b));
	if (err)
		return err;
	tx->local_index = rx->remote_index = 1;
	rx->local_index = tx->remote_index = 2;
	tx->in_use = rx->in_use = true;
	tx->send_valid = tx->recv_valid = rx->send_valid = rx->recv_valid = true;
	wg_replay_init(&tx->replay);
	wg_replay_init(&rx->replay);
	return 0;
}

/* Encrypts then decrypts one batch; adds each phase's time. -1 if anything failed. */
static int run_batch(struct wg_keypair *tx, struct wg_keypair *rx, uint8_t **bufs, size_t n,
		     const struct options *o, size_t room, uint64_t *enc_ns, uint64_t *dec_ns)
{
	size_t wire_len[MAX_BATCH], plain_len;
	uint64_t t0, t1, t2;

	t0 = clock_ns(o);
	for (size_t i = 0; i < n; i++)
		if (wg_keypair_encrypt(tx, bufs[i], o->size, room, o->mtu, 0, &wire_len[i]))
			return -1;
	t1 = clock_ns(o);
	for (size_t i = 0; i < n; i++)
		if (wg_keypair_decrypt(rx, bufs[i], wire_len[i], 0, &plain_len) != DATA_OK)
			return -1;
	t2 = clock_ns(o);
	*enc_ns += t1 - t0;
	*dec_ns += t2 - t1;
	return 0;
}

static void report(const char *what, uint64_t ns, const struct options *o)
{
	double per_pkt = (double)ns / (double)o->packets;
	double gbps = (double)o->packets * (double)o->size * 8.0 / (double)ns;

	printf("  %-16s %8.1f ns/packet  %6.2f Gbit/s\n", what, per_pkt, gbps);
}

int main(int argc, char **argv)
{
	struct wg_keypair tx, rx;
	struct options o;
	uint64_t enc_ns = 0, dec_ns = 0, done = 0;
	size_t room;
	uint8_t **bufs;

	if (parse_options(argc, argv, &o) || sodium_init() < 0)
		return 1;
	room = MESSAGE_DATA_HEADER_LEN + o.size + DATA_TAILROOM_LEN;
	bufs = calloc(o.batch, sizeof(*bufs));
	for (size_t i = 0; bufs && i < o.batch; i++)
		if (!(bufs[i] = calloc(1, room)))
			return 1;
	if (!bufs)
		return 1;
	if (keypairs_init(&tx, &rx)) {
		fprintf(stderr, "bench-transport: cannot set up the AEAD (%s)\n",
			CW_AEAD_BACKEND_NAME);
		return 1;
	}
	while (done < o.packets) {
		size_t n = (size_t)WG_MIN((uint64_t)o.batch, o.packets - done);

		if (run_batch(&tx, &rx, bufs, n, &o, room, &enc_ns, &dec_ns)) {
			fprintf(stderr, "bench-transport: a packet failed to round-trip\n");
			return 1;
		}
		done += n;
	}
	printf("bench-transport: %" PRIu64 " packets of %zu bytes (MTU %u), one core, AEAD %s%s\n",
	       o.packets, o.size, o.mtu, CW_AEAD_BACKEND_NAME,
	       o.clock == CLOCK_MONOTONIC ? "" : ", CPU time");
	report("encrypt", enc_ns, &o);
	report("decrypt", dec_ns, &o);
	report("encrypt+decrypt", enc_ns + dec_ns, &o);
	wg_keypair_clear(&tx);
	wg_keypair_clear(&rx);
	for (size_t i = 0; i < o.batch; i++)
		free(bufs[i]);
	free(bufs);
	return 0;
}
