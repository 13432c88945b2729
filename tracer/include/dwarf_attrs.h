/* dwarf_attrs.h - reading DIE attributes and children with libdwarf
 * (tracer/dwarf_attrs.c), for the tracer's and the analyzer's DWARF
 * readers. */
#ifndef SCHEDCTL_DWARF_ATTRS_H
#define SCHEDCTL_DWARF_ATTRS_H

#include <stdbool.h>
#include <stddef.h>

#include <libdwarf.h>

/* An unsigned constant attribute (DWARF 5's implicit_const, a signed
 * form, included when not negative); false when absent. */
bool sc_dwarf_unsigned(Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *v);
/* A string attribute into buf (cut to len); false when absent. */
bool sc_dwarf_string(Dwarf_Die die, Dwarf_Half at, char *buf, size_t len);
/* The DIE a reference attribute names (to dwarf_dealloc_die), or NULL. */
Dwarf_Die sc_dwarf_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at);
/* Call fn on each child of die with its tag, in order, until fn returns
 * non-zero; returns that, or 0.  Each child is freed after its call. */
int sc_dwarf_children(Dwarf_Debug dbg, Dwarf_Die die,
		      int (*fn)(Dwarf_Die child, Dwarf_Half tag, void *arg),
		      void *arg);

#endif
