/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ICMP errors in the device, as Linux's wg_xmit sends them: a packet read from the TUN
 * device whose destination no peer's allowed IPs hold is answered with ICMP host
 * unreachable (ICMPv6 address unreachable) from an address of the TUN device of its
 * family, which the edge learns from rtnetlink and sets here. The error goes to
 * ops->send_icmp, at most at src/core/icmp_ratelimit.h's rate; src/core/icmp_error.h
 * says which packets get none. The packet still counts in tx_no_peer; each error sent
 * counts in tx_icmp_unreach.
 *
 * Why the host's stack and not the TUN device: an IPv4 packet that arrives on an
 * interface with one of the host's own addresses as its source is a martian to Linux
 * and dropped (unless net.ipv4.conf.<if>.accept_local is set), and the TUN device's
 * address is one. Kernel WireGuard's errors come from the host's stack too.
 */
#ifndef CAKEWG_SRC_CORE_DEVICE_ICMP_H
#define CAKEWG_SRC_CORE_DEVICE_ICMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/core/ipaddr.h"

struct wg_device;

/* The source of the errors of family (AF_INET or AF_INET6): addr, or none when NULL.
 * True when it changed. */
bool wg_device_set_icmp_source(struct wg_device *dev, int family, const struct wg_ipaddr *addr);

/* The len bytes at ip were read from the TUN device and no peer holds their destination:
 * sends the error when it may. */
void wg_device_icmp_unreach(struct wg_device *dev, const uint8_t *ip, size_t len, uint64_t now_ns);

#endif
