/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg set <interface> [listen-port <port>] [fwmark <mark>] [private-key <file path>]
 *     [peer <base64 public key> [remove] [preshared-key <file path>]
 *      [endpoint <ip>:<port>] [persistent-keepalive <interval seconds>]
 *      [allowed-ips [+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...] ]...
 *     [cake <tc-cake options...>] [cake-ingress <tc-cake options...>]
 *     [underlay-limit auto|off|<bytes>] [autorate-probe off|<address>]
 *
 * wg set's grammar, messages and exit codes (wireguard-tools' set.c and config.c's
 * config_read_cmd), with cakewg's words: `cake` takes every following word up to the
 * next `cake`, `cake-ingress`, `underlay-limit` or `autorate-probe` (or the end) as one
 * tc-cake option string for the egress instance, `cake-ingress` likewise for the ingress
 * instance; `underlay-limit` takes one word (src/core/devconf.h's UnderlayLimit grammar).
 * All of them may come anywhere, after peers too. `ingress`, cake-ingress's older word,
 * still starts the ingress section where a key word is expected (first after the
 * interface, say), but inside a section it is the tc-cake word. Everything is parsed and checked (CAKE options by qdisc/cake_parse.c,
 * endpoints resolved) before one UAPI `set=1` request goes out, so a bad word changes
 * nothing.
 *
 * The words, what each takes and how its value is checked come from the key table
 * (src/core/conf_keys.h); this file only does the I/O a word's arg_form asks for (key
 * files, getaddrinfo) and hands the result to the table's parser.
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
#include "src/core/conf_keys.h"
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

/* Prints the table's message for a refusal of k's value, quoting shown. */
static void report(const struct wg_conf_key *k, int code, const struct wg_conf_result *r,
		   const char *shown)
{
	size_t size = WG_CONF_MSG_SIZE + strlen(shown);
	char *msg = malloc(size);

	if (!msg) {
		perror("malloc");
		return;
	}
	wg_conf_key_message(k, WG_CONF_ARG, code, r, shown, msg, size);
	fprintf(stderr, "%s\n", msg);
	free(msg);
}

static void warn_cb(void *arg, const struct wg_conf_key *k, int code, const char *at, size_t len)
{
	const struct wg_conf_result r = {.at = at, .at_len = len};
	char *shown = strndup(at, len);

	(void)arg;
	if (!shown) {
		perror("strndup");
		return;
	}
	report(k, code, &r, shown);
	free(shown);
}

/*
 * Hands the value (n bytes) to the table's parser for k. A message quotes shown, or the
 * text at fault when shown is NULL.
 */
static bool apply(struct set_ctx *s, const struct wg_conf_key *k, const char *v, size_t n,
		  const char *shown)
{
	struct wg_conf_result r = {.warn = warn_cb};
	char *at = NULL;

	if (k->flags & WG_CONF_KEY_STARTS_PEER) {
		s->peer = wg_devconf_add_peer(s->conf);
		if (!s->peer) {
			perror("calloc");
			return false;
		}
	}
	if (!wg_conf_key_parse(k, &(struct wg_conf_target){.conf = s->conf, .peer = s->peer}, WG_CONF_ARG, v, n,
			       &r))
		return true;
	if (r.err == WG_CONF_E_NOMEM) {
		perror(k->arg_form == WG_CONF_ARG_WORDS ? "malloc" : "calloc");
		return false;
	}
	if (!shown) {
		at = strndup(r.at, r.at_len);
		if (!at) {
			perror("strndup");
			return false;
		}
	}
	report(k, r.err, &r, shown ? shown : at);
	free(at);
	return false;
}

/* WG_CONF_ARG_SERVICE: a port number or a service name, as getaddrinfo reads it. */
static bool take_service(struct set_ctx *s, const struct wg_conf_key *k, const char *value)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_DGRAM,
				 .ai_protocol = IPPROTO_UDP,
				 .ai_flags = AI_PASSIVE};
	struct addrinfo *res;
	char num[8];
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
	if (res->ai_family == AF_INET && res->ai_addrlen == sizeof(struct sockaddr_in))
		ret = ntohs(((struct sockaddr_in *)res->ai_addr)->sin_port);
	else if (res->ai_family == AF_INET6 && res->ai_addrlen == sizeof(struct sockaddr_in6))
		ret = ntohs(((struct sockaddr_in6 *)res->ai_addr)->sin6_port);
	else
		fprintf(stderr, "Neither IPv4 nor IPv6 address found: `%s'\n", value);
	freeaddrinfo(res);
	if (ret < 0)
		return false;
	snprintf(num, sizeof(num), "%d", ret);
	return apply(s, k, num, strlen(num), value);
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
			if (!wg_conf_is_space(buf[i])) {
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
 * WG_CONF_ARG_KEY_FILE: a key file as wg reads one: exactly 44 base64 characters, then
 * only whitespace; an empty file (or /dev/null) is the all-zero key, which removes the
 * key. Unlike wg, a malformed key is not echoed: the file holds a secret.
 */
static bool take_key_file(struct set_ctx *s, const struct wg_conf_key *k, const char *path)
{
	static const uint8_t zero[WG_ENCODING_KEY_LEN];
	char b64[WG_ENCODING_KEY_B64_SIZE];
	bool ok = false;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "fopen: %s\n", strerror(errno));
		return false;
	}
	n = read_full(fd, b64, WG_ENCODING_KEY_B64_LEN);
	if (n == 0) {
		wg_encoding_key_to_base64(b64, zero);
		ok = apply(s, k, b64, WG_ENCODING_KEY_B64_LEN, path);
	} else if (n < 0) {
		fprintf(stderr, "fread: %s\n", strerror((int)-n));
	} else if ((size_t)n < WG_ENCODING_KEY_B64_LEN) {
		fprintf(stderr, "Invalid length key in key file\n");
	} else if (keyfile_tail(fd)) {
		ok = apply(s, k, b64, WG_ENCODING_KEY_B64_LEN, path);
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

/* WG_CONF_ARG_HOST: host:port, the host resolved; the address goes to the parser. */
static bool take_host(struct set_ctx *s, const struct wg_conf_key *k, const char *value)
{
	char host[WG_DEVCONF_HOST_SIZE + WG_IPADDR_STRLEN], port[16];
	char text[WG_IPADDR_ENDPOINT_STRLEN];
	const struct wg_conf_result r = {.at = value, .at_len = strlen(value)};
	union wg_ipaddr_sockaddr addr;
	const char *h, *p;
	size_t hlen, plen;
	struct addrinfo *res;
	bool found;

	if (!*value) {
		fprintf(stderr, "Unable to parse empty endpoint\n");
		return false;
	}
	switch (wg_ipaddr_endpoint_split(value, strlen(value), &h, &hlen, &p, &plen)) {
	case WG_IPADDR_ENDPOINT_SPLIT_NO_BRACE:
		report(k, WG_CONF_E_ENDPOINT_BRACE, &r, value);
		return false;
	case WG_IPADDR_ENDPOINT_SPLIT_NO_PORT:
		report(k, WG_CONF_E_ENDPOINT_NO_PORT, &r, value);
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
	found = (res->ai_family == AF_INET && res->ai_addrlen == sizeof(struct sockaddr_in)) ||
		(res->ai_family == AF_INET6 && res->ai_addrlen == sizeof(struct sockaddr_in6));
	if (found) {
		memset(&addr, 0, sizeof(addr));
		memcpy(&addr, res->ai_addr, res->ai_addrlen);
		wg_ipaddr_endpoint_format(text, &addr);
	}
	freeaddrinfo(res);
	if (!found) {
		report(k, WG_CONF_E_VALUE, &r, value);
		return false;
	}
	if (!apply(s, k, text, strlen(text), value))
		return false;
	/* A host name goes along (endpoint_host=), for the daemon to resolve it again. */
	if (s->peer && !wg_devconf_parse_endpoint_host(s->peer->endpoint_host,
						       &s->peer->endpoint_port, value,
						       strlen(value)))
		s->peer->flags |= WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
	return true;
}

/* WG_CONF_ARG_LIST: "a/n,b/m" with its whitespace dropped, as wg does. */
static bool take_list(struct set_ctx *s, const struct wg_conf_key *k, const char *value)
{
	char *list = strdup(value);
	size_t n = 0;
	bool ok;

	if (!list) {
		perror("strdup");
		return false;
	}
	for (const char *c = value; *c; c++) {
		if (!wg_conf_is_space(*c))
			list[n++] = *c;
	}
	list[n] = '\0';
	ok = apply(s, k, list, n, NULL);
	free(list);
	return ok;
}

/*
 * WG_CONF_ARG_WORDS: the words up to the next word that may come anywhere (or the end),
 * as one option string. Returns the number of arguments used, or 0 after printing why not.
 */
static int take_words(struct set_ctx *s, const struct wg_conf_key *k, int argc, char *argv[])
{
	struct wg_devconf_buf text = {0};
	int n = 1;

	for (; n < argc && !wg_conf_arg_is_anywhere(argv[n]); n++) {
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
	if (!apply(s, k, text.data, text.len, NULL))
		goto fail;
	wg_devconf_buf_wipe(&text);
	return n;
fail:
	wg_devconf_buf_wipe(&text);
	return 0;
}

/* WG_CONF_ARG_WORD: the next word as it is. */
static bool take_word(struct set_ctx *s, const struct wg_conf_key *k, const char *value)
{
	return apply(s, k, value, strlen(value), NULL);
}

typedef bool (*take_fn)(struct set_ctx *s, const struct wg_conf_key *k, const char *value);

/* What each arg_form that takes one word does with it. */
static const take_fn takers[] = {
	[WG_CONF_ARG_WORD] = take_word,
	[WG_CONF_ARG_KEY_FILE] = take_key_file, /* reads the file */
	[WG_CONF_ARG_SERVICE] = take_service,	/* getaddrinfo */
	[WG_CONF_ARG_HOST] = take_host,		/* getaddrinfo, with wg's retries */
	[WG_CONF_ARG_LIST] = take_list,
};

/* A word and what its arg_form takes. Returns the number of arguments used, 0 on error. */
static int take(struct set_ctx *s, const struct wg_conf_key *k, int argc, char *argv[])
{
	if (k->arg_form == WG_CONF_ARG_FLAG)
		return apply(s, k, "", 0, NULL) ? 1 : 0;
	if (k->arg_form == WG_CONF_ARG_WORDS)
		return take_words(s, k, argc, argv);
	if (argc < 2) {
		fprintf(stderr, "Invalid argument: %s\n", argv[0]);
		return 0;
	}
	return takers[k->arg_form](s, k, argv[1]) ? 2 : 0;
}

static bool parse_args(struct set_ctx *s, int argc, char *argv[])
{
	while (argc > 0) {
		const struct wg_conf_key *k =
			wg_conf_key_find(WG_CONF_ARG, s->peer ? WG_CONF_PEER : WG_CONF_INTERFACE,
					 argv[0], strlen(argv[0]), 0);
		int used;

		if (!k) {
			fprintf(stderr, "Invalid argument: %s\n", argv[0]);
			return false;
		}
		used = take(s, k, argc, argv);
		if (!used)
			return false;
		argv += used;
		argc -= used;
	}
	return true;
}

/*
 * endpoint_host= is cakewg's: a daemon that does not answer cakewg_get=1 (wireguard-go)
 * would refuse the request halfway, after the lines before it. It gets the addresses
 * alone, as wg sends them.
 */
static void names_only_for_cakewg(const char *ifname, struct wg_devconf *conf)
{
	static const char probe[] = "cakewg_get=1\n\n";
	struct wg_devconf_buf reply = {0};
	bool any = false;
	int remote = 0;

	for (size_t i = 0; i < conf->n_peers; i++)
		any |= !!(conf->peers[i]->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
	if (!any || (!wg_uapi_client_request(ifname, probe, sizeof(probe) - 1, &reply, &remote) &&
		     !remote)) {
		wg_devconf_buf_wipe(&reply);
		return;
	}
	wg_devconf_buf_wipe(&reply);
	for (size_t i = 0; i < conf->n_peers; i++)
		conf->peers[i]->flags &= ~(uint32_t)WG_DEVCONF_PEER_HAS_ENDPOINT_HOST;
}

static int send_request(const char *ifname, struct wg_devconf *conf)
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
	names_only_for_cakewg(ifname, conf);
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
			"[cake <tc-cake options...>] [cake-ingress <tc-cake options...>] "
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
