/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the client-side reply parsers. The bytes are read as a `get=1`
 * reply, as a `cakewg_get=1` reply and as a JSON object. Beyond not crashing or leaking:
 * an accepted `get` reply, written back by the server's serializer and parsed again,
 * must reach a fixed point; an accepted cake reply holds only printable text and valid
 * JSON, and every peer record is found by its key; any string escaped as JSON is valid.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/devconf.h"
#include "src/core/uapi.h"
#include "src/core/uapi_reply.h"

static void get_fixed_point(struct wg_devconf *conf)
{
	struct wg_devconf_buf w1 = {0}, w2 = {0};
	struct wg_devconf *again = NULL;

	if (wg_uapi_get_write(conf, &w1))
		abort();
	if (wg_uapi_reply_get_parse(w1.data, w1.len, &again) || !again)
		abort();
	if (wg_uapi_get_write(again, &w2) || w1.len != w2.len || memcmp(w1.data, w2.data, w1.len))
		abort();
	wg_devconf_free(again);
	wg_devconf_buf_wipe(&w1);
	wg_devconf_buf_wipe(&w2);
}

static void check_text(const char *s)
{
	for (; s && *s; s++) {
		if ((*s < 0x20 || *s > 0x7e) && *s != '\t')
			abort();
	}
}

static void check_qdisc(const struct wg_uapi_reply_cake_qdisc *q)
{
	check_text(q->options);
	for (size_t i = 0; i < q->stats.n; i++)
		check_text(q->stats.v[i]);
	if (q->json && !wg_uapi_reply_json_object_valid(q->json, strlen(q->json)))
		abort();
}

static void check_cake(const struct wg_uapi_reply_cake *cake)
{
	check_qdisc(&cake->egress);
	check_qdisc(&cake->ingress);
	for (size_t i = 0; i < cake->n_peers; i++) {
		const struct wg_uapi_reply_cake_peer *p =
			wg_uapi_reply_cake_find_peer(cake, cake->peers[i].public_key);

		if (!p || memcmp(p->public_key, cake->peers[i].public_key, sizeof(p->public_key)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct wg_devconf_buf esc = {0};
	struct wg_uapi_reply_cake cake;
	struct wg_devconf *conf = NULL;

	if (!wg_uapi_reply_get_parse(text, size, &conf)) {
		get_fixed_point(conf);
		wg_devconf_free(conf);
	} else if (conf) {
		abort();
	}
	if (!wg_uapi_reply_cake_parse(text, size, &cake))
		check_cake(&cake);
	wg_uapi_reply_cake_free(&cake);
	(void)wg_uapi_reply_json_object_valid(text, size);

	wg_devconf_buf_printf(&esc, "{\"k\":");
	wg_uapi_reply_json_string(&esc, text, size);
	wg_devconf_buf_printf(&esc, "}");
	if (!esc.failed && !wg_uapi_reply_json_object_valid(esc.data, esc.len))
		abort();
	wg_devconf_buf_wipe(&esc);
	return 0;
}
