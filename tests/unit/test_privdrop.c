/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who the daemon becomes: --user, --no-drop-privileges and CAKEWG_USER combined; the
 * refusal to drop with a second thread running (it would keep root's capabilities); and
 * the raw capability calls, which must read back what they wrote (in a child, as root;
 * skipped otherwise).
 */
#define _GNU_SOURCE
#include "src/edge/privdrop.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/edge/caps.h"

Test(privdrop, conf_sources)
{
	static const struct {
		const char *opt_user, *env_user;
		bool opt_keep;
		const char *user;
		bool keep_root;
	} cases[] = {
		{ NULL, NULL, false, NULL, false },	  /* the default user, or nobody */
		{ NULL, "", false, NULL, false },	  /* an empty variable is unset */
		{ NULL, "wg", false, "wg", false },	  /* CAKEWG_USER */
		{ "alice", "wg", false, "alice", false }, /* the option wins */
		{ NULL, "root", false, "root", true },	  /* CAKEWG_USER=root keeps root */
		{ "alice", "root", false, "alice", false },
		{ "root", NULL, false, "root", true },
		{ NULL, NULL, true, NULL, true }, /* --no-drop-privileges */
		{ "alice", NULL, true, "alice", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wg_privdrop_conf c;

		memset(&c, 0xff, sizeof(c));
		wg_privdrop_conf_init(&c, cases[i].opt_user, cases[i].opt_keep, cases[i].env_user);
		if (cases[i].user)
			cr_expect(c.user && !strcmp(c.user, cases[i].user), "case %zu", i);
		else
			cr_expect_null(c.user, "case %zu", i);
		cr_expect_eq(c.keep_root, cases[i].keep_root, "case %zu", i);
		cr_expect_not(c.bind_service, "case %zu", i);
	}
}

Test(privdrop, caps_round_trip)
{
	int st = 0;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("needs root (a full permitted set to reduce)");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		const struct wg_caps want = { .effective = WG_CAP_BIT(CAP_NET_ADMIN),
					      .permitted = WG_CAP_BIT(CAP_NET_ADMIN) |
							   WG_CAP_BIT(CAP_NET_BIND_SERVICE) };
		struct wg_caps got;

		if (!wg_caps_effective_has(CAP_SETUID) || wg_caps_set(&want) || wg_caps_get(&got))
			_exit(2);
		if (got.effective != want.effective || got.permitted != want.permitted ||
		    got.inheritable || wg_caps_effective_has(CAP_SETUID) ||
		    !wg_caps_effective_has(CAP_NET_ADMIN))
			_exit(3);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

static void *sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

Test(privdrop, refuses_with_threads)
{
	int st = 0;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct wg_privdrop_conf c;
		pthread_t t;

		wg_privdrop_conf_init(&c, NULL, false, NULL);
		if (pthread_create(&t, NULL, sleeper, NULL))
			_exit(2);
		_exit(wg_privdrop_apply(&c, "/nonexistent") == -EBUSY ? 0 : 3);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}
