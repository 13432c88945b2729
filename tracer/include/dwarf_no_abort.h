/* dwarf_no_abort.h - the libdwarf error handler of every DWARF reader
 * (tracer/dwarf_lines.c, tracer/dwarf_inline.c, analysis/symbolizer.c).
 *
 * Without a handler, libdwarf aborts the process on an error whose
 * Dwarf_Error pointer is NULL, as most of the readers' calls pass: one
 * unsupported form in one library's DWARF would kill a job in the middle
 * of a report.  With this one the call returns DW_DLV_ERROR, which the
 * readers take for "not there".  SC_DEBUG_DWARF=1 prints the errors.
 */
#ifndef SCHEDCTL_DWARF_NO_ABORT_H
#define SCHEDCTL_DWARF_NO_ABORT_H

#include <libdwarf.h>

void sc_dwarf_no_abort(Dwarf_Error err, Dwarf_Ptr arg);

#endif
