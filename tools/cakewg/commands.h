/* SPDX-License-Identifier: GPL-2.0-only */
/* The cakewg subcommands, one file each, dispatched from main.c. */
#ifndef CAKEWG_TOOLS_CAKEWG_COMMANDS_H
#define CAKEWG_TOOLS_CAKEWG_COMMANDS_H

extern const char *prog_name;

int daemon_main(int argc, char *argv[]);
int up_main(int argc, char *argv[]);
int down_main(int argc, char *argv[]);
int strip_main(int argc, char *argv[]);
int show_main(int argc, char *argv[]);
int showconf_main(int argc, char *argv[]);
int set_main(int argc, char *argv[]);
int genkey_main(int argc, char *argv[]);
int genpsk_main(int argc, char *argv[]);
int pubkey_main(int argc, char *argv[]);

#endif
