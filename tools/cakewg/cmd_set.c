/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg set <interface> [listen-port <port>] [fwmark <mark>] [private-key <file path>]
 *     [peer <base64 public key> [remove] [preshared-key <file path>]
 *      [endpoint <ip>:<port>] [persistent-keepalive <interval seconds>]
 *      [allowed-ips [+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...] ]...
 *     [cake <tc-cake options...>] [ingress <tc-cake options...>]
 *     [underlay-limit auto|off|<bytes>]
 *
 * wg set's grammar, messages and exit codes (wireguard-tools' set.c and config.c's
 * config_read_cmd), with cakewg's words: `cake` takes every following word up to the
 * next `cake`, `ingress` or `underlay-limit` (or the end) as one tc-cake option string
 * for the egress instance, `ingress` likewise for the ingress instance; `underlay-limit`
 * takes one word (src/core/devconf.h's UnderlayLimit grammar). All three may come
 * anywhere, after peers too. Everything is parsed and checked (CAKE options by qdisc/cake_parse.c,
 * endpoints resolved) before one UAPI `set=1` request goes out, so a bad word changes
 * nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* EAI_NODATA, strsep */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto/ct.h"
#include "qdisc/cake_parse.h"
#include "src/core/devconf.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"
#include "src/core/uapi_set_write.h"
#include "src/edge/uapi_client.h"
#include "tools/cakewg/commands.h"

enum set_limits {
	/* wg's defaults for WG_ENDPOINT_RESOLUTION_RETRIES and its back-off (config.c) */
	RESOLVE_RETRIES_DEFAULT = 15,
	RESOLVE_FIRST_WAIT_US = 1000000,
	RESOLVE_MAX_WAIT_US = 20000000,
	KEYFILE_CHUNK_BYTES = 256,
};

struct set_ctx {
	struct wg_devconf *conf;
	struct wg_devconf_peer *peer; /* the peer the words apply to; NULL: the device */
};

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * glibc's getaddrinfo takes any number as a port and keeps its low 16 bits (70000
 * becomes 4464), and wg inherits that; cakewg refuses such a number. Service names
 * still go to getaddrinfo.
 */
static bool port_in_range(const char *port)
{
	uint64_t num;

	if (strspn(port, "0123456789") != strlen(port) ||
	    wg_encoding_parse_uint(&num, port, strlen(port), 10, WG_IPADDR_PORT_MAX))
		return true;
	fprintf(stderr, "Port is not in 0-65535: `%s'\n", port);
	return false;
}

static bool parse_port(struct wg_devconf *conf, const char *value)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_DGRAM,
				 .ai_protocol = IPPROTO_UDP,
				 .ai_flags = AI_PASSIVE};
	struct addrinfo *res;
	int ret;

	if (!*value) {
		fprintf(stderr, "Unable to parse empty port\n");
		return false;
	}
	if (!port_in_range(value))
		return false;
	ret = getaddrinfo(NULL, value, &hints, &res);
	if (ret) {
		fprintf(stderr, "%s: `%s'\n",
			ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret), value);
		return false;
	}
	ret = -1;
	if (res->ai_family == AF_INET && res->ai_addrlen == sizeof(struct sockaddr_in)) {
		conf->listen_port = ntohs(((struct sockaddr_in *)res->ai_addr)->sin_port);
		ret = 0;
	} else if (res->ai_family == AF_INET6 && res->ai_addrlen == sizeof(struct sockaddr_in6)) {
		conf->listen_port = ntohs(((struct sockaddr_in6 *)res->ai_addr)->sin6_port);
		ret = 0;
	} else {
		fprintf(stderr, "Neither IPv4 nor IPv6 address found: `%s'\n", value);
	}
	freeaddrinfo(res);
	if (!ret)
		conf->flags |= WG_DEVCONF_HAS_LISTEN_PORT;
	return !ret;
}

static bool parse_fwmark(struct wg_devconf *conf, const char *value)
{
	if (!wg_devconf_parse_fwmark(&conf->fwmark, value, strlen(value))) {
		fprintf(stderr, "Fwmark is neither 0/off nor 0-0xffffffff: `%s'\n", value);
		return false;
	}
	conf->flags |= WG_DEVCONF_HAS_FWMARK;
	return true;
}

static bool parse_key(uint8_t key[static WG_ENCODING_KEY_LEN], const char *value)
{
	if (!wg_encoding_key_from_base64(key, value, strlen(value))) {
		fprintf(stderr, "Key is not the correct length or format: `%s'\n", value);
		return false;
	}
	return true;
}

/* Reads up to len bytes, fewer only at the end of the file. Returns the count or -errno. */
static ssize_t read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* After the key only whitespace may follow. */
static bool keyfile_tail(int fd)
{
	char buf[KEYFILE_CHUNK_BYTES];
	ssize_t n;

	while ((n = read_full(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (!is_space(buf[i])) {
				fprintf(stderr, "Found trailing character in key file: `%c'\n",
					buf[i]);
				cw_memzero(buf, sizeof(buf));
				return false;
			}
		}
	}
	cw_memzero(buf, sizeof(buf));
	if (n < 0) {
		fprintf(stderr, "read: %s\n", strerror((int)-n));
		return false;
	}
	return true;
}

/*
 * A key file as wg reads one: exactly 44 base64 characters, then only whitespace; an
 * empty file (or /dev/null) is the all-zero key, which removes the key. Unlike wg, a
 * malformed key is not echoed: the file holds a secret.
 */
static bool parse_keyfile(uint8_t key[static WG_ENCODING_KEY_LEN], const char *path)
{
	char b64[WG_ENCODING_KEY_B64_LEN];
	bool ok = false;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "fopen: %s\n", strerror(errno));
		return false;
	}
	n = read_full(fd, b64, sizeof(b64));
	if (n == 0) {
		memset(key, 0, WG_ENCODING_KEY_LEN);
		ok = true;
	} else if (n < 0) {
		fprintf(stderr, "fread: %s\n", strerror((int)-n));
	} else if ((size_t)n < sizeof(b64)) {
		fprintf(stderr, "Invalid length key in key file\n");
	} else if (keyfile_tail(fd)) {
		ok = wg_encoding_key_from_base64(key, b64, sizeof(b64));
		if (!ok)
			fprintf(stderr,
				"Key is not the correct length or format in key file: `%s'\n",
				path);
	}
	cw_memzero(b64, sizeof(b64));
	close(fd);
	return ok;
}

static int resolution_retries(void)
{
	const char *env = getenv("WG_ENDPOINT_RESOLUTION_RETRIES");
	uint64_t n;

	if (!env)
		return RESOLVE_RETRIES_DEFAULT;
	if (!strcmp(env, "infinity"))
		return -1;
	if (!wg_encoding_parse_uint(&n, env, strlen(env), 10, INT_MAX)) {
		fprintf(stderr, "Unable to parse WG_ENDPOINT_RESOLUTION_RETRIES: `%s'\n", env);
		exit(1);
	}
	return (int)n;
}

/* getaddrinfo with wg's retries: EAI_NONAME, EAI_FAIL and EAI_NODATA are final. */
static struct addrinfo *resolve(const char *host, const char *port, const char *value)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP};
	int retries = resolution_retries();
	struct addrinfo *res;

	for (unsigned int wait = RESOLVE_FIRST_WAIT_US;;
	     wait = WG_MIN(RESOLVE_MAX_WAIT_US, wait * 6 / 5)) {
		int ret = getaddrinfo(host, port, &hints, &res);
		const char *why;

		if (!ret)
			return res;
		why = ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret);
		if (ret == EAI_NONAME || ret == EAI_FAIL || ret == EAI_NODATA ||
		    (retries >= 0 && !retries--)) {
			fprintf(stderr, "%s: `%s'\n", why, value);
			return NULL;
		}
		fprintf(stderr, "%s: `%s'. Trying again in %.2f seconds...\n", why, value,
			wait / 1000000.0);
		usleep(wait);
	}
}

static bool parse_endpoint(struct wg_devconf_peer *peer, const char *value)
{
	char host[WG_DEVCONF_HOST_SIZE + WG_IPADDR_STRLEN], port[16];
	const char *h, *p;
	size_t hlen, plen;
	struct addrinfo *res;
	bool ok = false;

	if (!*value) {
		fprintf(stderr, "Unable to parse empty endpoint\n");
		return false;
	}
	switch (wg_ipaddr_endpoint_split(value, strlen(value), &h, &hlen, &p, &plen)) {
	case WG_IPADDR_ENDPOINT_SPLIT_NO_BRACE:
		fprintf(stderr, "Unable to find matching brace of endpoint: `%s'\n", value);
		return false;
	case WG_IPADDR_ENDPOINT_SPLIT_NO_PORT:
		fprintf(stderr, "Unable to find port of endpoint: `%s'\n", value);
		return false;
	case WG_IPADDR_ENDPOINT_SPLIT_OK:
		break;
	}
	if (hlen >= sizeof(host) || plen >= sizeof(port)) {
		fprintf(stderr, "%s: `%s'\n", gai_strerror(EAI_NONAME), value);
		return false;
	}
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	memcpy(port, p, plen);
	port[plen] = '\0';
	if (!port_in_range(port))
		return false;
	res = resolve(host, port, value);
	if (!res)
		return false;
	if ((res->ai_family == AF_INET && res->ai_addrlen == sizeof(struct sockaddr_in)) ||
	    (res->ai_family == AF_INET6 && res->ai_addrlen == sizeof(struct sockaddr_in6))) {
		memset(&peer->endpoint, 0, sizeof(peer->endpoint));
		memcpy(&peer->endpoint, res->ai_addr, res->ai_addrlen);
		peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT;
		ok = true;
	} else {
		fprintf(stderr, "Neither IPv4 nor IPv6 address found: `%s'\n", value);
	}
	freeaddrinfo(res);
	return ok;
}

static bool parse_keepalive(struct wg_devconf_peer *peer, const char *value)
{
	if (!wg_devconf_parse_keepalive(&peer->persistent_keepalive_secs, value, strlen(value))) {
		fprintf(stderr,
			"Persistent keepalive interval is neither 0/off nor 1-65535: `%s'\n",
			value);
		return false;
	}
	peer->flags |= WG_DEVCONF_PEER_HAS_PERSISTENT_KEEPALIVE;
	return true;
}

/* One entry of an allowed-ips list, its +/- already taken off. */
static bool parse_allowedip(struct wg_devconf_peer *peer, const char *entry, uint32_t flags)
{
	const char *slash = strchr(entry, '/');
	size_t iplen = slash ? (size_t)(slash - entry) : strlen(entry);
	struct wg_ipaddr_prefix pfx;

	switch (wg_ipaddr_prefix_parse(&pfx, entry, strlen(entry),
				       WG_IPADDR_PREFIX_CIDR_OPTIONAL)) {
	case WG_IPADDR_PREFIX_BAD_ADDR:
		fprintf(stderr, "Unable to parse IP address: `%.*s'\n", (int)iplen, entry);
		return false;
	case WG_IPADDR_PREFIX_BAD_CIDR:
		fprintf(stderr, "AllowedIP is not in the correct format: `%s'\n", entry);
		return false;
	case WG_IPADDR_PREFIX_OK:
		break;
	}
	if (wg_ipaddr_prefix_has_host_bits(&pfx))
		fprintf(stderr, "Warning: AllowedIP has nonzero host part: %.*s/%s\n", (int)iplen,
			entry, slash + 1);
	if (wg_devconf_peer_add_allowedip(peer, &pfx, flags)) {
		perror("calloc");
		return false;
	}
	return true;
}

/*
 * "a/n,b/m": whitespace dropped, as wg does. A list replaces the peer's allowed IPs,
 * unless one of its entries starts with '+' (add) or '-' (remove).
 */
static bool parse_allowedips(struct wg_devconf_peer *peer, const char *value)
{
	char *list = strdup(value), *sep, *entry;
	size_t n = 0;
	bool ok = true;

	if (!list) {
		perror("strdup");
		return false;
	}
	for (const char *s = value; *s; s++) {
		if (!is_space(*s))
			list[n++] = *s;
	}
	list[n] = '\0';
	peer->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
	sep = n ? list : NULL;
	while (ok && (entry = strsep(&sep, ","))) {
		uint32_t flags = 0;

		if (entry[0] == '-')
			flags = WG_DEVCONF_AIP_REMOVE_ME;
		if (entry[0] == '-' || entry[0] == '+') {
			peer->flags &= ~(uint32_t)WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
			entry++;
		}
		ok = parse_allowedip(peer, entry, flags);
	}
	free(list);
	return ok;
}

static bool is_section(const char *word)
{
	return !strcmp(word, "cake") || !strcmp(word, "ingress") || !strcmp(word, "underlay-limit");
}

/*
 * `cake` or `ingress` and its words, up to the next section word or the end, into
 * *slot as one option string, checked by the tc-cake parser (`ingress none` removes
 * the ingress instance). Returns the number of
 * arguments used, or 0 after printing why not.
 */
static int parse_cake(char **slot, bool ingress, int argc, char *argv[])
{
	struct wg_devconf_buf text = {0};
	struct cake_options opts;
	struct cake_parse_err err;
	int n = 1;

	for (; n < argc && !is_section(argv[n]); n++) {
		for (const char *c = argv[n]; *c; c++) {
			if ((unsigned char)*c < 0x20 || *c == 0x7f) {
				fprintf(stderr, "Invalid CAKE option: `%s'\n", argv[n]);
				goto fail;
			}
		}
		wg_devconf_buf_printf(&text, "%s%s", n > 1 ? " " : "", argv[n]);
	}
	if (n == 1 || text.failed) {
		fprintf(stderr, "Invalid argument: %s\n", argv[0]);
		goto fail;
	}
	if (!(ingress && !strcmp(text.data, WG_DEVCONF_CAKE_INGRESS_OFF)) &&
	    cake_options_parse(text.data, &opts, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		goto fail;
	}
	if (wg_devconf_set_string(slot, text.data, text.len)) {
		perror("malloc");
		goto fail;
	}
	wg_devconf_buf_wipe(&text);
	return n;
fail:
	wg_devconf_buf_wipe(&text);
	return 0;
}

/* `underlay-limit` and its word. Returns the number of arguments used, or 0 after
 * printing why not. */
static int parse_underlay_limit(struct wg_devconf *conf, int argc, char *argv[])
{
	if (argc < 2) {
		fprintf(stderr, "Invalid argument: %s\n", argv[0]);
		return 0;
	}
	if (wg_devconf_parse_underlay_limit(&conf->underlay_limit, argv[1], strlen(argv[1]))) {
		fprintf(stderr, "Underlay limit is neither auto, off nor %u-%u bytes: `%s'\n",
			WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES, WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES,
			argv[1]);
		return 0;
	}
	conf->flags |= WG_DEVCONF_HAS_UNDERLAY_LIMIT;
	return 2;
}

static bool open_peer(struct set_ctx *s, const char *value)
{
	s->peer = wg_devconf_add_peer(s->conf);
	if (!s->peer) {
		perror("calloc");
		return false;
	}
	if (!parse_key(s->peer->public_key, value))
		return false;
	s->peer->flags |= WG_DEVCONF_PEER_HAS_PUBLIC_KEY;
	return true;
}

static bool parse_private_key(struct wg_devconf *conf, const char *path)
{
	if (!parse_keyfile(conf->private_key, path))
		return false;
	conf->flags |= WG_DEVCONF_HAS_PRIVATE_KEY;
	return true;
}

static bool parse_preshared_key(struct wg_devconf_peer *peer, const char *path)
{
	if (!parse_keyfile(peer->preshared_key, path))
		return false;
	peer->flags |= WG_DEVCONF_PEER_HAS_PRESHARED_KEY;
	return true;
}

/* A keyword and its value; returns the words used (2, or 1 for `remove`), 0 on error. */
static int parse_pair(struct set_ctx *s, const char *word, const char *value)
{
	struct wg_devconf *conf = s->conf;
	struct wg_devconf_peer *peer = s->peer;
	bool ok;

	if (!strcmp(word, "remove") && peer) {
		peer->flags |= WG_DEVCONF_PEER_REMOVE_ME;
		return 1;
	}
	if (!value)
		goto invalid;
	if (!strcmp(word, "listen-port") && !peer)
		ok = parse_port(conf, value);
	else if (!strcmp(word, "fwmark") && !peer)
		ok = parse_fwmark(conf, value);
	else if (!strcmp(word, "private-key") && !peer)
		ok = parse_private_key(conf, value);
	else if (!strcmp(word, "peer"))
		ok = open_peer(s, value);
	else if (!strcmp(word, "endpoint") && peer)
		ok = parse_endpoint(peer, value);
	else if (!strcmp(word, "allowed-ips") && peer)
		ok = parse_allowedips(peer, value);
	else if (!strcmp(word, "persistent-keepalive") && peer)
		ok = parse_keepalive(peer, value);
	else if (!strcmp(word, "preshared-key") && peer)
		ok = parse_preshared_key(peer, value);
	else
		goto invalid;
	return ok ? 2 : 0;
invalid:
	fprintf(stderr, "Invalid argument: %s\n", word);
	return 0;
}

static bool parse_args(struct set_ctx *s, int argc, char *argv[])
{
	while (argc > 0) {
		int used;

		if (!strcmp(argv[0], "cake"))
			used = parse_cake(&s->conf->cake, false, argc, argv);
		else if (!strcmp(argv[0], "ingress"))
			used = parse_cake(&s->conf->cake_ingress, true, argc, argv);
		else if (!strcmp(argv[0], "underlay-limit"))
			used = parse_underlay_limit(s->conf, argc, argv);
		else
			used = parse_pair(s, argv[0], argc >= 2 ? argv[1] : NULL);
		if (!used)
			return false;
		argv += used;
		argc -= used;
	}
	return true;
}

static int send_request(const char *ifname, const struct wg_devconf *conf)
{
	struct wg_devconf_buf req = {0}, reply = {0};
	int remote = 0, ret;

	if (!*ifname || strchr(ifname, '/'))
		return -EINVAL;
	if (strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	/*
	 * The cakewg lines come first in the request: wireguard-go applies each line as it
	 * reads it, so it refuses them before it changed anything.
	 */
	ret = wg_uapi_set_write(conf, &req);
	if (!ret)
		ret = wg_uapi_client_request(ifname, req.data, req.len, &reply, &remote);
	wg_devconf_buf_wipe(&req);
	wg_devconf_buf_wipe(&reply);
	/* wg falls back to the kernel's netlink, which answers ENODEV. */
	if (ret == -ENOENT)
		return -ENODEV;
	return ret ? ret : remote;
}

int set_main(int argc, char *argv[])
{
	struct set_ctx s = {0};
	int ret = 1;

	if (argc < 3) {
		fprintf(stderr,
			"Usage: %s %s <interface> [listen-port <port>] [fwmark <mark>] "
			"[private-key <file path>] [peer <base64 public key> [remove] "
			"[preshared-key <file path>] [endpoint <ip>:<port>] "
			"[persistent-keepalive <interval seconds>] "
			"[allowed-ips [+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...] ]... "
			"[cake <tc-cake options...>] [ingress <tc-cake options...>] "
			"[underlay-limit auto|off|<bytes>]\n",
			prog_name, argv[0]);
		return 1;
	}
	s.conf = wg_devconf_new();
	if (!s.conf) {
		perror("calloc");
		return 1;
	}
	if (parse_args(&s, argc - 2, argv + 2)) {
		int err = send_request(argv[1], s.conf);

		if (err)
			fprintf(stderr, "Unable to modify interface: %s\n", strerror(-err));
		ret = err ? 1 : 0;
	}
	wg_devconf_free(s.conf);
	return ret;
}
