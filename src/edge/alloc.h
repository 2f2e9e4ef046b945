/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * glibc malloc's settings, so that freeing never holds the datapath for long
 * (doc/architecture.md §6a: removing 100,000 peers spent 1.5-3.2 ms at a time inside
 * free()):
 *   - no fast bins (M_MXFAST 0): free() of a large chunk otherwise merges every small
 *     chunk freed so far, all at once;
 *   - no automatic trim (M_TRIM_THRESHOLD at its maximum): free() otherwise hands the
 *     top of the heap back to the kernel, tens of MiB at once; the control thread does
 *     it after each set instead (wg_alloc_trim);
 *   - the mmap threshold fixed at its 128 KiB default: glibc otherwise raises it after
 *     the first large free, and a table's array then comes from the heap, which calloc
 *     must clear at once; mmapped, its pages are zero when first touched. Such an array
 *     is unmapped when freed, which the core leaves to the control thread
 *     (src/core/retired.h).
 */
#ifndef CAKEWG_SRC_EDGE_ALLOC_H
#define CAKEWG_SRC_EDGE_ALLOC_H

/* At start, before any thread: the settings above. */
void wg_alloc_tune(void);

/* On the control thread: returns the heaps' free memory to the kernel. */
void wg_alloc_trim(void);

#endif
