/* dwarf_inline.c - the source location of a code address with the calls
 * inlined there, from the DWARF DIE tree via libdwarf.
 *
 * With optimisation, std::mutex::lock() and libstdc++'s
 * __gthread_mutex_lock are inlined into the program's function: the line
 * table names gthr-default.h:749 for the call of pthread_mutex_lock, and
 * the program's own line is only the call site (DW_AT_call_file,
 * DW_AT_call_line) of the DW_TAG_inlined_subroutine that contains the
 * address.  This walks from the compilation unit down through the
 * subprogram, lexical blocks and inlined subroutines whose address ranges
 * (low/high pc, or DW_AT_ranges of DWARF 4 .debug_ranges or DWARF 5
 * .debug_rnglists) contain the address, and collects those call sites.
 *
 * Used when reporting, a few times per report: it opens the file each
 * time, as dwarf_lines.c does.
 */
#include <dwarf.h>
#include <libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "dwarf_attrs.h"
#include "dwarf_inline.h"
#include "dwarf_no_abort.h"

bool sc_system_source(const char *path)
{
	/* C and C++ headers, Rust's standard library (rustup's builds
	 * name its sources /rustc/COMMIT/library/..., Debian's
	 * /usr/src/rustc-VERSION/library/...) and Go's runtime, linked
	 * into the program (Debian's /usr/lib/go-1.19/src/runtime/...,
	 * the upstream tarball's /usr/local/go/src/...): an os.Exit was
	 * located at runtime.exit's assembly, not the program's call. */
	static const char *const dirs[] = {
		"/usr/include/", "/usr/local/include/", "/usr/lib/gcc/",
		"/usr/lib/llvm", "/usr/src/", "/rustc/", "/usr/lib/go",
		"/usr/local/go/",
	};
	/* Anywhere in the path: a home directory's toolchains and crates
	 * (rust-src installed by rustup, cargo's registry of crates, Go
	 * toolchains and modules). */
	static const char *const parts[] = {
		"/.rustup/toolchains/", "/.cargo/registry/src/", "/go/pkg/mod/",
		"/sdk/go",
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(path, parts[i]))
			return true;
	return false;
}

size_t sc_inline_program_level(const struct sc_inline_site *chain, size_t k,
			       bool line_in_system_header)
{
	if (!line_in_system_header)
		return 0;
	for (size_t i = 1; i <= k; i++)
		if (!chain[k - i].call_in_system_header && chain[k - i].call_line)
			return i;
	return SIZE_MAX;
}

struct walk {
	Dwarf_Debug dbg;
	uint64_t vaddr;
	Dwarf_Half version;
	uint64_t cu_base;               /* DWARF 4 range lists are relative */
	char **files;                   /* the CU's file names */
	Dwarf_Signed nfiles;
	struct sc_inline_site *out;
	size_t max, n;
	bool found;                     /* the CU contains vaddr */
};

static bool rnglists_contain(struct walk *w, Dwarf_Attribute attr,
			     Dwarf_Half form)
{
	Dwarf_Unsigned value = 0, count = 0, goff = 0;
	Dwarf_Rnglists_Head head = NULL;
	bool in = false;

	if (form == DW_FORM_rnglistx) {
		if (dwarf_formudata(attr, &value, NULL) != DW_DLV_OK)
			return false;
	} else {
		Dwarf_Off off;
		if (dwarf_global_formref(attr, &off, NULL) != DW_DLV_OK)
			return false;
		value = off;
	}
	if (dwarf_rnglists_get_rle_head(attr, form, value, &head, &count,
					&goff, NULL) != DW_DLV_OK)
		return false;
	for (Dwarf_Unsigned i = 0; i < count && !in; i++) {
		unsigned len = 0, code = 0;
		Dwarf_Unsigned raw1, raw2, lo, hi;
		Dwarf_Bool unavailable = 0;
		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code,
				&raw1, &raw2, &unavailable, &lo, &hi,
				NULL) != DW_DLV_OK)
			break;
		if (code == DW_RLE_end_of_list)
			break;
		if (code == DW_RLE_base_address || code == DW_RLE_base_addressx ||
		    unavailable)
			continue;
		in = w->vaddr >= lo && w->vaddr < hi;
	}
	dwarf_dealloc_rnglists_head(head);
	return in;
}

static bool ranges_contain(struct walk *w, Dwarf_Die die, Dwarf_Attribute attr)
{
	Dwarf_Off off, real;
	Dwarf_Ranges *r = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Unsigned bytes;
	uint64_t base = w->cu_base;
	bool in = false;

	if (dwarf_global_formref(attr, &off, NULL) != DW_DLV_OK ||
	    dwarf_get_ranges_b(w->dbg, off, die, &real, &r, &n, &bytes,
			       NULL) != DW_DLV_OK)
		return false;
	for (Dwarf_Signed i = 0; i < n && !in; i++) {
		if (r[i].dwr_type == DW_RANGES_END)
			break;
		if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
			base = r[i].dwr_addr2;
			continue;
		}
		in = w->vaddr >= base + r[i].dwr_addr1 &&
		     w->vaddr < base + r[i].dwr_addr2;
	}
	dwarf_ranges_dealloc(w->dbg, r, n);
	return in;
}

/* Does die's code contain w->vaddr?  *has_pc says whether it has any. */
static bool die_contains(struct walk *w, Dwarf_Die die, bool *has_pc)
{
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute attr;
	bool in = false;

	*has_pc = false;
	if (dwarf_lowpc(die, &lo, NULL) == DW_DLV_OK &&
	    dwarf_highpc_b(die, &hi, &form, &cls, NULL) == DW_DLV_OK) {
		*has_pc = true;
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		return w->vaddr >= lo && w->vaddr < hi;
	}
	if (dwarf_attr(die, DW_AT_ranges, &attr, NULL) != DW_DLV_OK)
		return false;
	*has_pc = true;
	if (dwarf_whatform(attr, &form, NULL) == DW_DLV_OK) {
		if (form == DW_FORM_rnglistx || w->version >= 5)
			in = rnglists_contain(w, attr, form);
		else
			in = ranges_contain(w, die, attr);
	}
	dwarf_dealloc_attribute(attr);
	return in;
}

/* The name of an inlined subroutine's function: the linkage name
 * demangled (with its class and parameters, as the ELF symbols are
 * shown), else the plain name, on the abstract origin or the declaration
 * it specifies. */
static void origin_name(struct walk *w, Dwarf_Die inl, char *buf, size_t len)
{
	Dwarf_Die d = sc_dwarf_ref(w->dbg, inl, DW_AT_abstract_origin);

	snprintf(buf, len, "??");
	for (int hop = 0; d && hop < 3; hop++) {
		char *s = NULL;
		if (dwarf_die_text(d, DW_AT_linkage_name, &s, NULL) == DW_DLV_OK ||
		    dwarf_die_text(d, DW_AT_MIPS_linkage_name, &s, NULL) == DW_DLV_OK) {
			char *dm = sc_demangle(s);
			sc_name_copy(buf, len, dm ? dm : s);
			free(dm);
			break;
		}
		if (dwarf_diename(d, &s, NULL) == DW_DLV_OK)
			snprintf(buf, len, "%s", s);
		Dwarf_Die next = sc_dwarf_ref(w->dbg, d, DW_AT_specification);
		if (!next)
			next = sc_dwarf_ref(w->dbg, d, DW_AT_abstract_origin);
		dwarf_dealloc_die(d);
		d = next;
	}
	if (d)
		dwarf_dealloc_die(d);
}

static void record_site(struct walk *w, Dwarf_Die inl)
{
	struct sc_inline_site *s;
	Dwarf_Unsigned file = 0, line = 0;
	const char *path = "";

	if (w->n >= w->max)
		return;
	s = &w->out[w->n++];
	memset(s, 0, sizeof(*s));
	origin_name(w, inl, s->function, sizeof(s->function));
	if (sc_dwarf_unsigned(inl, DW_AT_call_file, &file)) {
		/* DWARF 5 numbers the file table from 0, earlier from 1. */
		Dwarf_Signed i = (Dwarf_Signed)file - (w->version >= 5 ? 0 : 1);
		if (i >= 0 && i < w->nfiles)
			path = w->files[i];
	}
	sc_dwarf_unsigned(inl, DW_AT_call_line, &line);
	const char *slash = strrchr(path, '/');
	snprintf(s->call_file, sizeof(s->call_file), "%s",
		 slash ? slash + 1 : path);
	s->call_in_system_header = sc_system_source(path);
	s->call_line = (unsigned)line;
}

/* Descend into the children of die that contain w->vaddr.  nested: die
 * does not contain it itself (a function whose DIE holds a lambda's or a
 * local class's member function, emitted elsewhere: C++ nests their
 * concrete DW_TAG_subprogram inside the enclosing function's, within its
 * lexical blocks), so only the functions nested in it are looked at.
 * True once the function containing w->vaddr has been walked. */
static bool walk_children(struct walk *w, Dwarf_Die die, int depth,
			  bool nested)
{
	Dwarf_Die child = NULL, next;

	if (depth > 64 || dwarf_child(die, &child, NULL) != DW_DLV_OK)
		return false;
	for (; child; child = next) {
		Dwarf_Half tag = 0;
		bool has_pc = false, descend = false, inside = false;
		dwarf_tag(child, &tag, NULL);
		switch (tag) {
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			descend = true;
			break;
		case DW_TAG_subprogram:
			inside = die_contains(w, child, &has_pc);
			descend = true;
			break;
		case DW_TAG_lexical_block:
			inside = !nested && die_contains(w, child, &has_pc);
			descend = inside || nested || !has_pc;
			break;
		case DW_TAG_inlined_subroutine:
			inside = !nested && die_contains(w, child, &has_pc);
			descend = inside;
			break;
		default:
			break;
		}
		if (inside && tag == DW_TAG_inlined_subroutine)
			record_site(w, child);
		/* Below a function or block that does not hold vaddr, only
		 * the functions nested in it are looked at. */
		bool found = descend &&
			     walk_children(w, child, depth + 1, !inside &&
					   (nested || tag == DW_TAG_subprogram ||
					    tag == DW_TAG_lexical_block));
		/* The DIE that contains vaddr (a function, a block, an
		 * inline) holds the whole answer: no sibling does. */
		bool done = found || inside;
		if (done || dwarf_siblingof_b(w->dbg, child, 1, &next,
					      NULL) != DW_DLV_OK)
			next = NULL;
		dwarf_dealloc_die(child);
		if (done)
			return true;
	}
	return false;
}

static void walk_cu(struct walk *w, Dwarf_Die cu)
{
	Dwarf_Half offset_size = 0;
	Dwarf_Addr lo = 0;
	bool has_pc;

	dwarf_get_version_of_die(cu, &w->version, &offset_size);
	w->cu_base = dwarf_lowpc(cu, &lo, NULL) == DW_DLV_OK ? lo : 0;
	bool in = die_contains(w, cu, &has_pc);
	if (!in && has_pc)
		return;
	if (dwarf_srcfiles(cu, &w->files, &w->nfiles, NULL) != DW_DLV_OK) {
		w->files = NULL;
		w->nfiles = 0;
	}
	walk_children(w, cu, 0, false);
	/* Without ranges on the CU, only finding something says it was
	 * the one. */
	if (in || w->n)
		w->found = true;
	for (Dwarf_Signed i = 0; i < w->nfiles; i++)
		dwarf_dealloc(w->dbg, w->files[i], DW_DLA_STRING);
	if (w->files)
		dwarf_dealloc(w->dbg, w->files, DW_DLA_LIST);
	w->files = NULL;
	w->nfiles = 0;
}

void sc_dwarf_no_abort(Dwarf_Error err, Dwarf_Ptr arg)
{
	(void)arg;
	if (getenv("SC_DEBUG_DWARF"))
		fprintf(stderr, "dwarf: %s\n", dwarf_errmsg(err));
}

size_t sc_dwarf_inline_chain(const char *path, uint64_t vaddr,
			     struct sc_inline_site *out, size_t max)
{
	struct walk w = { .vaddr = vaddr, .out = out, .max = max };

	if (dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			    sc_dwarf_no_abort, NULL, &w.dbg, NULL, 0, NULL,
			    NULL) != DW_DLV_OK)
		return 0;
	while (!w.found) {
		Dwarf_Unsigned next;
		Dwarf_Half cu_type;
		Dwarf_Die cu = NULL;
		if (dwarf_next_cu_header_d(w.dbg, 1, NULL, NULL, NULL, NULL,
					   NULL, NULL, NULL, NULL, &next,
					   &cu_type, NULL) != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(w.dbg, NULL, 1, &cu, NULL) != DW_DLV_OK)
			continue;
		walk_cu(&w, cu);
		dwarf_dealloc_die(cu);
	}
	dwarf_finish(w.dbg, NULL);
	return w.n;
}
