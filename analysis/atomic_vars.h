/*
 * atomic_vars.h - static data declared atomic by a module's debug
 * information (internal to libanalysis).
 */
#ifndef SCHEDCTL_ATOMIC_VARS_H
#define SCHEDCTL_ATOMIC_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_atomic_range { uint64_t lo, hi; };
struct sc_atomic_ranges {
	struct sc_atomic_range *v;      /* sorted by lo */
	size_t n, cap;
};

/* The file addresses (as in the ELF file, before the load bias) of every
 * atomic object with a static address in path.  0 (none without debug
 * information), or -1 when out of memory. */
int sc_atomic_ranges_read(const char *path, struct sc_atomic_ranges *out);
/* Whether [lo, hi) overlaps an atomic object. */
bool sc_atomic_ranges_overlap(const struct sc_atomic_ranges *r, uint64_t lo,
			      uint64_t hi);
void sc_atomic_ranges_free(struct sc_atomic_ranges *r);

/* The atomic objects of module path, read once per symbolizer (NULL when
 * out of memory), and the file address its load address stands for. */
struct sc_symbolizer;
const struct sc_atomic_ranges *sc_symbolizer_atomics(struct sc_symbolizer *s,
						     const char *path,
						     uint64_t *first_vaddr);

/* One module of a trace, for race_detect: addresses from load on are
 * file address addr - load + first_vaddr. */
struct sc_atomic_module {
	uint64_t load, first_vaddr;
	const struct sc_atomic_ranges *ranges;
};

#endif
