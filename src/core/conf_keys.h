/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration keys, each described once: its name on every surface, its section,
 * the surfaces that read and write it, its value type, the devconf field and HAS_ flag it
 * sets, and the messages that refuse a bad value. Four surfaces walk the table:
 *
 *  - WG_CONF_FILE: a wg-quick file, read by wgconf.c and written by wgconf_write.c
 *    (SaveConfig, and `cakewg showconf` in wg showconf's layout);
 *  - WG_CONF_SET: a UAPI `set=1` request, read by uapi.c and written by uapi_set_write.c;
 *  - WG_CONF_GET: a UAPI `get=1` reply, written by uapi.c and read by uapi_reply.c;
 *  - WG_CONF_ARG: the words of `cakewg set`, read by tools/cakewg/cmd_set.c.
 *
 * A value type (struct wg_conf_type) has one parser and one printer. Where the surfaces
 * differ by protocol, the parser takes the surface: keys are hex on the UAPI and base64
 * elsewhere, numbers decimal on the UAPI and wg's words (`off`, 0x...) elsewhere, an
 * endpoint in a request a literal address (a reply may also name a host, kept as text). What needs I/O stays with the surface: `cakewg
 * set` reads key files and resolves names (struct wg_conf_key's arg_form says which), then
 * hands the text to the same parser.
 *
 * Adding a key: one row in conf_keys.c (names, section, surfaces, type, field, flag,
 * messages, its place in a written file), and, when its type is new, a struct
 * wg_conf_type in conf_values.c. tests/unit/test_conf_keys.c checks every row.
 */
#ifndef CAKEWG_SRC_CORE_CONF_KEYS_H
#define CAKEWG_SRC_CORE_CONF_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qdisc/cake_parse.h"
#include "src/core/devconf.h"
#include "src/core/ipaddr.h"

enum wg_conf_surface {
	WG_CONF_FILE = 1U << 0,
	WG_CONF_SET = 1U << 1,
	WG_CONF_GET = 1U << 2,
	WG_CONF_ARG = 1U << 3,
};

enum wg_conf_section {
	WG_CONF_INTERFACE,
	WG_CONF_PEER,
};

enum wg_conf_key_flags {
	/* A wg-quick or cakewg key in a file: unknown to wg(8) (WG_WGCONF_WG_ONLY), its
	 * value trimmed rather than stripped of every space. */
	WG_CONF_KEY_QUICK = 1U << 0,
	/* On the UAPI and on `cakewg set` the key starts a new peer record. */
	WG_CONF_KEY_STARTS_PEER = 1U << 1,
	/* A `cakewg set` word that may come anywhere, after peers too, and that ends the
	 * words of a WG_CONF_ARG_WORDS value. */
	WG_CONF_KEY_ARG_ANYWHERE = 1U << 2,
	/* A secret: its messages never quote the value. */
	WG_CONF_KEY_SECRET = 1U << 3,
	/* Zero means unset: a file and a `get` leave it out (a `set` still says it). */
	WG_CONF_KEY_ZERO_UNSET = 1U << 4,
	/* A record cannot be written without it. */
	WG_CONF_KEY_REQUIRED = 1U << 5,
	/* A `set` writer says nothing more of the record after it (remove=true). */
	WG_CONF_KEY_ENDS_RECORD = 1U << 6,
	/* In a file the value is the raw rest of the line, comment included (hooks). */
	WG_CONF_KEY_RAW = 1U << 7,
	/* cakewg's own key, unknown to wg and to wg-quick: `cakewg showconf` writes it after
	 * wg's keys (a SaveConfig file, with wg-quick's, before them). */
	WG_CONF_KEY_CAKEWG = 1U << 8,
};

/* How `cakewg set` takes the value: the I/O the tool does before the parser runs. */
enum wg_conf_arg_form {
	WG_CONF_ARG_WORD,     /* the next word, as it is */
	WG_CONF_ARG_FLAG,     /* no value */
	WG_CONF_ARG_KEY_FILE, /* the next word names a key file: its base64 is the value */
	WG_CONF_ARG_SERVICE,  /* a port or service name, resolved to a number */
	WG_CONF_ARG_HOST,     /* host:port, resolved to an address */
	WG_CONF_ARG_LIST,     /* the next word with its whitespace dropped */
	WG_CONF_ARG_WORDS,    /* every word up to the next WG_CONF_KEY_ARG_ANYWHERE word */
};

/* Why a value was refused (the parser's result), and warnings. */
enum wg_conf_err {
	WG_CONF_OK,
	WG_CONF_E_VALUE, /* not a value of the key's type */
	WG_CONF_E_NOMEM,
	WG_CONF_E_ENDPOINT_BRACE,
	WG_CONF_E_ENDPOINT_NO_PORT,
	WG_CONF_E_ENDPOINT_PORT,
	WG_CONF_E_ENDPOINT_HOST,
	WG_CONF_E_ADDR, /* an address in a prefix; `at` is the address */
	WG_CONF_E_CIDR, /* a prefix; `at` is the entry */
	WG_CONF_E_DNS_ADDR,
	WG_CONF_E_DNS_NAME,
	WG_CONF_W_HOST_BITS, /* a warning: an allowed IP with host bits set */
};

enum wg_conf_limits {
	WG_CONF_MSG_SIZE = 512,
	WG_CONF_RANGE_SIZE = 32,
	/* wg_conf_key_print(): the writer says nothing more of this record */
	WG_CONF_PRINT_END = 1,
};

/* Where a key's value goes: the device, and the peer for peer keys. */
struct wg_conf_target {
	struct wg_devconf *conf;
	struct wg_devconf_peer *peer;
	/* How a file writes addresses (RFC 5952 unless told; the UAPI always is). */
	enum wg_ipaddr_text addr_text;
};

struct wg_conf_key;

/* What a parser reports besides its result. */
struct wg_conf_result {
	int err;	/* WG_CONF_OK or a WG_CONF_E_* */
	const char *at; /* the text the message quotes: the value, or the part at fault */
	size_t at_len;
	char detail[CAKE_PARSE_ERR_BYTES]; /* the tc-cake parser's message (%e) */
	/* Called for each warning (WG_CONF_W_*), at its text; may be NULL. */
	void (*warn)(void *arg, const struct wg_conf_key *key, int code, const char *at,
		     size_t len);
	void *warn_arg;
};

struct wg_conf_type {
	const char *name;
	/* Reads v (n bytes, as the surface wrote it) into the key's field and sets its
	 * flag. Returns WG_CONF_OK or an error (r says where). */
	int (*parse)(const struct wg_conf_key *key, const struct wg_conf_target *t,
		     enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r);
	/* Appends the key's lines for a writing surface (nothing when it is unset).
	 * Returns 0, WG_CONF_PRINT_END, or -EINVAL / -EDESTADDRREQ when the value cannot
	 * be said there. */
	int (*print)(const struct wg_conf_key *key, const struct wg_conf_target *t,
		     enum wg_conf_surface s, struct wg_devconf_buf *out);
	/* The range a message's %r names, or NULL. */
	void (*range)(char buf[static WG_CONF_RANGE_SIZE]);
};

/* A message for an error code on some surfaces. %v is the quoted text, %n its length,
 * %r the type's range and %e the tc-cake parser's message. */
struct wg_conf_msg {
	int code;
	unsigned int surfaces;
	const char *text;
};

struct wg_conf_key {
	const char *file, *uapi, *arg; /* the names; NULL where a surface lacks the key */
	/* An older `cakewg set` word for the key: read where a word starts a key, never
	 * ending a WG_CONF_ARG_WORDS value (`ingress`, now also a tc-cake word). */
	const char *arg_alias;
	enum wg_conf_section section;
	unsigned int in, out; /* surfaces that read it, surfaces that write it */
	unsigned int flags;   /* WG_CONF_KEY_* */
	const struct wg_conf_type *type;
	size_t offset;	       /* of the field in struct wg_devconf or struct wg_devconf_peer */
	uint32_t has;	       /* the WG_DEVCONF_(PEER_)* flag it sets, or 0 */
	unsigned int file_pos; /* place in a written file's section, from 1 */
	enum wg_conf_arg_form arg_form;
	const char *off_word; /* a word taken as it is, unchecked (cake_ingress's "none") */
	const struct wg_conf_msg *msgs; /* ends with a NULL text */
};

extern const struct wg_conf_key wg_conf_keys[];
extern const size_t wg_conf_n_keys;

/* wireguard-tools' char_is_space: \t \n \v \f \r and space. */
static inline bool wg_conf_is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* The key's name on a surface (the UAPI name for SET and GET). */
const char *wg_conf_key_name(const struct wg_conf_key *key, enum wg_conf_surface s);

/*
 * The key that surface s names so in section sec (name compared case-insensitively in
 * files), or NULL. On SET, GET and ARG a STARTS_PEER key is found in either section, and on
 * ARG an ARG_ANYWHERE key too, and on ARG by its arg_alias too. Keys with a flag in skip are
 * left out.
 */
const struct wg_conf_key *wg_conf_key_find(enum wg_conf_surface s, enum wg_conf_section sec,
					   const char *name, size_t len, unsigned int skip);

/* Whether a `cakewg set` word starts a key that may come anywhere (ends a WORDS value);
 * an arg_alias does not. */
bool wg_conf_arg_is_anywhere(const char *word);

/* Runs the key's parser; r is reset first. Returns r->err. */
int wg_conf_key_parse(const struct wg_conf_key *key, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r);

/*
 * Writes the keys of one section for surface s (FILE, SET or GET) in that surface's
 * order, leaving out keys that lack one of the flags in need or have one in skip.
 * Returns 0, WG_CONF_PRINT_END or the first error.
 */
int wg_conf_section_write(const struct wg_conf_target *t, enum wg_conf_surface s,
			  enum wg_conf_section sec, unsigned int need, unsigned int skip,
			  struct wg_devconf_buf *out);

/* The message for r->err (or a warning code) on surface s, shown quoting the text. */
void wg_conf_key_message(const struct wg_conf_key *key, enum wg_conf_surface s, int code,
			 const struct wg_conf_result *r, const char *shown, char *buf, size_t size);

/* The one check of a tc-cake option string (qdisc/cake_parse.c). Returns 0 or -EINVAL
 * with err filled. */
int wg_conf_cake_check(const char *options, struct cake_parse_err *err);

#endif
