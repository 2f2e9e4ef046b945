/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the UAPI: the bytes are a connection's input stream, fed to the
 * request reader in chunks whose sizes the first byte picks. Every parsed set request
 * is serialized back as `get` output and as a wg-quick file; the set parser also gets
 * the whole input as one body. Nothing may crash, leak or break the reader's contract.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "src/core/devconf.h"
#include "src/core/uapi.h"
#include "src/core/wgconf.h"

static void exercise(struct wg_devconf *conf)
{
	struct wg_devconf_buf out = {0};

	if (!conf || wg_uapi_get_write(conf, &out))
		abort();
	wg_devconf_buf_wipe(&out);
	/* A UAPI configuration may not be expressible as a file; it must not crash. */
	(void)wg_wgconf_write(conf, 0, &out);
	wg_devconf_buf_wipe(&out);
	wg_devconf_free(conf);
}

static void run_reader(const uint8_t *data, size_t size, size_t chunk)
{
	struct wg_uapi_reader r;
	size_t pos = 0;
	enum wg_uapi_event ev = WG_UAPI_NEED_MORE;

	wg_uapi_reader_init(&r, 4096);
	while (pos < size && ev != WG_UAPI_CLOSE) {
		size_t n = size - pos < chunk ? size - pos : chunk, used;

		ev = wg_uapi_reader_feed(&r, (const char *)data + pos, n, &used);
		if (used > n || (ev == WG_UAPI_NEED_MORE && used != n))
			abort();
		pos += used;
		if (ev == WG_UAPI_SET)
			exercise(wg_uapi_reader_take(&r));
		if (ev == WG_UAPI_FAILED && wg_uapi_reader_error(&r) >= 0)
			abort();
	}
	if (ev != WG_UAPI_CLOSE) {
		ev = wg_uapi_reader_eof(&r);
		if (ev == WG_UAPI_SET)
			exercise(wg_uapi_reader_take(&r));
	}
	wg_uapi_reader_deinit(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_devconf *conf;
	size_t chunk = 1;

	if (size) {
		chunk = 1 + data[0] % 64;
		data++;
		size--;
	}
	run_reader(data, size, chunk);
	if (!wg_uapi_set_parse((const char *)data, size, &conf))
		exercise(conf);
	return 0;
}
