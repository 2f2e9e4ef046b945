/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/edge/uapi_client.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <sodium.h>

#include "src/edge/uapi_server.h"

enum {
	REPLY_TIMEOUT_MS = 5000,
	REPLY_MAX_BYTES = 64 << 20,
};

static int connect_socket(const char *ifname)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char path[sizeof(sun.sun_path)];
	int fd, ret;

	ret = wg_uapi_socket_path(path, sizeof(path), ifname);
	if (ret)
		return ret;
	memcpy(sun.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		ret = errno == ECONNREFUSED ? -ENOENT : -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The reply ends with "errno=N\n\n"; returns true and N when it is complete. */
static bool reply_complete(const struct wg_devconf_buf *r, int *err)
{
	const char *p;

	if (r->len < 2 || strcmp(r->data + r->len - 2, "\n\n"))
		return false;
	p = r->data + r->len - 2;
	while (p > r->data && p[-1] != '\n')
		p--;
	if (strncmp(p, "errno=", 6))
		return false;
	*err = -abs(atoi(p + 6));
	return true;
}

int wg_uapi_client_request(const char *ifname, const char *request, size_t len,
			   struct wg_devconf_buf *reply, int *remote_errno)
{
	int fd = connect_socket(ifname);
	int ret;

	if (fd < 0)
		return fd;
	ret = send_all(fd, request, len);
	while (!ret) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char chunk[4096];
		ssize_t n;

		if (poll(&pfd, 1, REPLY_TIMEOUT_MS) <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = -EPROTO;
			break;
		}
		wg_devconf_buf_append(reply, chunk, (size_t)n);
		sodium_memzero(chunk, (size_t)n); /* a get=1 reply holds private_key= */
		if (reply->failed || reply->len > REPLY_MAX_BYTES)
			ret = -ENOMEM;
		else if (reply_complete(reply, remote_errno))
			break;
	}
	close(fd);
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int wg_uapi_client_list(char **names, size_t *n)
{
	DIR *dir = opendir(WG_UAPI_SOCKET_DIR);
	char *list[4096], *out, *p;
	size_t count = 0, total = 0;
	struct dirent *ent;

	*names = NULL;
	*n = 0;
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((ent = readdir(dir)) && count < sizeof(list) / sizeof(list[0])) {
		size_t len = strlen(ent->d_name);

		if (len <= 5 || strcmp(ent->d_name + len - 5, ".sock"))
			continue;
		list[count] = strndup(ent->d_name, len - 5);
		if (!list[count])
			break;
		total += len - 4;
		count++;
	}
	closedir(dir);
	qsort(list, count, sizeof(list[0]), cmp_names);
	out = malloc(total + 1);
	for (size_t i = 0, off = 0; i < count; i++) {
		if (out) {
			p = out + off;
			strcpy(p, list[i]);
			off += strlen(list[i]) + 1;
		}
		free(list[i]);
	}
	if (!out)
		return -ENOMEM;
	*names = out;
	*n = count;
	return 0;
}
