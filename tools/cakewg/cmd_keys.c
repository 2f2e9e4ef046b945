/* SPDX-License-Identifier: GPL-2.0-only */
/* genkey, genpsk, pubkey: as wg(8), for users without wireguard-tools. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sodium.h>

#include "crypto/ct.h"
#include "crypto/x25519.h"
#include "src/core/encoding.h"
#include "tools/cakewg/commands.h"

static int print_key(const uint8_t key[WG_ENCODING_KEY_LEN])
{
	char b64[WG_ENCODING_KEY_B64_SIZE];

	wg_encoding_key_to_base64(b64, key);
	puts(b64);
	cw_memzero(b64, sizeof(b64));
	return fflush(stdout) ? 1 : 0;
}

static int gen(int argc, char *argv[], bool clamp)
{
	uint8_t key[WG_ENCODING_KEY_LEN];
	struct stat st;
	int ret;

	if (argc != 1) {
		fprintf(stderr, "Usage: %s %s\n", prog_name, argv[0]);
		return 1;
	}
	if (!fstat(fileno(stdout), &st) && S_ISREG(st.st_mode) && (st.st_mode & S_IRWXO))
		fputs("Warning: writing to world accessible file.\n"
		      "Consider setting the umask to 077 and trying again.\n",
		      stderr);
	randombytes_buf(key, sizeof(key));
	if (clamp)
		cw_x25519_clamp(key);
	ret = print_key(key);
	cw_memzero(key, sizeof(key));
	return ret;
}

int genkey_main(int argc, char *argv[])
{
	return gen(argc, argv, true);
}

int genpsk_main(int argc, char *argv[])
{
	return gen(argc, argv, false);
}

int pubkey_main(int argc, char *argv[])
{
	uint8_t priv[WG_ENCODING_KEY_LEN], pub[WG_ENCODING_KEY_LEN];
	char line[128];
	size_t n;
	int ret = 1;

	if (argc != 1) {
		fprintf(stderr, "Usage: %s %s\n", prog_name, argv[0]);
		return 1;
	}
	n = fread(line, 1, sizeof(line) - 1, stdin);
	line[n] = '\0';
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (!wg_encoding_key_from_base64(priv, line, n)) {
		fputs("pubkey: Key is not the correct length or format\n", stderr);
		goto out;
	}
	if (!cw_x25519_public(pub, priv)) {
		fputs("pubkey: the private key is all zero\n", stderr);
		goto out;
	}
	ret = print_key(pub);
out:
	cw_memzero(line, sizeof(line));
	cw_memzero(priv, sizeof(priv));
	return ret;
}
