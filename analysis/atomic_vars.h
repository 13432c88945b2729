/*
 * atomic_vars.h - static data declared atomic by a module's debug
 * information (internal to libanalysis).
 */
#ifndef SCHEDCTL_ATOMIC_VARS_H
#define SCHEDCTL_ATOMIC_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr_ranges.h"

/* The file addresses (as in the ELF file, before the load bias) of every
 * atomic object with a static address in path.  0 (none without debug
 * information), or -1 when out of memory. */
int sc_atomic_ranges_read(const char *path, struct sc_addr_ranges *out);

/* The atomic objects of module path, read once per symbolizer (NULL when
 * out of memory), and the file address its load address stands for. */
struct sc_symbolizer;
const struct sc_addr_ranges *sc_symbolizer_atomics(struct sc_symbolizer *s,
						     const char *path,
						     uint64_t *first_vaddr);

/* One module of a trace, for race_detect: addresses from load on are
 * file address addr - load + first_vaddr. */
struct sc_atomic_module {
	uint64_t load, first_vaddr;
	const struct sc_addr_ranges *ranges;
};

/* The modules of one module map of a trace (sorted by load address). */
struct sc_atomic_set {
	struct sc_atomic_module *mods;
	size_t n;
};

#endif
