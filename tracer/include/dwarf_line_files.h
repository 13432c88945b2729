/* dwarf_line_files.h - the source file of a line-table row
 * (tracer/dwarf_line_files.c), for the tracer's and the analyzer's line
 * readers. */
#ifndef SCHEDCTL_DWARF_LINE_FILES_H
#define SCHEDCTL_DWARF_LINE_FILES_H

#include <stdbool.h>

#include <libdwarf.h>

/* A CU's file table as dwarf_srcfiles gives it (full paths), and how the
 * line program numbers it. */
struct sc_dwarf_line_files {
	Dwarf_Debug dbg;
	char **names;
	Dwarf_Signed n;
	Dwarf_Unsigned first;   /* the number of names[0]: 0 in DWARF 5 */
	bool zero_is_one;       /* libdwarf's 0 is the default file, 1 */
};

/* Load cu's file table for a line program of the given version (as
 * dwarf_srclines_b returns it); an empty table when it has none. */
void sc_dwarf_line_files_load(Dwarf_Debug dbg, Dwarf_Die cu,
			      Dwarf_Unsigned line_version,
			      struct sc_dwarf_line_files *f);
/* The file of row line, or NULL. */
const char *sc_dwarf_line_file(const struct sc_dwarf_line_files *f,
			       Dwarf_Line line);
void sc_dwarf_line_files_free(struct sc_dwarf_line_files *f);

#endif
