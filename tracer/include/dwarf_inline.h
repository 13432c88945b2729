/* dwarf_inline.h - the calls inlined at a code address (tracer/
 * dwarf_inline.c), for the tracer's reports and the analyzer's race
 * locations. */
#ifndef SCHEDCTL_DWARF_INLINE_H
#define SCHEDCTL_DWARF_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One call inlined at an address: function was inlined where its caller
 * is at call_file:call_line. */
struct sc_inline_site {
	char function[256];             /* demangled */
	char call_file[256];            /* base name */
	unsigned call_line;
	bool call_in_system_header;
};
#define SC_INLINE_DEPTH 8

/* The calls inlined at a file-relative code address of the ELF file
 * path, outermost first (out[0] was inlined into the real function);
 * returns how many (0: none, or no DWARF). */
size_t sc_dwarf_inline_chain(const char *path, uint64_t vaddr,
			     struct sc_inline_site *out, size_t max);

/* The level a one-line location should name among those of an address
 * with k inlined calls chain[0..k) (sc_dwarf_inline_chain): levels count
 * innermost first, 0 being the line table's own line (in a system header
 * or not: line_in_system_header), level i >= 1 the call site chain[k-i]
 * (in the function of chain[k-1-i], or the real function for i = k).  The
 * innermost level with a line outside the system headers: the program's
 * line that called std::mutex::lock, not gthr-default.h's.  SIZE_MAX when
 * every level is in a system header. */
size_t sc_inline_program_level(const struct sc_inline_site *chain, size_t k,
			       bool line_in_system_header);

/* Is a source file one of the system's (a C or C++ library header, as
 * /usr/include/c++/12/bits/std_mutex.h), not the program's? */
bool sc_system_source(const char *path);

#endif
