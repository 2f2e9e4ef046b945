/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for data messages. Each input is decrypted in place on a fresh receiving
 * keypair; a message that authenticates must have the length and counter it claims. The
 * input is then also used as a plaintext: encrypted (padded for an MTU taken from its first
 * bytes) and decrypted again, which must give it back exactly.
 *
 * Building with -DFUZZ_WRITE_SEEDS gives a program that writes the seed corpus (keepalive,
 * short and MTU-sized messages) into the directory named on its command line.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/keypair.h"

enum { MAX_PLAIN = 2048, BUF_LEN = MESSAGE_DATA_HEADER_LEN + MAX_PLAIN + DATA_TAILROOM_LEN };

static struct wg_keypair tx, rx;
static uint8_t buf[BUF_LEN];

static void reset(void)
{
	uint8_t a[NOISE_SYMMETRIC_KEY_LEN], b[NOISE_SYMMETRIC_KEY_LEN];

	wg_keypair_clear(&tx);
	wg_keypair_clear(&rx);
	for (int i = 0; i < NOISE_SYMMETRIC_KEY_LEN; i++) {
		a[i] = (uint8_t)(0x40 + i);
		b[i] = (uint8_t)(0x90 ^ i);
	}
	if (wg_keypair_set_keys(&tx, a, b) || wg_keypair_set_keys(&rx, b, a))
		abort();
	tx.local_index = rx.remote_index = 0x0badcafe;
	rx.local_index = tx.remote_index = 0x12345678;
	tx.in_use = rx.in_use = true;
	tx.send_valid = tx.recv_valid = rx.send_valid = rx.recv_valid = true;
	tx.i_am_the_initiator = true;
	wg_replay_init(&tx.replay);
	wg_replay_init(&rx.replay);
}

static void decrypt_as_received(const uint8_t *data, size_t size)
{
	size_t plain_len = 0;

	if (size > sizeof(buf))
		return;
	memcpy(buf, data, size);
	if (wg_keypair_decrypt(&rx, buf, size, 0, &plain_len) != DATA_OK)
		return;
	if (plain_len + MESSAGE_MINIMUM_LENGTH != size || !rx.replay.next ||
	    rx.replay.next - 1 != wg_le64(((const struct message_data *)data)->counter))
		abort();
}

/* Padding rules: at most 15 bytes, up to a multiple of 16, never past an MTU it fits in. */
static bool padding_ok(size_t len, size_t padded, unsigned int mtu)
{
	if (padded < len || padded - len >= MESSAGE_PADDING_MULTIPLE)
		return false;
	if (!mtu || len > mtu)
		return padded == len || padded % MESSAGE_PADDING_MULTIPLE == 0 || len > mtu;
	return padded <= mtu && (padded % MESSAGE_PADDING_MULTIPLE == 0 || padded == mtu);
}

static void round_trip(const uint8_t *data, size_t size)
{
	unsigned int mtu = size >= 2 ? (unsigned int)(data[0] | data[1] << 8) % 1600 : 0;
	size_t len = size > MAX_PLAIN ? MAX_PLAIN : size, wire_len = 0, plain_len = 0;

	memcpy(buf + MESSAGE_DATA_HEADER_LEN, data, len);
	if (wg_keypair_encrypt(&tx, buf, len, sizeof(buf), mtu, 0, &wire_len))
		abort();
	if (!padding_ok(len, wire_len - MESSAGE_MINIMUM_LENGTH, mtu))
		abort();
	if (wg_keypair_decrypt(&rx, buf, wire_len, 0, &plain_len) != DATA_OK ||
	    plain_len != wire_len - MESSAGE_MINIMUM_LENGTH ||
	    memcmp(buf + MESSAGE_DATA_HEADER_LEN, data, len))
		abort();
	for (size_t i = len; i < plain_len; i++)
		if (buf[MESSAGE_DATA_HEADER_LEN + i])
			abort(); /* padding is zeros */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reset();
	decrypt_as_received(data, size);
	reset();
	round_trip(data, size);
	return 0;
}

#ifdef FUZZ_WRITE_SEEDS
#include <stdio.h>

int main(int argc, char **argv)
{
	static const size_t lens[] = {0, 1, 64, 1420};
	char path[512];

	if (argc != 2)
		return 2;
	reset();
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t wire_len;
		FILE *f;

		memset(buf + MESSAGE_DATA_HEADER_LEN, (int)i, lens[i]);
		tx.send_counter = i * 1000;
		if (wg_keypair_encrypt(&tx, buf, lens[i], sizeof(buf), DEFAULT_MTU, 0, &wire_len))
			abort();
		snprintf(path, sizeof(path), "%s/data-%zu", argv[1], lens[i]);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, wire_len, f) != wire_len || fclose(f))
			abort();
	}
	return 0;
}
#endif
