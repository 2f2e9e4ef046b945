/* SPDX-License-Identifier: GPL-2.0-only */
/* The TCP option walk (see tcp_wire.h); as the kernel's cake_get_tcpopt steps. */
#include "qdisc/tcp_wire.h"

#include <stddef.h>

const uint8_t *cake_tcpopt_next(struct cake_tcpopt_walk *w, uint32_t *size)
{
	const uint8_t *opt;

	while (w->left > 0 && *w->p == CAKE_TCPOPT_NOP) {
		w->p++;
		w->left--;
	}
	opt = w->p;
	if (w->left < CAKE_TCPOLEN_MIN || opt[0] == CAKE_TCPOPT_EOL || opt[1] < CAKE_TCPOLEN_MIN ||
	    opt[1] > w->left)
		return NULL;
	*size = opt[1];
	w->p += *size;
	w->left -= *size;
	return opt;
}
