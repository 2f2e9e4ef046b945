/* SPDX-License-Identifier: GPL-2.0-only */
/* The device/peer configuration model: ownership, growth and wiping. */
#include "src/core/devconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crypto/ct.h"
#include "qdisc/cake_parse.h"
#include "src/core/messages.h"

/* Makes room for one more element in an array that holds no secrets. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t new_cap;
	void *p;

	if (n < *cap)
		return 0;
	new_cap = *cap ? *cap * 2 : 4;
	if (new_cap < *cap || new_cap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, new_cap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = new_cap;
	return 0;
}

struct wg_devconf *wg_devconf_new(void)
{
	return calloc(1, sizeof(struct wg_devconf));
}

static void free_peer(struct wg_devconf_peer *peer)
{
	free(peer->allowedips);
	cw_memzero(peer, sizeof(*peer));
	free(peer);
}

void wg_devconf_free(struct wg_devconf *conf)
{
	if (!conf)
		return;
	for (size_t i = 0; i < conf->n_peers; i++)
		free_peer(conf->peers[i]);
	free(conf->peers);
	free(conf->addresses);
	free(conf->dns);
	wg_devconf_strlist_free(&conf->dns_search);
	wg_devconf_strlist_free(&conf->pre_up);
	wg_devconf_strlist_free(&conf->post_up);
	wg_devconf_strlist_free(&conf->pre_down);
	wg_devconf_strlist_free(&conf->post_down);
	free(conf->cake);
	free(conf->cake_ingress);
	cw_memzero(conf, sizeof(*conf));
	free(conf);
}

struct wg_devconf_peer *wg_devconf_add_peer(struct wg_devconf *conf)
{
	struct wg_devconf_peer *peer;

	if (conf->n_peers >= MAX_PEERS ||
	    grow((void **)&conf->peers, &conf->cap_peers, conf->n_peers, sizeof(*conf->peers)))
		return NULL;
	peer = calloc(1, sizeof(*peer));
	if (!peer)
		return NULL;
	conf->peers[conf->n_peers++] = peer;
	return peer;
}

struct wg_devconf_peer *wg_devconf_find_peer(const struct wg_devconf *conf,
					     const uint8_t public_key[static WG_ENCODING_KEY_LEN])
{
	for (size_t i = 0; i < conf->n_peers; i++) {
		struct wg_devconf_peer *peer = conf->peers[i];

		if ((peer->flags & WG_DEVCONF_PEER_HAS_PUBLIC_KEY) &&
		    cw_ct_equal(peer->public_key, public_key, WG_ENCODING_KEY_LEN))
			return peer;
	}
	return NULL;
}

int wg_devconf_peer_add_allowedip(struct wg_devconf_peer *peer,
				  const struct wg_ipaddr_prefix *prefix, uint32_t flags)
{
	if (grow((void **)&peer->allowedips, &peer->cap_allowedips, peer->n_allowedips,
		 sizeof(*peer->allowedips)))
		return -ENOMEM;
	peer->allowedips[peer->n_allowedips++] = (struct wg_devconf_allowedip){
		.prefix = *prefix,
		.flags = flags,
	};
	return 0;
}

void wg_devconf_peer_clear_allowedips(struct wg_devconf_peer *peer)
{
	peer->n_allowedips = 0;
}

int wg_devconf_add_address(struct wg_devconf *conf, const struct wg_ipaddr_prefix *prefix)
{
	if (grow((void **)&conf->addresses, &conf->cap_addresses, conf->n_addresses,
		 sizeof(*conf->addresses)))
		return -ENOMEM;
	conf->addresses[conf->n_addresses++] = *prefix;
	return 0;
}

int wg_devconf_add_dns(struct wg_devconf *conf, const struct wg_ipaddr *server)
{
	if (grow((void **)&conf->dns, &conf->cap_dns, conf->n_dns, sizeof(*conf->dns)))
		return -ENOMEM;
	conf->dns[conf->n_dns++] = *server;
	return 0;
}

static char *copy_string(const char *s, size_t len)
{
	char *p = len < SIZE_MAX ? malloc(len + 1) : NULL;

	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

int wg_devconf_strlist_add(struct wg_devconf_strlist *list, const char *s, size_t len)
{
	char *copy;

	if (grow((void **)&list->v, &list->cap, list->n, sizeof(*list->v)))
		return -ENOMEM;
	copy = copy_string(s, len);
	if (!copy)
		return -ENOMEM;
	list->v[list->n++] = copy;
	return 0;
}

void wg_devconf_strlist_free(struct wg_devconf_strlist *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->v[i]);
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int wg_devconf_set_string(char **slot, const char *s, size_t len)
{
	char *copy = copy_string(s, len);

	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

/* The names iproute2 knows without reading rt_tables. */
static const struct {
	const char *name;
	uint32_t id;
} table_names[] = {
	{"default", WG_DEVCONF_TABLE_DEFAULT},
	{"main", WG_DEVCONF_TABLE_MAIN},
	{"local", WG_DEVCONF_TABLE_LOCAL},
};

const char *wg_devconf_table_name(uint32_t id)
{
	for (size_t i = 0; i < WG_ARRAY_SIZE(table_names); i++) {
		if (table_names[i].id == id)
			return table_names[i].name;
	}
	return NULL;
}

bool wg_devconf_table_from_name(uint32_t *id, const char *name, size_t len)
{
	for (size_t i = 0; i < WG_ARRAY_SIZE(table_names); i++) {
		if (strlen(table_names[i].name) == len &&
		    !strncasecmp(table_names[i].name, name, len)) {
			*id = table_names[i].id;
			return true;
		}
	}
	return false;
}

/* wg compares "off" with strcasecmp. */
static bool is_off(const char *s, size_t len)
{
	return len == 3 && !strncasecmp(s, "off", 3);
}

bool wg_devconf_parse_number(uint64_t *out, const char *s, size_t len, uint64_t max, bool hex)
{
	unsigned int base = hex && len > 2 && s[0] == '0' && s[1] == 'x' ? 16 : 10;
	uint64_t v = 0;

	if (!is_off(s, len) && !wg_encoding_parse_uint(&v, s, len, base, max))
		return false;
	*out = v;
	return true;
}

bool wg_devconf_parse_fwmark(uint32_t *mark, const char *s, size_t len)
{
	uint64_t v;

	if (!wg_devconf_parse_number(&v, s, len, UINT32_MAX, true))
		return false;
	*mark = (uint32_t)v;
	return true;
}

bool wg_devconf_parse_keepalive(uint16_t *secs, const char *s, size_t len)
{
	uint64_t v;

	if (!wg_devconf_parse_number(&v, s, len, UINT16_MAX, false))
		return false;
	*secs = (uint16_t)v;
	return true;
}

/* Longer words are no size anyone means: 393216 needs 6 characters, "384kb" 5. */
enum { SIZE_WORD_BYTES = 32 };

int wg_devconf_parse_underlay_limit(uint32_t *out, const char *s, size_t len)
{
	char word[SIZE_WORD_BYTES];
	uint64_t bytes;
	int ret;

	if (len == 4 && !strncasecmp(s, "auto", 4)) {
		*out = WG_DEVCONF_UNDERLAY_LIMIT_AUTO;
		return 0;
	}
	if (is_off(s, len)) {
		*out = WG_DEVCONF_UNDERLAY_LIMIT_OFF;
		return 0;
	}
	if (!len || len >= sizeof(word) || memchr(s, '\0', len))
		return -EINVAL;
	memcpy(word, s, len);
	word[len] = '\0';
	ret = cake_parse_size(word, &bytes);
	if (ret)
		return ret == -ERANGE ? -ERANGE : -EINVAL;
	if (bytes < WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES ||
	    bytes > WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES)
		return -ERANGE;
	*out = (uint32_t)bytes;
	return 0;
}

bool wg_devconf_underlay_limit_valid(uint32_t setting)
{
	return setting == WG_DEVCONF_UNDERLAY_LIMIT_AUTO ||
	       setting == WG_DEVCONF_UNDERLAY_LIMIT_OFF ||
	       (setting >= WG_DEVCONF_UNDERLAY_LIMIT_MIN_BYTES &&
		setting <= WG_DEVCONF_UNDERLAY_LIMIT_MAX_BYTES);
}

const char *wg_devconf_underlay_limit_format(char buf[static WG_DEVCONF_UNDERLAY_LIMIT_STRLEN],
					     uint32_t setting)
{
	if (setting == WG_DEVCONF_UNDERLAY_LIMIT_AUTO)
		snprintf(buf, WG_DEVCONF_UNDERLAY_LIMIT_STRLEN, "auto");
	else if (setting == WG_DEVCONF_UNDERLAY_LIMIT_OFF)
		snprintf(buf, WG_DEVCONF_UNDERLAY_LIMIT_STRLEN, "off");
	else
		snprintf(buf, WG_DEVCONF_UNDERLAY_LIMIT_STRLEN, "%u", setting);
	return buf;
}

/* Makes room for need more bytes and a NUL; a move wipes the old copy. */
static bool buf_reserve(struct wg_devconf_buf *buf, size_t need)
{
	size_t cap = buf->cap ? buf->cap : 256;
	char *p;

	if (buf->failed || need > SIZE_MAX / 2 - buf->len)
		goto fail;
	if (buf->len + need < buf->cap)
		return true;
	while (cap <= buf->len + need)
		cap *= 2;
	p = malloc(cap);
	if (!p)
		goto fail;
	if (buf->data) {
		memcpy(p, buf->data, buf->len + 1);
		cw_memzero(buf->data, buf->cap);
		free(buf->data);
	}
	buf->data = p;
	buf->cap = cap;
	return true;
fail:
	buf->failed = true;
	return false;
}

void wg_devconf_buf_append(struct wg_devconf_buf *buf, const char *s, size_t len)
{
	if (!buf_reserve(buf, len))
		return;
	if (len)
		memcpy(buf->data + buf->len, s, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
}

void wg_devconf_buf_printf(struct wg_devconf_buf *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf->failed = true;
		return;
	}
	if (!buf_reserve(buf, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(buf->data + buf->len, buf->cap - buf->len, fmt, ap);
	va_end(ap);
	buf->len += (size_t)n;
}

void wg_devconf_buf_wipe(struct wg_devconf_buf *buf)
{
	if (buf->data) {
		cw_memzero(buf->data, buf->cap);
		free(buf->data);
	}
	memset(buf, 0, sizeof(*buf));
}

int wg_devconf_parse_endpoint_host(char host[static WG_DEVCONF_HOST_SIZE], uint16_t *port,
				   const char *s, size_t len)
{
	const char *h, *p;
	size_t hl, pl;
	uint16_t num;

	if (wg_ipaddr_endpoint_split(s, len, &h, &hl, &p, &pl) != WG_IPADDR_ENDPOINT_SPLIT_OK ||
	    hl >= WG_DEVCONF_HOST_SIZE || !wg_ipaddr_port_parse(&num, p, pl) ||
	    (!wg_ipaddr_is_host_name(h, hl) && !wg_ipaddr_is_zoned_v6_name(h, hl)))
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = num;
	return 0;
}

void wg_devconf_format_endpoint_host(char buf[static WG_DEVCONF_ENDPOINT_HOST_STRLEN],
				     const char *host, uint16_t port)
{
	snprintf(buf, WG_DEVCONF_ENDPOINT_HOST_STRLEN, strchr(host, ':') ? "[%s]:%u" : "%s:%u",
		 host, port);
}
