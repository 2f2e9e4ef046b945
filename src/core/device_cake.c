/* SPDX-License-Identifier: GPL-2.0-only */
/* The device's CAKE instances configured: checked for both, then applied (device_cake.h). */
#include "src/core/device_cake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/device.h"

static bool is_off(const char *ingress)
{
	return !strcmp(ingress, WG_DEVCONF_CAKE_INGRESS_OFF);
}

int wg_device_cake_check(const struct wg_device *dev, struct wg_device_cake_change *c,
			 const char *egress, const char *ingress, char *err, size_t err_len,
			 uint64_t now_ns)
{
	int ret;

	memset(c, 0, sizeof(*c));
	if (egress) {
		ret = wg_egress_prepare(&dev->egress, false, egress, &c->egress, err, err_len, now_ns);
		if (ret)
			return ret;
		c->egress_opts = egress;
	}
	if (ingress && !is_off(ingress)) {
		ret = wg_egress_prepare(dev->ingress, true, ingress, &c->ingress, err, err_len, now_ns);
		if (ret) {
			wg_device_cake_abandon(c);
			return ret;
		}
	}
	c->ingress_opts = ingress;
	return 0;
}

void wg_device_cake_abandon(struct wg_device_cake_change *c)
{
	wg_egress_abandon(&c->egress);
	wg_egress_abandon(&c->ingress);
	memset(c, 0, sizeof(*c));
}

static void drop_ingress(struct wg_device *dev)
{
	if (!dev->ingress)
		return;
	wg_egress_deinit(dev->ingress);
	free(dev->ingress);
	dev->ingress = NULL;
}

/* The instance a checked ingress change goes to: created when it was not there. */
static struct wg_egress *ingress_instance(struct wg_device *dev, uint64_t now_ns)
{
	if (dev->ingress)
		return dev->ingress;
	dev->ingress = calloc(1, sizeof(*dev->ingress));
	if (!dev->ingress || wg_egress_init(dev->ingress, dev, true, now_ns)) {
		free(dev->ingress);
		dev->ingress = NULL;
	}
	return dev->ingress;
}

/* The autorate extractor as the instances now need it. */
static int attach(struct wg_device *dev, char *err, size_t err_len, uint64_t now_ns)
{
	int ret = wg_device_autorate_attach(dev, now_ns);

	if (ret)
		snprintf(err, err_len, "autorate: out of memory");
	return ret;
}

/* One instance: the change in force, then the extractor. */
static int commit_one(struct wg_device *dev, bool ingress, const char *options,
		      struct wg_egress_change *ch, char *err, size_t err_len, uint64_t now_ns)
{
	struct wg_egress *eg = &dev->egress;
	int ret;

	if (ingress) {
		eg = ingress_instance(dev, now_ns);
		if (!eg) {
			wg_egress_abandon(ch);
			snprintf(err, err_len, "out of memory");
			return -ENOMEM;
		}
	}
	ret = wg_egress_commit(eg, ch, options, err, err_len, now_ns);
	if (!ret)
		ret = attach(dev, err, err_len, now_ns);
	if (ret)
		return ret;
	wg_device_log(dev, WG_LOG_INFO, "CAKE %s: %s", ingress ? "ingress" : "egress", options);
	return 0;
}

int wg_device_cake_commit(struct wg_device *dev, struct wg_device_cake_change *c, char *err,
			  size_t err_len, uint64_t now_ns)
{
	struct wg_device_cake_change pending = *c; /* c is emptied: the instances own it now */
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (pending.egress_opts)
		ret = commit_one(dev, false, pending.egress_opts, &pending.egress, err, err_len,
				 now_ns);
	if (ret) {
		wg_egress_abandon(&pending.ingress);
		return ret;
	}
	if (!pending.ingress_opts)
		return 0;
	if (!is_off(pending.ingress_opts))
		return commit_one(dev, true, pending.ingress_opts, &pending.ingress, err, err_len,
				  now_ns);
	drop_ingress(dev);
	return attach(dev, err, err_len, now_ns);
}

int wg_device_set_cake(struct wg_device *dev, bool ingress, const char *options, char *err,
		       size_t err_len, uint64_t now_ns)
{
	struct wg_device_cake_change c;
	int ret = wg_device_cake_check(dev, &c, ingress ? NULL : options, ingress ? options : NULL,
				       err, err_len, now_ns);

	return ret ? ret : wg_device_cake_commit(dev, &c, err, err_len, now_ns);
}
