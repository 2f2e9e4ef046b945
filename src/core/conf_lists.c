/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The key table's list types (allowed IPs; wg-quick's Address, DNS and hooks) and
 * wg-quick's scalars (MTU, Table, SaveConfig), after wireguard-tools' config.c and
 * wg-quick's parse_options.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "src/core/conf_values.h"
#include "src/core/encoding.h"
#include "src/core/ipaddr.h"

static bool same_word(const char *word, const char *s, size_t n)
{
	return strlen(word) == n && !strncasecmp(word, s, n);
}

/* A prefix parse result as the table's error: the address alone, or the entry. */
static int prefix_fail(struct wg_conf_result *r, enum wg_ipaddr_prefix_parse res, const char *e,
		       size_t n)
{
	const char *slash = n ? memchr(e, '/', n) : NULL;

	if (res == WG_IPADDR_PREFIX_BAD_ADDR)
		return wg_conf_fail(r, WG_CONF_E_ADDR, e, slash ? (size_t)(slash - e) : n);
	return wg_conf_fail(r, WG_CONF_E_CIDR, e, n);
}

/* --- allowed IPs: one entry per line on the UAPI ("-" removes), a comma list in a file
 * and on `cakewg set` (replacing, unless an entry starts with '+' or '-') --- */

static int allowedip_one(const struct wg_conf_key *k, struct wg_devconf_peer *peer, const char *e,
			 size_t n, struct wg_conf_result *r)
{
	struct wg_ipaddr_prefix pfx;
	enum wg_ipaddr_prefix_parse res;
	uint32_t flags = 0;

	if (n && (e[0] == '-' || e[0] == '+')) {
		if (e[0] == '-')
			flags |= WG_DEVCONF_AIP_REMOVE_ME;
		peer->flags &= ~(uint32_t)WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
		e++;
		n--;
	}
	res = wg_ipaddr_prefix_parse(&pfx, e, n, WG_IPADDR_PREFIX_CIDR_OPTIONAL);
	if (res != WG_IPADDR_PREFIX_OK)
		return prefix_fail(r, res, e, n);
	if (wg_ipaddr_prefix_has_host_bits(&pfx) && r->warn)
		r->warn(r->warn_arg, k, WG_CONF_W_HOST_BITS, e, n);
	return wg_devconf_peer_add_allowedip(peer, &pfx, flags)
		       ? wg_conf_fail(r, WG_CONF_E_NOMEM, e, n)
		       : WG_CONF_OK;
}

/*
 * One entry a line: a request may remove one ("-"); a reply only lists what the peer
 * has, "addr/cidr" with the '/' and, as wg reads it, leading zeros in the cidr allowed.
 */
static int allowedip_uapi(struct wg_devconf_peer *peer, enum wg_conf_surface s, const char *v,
			  size_t n, struct wg_conf_result *r)
{
	struct wg_ipaddr_prefix pfx;
	uint32_t flags = 0;
	const char *e = v;

	if (s == WG_CONF_SET && n && e[0] == '-') {
		flags = WG_DEVCONF_AIP_REMOVE_ME;
		e++;
		n--;
	}
	if ((s == WG_CONF_GET && !memchr(e, '/', n)) ||
	    wg_ipaddr_prefix_parse(&pfx, e, n,
				   s == WG_CONF_GET ? WG_IPADDR_PREFIX_CIDR_OPTIONAL
						    : WG_IPADDR_PREFIX_CIDR_REQUIRED) !=
		    WG_IPADDR_PREFIX_OK)
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	return wg_devconf_peer_add_allowedip(peer, &pfx, flags)
		       ? wg_conf_fail(r, WG_CONF_E_NOMEM, v, n)
		       : WG_CONF_OK;
}

static int allowedips_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			    enum wg_conf_surface s, const char *v, size_t n,
			    struct wg_conf_result *r)
{
	const char *end = v + n;

	if (s == WG_CONF_SET || s == WG_CONF_GET)
		return allowedip_uapi(t->peer, s, v, n, r);
	t->peer->flags |= WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS;
	/* `cakewg set ... allowed-ips ""` replaces them with nothing */
	if (!n)
		return WG_CONF_OK;
	for (;;) {
		const char *comma = memchr(v, ',', (size_t)(end - v));
		const char *stop = comma ? comma : end;
		int ret = allowedip_one(k, t->peer, v, (size_t)(stop - v), r);

		if (ret || !comma)
			return ret;
		v = comma + 1;
	}
}

static bool same_masked(const struct wg_ipaddr_prefix *a, const struct wg_ipaddr_prefix *b)
{
	struct wg_ipaddr_prefix ma = *a, mb = *b;

	wg_ipaddr_prefix_mask(&ma);
	wg_ipaddr_prefix_mask(&mb);
	return ma.cidr == mb.cidr && wg_ipaddr_equal(&ma.addr, &mb.addr);
}

/*
 * Whether entry i is written to a file. A replacing list starts from nothing, so its
 * removals only cancel earlier additions of the same prefix: write what remains, all
 * plain (a '-' would turn the line incremental). An incremental list is written as it is.
 */
static bool entry_written(const struct wg_devconf_peer *peer, size_t i)
{
	const struct wg_devconf_allowedip *aip = peer->allowedips;

	if (!(peer->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS))
		return true;
	if (aip[i].flags & WG_DEVCONF_AIP_REMOVE_ME)
		return false;
	for (size_t j = i + 1; j < peer->n_allowedips; j++) {
		if ((aip[j].flags & WG_DEVCONF_AIP_REMOVE_ME) &&
		    same_masked(&aip[i].prefix, &aip[j].prefix))
			return false;
	}
	return true;
}

static void allowedips_file(const struct wg_conf_key *k, const struct wg_conf_target *t,
			    struct wg_devconf_buf *out)
{
	const struct wg_devconf_peer *peer = t->peer;
	/* Without replace, plain entries need '+' to stay incremental. */
	const char *add = peer->flags & WG_DEVCONF_PEER_REPLACE_ALLOWEDIPS ? "" : "+";
	char text[WG_IPADDR_PREFIX_STRLEN];
	bool first = true;

	for (size_t i = 0; i < peer->n_allowedips; i++) {
		const struct wg_devconf_allowedip *aip = &peer->allowedips[i];

		if (!entry_written(peer, i))
			continue;
		wg_ipaddr_prefix_format_as(text, &aip->prefix, t->addr_text);
		wg_devconf_buf_printf(out, "%s%s%s%s", first ? k->file : ", ", first ? " = " : "",
				      aip->flags & WG_DEVCONF_AIP_REMOVE_ME ? "-" : add, text);
		first = false;
	}
	if (!first)
		wg_devconf_buf_printf(out, "\n");
}

/* A request says removals with '-'; get reports only what the peer has. */
static int allowedips_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			    enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const struct wg_devconf_peer *peer = t->peer;
	char text[WG_IPADDR_PREFIX_STRLEN + 1];

	if (s == WG_CONF_FILE) {
		allowedips_file(k, t, out);
		return 0;
	}
	for (size_t i = 0; i < peer->n_allowedips; i++) {
		bool removal = peer->allowedips[i].flags & WG_DEVCONF_AIP_REMOVE_ME;

		if (removal && s == WG_CONF_GET)
			continue;
		text[0] = '-';
		wg_ipaddr_prefix_format(text + removal, &peer->allowedips[i].prefix);
		wg_conf_put(out, k, s, text);
	}
	return 0;
}

const struct wg_conf_type wg_conf_type_allowedips = {"allowedips", allowedips_parse,
						     allowedips_print, NULL};

/* --- wg-quick lists: words split at commas and whitespace --- */

typedef int (*word_fn)(struct wg_devconf *conf, const char *w, size_t n, struct wg_conf_result *r);

static int for_each_word(struct wg_devconf *conf, const char *v, size_t n, word_fn fn,
			 struct wg_conf_result *r)
{
	size_t i = 0;

	while (i < n) {
		size_t start;
		int ret;

		while (i < n && (v[i] == ',' || wg_conf_is_space(v[i])))
			i++;
		start = i;
		while (i < n && v[i] != ',' && !wg_conf_is_space(v[i]))
			i++;
		if (i == start)
			break;
		ret = fn(conf, v + start, i - start, r);
		if (ret)
			return ret;
	}
	return WG_CONF_OK;
}

static int add_address(struct wg_devconf *conf, const char *w, size_t n, struct wg_conf_result *r)
{
	struct wg_ipaddr_prefix pfx;
	enum wg_ipaddr_prefix_parse res =
		wg_ipaddr_prefix_parse(&pfx, w, n, WG_IPADDR_PREFIX_CIDR_OPTIONAL);

	if (res != WG_IPADDR_PREFIX_OK)
		return prefix_fail(r, res, w, n);
	return wg_devconf_add_address(conf, &pfx) ? wg_conf_fail(r, WG_CONF_E_NOMEM, w, n)
						  : WG_CONF_OK;
}

static int address_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
			 enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	(void)k;
	(void)s;
	return for_each_word(t->conf, v, n, add_address, r);
}

static int address_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
			 enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	char text[WG_IPADDR_PREFIX_STRLEN];

	for (size_t i = 0; i < t->conf->n_addresses; i++) {
		wg_ipaddr_prefix_format(text, &t->conf->addresses[i]);
		wg_conf_put(out, k, s, text);
	}
	return 0;
}

const struct wg_conf_type wg_conf_type_address = {"address", address_parse, address_print, NULL};

static int add_dns(struct wg_devconf *conf, const char *w, size_t n, struct wg_conf_result *r)
{
	bool addr_like = memchr(w, ':', n) != NULL;
	struct wg_ipaddr ip;

	/* wg-quick's test: ^[0-9.]+$ or anything with a ':' is a server. */
	if (!addr_like) {
		addr_like = true;
		for (size_t i = 0; i < n; i++)
			addr_like &= (w[i] >= '0' && w[i] <= '9') || w[i] == '.';
	}
	if (addr_like) {
		if (!wg_ipaddr_parse(&ip, w, n))
			return wg_conf_fail(r, WG_CONF_E_DNS_ADDR, w, n);
		return wg_devconf_add_dns(conf, &ip) ? wg_conf_fail(r, WG_CONF_E_NOMEM, w, n)
						     : WG_CONF_OK;
	}
	if (!wg_ipaddr_is_host_name(w, n))
		return wg_conf_fail(r, WG_CONF_E_DNS_NAME, w, n);
	return wg_devconf_strlist_add(&conf->dns_search, w, n)
		       ? wg_conf_fail(r, WG_CONF_E_NOMEM, w, n)
		       : WG_CONF_OK;
}

static int dns_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		     enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	(void)k;
	(void)s;
	return for_each_word(t->conf, v, n, add_dns, r);
}

/* Servers, then search domains. */
static int dns_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		     enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const struct wg_devconf *conf = t->conf;
	char text[WG_IPADDR_STRLEN];

	for (size_t i = 0; i < conf->n_dns; i++) {
		wg_ipaddr_format(text, &conf->dns[i]);
		wg_conf_put(out, k, s, text);
	}
	for (size_t i = 0; i < conf->dns_search.n; i++) {
		if (!wg_ipaddr_is_host_name(conf->dns_search.v[i], strlen(conf->dns_search.v[i])))
			return -EINVAL;
		wg_conf_put(out, k, s, conf->dns_search.v[i]);
	}
	return 0;
}

const struct wg_conf_type wg_conf_type_dns = {"dns", dns_parse, dns_print, NULL};

/* --- hooks: the raw rest of the line, one command per key --- */

static int hook_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	(void)s;
	/* An empty hook does nothing in wg-quick: do not keep it. */
	if (!n)
		return WG_CONF_OK;
	return wg_devconf_strlist_add(wg_conf_field(k, t), v, n)
		       ? wg_conf_fail(r, WG_CONF_E_NOMEM, v, n)
		       : WG_CONF_OK;
}

static int hook_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const struct wg_devconf_strlist *list = wg_conf_field(k, t);

	for (size_t i = 0; i < list->n; i++) {
		if (!wg_conf_file_writable(list->v[i], true))
			return -EINVAL;
		wg_conf_put(out, k, s, list->v[i]);
	}
	return 0;
}

const struct wg_conf_type wg_conf_type_hook = {"hook", hook_parse, hook_print, NULL};

/* --- MTU: empty (automatic) or a size in range --- */

static int mtu_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		     enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	uint64_t mtu = 0;

	(void)s;
	if (n && (!wg_encoding_parse_uint(&mtu, v, n, 10, WG_DEVCONF_MTU_MAX_BYTES) ||
		  mtu < WG_DEVCONF_MTU_MIN_BYTES))
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	*(uint32_t *)wg_conf_field(k, t) = (uint32_t)mtu;
	return WG_CONF_OK;
}

static int mtu_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		     enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	uint32_t mtu = *(const uint32_t *)wg_conf_field(k, t);
	char text[16];

	if (!mtu)
		return 0;
	snprintf(text, sizeof(text), "%u", mtu);
	wg_conf_put(out, k, s, text);
	return 0;
}

static void mtu_range(char buf[static WG_CONF_RANGE_SIZE])
{
	snprintf(buf, WG_CONF_RANGE_SIZE, "%u-%u", WG_DEVCONF_MTU_MIN_BYTES,
		 WG_DEVCONF_MTU_MAX_BYTES);
}

const struct wg_conf_type wg_conf_type_mtu = {"mtu", mtu_parse, mtu_print, mtu_range};

/* --- Table: auto, off, a well-known name or a number --- */

static int table_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		       enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	struct wg_devconf *conf = t->conf;
	uint64_t id;

	(void)k;
	(void)s;
	conf->table_id = 0;
	if (!n) {
		conf->table_mode = WG_DEVCONF_TABLE_UNSET;
		return WG_CONF_OK;
	}
	if (same_word("auto", v, n)) {
		conf->table_mode = WG_DEVCONF_TABLE_AUTO;
		return WG_CONF_OK;
	}
	if (same_word("off", v, n)) {
		conf->table_mode = WG_DEVCONF_TABLE_OFF;
		return WG_CONF_OK;
	}
	conf->table_mode = WG_DEVCONF_TABLE_ID;
	if (wg_devconf_table_from_name(&conf->table_id, v, n))
		return WG_CONF_OK;
	if (!wg_encoding_parse_uint(&id, v, n, 10, UINT32_MAX) || !id)
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	conf->table_id = (uint32_t)id;
	return WG_CONF_OK;
}

static int table_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		       enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	const struct wg_devconf *conf = t->conf;
	const char *name = wg_devconf_table_name(conf->table_id);
	char text[16];

	switch (conf->table_mode) {
	case WG_DEVCONF_TABLE_UNSET:
		return 0;
	case WG_DEVCONF_TABLE_AUTO:
		name = "auto";
		break;
	case WG_DEVCONF_TABLE_OFF:
		name = "off";
		break;
	case WG_DEVCONF_TABLE_ID:
		if (!name) {
			snprintf(text, sizeof(text), "%u", conf->table_id);
			name = text;
		}
		break;
	}
	wg_conf_put(out, k, s, name);
	return 0;
}

const struct wg_conf_type wg_conf_type_table = {"table", table_parse, table_print, NULL};

/* --- SaveConfig: true or false, any case --- */

static int bool_parse(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, const char *v, size_t n, struct wg_conf_result *r)
{
	bool *b = wg_conf_field(k, t);

	(void)s;
	if (same_word("true", v, n))
		*b = true;
	else if (same_word("false", v, n))
		*b = false;
	else
		return wg_conf_fail(r, WG_CONF_E_VALUE, v, n);
	return WG_CONF_OK;
}

static int bool_print(const struct wg_conf_key *k, const struct wg_conf_target *t,
		      enum wg_conf_surface s, struct wg_devconf_buf *out)
{
	if (*(const bool *)wg_conf_field(k, t))
		wg_conf_put(out, k, s, "true");
	return 0;
}

const struct wg_conf_type wg_conf_type_bool = {"bool", bool_parse, bool_print, NULL};
