/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the wg-quick parser and writer. Any input must parse or fail
 * with a "FILE:LINE: ..." message; whatever parses must be writable, and writing is a
 * fixpoint after one round: write(parse(write(c))) == write(c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/wgconf.h"

static char *write_text(const struct wg_devconf *conf, unsigned int flags)
{
	struct wg_devconf_buf out = {0};
	char *text;

	if (wg_wgconf_write(conf, flags, &out))
		abort();
	text = strdup(out.data);
	wg_devconf_buf_wipe(&out);
	if (!text)
		abort();
	return text;
}

static struct wg_devconf *parse_text(const char *text, unsigned int flags)
{
	struct wg_devconf *conf;
	char err[WG_WGCONF_MSG_SIZE];

	if (wg_wgconf_parse("f", text, strlen(text), flags, &conf, err, sizeof(err)))
		abort(); /* what the writer wrote must parse */
	return conf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_devconf *conf, *again;
	char err[WG_WGCONF_MSG_SIZE];
	unsigned int flags = 0;
	char *t1, *t2;

	if (size) {
		flags = data[0] & (WG_WGCONF_APPEND | WG_WGCONF_WG_ONLY);
		data++;
		size--;
	}
	if (wg_wgconf_parse("f", (const char *)data, size, flags, &conf, err, sizeof(err))) {
		if (strncmp(err, "f:", 2) || conf)
			abort();
		return 0;
	}
	t1 = write_text(conf, flags & WG_WGCONF_WG_ONLY);
	again = parse_text(t1, flags & WG_WGCONF_WG_ONLY);
	t2 = write_text(again, flags & WG_WGCONF_WG_ONLY);
	if (strcmp(t1, t2))
		abort();
	free(t1);
	free(t2);
	wg_devconf_free(again);
	wg_devconf_free(conf);
	return 0;
}
