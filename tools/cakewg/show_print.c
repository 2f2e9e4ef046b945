/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `cakewg show` text, line for line as wireguard-tools' show.c prints it (pretty_print,
 * ugly_print, dump_print), plus cakewg's CAKE section: the egress and ingress option
 * lines with their `tc -s qdisc` statistics, the backpressure counters, the
 * underlay's byte limit, the offloads' batching counters and the per-peer drop and roam
 * counters. Without colour the escape sequences are simply not written, which is what
 * wg's terminal filter leaves of them.
 */
#include "tools/cakewg/show_print.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crypto/ct.h"
#include "src/core/counters.h"
#include "src/core/encoding.h"
#include "src/core/uapi_reply.h"

#define FG_GREEN  "\x1b[32m"
#define FG_YELLOW "\x1b[33m"
#define FG_CYAN	  "\x1b[36m"
#define BOLD	  "\x1b[1m"
#define RESET	  "\x1b[0m"

enum {
	LINE_BYTES = 1024,
	BYTES_PER_KB = 1000, /* a drain rate is a link rate: decimal units */
	BYTES_PER_MB = 1000 * BYTES_PER_KB,
	BYTES_PER_GB = 1000 * BYTES_PER_MB,
};

void show_style_init(struct show_style *st)
{
	const char *mode = getenv("WG_COLOR_MODE");
	const char *hide = getenv("WG_HIDE_KEYS");

	if (mode && !strcmp(mode, "always"))
		st->color = true;
	else if (mode && !strcmp(mode, "never"))
		st->color = false;
	else
		st->color = isatty(fileno(stdout));
	st->reveal_keys = hide && !strcmp(hide, "never");
	st->now_sec = (int64_t)time(NULL);
}

const char *show_key(char *b64, const uint8_t key[static WG_ENCODING_KEY_LEN])
{
	wg_encoding_key_to_base64(b64, key);
	return b64;
}

/* A colour sequence, or nothing. */
static const char *c(const struct show_style *st, const char *seq)
{
	return st->color ? seq : "";
}

/* "  <bold>name<reset>: " */
static void label(const struct show_style *st, const char *name)
{
	printf("  %s%s%s: ", c(st, BOLD), name, c(st, RESET));
}

static void print_secret(const struct show_style *st, const char *name,
			 const uint8_t key[static WG_ENCODING_KEY_LEN])
{
	char b64[WG_ENCODING_KEY_B64_SIZE];

	label(st, name);
	printf("%s\n", st->reveal_keys ? show_key(b64, key) : "(hidden)");
	cw_memzero(b64, sizeof(b64));
}

/* True when line is the option text again (tc's first line ends in a space). */
static bool repeats_options(const char *line, const char *options)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		n--;
	return options && n == strlen(options) && !memcmp(line, options, n);
}

/*
 * "cake (egress): <options>", then the tc -s lines under it, indented as tc indents
 * them below its qdisc line; a first line repeating the options and trailing blank
 * lines are left out.
 */
static void print_qdisc(const struct show_style *st, const char *dir,
			const struct wg_uapi_reply_cake_qdisc *q)
{
	size_t first = 0, n = q->stats.n;
	char name[32];

	if (!q->options && !n)
		return;
	snprintf(name, sizeof(name), "cake (%s)", dir);
	label(st, name);
	printf("%s\n", q->options ? q->options : "");
	if (n && repeats_options(q->stats.v[0], q->options))
		first = 1;
	while (n > first && !q->stats.v[n - 1][0])
		n--;
	for (size_t i = first; i < n; i++)
		printf(q->stats.v[i][0] ? "  %s\n" : "%s\n", q->stats.v[i]);
}

/* "9.80 MB/s": bytes per second in decimal units, the unit in cyan. */
static void print_rate(const struct show_style *st, uint64_t bytes_per_sec)
{
	static const struct {
		uint64_t scale;
		const char *unit;
	} units[] = {{BYTES_PER_GB, "GB/s"}, {BYTES_PER_MB, "MB/s"}, {BYTES_PER_KB, "kB/s"}};
	size_t i;

	for (i = 0; i < WG_ARRAY_SIZE(units) - 1 && bytes_per_sec < units[i].scale; i++)
		;
	printf("%.2f %s%s%s", (double)bytes_per_sec / (double)units[i].scale, c(st, FG_CYAN),
	       units[i].unit, c(st, RESET));
}

/* One line of counters as it is printed (src/core/counters.h has the grammar). */
struct counter_line {
	const char *label; /* the line's */
	bool open;	   /* its label is printed */
	bool item;	   /* the last ITEM was printed: what follows may join it */
	bool paren;	   /* details are open */
};

static void close_details(struct counter_line *l)
{
	if (l->paren)
		printf(")");
	l->paren = false;
}

static void end_line(struct counter_line *l)
{
	close_details(l);
	if (l->open)
		printf("\n");
	l->open = l->item = false;
}

/* A value as its unit is read: nanoseconds in milliseconds ("41.250"). */
static void print_value(const struct wg_counter_def *def, uint64_t v)
{
	if (def->unit == WG_COUNTER_UNIT_NS)
		printf("%" PRIu64 ".%03" PRIu64, v / 1000000, v / 1000 % 1000);
	else
		printf("%" PRIu64, v);
}

/* One counter's text onto line l: label and separators as its role asks. */
static void print_counter(const struct show_style *st, struct counter_line *l,
			  const struct wg_counter_def *def, bool there, uint64_t v)
{
	if (def->role == WG_COUNTER_ROLE_ITEM) {
		l->item = there && (def->section != WG_COUNTER_SECTION_PEER || v);
		if (!l->item)
			return;
		close_details(l);
		if (!l->open)
			label(st, l->label);
		else
			printf(", ");
		l->open = true;
	} else if (!there || !l->item) {
		return;
	} else if (def->role == WG_COUNTER_ROLE_DETAIL) {
		printf(l->paren ? ", " : " (");
		l->paren = true;
	} else {
		close_details(l);
	}
	printf("%s", def->before);
	print_value(def, v);
	printf("%s", def->after);
}

/*
 * The lines of one section of the counter table, e.g. "backpressure stalls: 27579 (12
 * starved, 3 regrown, 0 overflows)", "underlay: 274764 datagrams sent in 61567 trains,
 * 313526 received (291371 coalesced)", "shaper late: 3 times, 41.250 ms forgiven". A
 * piece whose counter the daemon did not send is left out.
 */
static void print_counters(const struct show_style *st, enum wg_counter_scope scope,
			   enum wg_counter_section section, uint64_t has, const uint64_t *v)
{
	unsigned int n;
	const struct wg_counter_def *defs = wg_counters_table(scope, &n);
	struct counter_line l = {0};

	for (unsigned int i = 0; i < n; i++) {
		if (defs[i].section != section)
			continue;
		if (defs[i].role == WG_COUNTER_ROLE_ITEM && defs[i].label) {
			end_line(&l);
			l.label = defs[i].label;
		}
		print_counter(st, &l, &defs[i], has & (UINT64_C(1) << i), v[i]);
	}
	end_line(&l);
}

/*
 * "underlay limit: 16.00 KiB (learnt; drain 9.80 MB/s)": the bytes the underlay sockets
 * may hold, whether learnt or fixed, and the drain rate it was (or would be) learnt from;
 * "off" without backpressure. An older daemon that sends no setting gets no word for it.
 */
static void print_underlay(const struct wg_uapi_reply_cake *cake, const struct show_style *st)
{
	char text[WG_UAPI_REPLY_FMT_SIZE];
	bool rate = cake->has_underlay_drain_rate && cake->underlay_drain_rate;
	const char *how = NULL;

	if (!cake->has_underlay_limit && !cake->has_underlay_limit_setting)
		return;
	label(st, "underlay limit");
	if (cake->has_underlay_limit_setting &&
	    cake->underlay_limit_setting == WG_DEVCONF_UNDERLAY_LIMIT_OFF) {
		printf("off\n");
		return;
	}
	if (cake->has_underlay_limit_setting)
		how = cake->underlay_limit_setting == WG_DEVCONF_UNDERLAY_LIMIT_AUTO ? "learnt"
										     : "fixed";
	if (cake->has_underlay_limit)
		printf("%s", wg_uapi_reply_fmt_bytes(text, sizeof(text), cake->underlay_limit,
						     st->color));
	else
		printf("?");
	if (how || rate)
		printf(" (%s%s", how ? how : "", how && rate ? "; " : "");
	if (rate) {
		printf("drain ");
		print_rate(st, cake->underlay_drain_rate);
	}
	printf("%s\n", how || rate ? ")" : "");
}

static void print_cake(const struct show_device *dev, const struct show_style *st)
{
	const struct wg_device_counters *c = &dev->cake.counters;

	if (!dev->has_cake)
		return;
	print_counters(st, WG_COUNTER_SCOPE_DEVICE, WG_COUNTER_SECTION_BACKPRESSURE, c->has, c->v);
	print_underlay(&dev->cake, st);
	print_counters(st, WG_COUNTER_SCOPE_DEVICE, WG_COUNTER_SECTION_DATAPATH, c->has, c->v);
	print_qdisc(st, "egress", &dev->cake.egress);
	print_qdisc(st, "ingress", &dev->cake.ingress);
}

static void print_interface(const struct show_device *dev, const struct show_style *st)
{
	const struct wg_devconf *conf = dev->conf;
	char b64[WG_ENCODING_KEY_B64_SIZE];

	printf("%s", c(st, RESET));
	printf("%s%sinterface%s: %s%s%s\n", c(st, FG_GREEN), c(st, BOLD), c(st, RESET),
	       c(st, FG_GREEN), dev->name, c(st, RESET));
	if (dev->has_public_key) {
		label(st, "public key");
		printf("%s\n", show_key(b64, dev->public_key));
	}
	if (conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY)
		print_secret(st, "private key", conf->private_key);
	if (conf->listen_port) {
		label(st, "listening port");
		printf("%u\n", conf->listen_port);
	}
	if (conf->fwmark) {
		label(st, "fwmark");
		printf("0x%x\n", conf->fwmark);
	}
	print_cake(dev, st);
}

static void print_allowedips(const struct wg_devconf_peer *peer, const struct show_style *st)
{
	char ip[INET6_ADDRSTRLEN];

	label(st, "allowed ips");
	if (!peer->n_allowedips) {
		printf("(none)\n");
		return;
	}
	for (size_t i = 0; i < peer->n_allowedips; i++)
		printf("%s%s/%s%u%s", show_ip(ip, &peer->allowedips[i]), c(st, FG_CYAN),
		       c(st, RESET), peer->allowedips[i].prefix.cidr,
		       i + 1 < peer->n_allowedips ? ", " : "\n");
}

static void print_peer_cake(const struct show_device *dev, const struct wg_devconf_peer *peer,
			    const struct show_style *st)
{
	const struct wg_uapi_reply_cake_peer *cp = show_device_cake_peer(dev, peer);

	if (cp)
		print_counters(st, WG_COUNTER_SCOPE_PEER, WG_COUNTER_SECTION_PEER, cp->counters.has,
			       cp->counters.v);
}

static void print_peer(const struct show_device *dev, const struct wg_devconf_peer *peer,
		       const struct show_style *st)
{
	char b64[WG_ENCODING_KEY_B64_SIZE], text[LINE_BYTES];

	printf("%s%speer%s: %s%s%s\n", c(st, FG_YELLOW), c(st, BOLD), c(st, RESET),
	       c(st, FG_YELLOW), show_key(b64, peer->public_key), c(st, RESET));
	if (peer->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY)
		print_secret(st, "preshared key", peer->preshared_key);
	if (show_has_endpoint(peer)) {
		show_endpoint(text, sizeof(text), peer);
		label(st, "endpoint");
		printf("%s\n", text);
	}
	print_allowedips(peer, st);
	if (peer->last_handshake_sec) {
		label(st, "latest handshake");
		printf("%s\n", wg_uapi_reply_fmt_ago(text, sizeof(text), peer->last_handshake_sec,
						     st->now_sec, st->color));
	}
	if (peer->rx_bytes || peer->tx_bytes) {
		label(st, "transfer");
		printf("%s received, ",
		       wg_uapi_reply_fmt_bytes(text, sizeof(text), peer->rx_bytes, st->color));
		printf("%s sent\n",
		       wg_uapi_reply_fmt_bytes(text, sizeof(text), peer->tx_bytes, st->color));
	}
	if (peer->persistent_keepalive_secs) {
		label(st, "persistent keepalive");
		printf("%s\n", wg_uapi_reply_fmt_every(text, sizeof(text),
						       peer->persistent_keepalive_secs, st->color));
	}
	print_peer_cake(dev, peer, st);
}

void show_pretty(struct show_device *dev, const struct show_style *st)
{
	print_interface(dev, st);
	if (dev->conf->n_peers) {
		show_device_sort_peers(dev);
		printf("\n");
	}
	for (size_t i = 0; i < dev->conf->n_peers; i++) {
		print_peer(dev, dev->conf->peers[i], st);
		if (i + 1 < dev->conf->n_peers)
			printf("\n");
	}
}

/* ---- machine-readable fields ---- */

/* A key in base64, or "(none)". */
static void print_maybe_key(const uint8_t key[static WG_ENCODING_KEY_LEN], bool have,
			    const char *end)
{
	char b64[WG_ENCODING_KEY_B64_SIZE];

	printf("%s%s", have ? show_key(b64, key) : "(none)", end);
	cw_memzero(b64, sizeof(b64));
}

static void prefix(const struct show_device *dev, bool with_interface)
{
	if (with_interface)
		printf("%s\t", dev->name);
}

static void print_fwmark(uint32_t fwmark, const char *end)
{
	if (fwmark)
		printf("0x%x%s", fwmark, end);
	else
		printf("off%s", end);
}

static void print_endpoint_field(const struct wg_devconf_peer *peer, const char *end)
{
	char text[LINE_BYTES];

	show_endpoint(text, sizeof(text), peer);
	printf("%s%s", show_has_endpoint(peer) ? text : "(none)", end);
}

/* Allowed IPs joined by sep, then end; "(none)" and end when there are none. */
static void print_allowedips_field(const struct wg_devconf_peer *peer, char sep, char end)
{
	char ip[INET6_ADDRSTRLEN];

	if (!peer->n_allowedips)
		printf("(none)%c", end);
	for (size_t i = 0; i < peer->n_allowedips; i++)
		printf("%s/%u%c", show_ip(ip, &peer->allowedips[i]),
		       peer->allowedips[i].prefix.cidr, i + 1 < peer->n_allowedips ? sep : end);
}

static void print_keepalive(uint16_t secs, const char *end)
{
	if (secs)
		printf("%u%s", secs, end);
	else
		printf("off%s", end);
}

static void dump_peer(const struct show_device *dev, const struct wg_devconf_peer *peer,
		      bool with_interface)
{
	prefix(dev, with_interface);
	print_maybe_key(peer->public_key, true, "\t");
	print_maybe_key(peer->preshared_key, peer->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY, "\t");
	print_endpoint_field(peer, "\t");
	print_allowedips_field(peer, ',', '\t');
	printf("%llu\t", (unsigned long long)peer->last_handshake_sec);
	printf("%" PRIu64 "\t%" PRIu64 "\t", peer->rx_bytes, peer->tx_bytes);
	print_keepalive(peer->persistent_keepalive_secs, "\n");
}

static void dump(const struct show_device *dev, bool with_interface)
{
	const struct wg_devconf *conf = dev->conf;

	prefix(dev, with_interface);
	print_maybe_key(conf->private_key, conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY, "\t");
	print_maybe_key(dev->public_key, dev->has_public_key, "\t");
	printf("%u\t", conf->listen_port);
	print_fwmark(conf->fwmark, "\n");
	for (size_t i = 0; i < conf->n_peers; i++)
		dump_peer(dev, conf->peers[i], with_interface);
}

/* Fields printed once per peer, after its public key and a tab. */
static bool peer_field(const char *field, const struct wg_devconf_peer *peer)
{
	if (!strcmp(field, "endpoints"))
		print_endpoint_field(peer, "\n");
	else if (!strcmp(field, "allowed-ips"))
		print_allowedips_field(peer, ' ', '\n');
	else if (!strcmp(field, "latest-handshakes"))
		printf("%llu\n", (unsigned long long)peer->last_handshake_sec);
	else if (!strcmp(field, "transfer"))
		printf("%" PRIu64 "\t%" PRIu64 "\n", peer->rx_bytes, peer->tx_bytes);
	else if (!strcmp(field, "persistent-keepalive"))
		print_keepalive(peer->persistent_keepalive_secs, "\n");
	else if (!strcmp(field, "preshared-keys"))
		print_maybe_key(peer->preshared_key,
				peer->flags & WG_DEVCONF_PEER_HAS_PRESHARED_KEY, "\n");
	else
		return false;
	return true;
}

static bool is_peer_field(const char *field)
{
	static const char *const fields[] = {
		"endpoints", "allowed-ips",	     "latest-handshakes",
		"transfer",  "persistent-keepalive", "preshared-keys"};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!strcmp(field, fields[i]))
			return true;
	}
	return false;
}

static bool device_field(const struct show_device *dev, const char *field, bool with_interface)
{
	const struct wg_devconf *conf = dev->conf;

	if (!strcmp(field, "public-key")) {
		prefix(dev, with_interface);
		print_maybe_key(dev->public_key, dev->has_public_key, "\n");
	} else if (!strcmp(field, "private-key")) {
		prefix(dev, with_interface);
		print_maybe_key(conf->private_key, conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY, "\n");
	} else if (!strcmp(field, "listen-port")) {
		prefix(dev, with_interface);
		printf("%u\n", conf->listen_port);
	} else if (!strcmp(field, "fwmark")) {
		prefix(dev, with_interface);
		print_fwmark(conf->fwmark, "\n");
	} else if (!strcmp(field, "dump")) {
		dump(dev, with_interface);
	} else {
		return false;
	}
	return true;
}

bool show_field(const struct show_device *dev, const char *field, bool with_interface)
{
	const struct wg_devconf *conf = dev->conf;

	if (device_field(dev, field, with_interface))
		return true;
	if (!is_peer_field(field) && strcmp(field, "peers"))
		return false;
	for (size_t i = 0; i < conf->n_peers; i++) {
		prefix(dev, with_interface);
		print_maybe_key(conf->peers[i]->public_key, true,
				strcmp(field, "peers") ? "\t" : "\n");
		if (strcmp(field, "peers") && !peer_field(field, conf->peers[i]))
			return false;
	}
	return true;
}
