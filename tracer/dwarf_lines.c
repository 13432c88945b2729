/* dwarf_lines.c - which code addresses of a module come from given source
 * files (--instrument-source), from the DWARF line tables via libdwarf.
 *
 * A source matches when the line table's file name equals it or ends with
 * "/" + it, so "deque.c" and "src/deque.c" both work.
 */
#include <dwarf.h>
#include <libdwarf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_attrs.h"
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

/* Call fn on each row of one CU's line table that names its file:
 * [lo, hi) belongs to file (the row, for its line number). */
typedef void row_fn(Dwarf_Line row, uint64_t lo, uint64_t hi,
		    const char *file, void *arg);

static void for_each_row(Dwarf_Debug dbg, Dwarf_Die cu, row_fn *fn, void *arg)
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
			fn(lines[i], a, b, file, arg);
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

static void source_row(Dwarf_Line row, uint64_t lo, uint64_t hi,
		       const char *file, void *arg)
{
	struct ranges_arg *a = arg;

	(void)row;
	if (source_matches(file, a->sources))
		sc_addr_ranges_push(a->out, lo, hi);
}

static void ranges_of_cu(Dwarf_Debug dbg, Dwarf_Die cu, void *arg)
{
	for_each_row(dbg, cu, source_row, arg);
}

/* Rust's standard library, as the line tables name it: rustup's builds
 * /rustc/COMMIT/library/... and the crates it is built with (gimli,
 * addr2line, hashbrown...) /rust/deps/..., Debian's
 * /usr/src/rustc-VERSION/library/... and .../vendor/..., rust-src under
 * ~/.rustup/toolchains/.  (QA: with RUST_BACKTRACE=1 a panicking run at
 * mem granularity made 4.6 million events in gimli's line-table parser,
 * taken for the program's own code.) */
static bool rust_library_source(const char *file, bool rules6)
{
	return strncmp(file, "/rustc/", 7) == 0 ||
	       (rules6 && strncmp(file, "/rust/deps/", 11) == 0) ||
	       strncmp(file, "/usr/src/rustc-", 15) == 0 ||
	       strstr(file, "/.rustup/toolchains/") != NULL;
}

struct own_arg {
	struct sc_addr_ranges *out;
	bool rust;
	bool inlined_library;   /* rules 6 */
	bool user_cu;           /* the CU being read is the program's */
};

/* A row outside the system's sources into a->out; a->rust once a row
 * of Rust's standard library is seen.  With a->inlined_library, the
 * library's rows in a compilation unit of the program's own crate are
 * the program's too: code inlined or instantiated there on its behalf
 * (an AtomicBool's load and store, ptr::read_volatile: QA, a Relaxed
 * check-then-act whose movs the line table gives to atomic.rs was never
 * a scheduling point, 0 of 300 runs at any granularity). */
static void own_row(Dwarf_Line row, uint64_t lo, uint64_t hi,
		    const char *file, void *arg)
{
	struct own_arg *a = arg;

	(void)row;
	if (rust_library_source(file, a->inlined_library)) {
		a->rust = true;
		if (a->inlined_library && a->user_cu)
			sc_addr_ranges_push(a->out, lo, hi);
	} else if (!sc_system_source(file)) {
		sc_addr_ranges_push(a->out, lo, hi);
	}
}

static void own_rows_of_cu(Dwarf_Debug dbg, Dwarf_Die cu, void *arg)
{
	struct own_arg *a = arg;
	char name[PATH_MAX], dir[PATH_MAX];

	/* rustc names a crate's units after its root source file
	 * ("/src/main.rs/@/crate.HASH-cgu.0") in the directory it was
	 * built in; the standard library's after its own, under /rustc/,
	 * or relative ("library/std/src/lib.rs/@/std...") to Debian's
	 * /usr/src/rustc-VERSION (and its vendor/ crates). */
	if (!sc_dwarf_string(cu, DW_AT_comp_dir, dir, sizeof(dir)))
		dir[0] = '\0';
	a->user_cu = sc_dwarf_string(cu, DW_AT_name, name, sizeof(name)) &&
		     !rust_library_source(name, true) &&
		     !sc_system_source(name) &&
		     !rust_library_source(dir, true) && !sc_system_source(dir);
	for_each_row(dbg, cu, own_row, arg);
}

int sc_dwarf_rust_own_ranges(const char *path, bool inlined_library,
			     struct sc_addr_ranges *out)
{
	struct own_arg a = { out, false, inlined_library, false };

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

struct line_arg {
	uint64_t vaddr, best;
	char *file;
	size_t len;
	unsigned *line;
	bool *system;
};

/* The best row so far at or below vaddr: the row of the instruction
 * containing vaddr. */
static void line_row(Dwarf_Line row, uint64_t lo, uint64_t hi,
		     const char *file, void *arg)
{
	struct line_arg *a = arg;
	Dwarf_Unsigned ln;

	if (a->vaddr < lo || a->vaddr >= hi || lo < a->best ||
	    dwarf_lineno(row, &ln, NULL) != DW_DLV_OK)
		return;
	const char *slash = strrchr(file, '/');
	snprintf(a->file, a->len, "%s", slash ? slash + 1 : file);
	*a->system = sc_system_source(file);
	*a->line = (unsigned)ln;
	a->best = lo;
}

static void line_of_cu(Dwarf_Debug dbg, Dwarf_Die cu, void *arg)
{
	for_each_row(dbg, cu, line_row, arg);
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
