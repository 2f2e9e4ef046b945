/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg: a userspace WireGuard endpoint with an in-process CAKE scheduler.
 *
 *   cakewg [-f|--foreground] <ifname>      the wireguard-go invocation (for wg-quick)
 *   cakewg <subcommand> [args...]          see usage()
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "tools/cakewg/commands.h"

const char *prog_name = "cakewg";

static const struct {
	const char *name;
	int (*fn)(int argc, char *argv[]);
	const char *description;
} subcommands[] = {
	{ "up", up_main, "Brings up a tunnel from a wg-quick style configuration" },
	{ "down", down_main, "Takes down a tunnel brought up by `up'" },
	{ "strip", strip_main, "Prints a configuration without the wg-quick and cakewg-only keys" },
	{ "show", show_main, "Shows the current configuration, peers and CAKE statistics" },
	{ "showconf", showconf_main, "Shows the current configuration of an interface" },
	{ "set", set_main, "Changes the configuration of an interface, CAKE included" },
	{ "genkey", genkey_main, "Generates a new private key and writes it to stdout" },
	{ "genpsk", genpsk_main, "Generates a new preshared key and writes it to stdout" },
	{ "pubkey", pubkey_main, "Reads a private key from stdin and writes a public key to stdout" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s <cmd> [<args>]\n", prog_name);
	fprintf(f, "       %s [-f|--foreground] <interface>   (run the daemon, as wireguard-go)\n\n",
		prog_name);
	fprintf(f, "Available subcommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-9s %s\n", subcommands[i].name, subcommands[i].description);
	fprintf(f, "\nYou may pass `--help' to any of these subcommands to view usage.\n");
}

int main(int argc, char *argv[])
{
	if (sodium_init() < 0) {
		fprintf(stderr, "%s: libsodium failed to initialise\n", prog_name);
		return 1;
	}
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("cakewg v%s\n", CAKEWG_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	/* Anything else is the wireguard-go invocation: [-f|--foreground] <ifname>. */
	return daemon_main(argc, argv);
}
