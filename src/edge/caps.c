/* SPDX-License-Identifier: GPL-2.0-only */
#define _GNU_SOURCE
#include "src/edge/caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { WORD_BITS = 32 };

int wg_caps_get(struct wg_caps *out)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {0};

	if (syscall(SYS_capget, &hdr, data))
		return errno ? -errno : -EPERM;
	out->effective = data[0].effective | (uint64_t)data[1].effective << WORD_BITS;
	out->permitted = data[0].permitted | (uint64_t)data[1].permitted << WORD_BITS;
	out->inheritable = data[0].inheritable | (uint64_t)data[1].inheritable << WORD_BITS;
	return 0;
}

int wg_caps_set(const struct wg_caps *caps)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {
		{ (uint32_t)caps->effective, (uint32_t)caps->permitted,
		  (uint32_t)caps->inheritable },
		{ (uint32_t)(caps->effective >> WORD_BITS), (uint32_t)(caps->permitted >> WORD_BITS),
		  (uint32_t)(caps->inheritable >> WORD_BITS) },
	};

	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

bool wg_caps_effective_has(int cap)
{
	struct wg_caps c = {0};

	return !wg_caps_get(&c) && (c.effective & WG_CAP_BIT(cap));
}
