/* addr_ranges.h - sets of address ranges [lo, hi) (tracer/
 * addr_ranges.c): the lines of chosen source files, a Go binary's own
 * functions, the functions that keep a frame pointer, the analyzer's
 * atomic objects. */
#ifndef SCHEDCTL_ADDR_RANGES_H
#define SCHEDCTL_ADDR_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_addr_range { uint64_t lo, hi; };
struct sc_addr_ranges {
	struct sc_addr_range *v;
	size_t n, cap;
};

/* Append [lo, hi) (nothing when empty); -1 when out of memory. */
int sc_addr_ranges_push(struct sc_addr_ranges *r, uint64_t lo, uint64_t hi);
/* Whether addr lies in one of the ranges (in any order). */
bool sc_addr_ranges_contain(const struct sc_addr_ranges *r, uint64_t addr);
/* Sort the ranges and merge those that overlap or touch. */
void sc_addr_ranges_normalize(struct sc_addr_ranges *r);
/* Whether [lo, hi) overlaps a range of r, normalized. */
bool sc_addr_ranges_overlap(const struct sc_addr_ranges *r, uint64_t lo,
			    uint64_t hi);
void sc_addr_ranges_free(struct sc_addr_ranges *r);

#endif
