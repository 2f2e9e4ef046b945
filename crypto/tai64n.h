/* SPDX-License-Identifier: GPL-2.0-only */
/* TAI64N labels (12 bytes, big-endian) as WireGuard's initiation timestamp uses them. */
#ifndef CAKEWG_CRYPTO_TAI64N_H
#define CAKEWG_CRYPTO_TAI64N_H

#include <stdbool.h>
#include <stdint.h>

enum { CW_TAI64N_LEN = 12 };

/* Encodes unix time (seconds, nanoseconds) as TAI64N: 2^62 + 10 + secs, then nsec. */
void cw_tai64n_encode(uint8_t out[CW_TAI64N_LEN], uint64_t unix_sec, uint32_t nsec);
/* Compares two labels as numbers: true when a is strictly after b. */
bool cw_tai64n_after(const uint8_t a[CW_TAI64N_LEN], const uint8_t b[CW_TAI64N_LEN]);

#endif
