/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wg-quick configuration file: a push parser with no I/O (init, one call per line,
 * finish), in the shape of wireguard-tools' config.c, and a writer for SaveConfig and
 * showconf.
 *
 * Syntax, as wg(8) and wg-quick(8) read it:
 *  - '#' starts a comment anywhere on a line, except in PreUp/PostUp/PreDown/PostDown,
 *    whose value is the rest of the raw line after the first '=' (wg-quick passes such
 *    comments on to bash).
 *  - Section headers and key names are case-insensitive. wg(8) keys (PrivateKey,
 *    ListenPort, FwMark; PublicKey, PresharedKey, AllowedIPs, Endpoint,
 *    PersistentKeepalive) are matched and parsed with every whitespace character of
 *    the line removed, as wg(8) does, and must have a non-empty value. wg-quick keys
 *    (Address, DNS, MTU, Table, SaveConfig, the hooks) and cakewg's Cake/CakeIngress
 *    (a tc-cake option string, stored as written) and UnderlayLimit (auto, off or a
 *    size) keep inner spaces and are trimmed.
 *  - Address and DNS take lists split at commas and spaces; a DNS entry that looks like
 *    an address (digits and dots, or a ':') must be one, anything else is a search
 *    domain. MTU is empty (automatic) or 68-65535. Table is auto, off, main, local,
 *    default or a number 1-4294967295 (other names from rt_tables are not accepted:
 *    the core reads no files). SaveConfig is true or false.
 *  - A repeated key replaces the earlier value, except the lists (AllowedIPs, Address,
 *    DNS, hooks), which accumulate; each AllowedIPs line sets replace-allowed-ips again
 *    unless one of its entries starts with '+' or '-' (incremental, '-' removes).
 *  - AllowedIPs with host bits set are accepted with a warning, as wg(8) does; the
 *    device masks them when it applies the configuration.
 *  - An Endpoint host that is not a literal address is kept as a name
 *    (WG_DEVCONF_PEER_HAS_ENDPOINT_HOST) for the edge to resolve.
 *
 * The keys, how each value is read and written, and the messages come from the key
 * table (src/core/conf_keys.h); this parser cuts lines, tracks sections and checks what
 * spans lines.
 *
 * Errors are one line, "FILE:LINE: message", quoting the offending text as `...'
 * (wireguard-tools wording where it has one). Values of PrivateKey and PresharedKey are
 * never quoted. After an error the context holds nothing: the partial configuration is
 * freed, and every later call returns the same error.
 */
#ifndef CAKEWG_SRC_CORE_WGCONF_H
#define CAKEWG_SRC_CORE_WGCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "src/core/devconf.h"

enum wg_wgconf_flags {
	/*
	 * As `wg addconf`: do not imply REPLACE_PEERS and the reset of private key,
	 * listen port and fwmark that `wg setconf` (the default) implies.
	 */
	WG_WGCONF_APPEND = 1U << 0,
	/* Only the wg(8) format: wg-quick and cakewg keys are unknown keys. */
	WG_WGCONF_WG_ONLY = 1U << 1,
	/* Writing: `wg showconf`'s layout with cakewg's keys, as `cakewg showconf` writes it. */
	WG_WGCONF_SHOWCONF = 1U << 2,
};

enum wg_wgconf_section {
	WG_WGCONF_SECTION_NONE,
	WG_WGCONF_SECTION_INTERFACE,
	WG_WGCONF_SECTION_PEER,
};

enum wg_wgconf_limits {
	WG_WGCONF_MSG_SIZE = 512,
	/* Quoted text longer than this is cut, with "..." */
	WG_WGCONF_QUOTE_MAX = 160,
};

struct wg_wgconf {
	struct wg_devconf *conf; /* NULL after finish or an error */
	struct wg_devconf_peer *peer;
	enum wg_wgconf_section section;
	const char *file; /* borrowed: must outlive the context */
	unsigned int flags;
	unsigned int line;
	int err; /* 0, or the first error (-EINVAL, -ENOMEM) */
	unsigned int warnings;
	char error[WG_WGCONF_MSG_SIZE];
	char warning[WG_WGCONF_MSG_SIZE]; /* the first warning */
	char quoted[WG_WGCONF_QUOTE_MAX + 4];
};

/* Starts a parse; file names the input in messages. Returns 0 or -ENOMEM. */
int wg_wgconf_init(struct wg_wgconf *ctx, const char *file, unsigned int flags);

/*
 * Feeds the next line (len bytes, a trailing "\n" or "\r\n" is fine). Returns 0,
 * -EINVAL (ctx->error says why) or -ENOMEM.
 */
int wg_wgconf_line(struct wg_wgconf *ctx, const char *line, size_t len);

/*
 * Runs the checks that span lines (every peer has a public key, no public key twice)
 * and hands the configuration to *out. Returns 0, -EINVAL or -ENOMEM; on error *out is
 * NULL and nothing is left to free.
 */
int wg_wgconf_finish(struct wg_wgconf *ctx, struct wg_devconf **out);

/* Frees whatever an unfinished parse holds. Safe after finish and after errors. */
void wg_wgconf_deinit(struct wg_wgconf *ctx);

/*
 * Parses a whole file held in memory (lines end at '\n'). On error copies the message
 * to err (when err_size > 0). Returns like wg_wgconf_finish(). Warnings are dropped:
 * use the line API to read ctx->warning.
 */
int wg_wgconf_parse(const char *file, const char *text, size_t len, unsigned int flags,
		    struct wg_devconf **out, char *err, size_t err_size);

/*
 * Writes conf as a wg-quick file: [Interface] with the wg-quick keys first (as
 * wg-quick's save_config does, cakewg's Cake, CakeIngress and UnderlayLimit last of
 * them), then ListenPort, FwMark and PrivateKey when set and not zero, then one [Peer]
 * per peer (peers marked REMOVE_ME are left out), each after a blank line. With
 * WG_WGCONF_WG_ONLY the wg-quick and cakewg keys are left out. With WG_WGCONF_SHOWCONF
 * the wg-quick keys are, cakewg's come after wg's, addresses are libc's text
 * (WG_IPADDR_TEXT_NTOP) and the blank lines wg showconf's: one after [Interface], one
 * between peers. Returns 0, -EINVAL when a
 * string cannot be written back (a newline, or a '#' where it would start a comment),
 * or -ENOMEM. The text holds the private key: wipe it after use.
 */
int wg_wgconf_write(const struct wg_devconf *conf, unsigned int flags, struct wg_devconf_buf *out);

/*
 * Makes a `get=1` reply (wg_uapi_reply_get_parse) say in a file what `wg showconf`
 * says of it: each peer's allowed IPs are its whole list (REPLACE_ALLOWEDIPS), and a
 * persistent keepalive that is off is left out.
 */
void wg_wgconf_from_get(struct wg_devconf *conf);

#endif
