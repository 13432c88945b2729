/* dwarf_line_files.c - the source file of a line-table row.
 *
 * libdwarf 20210528 (Debian 12) names a row's file with dwarf_linesrc as
 * if every line program numbered its files from 1, as DWARF 4 does.
 * DWARF 5 numbers them from 0 (entry 0 is the CU's primary file), and a
 * sequence that never sets the file register keeps its default, 1: g++
 * -O0 emits each inline function of a header (std::mutex's
 * __gthread_mutex_lock in gthr-default.h) as such a sequence, and
 * libdwarf reports it as file 0, the program's own file, at the header's
 * line number (cxx_dl.cc:749 in a 22-line file; readelf and elfutils
 * say gthr-default.h:749).  So the row's file number
 * (dwarf_line_srcfileno) indexes dwarf_srcfiles' list here, by the
 * version's own numbering, as the DWARF reader of inline calls does for
 * DW_AT_call_file; and in a DWARF 5 unit that GCC produced, which never
 * sets the file register to 0 (it names its primary file again as a
 * later entry), a 0 is the register's default, 1.
 */
#include <string.h>

#include <dwarf.h>

#include "dwarf_line_files.h"

void sc_dwarf_line_files_load(Dwarf_Debug dbg, Dwarf_Die cu,
			      Dwarf_Unsigned line_version,
			      struct sc_dwarf_line_files *f)
{
	memset(f, 0, sizeof(*f));
	f->dbg = dbg;
	f->first = line_version >= 5 ? 0 : 1;
	char *producer = NULL;
	if (line_version >= 5 &&
	    dwarf_die_text(cu, DW_AT_producer, &producer, NULL) == DW_DLV_OK) {
		f->zero_is_one = strncmp(producer, "GNU ", 4) == 0;
		dwarf_dealloc(dbg, producer, DW_DLA_STRING);
	}
	if (dwarf_srcfiles(cu, &f->names, &f->n, NULL) != DW_DLV_OK) {
		f->names = NULL;
		f->n = 0;
	}
}

const char *sc_dwarf_line_file(const struct sc_dwarf_line_files *f,
			       Dwarf_Line line)
{
	Dwarf_Unsigned no;

	if (dwarf_line_srcfileno(line, &no, NULL) != DW_DLV_OK)
		return NULL;
	if (no == 0 && f->zero_is_one)
		no = 1;
	if (no < f->first)
		return NULL;
	no -= f->first;
	return no < (Dwarf_Unsigned)f->n ? f->names[no] : NULL;
}

void sc_dwarf_line_files_free(struct sc_dwarf_line_files *f)
{
	for (Dwarf_Signed i = 0; i < f->n; i++)
		dwarf_dealloc(f->dbg, f->names[i], DW_DLA_STRING);
	if (f->names)
		dwarf_dealloc(f->dbg, f->names, DW_DLA_LIST);
	memset(f, 0, sizeof(*f));
}
