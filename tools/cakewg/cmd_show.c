/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cakewg show [--json] { <interface> | all | interfaces } [<field>]
 *
 * wg show's grammar, messages and exit codes (wireguard-tools' show.c), talking UAPI
 * only: a kernel WireGuard interface has no socket and is not listed. The pretty form
 * and --json also ask the daemon for cakewg's CAKE state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/edge/uapi_client.h"
#include "tools/cakewg/commands.h"
#include "tools/cakewg/show_device.h"
#include "tools/cakewg/show_json.h"
#include "tools/cakewg/show_print.h"

enum { SHOW_MAX_ARGS = 3 }; /* show <interface> <field> */

struct show_opts {
	const char *cmd;
	bool json;
	struct show_style style;
};

static void usage(const struct show_opts *o)
{
	fprintf(stderr,
		"Usage: %s %s [--json] { <interface> | all | interfaces } [public-key | "
		"private-key | "
		"listen-port | fwmark | peers | preshared-keys | endpoints | allowed-ips | "
		"latest-handshakes | transfer | persistent-keepalive | dump]\n",
		prog_name, o->cmd);
}

static void print_json(const struct show_device *dev)
{
	struct wg_devconf_buf out = {0};

	show_json(&out, dev);
	if (out.failed)
		fputs("null", stdout);
	else
		fwrite(out.data, 1, out.len, stdout);
	wg_devconf_buf_wipe(&out);
}

/* One interface in the requested form; false when field is unknown. */
static bool print_one(struct show_device *dev, const char *field, bool with_interface,
		      const struct show_opts *o)
{
	if (o->json)
		print_json(dev);
	else if (field)
		return show_field(dev, field, with_interface);
	else
		show_pretty(dev, &o->style);
	return true;
}

static void invalid_field(const char *field, const struct show_opts *o)
{
	fprintf(stderr, "Invalid parameter: `%s'\n", field);
	usage(o);
}

/*
 * The interfaces with a live daemon, sorted, NUL-separated (*names, free()). wg skips
 * sockets nobody listens on. Returns 0 or 1 after printing why not.
 */
static int list_live(char **names, size_t *n)
{
	size_t kept = 0, len;
	char *in, *out;
	int ret = wg_uapi_client_list(names, n);

	if (ret) {
		fprintf(stderr, "Unable to list interfaces: %s\n", strerror(-ret));
		return 1;
	}
	in = out = *names;
	for (size_t i = 0; i < *n; i++, in += len + 1) {
		len = strlen(in);
		if (!show_device_alive(in))
			continue;
		memmove(out, in, len + 1);
		out += len + 1;
		kept++;
	}
	*n = kept;
	return 0;
}

static int show_all(const char *field, const struct show_opts *o)
{
	char *names, *name;
	size_t n;
	int ret;

	if (list_live(&names, &n))
		return 1;
	ret = n ? 1 : 0; /* as wg: success once any interface was shown */
	if (o->json)
		printf("[");
	name = names;
	for (size_t i = 0, shown = 0; i < n; i++, name += strlen(name) + 1) {
		enum show_cake_request cake = field ? SHOW_WITHOUT_CAKE : SHOW_WITH_CAKE;
		struct show_device dev;
		int err = show_device_get(&dev, name, cake);

		if (err) {
			fprintf(stderr, "Unable to access interface %s: %s\n", name,
				strerror(-err));
			continue;
		}
		if (o->json && shown++)
			printf(",");
		if (!print_one(&dev, field, true, o)) {
			invalid_field(field, o);
			show_device_free(&dev);
			ret = 1;
			break;
		}
		if (!field && !o->json && i + 1 < n)
			printf("\n");
		show_device_free(&dev);
		ret = 0;
	}
	if (o->json)
		printf("]\n");
	free(names);
	return ret;
}

static int show_interfaces(const struct show_opts *o)
{
	char *names, *name;
	size_t n;

	if (list_live(&names, &n))
		return 1;
	if (o->json)
		printf("[");
	name = names;
	for (size_t i = 0; i < n; i++, name += strlen(name) + 1) {
		if (o->json) {
			struct wg_devconf_buf out = {0};

			wg_uapi_reply_json_string(&out, name, strlen(name));
			printf("%s%s", i ? "," : "", out.failed ? "\"\"" : out.data);
			wg_devconf_buf_wipe(&out);
		} else {
			printf("%s%c", name, i + 1 < n ? ' ' : '\n');
		}
	}
	if (o->json)
		printf("]\n");
	free(names);
	return 0;
}

static int show_interface(const char *ifname, const char *field, const struct show_opts *o)
{
	struct show_device dev;
	int ret = show_device_get(&dev, ifname, field ? SHOW_WITHOUT_CAKE : SHOW_WITH_CAKE);

	if (ret) {
		fprintf(stderr, "Unable to access interface: %s\n", strerror(-ret));
		return 1;
	}
	ret = 0;
	if (!print_one(&dev, field, false, o)) {
		invalid_field(field, o);
		ret = 1;
	}
	if (o->json)
		printf("\n");
	show_device_free(&dev);
	return ret;
}

/* Takes --json out of the arguments; returns the count left. */
static int take_flags(int argc, char *argv[], char *args[SHOW_MAX_ARGS], struct show_opts *o)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (i && !strcmp(argv[i], "--json")) {
			o->json = true;
			continue;
		}
		if (n == SHOW_MAX_ARGS)
			return SHOW_MAX_ARGS + 1;
		args[n++] = argv[i];
	}
	return n;
}

int show_main(int argc, char *argv[])
{
	struct show_opts o = {.cmd = argv[0]};
	char *args[SHOW_MAX_ARGS] = {0};
	int n = take_flags(argc, argv, args, &o);

	show_style_init(&o.style);
	if (n > SHOW_MAX_ARGS) {
		usage(&o);
		return 1;
	}
	if (n == 3 && o.json) {
		fprintf(stderr, "The --json output has no `%s' field\n", args[2]);
		usage(&o);
		return 1;
	}
	if (n == 1 || !strcmp(args[1], "all"))
		return show_all(n == 3 ? args[2] : NULL, &o);
	if (!strcmp(args[1], "interfaces")) {
		if (n > 2) {
			usage(&o);
			return 1;
		}
		return show_interfaces(&o);
	}
	if (n == 2 &&
	    (!strcmp(args[1], "-h") || !strcmp(args[1], "--help") || !strcmp(args[1], "help"))) {
		usage(&o);
		return 0;
	}
	return show_interface(args[1], n == 3 ? args[2] : NULL, &o);
}
