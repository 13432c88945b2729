/* mem_instrument.c - a breakpoint on every instruction of the chosen
 * modules that touches non-stack memory (`--granularity mem`), or only on
 * the atomic read-modify-writes (sync granularity: the locks of runtimes
 * that never call pthread are made of them).
 *
 * Chosen modules at mem: the main executable (unless it is a system
 * program that the user did not name: a script's interpreter, a shell or
 * a language runtime, a tool a test script runs; sc_exe_is_own), plus
 * shared objects named
 * with --instrument (matched against the start of the file name),
 * optionally limited to the instructions of some source files
 * (--instrument-source, through the DWARF line tables).  For the atomics:
 * the main executable and every shared object outside the system's library
 * directories.  In both, a static binary of a known runtime (Go) is
 * limited to the program's own functions (own_code.c).  Runs when the
 * target reaches its entry point, so shared objects are mapped by then.
 * The int3s of a module are written with one read and one write of its
 * text.
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct site_vec {
	struct sc_mem_site *v;
	size_t n, cap;
};

static int push_site(struct site_vec *s, uint64_t addr,
		     const struct sc_mem_insn *m)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct sc_mem_site *nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n].addr = addr;
	s->v[s->n].insn = *m;
	s->n++;
	return 0;
}

static bool skipped_section(const char *name)
{
	/* PLT stubs read the GOT on every library call: not program data. */
	return !name || strncmp(name, ".plt", 4) == 0 || strcmp(name, ".init") == 0;
}

/* fp: the functions that keep a frame pointer, sorted (NULL: all do).
 * only: the instructions to take (NULL: all); with rmw_anywhere, atomic
 * read-modify-writes are taken outside it too. */
static void scan_section(csh cs, const uint8_t *code, size_t size,
			 uint64_t vaddr, const struct sc_addr_ranges *only,
			 bool rmw_anywhere, const struct sc_addr_ranges *fp,
			 enum sc_sites which, struct site_vec *out)
{
	cs_insn *in = cs_malloc(cs);
	const uint8_t *p = code;
	uint64_t a = vaddr;
	struct sc_mem_insn m;
	size_t k = 0;       /* fp: the first function not ending before a */

	if (!in)
		return;
	while (size > 0) {
		if (!cs_disasm_iter(cs, &p, &size, &a, in)) {
			/* An AVX instruction Capstone does not know: over it
			 * whole.  Data in text or another unknown opcode:
			 * resync a byte on. */
			size_t skip = sc_undecoded_length(p, size);
			p += skip;
			size -= skip;
			a += skip;
			continue;
		}
		bool outside = only && !sc_addr_ranges_contain(only, in->address);
		if (outside && !rmw_anywhere)
			continue;
		while (fp && k < fp->n && fp->v[k].hi <= in->address)
			k++;
		bool rbp_frame = !fp || (k < fp->n &&
					 fp->v[k].lo <= in->address);
		if (sc_mem_describe(in, rbp_frame ? SC_STACK_RSP_RBP
						  : SC_STACK_RSP, &m) &&
		    (which == SC_SITES_MEMORY || m.access == SC_ACC_RMW) &&
		    (!outside || m.access == SC_ACC_RMW))
			push_site(out, in->address, &m);
	}
	cs_free(in, 1);
}

/* Scan the parts of section [vaddr, vaddr + size) that lie in the ranges
 * (sorted or not): a Go binary's main functions are a sliver of its text,
 * and disassembling only them keeps a 2 MB runtime out of the way. */
static void scan_ranges(csh cs, const uint8_t *code, size_t size,
			uint64_t vaddr, const struct sc_addr_ranges *r,
			enum sc_sites which, struct site_vec *out)
{
	for (size_t i = 0; i < r->n; i++) {
		uint64_t lo = r->v[i].lo > vaddr ? r->v[i].lo : vaddr;
		uint64_t hi = r->v[i].hi < vaddr + size ? r->v[i].hi
							: vaddr + size;
		if (lo < hi)
			scan_section(cs, code + (lo - vaddr), hi - lo, lo, NULL,
				     false, NULL, which, out);
	}
}

/* Decode path's text: its sites, at addresses relative to the load bias
 * (*dyn: the module is position independent, the bias is its base). */
static int decode_module(struct sc_engine *e, const char *path,
			 enum sc_sites which, struct site_vec *out,
			 enum sc_runtime *rt_out, bool *dyn)
{
	const char *const *sources = e->cfg->instrument_sources;
	struct sc_addr_ranges only = { 0 }, own = { 0 }, fp = { 0 };
	bool fp_known = false;
	bool filtered = which == SC_SITES_MEMORY && sources && sources[0];
	csh cs;

	if (filtered && sc_dwarf_source_ranges(path, sources, &only) < 0)
		return -1;
	/* Rules 3: Rust's standard library, linked into the executable,
	 * is the runtime, not the program: a panic's formatting and
	 * unwinding took the whole 100000-event budget of a race pilot run
	 * (QA: 18 s for a session that found its bug in 2 s at sync).
	 * Its atomics stay: Rust's locks are made of them. */
	bool rust = !filtered && which == SC_SITES_MEMORY &&
		    e->cfg->mem_sites >= 3 &&
		    sc_dwarf_rust_own_ranges(path, e->cfg->mem_sites >= 6,
					     &only) == 1;
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sc_addr_ranges_free(&only);
		return -1;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		if (elf)
			elf_end(elf);
		close(fd);
		sc_addr_ranges_free(&only);
		return -1;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	enum sc_runtime rt = sc_own_code(elf, &own);
	*rt_out = rt;
	/* Rules 1: rbp is the frame pointer only in the functions that
	 * set it up (frame_functions.c); rules 0 (older traces): always. */
	if (e->cfg->mem_sites >= 1 && sc_frame_functions(elf, &fp, &fp_known) < 0)
		fp_known = false;
	*dyn = eh.e_type == ET_DYN;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (skipped_section(elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		if (rt == SC_RUNTIME_GO)
			scan_ranges(cs, d->d_buf, d->d_size, sh.sh_addr, &own,
				    which, out);
		else if (rt == SC_RUNTIME_NONE)
			scan_section(cs, d->d_buf, d->d_size, sh.sh_addr,
				     filtered || rust ? &only : NULL, rust,
				     fp_known ? &fp : NULL, which, out);
		/* A stripped Go binary: nothing is known to be the
		 * program's own, so nothing is instrumented. */
	}
	cs_close(&cs);
	elf_end(elf);
	close(fd);
	sc_addr_ranges_free(&only);
	sc_addr_ranges_free(&own);
	sc_addr_ranges_free(&fp);
	return 0;
}

/* out gets the sites of the module at path loaded at base: decoded once
 * per job process (site_cache.c), then copied. */
static int scan_module(struct sc_engine *e, const char *path, uint64_t base,
		       enum sc_sites which, struct site_vec *out)
{
	struct sc_module_sites m = { .rt = SC_RUNTIME_NONE };
	struct sc_site_key key;
	size_t first = out->n;
	bool have_key = sc_site_key_of(path, which, e->cfg->mem_sites,
				       e->cfg->instrument_sources, &key) == 0;

	if (have_key && sc_site_cache_get(&key, &m)) {
		for (size_t i = 0; i < m.n; i++)
			if (push_site(out, m.v[i].addr, &m.v[i].insn) < 0)
				return -1;
	} else {
		if (decode_module(e, path, which, out, &m.rt, &m.dyn) < 0)
			return -1;
		m.v = out->v + first;
		m.n = out->n - first;
		if (have_key)
			sc_site_cache_put(&key, &m);
	}
	for (size_t i = first; m.dyn && i < out->n; i++)
		out->v[i].addr += base;
	if (m.rt != SC_RUNTIME_NONE)
		sc_note_runtime(e, m.rt, path);
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct sc_mem_site *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Turn the collected sites into breakpoints of p, writing the int3s. */
static int plant_sites(struct sc_engine *e, struct sc_process *p,
		       struct site_vec *s)
{
	if (s->n == 0)
		return 0;
	qsort(s->v, s->n, sizeof(*s->v), cmp_site);
	struct sc_mem_insn *table = malloc(s->n * sizeof(*table));
	struct sc_mem_insn **nt = realloc(e->mem_tables,
					  (e->nmem_tables + 1) * sizeof(*nt));
	if (!table || !nt) {
		free(table);
		if (nt)
			e->mem_tables = nt;
		return -1;
	}
	e->mem_tables = nt;
	e->mem_tables[e->nmem_tables++] = table;
	for (size_t i = 0; i < s->n; i++)
		table[i] = s->v[i].insn;
	return sc_bp_add_mem(p, s->v[0].addr, s->v[s->n - 1].addr + 1, s->n,
			     &s->v[0].addr, sizeof(s->v[0]), table);
}

struct own_libs {
	struct sc_engine *e;
	struct sc_process *p;
	const char *exe;
	struct site_vec *sites;
	enum sc_sites which;
	int planted;
};

/* One mapping of p: if it is the start of a shared object of the program's
 * own (not the executable, not a system library), plant its sites. */
static int plant_own_library(const struct sc_map_entry *m, void *arg)
{
	struct own_libs *a = arg;

	if (m->offset != 0 || strcmp(m->path, a->exe) == 0 ||
	    sc_system_library(m->path) || sc_runtime_library(a->exe, m->path))
		return 0;
	a->sites->n = 0;
	if (scan_module(a->e, m->path, m->start, a->which, a->sites) == 0 &&
	    plant_sites(a->e, a->p, a->sites) == 0)
		a->planted += (int)a->sites->n;
	return 0;
}

int sc_plant_mem_breakpoints(struct sc_engine *e, struct sc_process *p,
			     enum sc_sites which)
{
	struct site_vec sites = { 0 };
	char exe[PATH_MAX], link[64], path[4096];
	uint64_t base;
	int planted = 0;

	/* One reading of the maps for all the lookups below. */
	bool held = sc_maps_hold(p->pid) == 0;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)p->pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	/* A script's shell, python running the user's code, cat or sed
	 * started by a test script: not the program's code.  Instrumenting
	 * bash at mem granularity made each run of a script-started test
	 * take seconds. */
	if (n > 0 && sc_exe_is_own(e, p, exe) &&
	    sc_maps_find_module(p->pid, exe, NULL, path, sizeof(path),
				&base) == 0) {
		scan_module(e, path, base, which, &sites);
		planted += plant_sites(e, p, &sites) == 0 ? (int)sites.n : 0;
	}
	/* The atomics of every library of the program's own; at mem, its
	 * memory accesses with own_libraries (race granularity's pilot). */
	if (which == SC_SITES_ATOMIC || e->cfg->own_libraries) {
		struct own_libs a = { e, p, exe, &sites, which, 0 };
		sc_maps_foreach(p->pid, plant_own_library, &a);
		planted += a.planted;
	}
	for (const char *const *m = e->cfg->instrument_modules;
	     which == SC_SITES_MEMORY && m && *m; m++) {
		sites.n = 0;
		const char *prefix[] = { *m, NULL };
		if (sc_maps_find_module(p->pid, NULL, prefix, path, sizeof(path),
					&base) < 0)
			continue;
		scan_module(e, path, base, which, &sites);
		planted += plant_sites(e, p, &sites) == 0 ? (int)sites.n : 0;
	}
	free(sites.v);
	if (held)
		sc_maps_release();
	return planted;
}

void sc_mem_instrument_free(struct sc_engine *e)
{
	for (size_t i = 0; i < e->nmem_tables; i++)
		free(e->mem_tables[i]);
	free(e->mem_tables);
	e->mem_tables = NULL;
	e->nmem_tables = 0;
}
