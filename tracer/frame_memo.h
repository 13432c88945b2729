/*
 * frame_memo.h - the names of code addresses, kept for the life of the
 * job process.
 *
 * A failing run's report names every frame of its stacks, and the runs of
 * a session fail at the same frames again and again.  Naming a frame with
 * a source line opens its file with libdwarf twice (the line table, then
 * the inlined calls there), and a frame in a library without DWARF (libc)
 * still opens it to find none: 16 opens of libc.so.6 for one stack.  A
 * name depends only on the file and the address in it, so it is kept,
 * keyed by path, device, inode, size and mtime (a rebuilt program is
 * named again) and the file-relative address.
 */
#ifndef SCHEDCTL_FRAME_MEMO_H
#define SCHEDCTL_FRAME_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf_inline.h"

/* What symbolize.c says of an address: texts[0..n), one per level of the
 * calls inlined there, and the level a one-line location shows. */
struct sc_frame_names {
	size_t n, pick;
	char texts[SC_INLINE_DEPTH + 1][512];
	bool systems[SC_INLINE_DEPTH + 1];
};

/* How the names were asked for: the same address named as data, or with
 * fewer levels, reads differently. */
struct sc_frame_query {
	const char *path;               /* the module's file */
	uint64_t vaddr;                 /* address relative to its load base */
	int type;                       /* STT_FUNC, STT_OBJECT */
	bool with_module;
	size_t max;                     /* levels asked for */
};

/* The names kept for q (NULL: none, or the file is not the one they
 * were read from). */
const struct sc_frame_names *sc_frame_memo_get(const struct sc_frame_query *q);
/* Keep names for q (silently not, when out of memory). */
void sc_frame_memo_put(const struct sc_frame_query *q,
		       const struct sc_frame_names *names);

#endif
