/* SPDX-License-Identifier: GPL-2.0-only */
/* Fetching one interface for `show` and `showconf`: the get reply, the CAKE extension. */
#include "tools/cakewg/show_device.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "crypto/ct.h"
#include "crypto/x25519.h"
#include "src/edge/uapi_client.h"
#include "src/edge/uapi_server.h"

static const char get_request[] = "get=1\n\n";
static const char cake_request[] = "cakewg_get=1\n\n";

/* One exchange; the reply is left in *reply (wipe it: it may hold keys). */
static int request(const char *ifname, const char *req, size_t len, struct wg_devconf_buf *reply)
{
	int remote = 0;
	int ret = wg_uapi_client_request(ifname, req, len, reply, &remote);

	/* wg falls back to the kernel's netlink, which answers ENODEV. */
	return ret == -ENOENT ? -ENODEV : ret;
}

static void get_cake(struct show_device *dev)
{
	struct wg_devconf_buf reply = {0};
	int ret = request(dev->name, cake_request, sizeof(cake_request) - 1, &reply);

	/* A daemon without the extension closes the connection or answers an errno. */
	if (!ret) {
		ret = wg_uapi_reply_cake_parse(reply.data, reply.len, &dev->cake);
		if (!ret)
			dev->has_cake = true;
		else if (ret == -EPROTO || ret == -ENOMEM)
			fprintf(stderr, "Unable to read the CAKE state of %s: %s\n", dev->name,
				strerror(-ret));
		if (ret)
			wg_uapi_reply_cake_free(&dev->cake);
	}
	wg_devconf_buf_wipe(&reply);
}

int show_device_get(struct show_device *dev, const char *ifname, enum show_cake_request cake)
{
	struct wg_devconf_buf reply = {0};
	size_t len = strlen(ifname);
	int ret;

	memset(dev, 0, sizeof(*dev));
	if (!len || strchr(ifname, '/'))
		return -EINVAL;
	if (len >= sizeof(dev->name))
		return -ENODEV;
	memcpy(dev->name, ifname, len + 1);
	ret = request(ifname, get_request, sizeof(get_request) - 1, &reply);
	if (!ret)
		ret = wg_uapi_reply_get_parse(reply.data, reply.len, &dev->conf);
	wg_devconf_buf_wipe(&reply);
	if (ret)
		return ret;
	if (dev->conf->flags & WG_DEVCONF_HAS_PRIVATE_KEY)
		dev->has_public_key = cw_x25519_public(dev->public_key, dev->conf->private_key);
	if (cake == SHOW_WITH_CAKE)
		get_cake(dev);
	return 0;
}

bool show_device_alive(const char *ifname)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	bool alive;
	int fd;

	if (strchr(ifname, '/') || wg_uapi_socket_path(sun.sun_path, sizeof(sun.sun_path), ifname))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true; /* cannot tell: let the request report it */
	/* A socket whose daemon is gone refuses; wg also unlinks it, cakewg leaves it. */
	alive = !connect(fd, (struct sockaddr *)&sun, sizeof(sun)) || errno != ECONNREFUSED;
	close(fd);
	return alive;
}

void show_device_free(struct show_device *dev)
{
	wg_devconf_free(dev->conf);
	wg_uapi_reply_cake_free(&dev->cake);
	cw_memzero(dev, sizeof(*dev));
}

const struct wg_uapi_reply_cake_peer *show_device_cake_peer(const struct show_device *dev,
							    const struct wg_devconf_peer *peer)
{
	if (!dev->has_cake)
		return NULL;
	return wg_uapi_reply_cake_find_peer(&dev->cake, peer->public_key);
}

static bool handshake_zero(const struct wg_devconf_peer *p)
{
	return !p->last_handshake_sec && !p->last_handshake_nsec;
}

/* wg's peer_cmp: peers that never shook hands go last, the others newest first. */
static int peer_cmp(const void *first, const void *second)
{
	const struct wg_devconf_peer *a = *(const struct wg_devconf_peer *const *)first;
	const struct wg_devconf_peer *b = *(const struct wg_devconf_peer *const *)second;

	if (handshake_zero(a) != handshake_zero(b))
		return handshake_zero(a) ? 1 : -1;
	if (a->last_handshake_sec != b->last_handshake_sec)
		return a->last_handshake_sec < b->last_handshake_sec ? 1 : -1;
	if (a->last_handshake_nsec != b->last_handshake_nsec)
		return a->last_handshake_nsec < b->last_handshake_nsec ? 1 : -1;
	return 0;
}

void show_device_sort_peers(struct show_device *dev)
{
	if (dev->conf->n_peers > 1)
		qsort(dev->conf->peers, dev->conf->n_peers, sizeof(dev->conf->peers[0]), peer_cmp);
}

bool show_has_endpoint(const struct wg_devconf_peer *peer)
{
	return ((peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT) &&
		wg_ipaddr_endpoint_is_set(&peer->endpoint)) ||
	       (peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT_HOST);
}

void show_endpoint(char *buf, size_t size, const struct wg_devconf_peer *peer)
{
	const struct sockaddr *sa = &peer->endpoint.addr;
	char host[NI_MAXHOST], service[NI_MAXSERV];
	socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						  : sizeof(struct sockaddr_in);
	int ret;

	buf[0] = '\0';
	if (!show_has_endpoint(peer))
		return;
	if (!(peer->flags & WG_DEVCONF_PEER_HAS_ENDPOINT)) {
		/* a name the daemon reported as text: shown as given */
		snprintf(buf, size, strchr(peer->endpoint_host, ':') ? "[%s]:%u" : "%s:%u",
			 peer->endpoint_host, peer->endpoint_port);
		return;
	}
	ret = getnameinfo(sa, len, host, sizeof(host), service, sizeof(service),
			  NI_DGRAM | NI_NUMERICSERV | NI_NUMERICHOST);
	if (ret)
		snprintf(buf, size, "%s", gai_strerror(ret));
	else
		snprintf(buf, size,
			 sa->sa_family == AF_INET6 && strchr(host, ':') ? "[%s]:%s" : "%s:%s", host,
			 service);
}

const char *show_ip(char buf[static INET6_ADDRSTRLEN], const struct wg_devconf_allowedip *aip)
{
	buf[0] = '\0';
	if (!inet_ntop(aip->prefix.addr.family, aip->prefix.addr.bytes, buf, INET6_ADDRSTRLEN))
		buf[0] = '\0';
	return buf;
}
