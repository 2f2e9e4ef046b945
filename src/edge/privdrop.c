/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/privdrop.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "src/edge/caps.h"
#include "src/edge/log.h"
#include "src/edge/uapi_janitor.h"

enum { CAPS_MAX = 64, NAME_MAX_LEN = 64 };

struct who {
	uid_t uid;
	gid_t gid;
	char name[NAME_MAX_LEN];
};

void wg_privdrop_conf_init(struct wg_privdrop_conf *conf, const char *opt_user, bool keep_root,
			   const char *env_user)
{
	const char *user = opt_user ? opt_user : env_user && *env_user ? env_user : NULL;

	memset(conf, 0, sizeof(*conf));
	conf->user = user;
	conf->keep_root = keep_root || (user && !strcmp(user, WG_PRIVDROP_KEEP_ROOT));
}

static int fail(const char *what)
{
	int err = errno ? -errno : -EPERM;

	wg_log_err("Unable to drop privileges: %s: %s", what, strerror(-err));
	return err;
}

static bool lookup(const char *name, struct who *w)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return false;
	w->uid = pw->pw_uid;
	w->gid = pw->pw_gid;
	snprintf(w->name, sizeof(w->name), "%s", name);
	return true;
}

/* The user asked for, or the default with its fallback. */
static int find_user(const char *asked, struct who *w)
{
	if (asked && !lookup(asked, w)) {
		wg_log_err("User `%s' does not exist (--user, CAKEWG_USER)", asked);
		return -ENOENT;
	}
	if (!asked && !lookup(WG_PRIVDROP_DEFAULT_USER, w)) {
		if (!lookup(WG_PRIVDROP_FALLBACK_USER, w)) {
			wg_log_err("Neither user `%s' nor `%s' exists: set --user or CAKEWG_USER",
				   WG_PRIVDROP_DEFAULT_USER, WG_PRIVDROP_FALLBACK_USER);
			return -ENOENT;
		}
		wg_log_info("User `%s' does not exist: running as `%s' (create the system user "
			    "or set CAKEWG_USER)",
			    WG_PRIVDROP_DEFAULT_USER, WG_PRIVDROP_FALLBACK_USER);
	}
	if (w->uid == 0) {
		wg_log_err("User `%s' is root: use --no-drop-privileges or CAKEWG_USER=root to "
			   "keep root",
			   w->name);
		return -EINVAL;
	}
	return 0;
}

/* Empties the bounding set but for keep; needs CAP_SETPCAP (only root has it here). */
static int drop_bounding(uint64_t keep, bool must)
{
	for (int cap = 0; cap < CAPS_MAX; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in < 0)
			break; /* past the kernel's last capability */
		if (in && !(keep & WG_CAP_BIT(cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && must)
			return fail("PR_CAPBSET_DROP");
	}
	return 0;
}

/* setgroups/setgid/setuid, keeping the permitted set across the switch. */
static int become(const struct who *w, uint64_t keep)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return fail("PR_SET_KEEPCAPS");
	if (drop_bounding(keep, true))
		return -EPERM;
	if (setgroups(0, NULL))
		return fail("setgroups");
	if (setresgid(w->gid, w->gid, w->gid))
		return fail("setgid");
	if (setresuid(w->uid, w->uid, w->uid))
		return fail("setuid");
	(void)prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	return 0;
}

static int restrict_caps(uint64_t keep)
{
	const struct wg_caps want = { .effective = keep, .permitted = keep };
	struct wg_caps got;

	if (wg_caps_set(&want))
		return fail("capset");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return fail("PR_CAP_AMBIENT_CLEAR_ALL");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return fail("PR_SET_NO_NEW_PRIVS");
	if (wg_caps_get(&got) || got.effective != keep || got.permitted != keep ||
	    got.inheritable) {
		errno = EPERM;
		return fail("the capability sets did not change");
	}
	return 0;
}

/* Capabilities are per thread (capset changes the caller's only): a thread started
 * before the drop would keep root's. How many run, or -errno. */
static int count_threads(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return -errno;
	while ((e = readdir(dir)))
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

static void log_result(const char *name, uint64_t caps)
{
	wg_log_info("Dropped privileges: uid %u (%s), gid %u, capabilities:%s%s%s, no_new_privs",
		    (unsigned int)getuid(), name, (unsigned int)getgid(),
		    caps & WG_CAP_BIT(CAP_NET_ADMIN) ? " cap_net_admin" : "",
		    caps & WG_CAP_BIT(CAP_NET_BIND_SERVICE) ? " cap_net_bind_service" : "",
		    caps ? "" : " none");
}

int wg_privdrop_apply(const struct wg_privdrop_conf *conf, const char *uapi_path)
{
	uint64_t keep = WG_CAP_BIT(CAP_NET_ADMIN);
	struct who w = { .uid = getuid(), .gid = getgid(), .name = "unchanged" };
	bool root = getuid() == 0 || geteuid() == 0;
	struct wg_caps now;
	int ret;

	if (conf->keep_root) {
		wg_log_info("Privileges kept: uid %u with all its capabilities (%s)",
			    (unsigned int)geteuid(), "--no-drop-privileges or CAKEWG_USER=root");
		return 0;
	}
	ret = count_threads();
	if (ret != 1) {
		wg_log_err("Unable to drop privileges: %d threads run already (capabilities are "
			   "per thread: drop them before starting any)",
			   ret);
		return ret < 0 ? ret : -EBUSY;
	}
	if (conf->bind_service)
		keep |= WG_CAP_BIT(CAP_NET_BIND_SERVICE);
	if (wg_caps_get(&now))
		return fail("capget");
	keep &= now.permitted;
	if (root) {
		ret = find_user(conf->user, &w);
		if (ret)
			return ret;
		ret = wg_uapi_janitor_start(uapi_path);
		if (ret) {
			wg_log_err("Unable to start the UAPI socket janitor: %s", strerror(-ret));
			return ret;
		}
		ret = become(&w, keep);
	} else {
		ret = drop_bounding(keep, false);
	}
	ret = ret ?: restrict_caps(keep);
	if (ret)
		return ret;
	if (root && (setuid(0) != -1 || getuid() != w.uid || geteuid() != w.uid)) {
		errno = EPERM;
		return fail("setuid(0) still succeeds");
	}
	log_result(w.name, keep);
	return 0;
}
