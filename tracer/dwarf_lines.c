/* dwarf_lines.c - which code addresses of a module come from given source
 * files (--instrument-source), from the DWARF line tables via libdwarf.
 *
 * A source matches when the line table's file name equals it or ends with
 * "/" + it, so "deque.c" and "src/deque.c" both work.
 */
#include <dwarf.h>
#include <libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_line_files.h"
#include "dwarf_no_abort.h"
#include "internal.h"

static bool source_matches(const char *file, const char *const *sources)
{
	size_t fl = strlen(file);

	for (const char *const *s = sources; *s; s++) {
		size_t sl = strlen(*s);
		if (strcmp(file, *s) == 0)
			return true;
		if (fl > sl && file[fl - sl - 1] == '/' &&
		    strcmp(file + fl - sl, *s) == 0)
			return true;
	}
	return false;
}

/* Rows of one CU's line table: [addr_i, addr_i+1) belongs to file_i. */
static void cu_ranges(Dwarf_Debug dbg, Dwarf_Die cu,
		      const char *const *sources, struct sc_addr_ranges *out)
{
	struct sc_dwarf_line_files files;
	Dwarf_Unsigned version;
	Dwarf_Small count;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed n;

	if (dwarf_srclines_b(cu, &version, &count, &ctx, NULL) != DW_DLV_OK)
		return;
	sc_dwarf_line_files_load(dbg, cu, version, &files);
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, NULL) == DW_DLV_OK) {
		for (Dwarf_Signed i = 0; i + 1 < n; i++) {
			Dwarf_Addr a, b;
			Dwarf_Bool end = 0;
			const char *file;
			if (dwarf_lineendsequence(lines[i], &end, NULL) == DW_DLV_OK && end)
				continue;
			if (dwarf_lineaddr(lines[i], &a, NULL) != DW_DLV_OK ||
			    dwarf_lineaddr(lines[i + 1], &b, NULL) != DW_DLV_OK ||
			    !(file = sc_dwarf_line_file(&files, lines[i])))
				continue;
			if (source_matches(file, sources))
				sc_addr_ranges_push(out, a, b);
		}
	}
	sc_dwarf_line_files_free(&files);
	dwarf_srclines_dealloc_b(ctx);
}

/* Call fn on the compilation-unit DIE of every CU of path's .debug_info.
 * -1 when the file has no DWARF. */
static int for_each_cu(const char *path,
		       void (*fn)(Dwarf_Debug dbg, Dwarf_Die cu, void *arg),
		       void *arg)
{
	Dwarf_Debug dbg;

	if (dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			    sc_dwarf_no_abort, NULL, &dbg, NULL, 0, NULL, NULL) != DW_DLV_OK)
		return -1;
	for (;;) {
		Dwarf_Unsigned next;
		Dwarf_Half cu_type;
		Dwarf_Die cu = NULL;
		if (dwarf_next_cu_header_d(dbg, 1, NULL, NULL, NULL, NULL, NULL,
					   NULL, NULL, NULL, &next, &cu_type,
					   NULL) != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(dbg, NULL, 1, &cu, NULL) != DW_DLV_OK)
			continue;
		fn(dbg, cu, arg);
		dwarf_dealloc_die(cu);
	}
	dwarf_finish(dbg, NULL);
	return 0;
}

struct ranges_arg {
	const char *const *sources;
	struct sc_addr_ranges *out;
};

static void ranges_of_cu(Dwarf_Debug dbg, Dwarf_Die cu, void *arg)
{
	struct ranges_arg *a = arg;
	cu_ranges(dbg, cu, a->sources, a->out);
}

/* Rust's standard library, as the line tables name it: rustup's builds
 * /rustc/COMMIT/library/..., Debian's /usr/src/rustc-VERSION/library/...,
 * rust-src under ~/.rustup/toolchains/. */
static bool rust_library_source(const char *file)
{
	return strncmp(file, "/rustc/", 7) == 0 ||
	       strncmp(file, "/usr/src/rustc-", 15) == 0 ||
	       strstr(file, "/.rustup/toolchains/") != NULL;
}

struct own_arg {
	struct sc_addr_ranges *out;
	bool rust;
};

/* Rows of one CU outside the system's sources into a->out; a->rust once
 * a row of Rust's standard library is seen. */
static void own_rows_of_cu(Dwarf_Debug dbg, Dwarf_Die cu, void *arg)
{
	struct own_arg *a = arg;
	struct sc_dwarf_line_files files;
	Dwarf_Unsigned version;
	Dwarf_Small count;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed n;

	if (dwarf_srclines_b(cu, &version, &count, &ctx, NULL) != DW_DLV_OK)
		return;
	sc_dwarf_line_files_load(dbg, cu, version, &files);
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, NULL) == DW_DLV_OK) {
		for (Dwarf_Signed i = 0; i + 1 < n; i++) {
			Dwarf_Addr lo, hi;
			Dwarf_Bool end = 0;
			const char *file;
			if (dwarf_lineendsequence(lines[i], &end, NULL) == DW_DLV_OK && end)
				continue;
			if (dwarf_lineaddr(lines[i], &lo, NULL) != DW_DLV_OK ||
			    dwarf_lineaddr(lines[i + 1], &hi, NULL) != DW_DLV_OK ||
			    !(file = sc_dwarf_line_file(&files, lines[i])))
				continue;
			if (rust_library_source(file))
				a->rust = true;
			else if (!sc_system_source(file))
				sc_addr_ranges_push(a->out, lo, hi);
		}
	}
	sc_dwarf_line_files_free(&files);
	dwarf_srclines_dealloc_b(ctx);
}

int sc_dwarf_rust_own_ranges(const char *path, struct sc_addr_ranges *out)
{
	struct own_arg a = { out, false };

	memset(out, 0, sizeof(*out));
	if (for_each_cu(path, own_rows_of_cu, &a) < 0 || !a.rust) {
		sc_addr_ranges_free(out);
		return 0;
	}
	return 1;
}

int sc_dwarf_source_ranges(const char *path, const char *const *sources,
			   struct sc_addr_ranges *out)
{
	struct ranges_arg a = { sources, out };

	memset(out, 0, sizeof(*out));
	/* No debug info: nothing matches. */
	return for_each_cu(path, ranges_of_cu, &a);
}

/* Best line-table row at or below vaddr in one CU: the row of the
 * instruction containing vaddr. */
static void cu_lookup(Dwarf_Debug dbg, Dwarf_Die cu, uint64_t vaddr,
		      uint64_t *best_addr, char *file, size_t len,
		      unsigned *line, bool *system)
{
	struct sc_dwarf_line_files files;
	Dwarf_Unsigned version;
	Dwarf_Small count;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed n;

	if (dwarf_srclines_b(cu, &version, &count, &ctx, NULL) != DW_DLV_OK)
		return;
	sc_dwarf_line_files_load(dbg, cu, version, &files);
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, NULL) == DW_DLV_OK) {
		for (Dwarf_Signed i = 0; i + 1 < n; i++) {
			Dwarf_Addr a, b;
			Dwarf_Bool end = 0;
			Dwarf_Unsigned ln;
			const char *src;
			if (dwarf_lineendsequence(lines[i], &end, NULL) == DW_DLV_OK && end)
				continue;
			if (dwarf_lineaddr(lines[i], &a, NULL) != DW_DLV_OK ||
			    dwarf_lineaddr(lines[i + 1], &b, NULL) != DW_DLV_OK ||
			    vaddr < a || vaddr >= b || a < *best_addr)
				continue;
			if (dwarf_lineno(lines[i], &ln, NULL) != DW_DLV_OK ||
			    !(src = sc_dwarf_line_file(&files, lines[i])))
				continue;
			const char *slash = strrchr(src, '/');
			snprintf(file, len, "%s", slash ? slash + 1 : src);
			*system = sc_system_source(src);
			*line = (unsigned)ln;
			*best_addr = a;
		}
	}
	sc_dwarf_line_files_free(&files);
	dwarf_srclines_dealloc_b(ctx);
}

struct line_arg {
	uint64_t vaddr, best;
	char *file;
	size_t len;
	unsigned *line;
	bool *system;
};

static void line_of_cu(Dwarf_Debug dbg, Dwarf_Die cu, void *arg)
{
	struct line_arg *a = arg;
	cu_lookup(dbg, cu, a->vaddr, &a->best, a->file, a->len, a->line,
		  a->system);
}

int sc_dwarf_addr_line(const char *path, uint64_t vaddr, char *file,
		       size_t len, unsigned *line, bool *system)
{
	struct line_arg a = { vaddr, 0, file, len, line, system };

	*line = 0;
	*system = false;
	if (for_each_cu(path, line_of_cu, &a) < 0)
		return -1;
	return *line ? 0 : -1;
}
