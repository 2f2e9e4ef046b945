/* SPDX-License-Identifier: GPL-2.0-only */
/* `cakewg strip`: the line filter of wg-quick's parse_options, which builds WG_CONFIG. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "src/core/conf_keys.h"
#include "src/edge/wgquick_priv.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool same(const char *word, const char *s, size_t n)
{
	return strlen(word) == n && !strncasecmp(word, s, n);
}

/*
 * As wg-quick: the key is the text before '#' and then before '=', trimmed; a key
 * starting with '[' ends the section, "[Interface]" (any case) opens it.
 */
bool wg_quick_strip_line(const char *line, size_t len, bool *in_interface)
{
	const char *hash = memchr(line, '#', len);
	size_t n = hash ? (size_t)(hash - line) : len;
	const char *eq = memchr(line, '=', n);
	const char *key = line;
	const struct wg_conf_key *k;

	if (eq)
		n = (size_t)(eq - line);
	while (n && blank(*key)) {
		key++;
		n--;
	}
	while (n && blank(key[n - 1]))
		n--;
	if (n && key[0] == '[')
		*in_interface = false;
	if (same("[Interface]", key, n))
		*in_interface = true;
	if (!*in_interface)
		return true;
	/* The keys wg(8) does not know: wg-quick's and cakewg's, as the key table marks them. */
	k = wg_conf_key_find(WG_CONF_FILE, WG_CONF_INTERFACE, key, n, 0);
	return !k || !(k->flags & WG_CONF_KEY_QUICK);
}
