/*
 * symbolizer.c - program counters and data addresses to names: file:line
 * through the DWARF line tables (libdwarf), function and variable names
 * through the ELF symbol table (libelf), "module+0xOFFSET" without debug
 * information.
 *
 * The module map of the trace says where each object was loaded; the
 * address inside the file is pc - bias, bias = load address minus the
 * page-aligned p_vaddr of the first PT_LOAD segment (0 for non-PIE
 * executables, the load address for PIE and shared objects).  Modules are
 * read once, lazily; answers are cached per (module map, address).
 *
 * Code inlined from a system header (std::vector::push_back,
 * std::mutex::lock at -O2) is named where the program called it: the
 * innermost call site of the inlined calls there (dwarf_inline.h) that
 * is not itself in a system header, with the function it is in.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "analysis.h"
#include "atomic_vars.h"
#include "demangle.h"
#include "dwarf_inline.h"
#include "dwarf_line_files.h"
#include "dwarf_no_abort.h"
#include "elf_symbols.h"
#include "u64map.h"

struct line_row {
	uint64_t addr;
	uint32_t line;
	uint32_t file;          /* index into files, UINT32_MAX: end of sequence */
	uint32_t seq;           /* position in the line table */
};

struct sym {
	uint64_t addr, size;
	char *name;
};

struct module_info {
	char *path;
	bool loaded;            /* opened (successfully or not) */
	uint64_t first_vaddr;   /* page-aligned p_vaddr of the first PT_LOAD */
	struct line_row *rows;
	size_t nrows;
	char **files;
	size_t nfiles;
	struct sym *funcs, *objs;
	size_t nfuncs, nobjs;
	/* Its static data declared atomic, read when first asked for; a
	 * pointer of its own, stable when mods grows. */
	struct sc_addr_ranges *atomics;
};

struct cached {
	char *location;
	char *function;
	const char *system_file;        /* a module_info's file name */
	bool has_line;
	bool in_program;
};

struct sc_symbolizer {
	struct module_info *mods;
	size_t nmods;
	struct u64map cache;    /* (map hash, kind, address) -> entries */
	struct cached *entries;
	size_t nentries, capentries;
};

struct sc_symbolizer *sc_symbolizer_new(void)
{
	struct sc_symbolizer *s = calloc(1, sizeof(*s));
	if (s)
		u64map_init(&s->cache);
	return s;
}

static void free_syms(struct sym *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

void sc_symbolizer_free(struct sc_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods; i++) {
		struct module_info *m = &s->mods[i];
		free(m->path);
		free(m->rows);
		for (size_t j = 0; j < m->nfiles; j++)
			free(m->files[j]);
		free(m->files);
		free_syms(m->funcs, m->nfuncs);
		free_syms(m->objs, m->nobjs);
		if (m->atomics) {
			sc_addr_ranges_free(m->atomics);
			free(m->atomics);
		}
	}
	free(s->mods);
	for (size_t i = 0; i < s->nentries; i++) {
		free(s->entries[i].location);
		free(s->entries[i].function);
	}
	free(s->entries);
	u64map_free(&s->cache);
	free(s);
}

static int cmp_row(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address, an end of sequence sorts first (the row that
	 * starts the next sequence there wins), then the table's order: the
	 * last row at an address is the one that describes it. */
	int e = (x->file != UINT32_MAX) - (y->file != UINT32_MAX);
	if (e)
		return e;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static uint32_t intern_file(struct module_info *m, const char *name)
{
	/* Few files per module: a linear search from the end (rows of one
	 * file come together) is fast enough. */
	for (size_t i = m->nfiles; i-- > 0;)
		if (strcmp(m->files[i], name) == 0)
			return (uint32_t)i;
	char **p = realloc(m->files, (m->nfiles + 1) * sizeof(*p));
	if (!p)
		return UINT32_MAX;
	m->files = p;
	m->files[m->nfiles] = strdup(name);
	if (!m->files[m->nfiles])
		return UINT32_MAX;
	return (uint32_t)m->nfiles++;
}

static int add_row(struct module_info *m, size_t *cap, struct line_row r)
{
	if (m->nrows == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		void *p = realloc(m->rows, c * sizeof(*m->rows));
		if (!p)
			return -1;
		m->rows = p;
		*cap = c;
	}
	m->rows[m->nrows++] = r;
	return 0;
}

/* The line rows of one compilation unit. */
static void read_cu_lines(Dwarf_Debug dbg, Dwarf_Die cu, struct module_info *m,
			  size_t *cap)
{
	Dwarf_Unsigned version;
	Dwarf_Small count;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed n;
	Dwarf_Error err = NULL;

	if (dwarf_srclines_b(cu, &version, &count, &ctx, &err) != DW_DLV_OK) {
		if (err)
			dwarf_dealloc_error(dbg, err);
		return;
	}
	struct sc_dwarf_line_files files;
	sc_dwarf_line_files_load(dbg, cu, version, &files);
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &err) == DW_DLV_OK) {
		for (Dwarf_Signed i = 0; i < n; i++) {
			Dwarf_Addr addr;
			Dwarf_Unsigned lineno;
			Dwarf_Bool end = 0;
			const char *src;
			if (dwarf_lineaddr(lines[i], &addr, NULL) != DW_DLV_OK ||
			    dwarf_lineno(lines[i], &lineno, NULL) != DW_DLV_OK)
				continue;
			dwarf_lineendsequence(lines[i], &end, NULL);
			uint32_t file = UINT32_MAX;
			if (!end && (src = sc_dwarf_line_file(&files, lines[i]))) {
				file = intern_file(m, src);
				if (file == UINT32_MAX)
					continue;
			}
			if (!end && file == UINT32_MAX)
				continue;
			if (add_row(m, cap, (struct line_row){ addr,
				    (uint32_t)lineno, file,
				    (uint32_t)m->nrows }) < 0)
				break;
		}
	} else if (err) {
		dwarf_dealloc_error(dbg, err);
	}
	sc_dwarf_line_files_free(&files);
	dwarf_srclines_dealloc_b(ctx);
}

static void read_lines(struct module_info *m)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error err = NULL;
	size_t cap = 0;

	if (dwarf_init_path(m->path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			    sc_dwarf_no_abort, NULL, &dbg, NULL, 0, NULL, &err) != DW_DLV_OK) {
		if (err)
			dwarf_dealloc_error(dbg, err);
		return;
	}
	for (;;) {
		Dwarf_Unsigned next;
		Dwarf_Half cu_type;
		Dwarf_Die cu = NULL;
		int r = dwarf_next_cu_header_d(dbg, 1, NULL, NULL, NULL, NULL,
					       NULL, NULL, NULL, NULL, &next,
					       &cu_type, &err);
		if (r != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &err) == DW_DLV_OK) {
			read_cu_lines(dbg, cu, m, &cap);
			dwarf_dealloc_die(cu);
		} else if (err) {
			dwarf_dealloc_error(dbg, err);
			err = NULL;
		}
	}
	if (err)
		dwarf_dealloc_error(dbg, err);
	dwarf_finish(dbg, NULL);
	qsort(m->rows, m->nrows, sizeof(*m->rows), cmp_row);
}

static int add_sym(struct sym **v, size_t *n, size_t *cap, uint64_t addr,
		   uint64_t size, const char *name)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		void *p = realloc(*v, c * sizeof(**v));
		if (!p)
			return -1;
		*v = p;
		*cap = c;
	}
	char *copy = strdup(name);
	if (!copy)
		return -1;
	(*v)[(*n)++] = (struct sym){ addr, size, copy };
	return 0;
}

struct sym_walk {
	struct module_info *m;
	size_t capf, capo;
};

/* sc_elf_symbols: functions and variables with a name. */
static int add_symbol(const GElf_Sym *s, const char *name, void *arg)
{
	struct sym_walk *w = arg;
	int type = GELF_ST_TYPE(s->st_info);

	if ((type != STT_FUNC && type != STT_OBJECT) || !name || !*name)
		return 0;
	if (type == STT_FUNC)
		return add_sym(&w->m->funcs, &w->m->nfuncs, &w->capf,
			       s->st_value, s->st_size, name) == 0;
	return add_sym(&w->m->objs, &w->m->nobjs, &w->capo, s->st_value,
		       s->st_size, name) == 0;
}

/* Symbols of one table (SHT_SYMTAB, else SHT_DYNSYM) and the first
 * PT_LOAD address. */
static void read_elf(struct module_info *m)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t phnum = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	if (elf_getphdrnum(elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				m->first_vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
				break;
			}
		}
	}
	struct sym_walk w = { m, 0, 0 };
	sc_elf_symbols(elf, add_symbol, &w);
	qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), cmp_sym);
	qsort(m->objs, m->nobjs, sizeof(*m->objs), cmp_sym);
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

static struct module_info *module(struct sc_symbolizer *s, const char *path)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (strcmp(s->mods[i].path, path) == 0)
			return &s->mods[i];
	void *p = realloc(s->mods, (s->nmods + 1) * sizeof(*s->mods));
	if (!p)
		return NULL;
	s->mods = p;
	struct module_info *m = &s->mods[s->nmods];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return NULL;
	s->nmods++;
	if (elf_version(EV_CURRENT) != EV_NONE) {
		read_elf(m);
		read_lines(m);
	}
	m->loaded = true;
	return m;
}

static const struct line_row *find_row(const struct module_info *m,
				       uint64_t addr)
{
	size_t lo = 0, hi = m->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || m->rows[lo - 1].file == UINT32_MAX)
		return NULL;
	return &m->rows[lo - 1];
}

static const struct sym *find_sym(const struct sym *v, size_t n,
				  uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *s = &v[lo - 1];
	if (addr - s->addr < (s->size ? s->size : 1))
		return s;
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static uint64_t map_hash(const struct sc_trace_module *mods, size_t n)
{
	uint64_t h = 0x243f6a8885a308d3ULL;
	for (size_t i = 0; i < n; i++) {
		for (const char *c = mods[i].path; c && *c; c++)
			h = (h ^ (uint8_t)*c) * 0x100000001b3ULL;
		h = u64_mix(h ^ mods[i].load_address ^ mods[i].size);
	}
	return h;
}

/* Code from a system header at vaddr: "file:line" of the innermost call
 * site in the program's own source among the calls inlined there, and
 * *function (replaced, malloc'd) the function that call is in.  False
 * when there is none. */
static bool program_site(const char *path, uint64_t vaddr, char *buf,
			 size_t len, char **function)
{
	struct sc_inline_site chain[SC_INLINE_DEPTH];
	size_t k = sc_dwarf_inline_chain(path, vaddr, chain, SC_INLINE_DEPTH);
	size_t level = sc_inline_program_level(chain, k, true);

	if (level == SIZE_MAX)
		return false;
	/* Level `level` is chain[k - level]'s call site, in the function of
	 * chain[k - level - 1] (the real one, already *function, for the
	 * outermost). */
	snprintf(buf, len, "%s:%u", chain[k - level].call_file,
		 chain[k - level].call_line);
	if (level < k) {
		char *fn = strdup(chain[k - level - 1].function);
		if (fn) {
			free(*function);
			*function = fn;
		}
	}
	return true;
}

/* Compute the answer for addr (data: a variable rather than code). */
static int lookup(struct sc_symbolizer *s, const struct sc_trace_module *mods,
		  size_t nmods, uint64_t addr, bool data, struct cached *out)
{
	char buf[4096];
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nmods; i++) {
		const struct sc_trace_module *tm = &mods[i];
		if (!tm->path || addr < tm->load_address ||
		    addr - tm->load_address >= tm->size)
			continue;
		struct module_info *m = module(s, tm->path);
		if (!m)
			return -1;
		uint64_t vaddr = addr - tm->load_address + m->first_vaddr;
		const struct sym *f = data ? find_sym(m->objs, m->nobjs, vaddr)
					   : find_sym(m->funcs, m->nfuncs, vaddr);
		const struct line_row *r = data ? NULL : find_row(m, vaddr);
		/* Demangled here, once per address (resolve() caches), not
		 * for every symbol of a large C++ module in read_elf(). */
		char *name = f ? sc_demangle(f->name) : NULL;
		if (f && !name)
			return -1;
		if (data && f && vaddr != f->addr)
			snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, name,
				 vaddr - f->addr);
		else if (data && f)
			snprintf(buf, sizeof(buf), "%s", name);
		else if (r && sc_system_source(m->files[r->file]) &&
			 program_site(m->path, vaddr, buf, sizeof(buf), &name))
			out->in_program = true; /* the program's line that the
						 * header's code serves */
		else if (r) {
			snprintf(buf, sizeof(buf), "%s:%u",
				 base_name(m->files[r->file]), r->line);
			out->in_program = !sc_system_source(m->files[r->file]);
		} else
			snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
				 base_name(tm->path), vaddr);
		out->has_line = r != NULL;
		if (r && sc_system_source(m->files[r->file]))
			out->system_file = m->files[r->file];
		out->location = strdup(buf);
		out->function = strdup(!data && f ? name : "");
		free(name);
		return out->location && out->function ? 0 : -1;
	}
	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	out->location = strdup(buf);
	out->function = strdup("");
	return out->location && out->function ? 0 : -1;
}

static int resolve(struct sc_symbolizer *s, const struct sc_trace_module *mods,
		   size_t nmods, uint64_t addr, bool data,
		   struct sc_symbol *out)
{
	/* Hashing the map each time (a few hundred bytes) is cheaper than
	 * the alternatives' risk: a freed map's address may be reused. */
	uint64_t key = u64_mix(map_hash(mods, nmods) ^ (data ? 0x5bd1e995ULL : 0))
		       ^ addr;
	int added;
	int64_t k = u64map_get_or_add(&s->cache, key, (uint32_t)s->nentries,
				      &added);
	if (k < 0)
		return -1;
	if (added) {
		if (s->nentries == s->capentries) {
			size_t c = s->capentries ? s->capentries * 2 : 64;
			void *p = realloc(s->entries, c * sizeof(*s->entries));
			if (!p)
				return -1;
			s->entries = p;
			s->capentries = c;
		}
		struct cached *c = &s->entries[s->nentries];
		if (lookup(s, mods, nmods, addr, data, c) < 0) {
			free(c->location);
			free(c->function);
			/* The slot stays in the map: give it a valid entry. */
			c->location = NULL;
			c->function = NULL;
		}
		s->nentries++;
	}
	const struct cached *c = &s->entries[k];
	out->location = c->location ? c->location : "?";
	out->function = c->function ? c->function : "";
	out->has_line = c->has_line;
	out->in_program = c->in_program;
	out->system_file = c->system_file;
	return c->location ? 0 : -1;
}

int sc_symbolizer_pc(struct sc_symbolizer *s, const struct sc_trace_module *mods,
		 size_t nmods, uint64_t pc, struct sc_symbol *out)
{
	return resolve(s, mods, nmods, pc, false, out);
}

int sc_symbolizer_data(struct sc_symbolizer *s,
		      const struct sc_trace_module *mods, size_t nmods,
		      uint64_t addr, struct sc_symbol *out)
{
	return resolve(s, mods, nmods, addr, true, out);
}

int sc_symbolizer_event_pc(struct sc_symbolizer *s, const struct sc_trace *t,
			   const struct sc_trace_event *e, uint64_t pc,
			   struct sc_symbol *out)
{
	const struct sc_trace_map *m = sc_trace_event_map(t, e);
	return resolve(s, m ? m->modules : NULL, m ? m->nmodules : 0, pc,
		       false, out);
}

int sc_symbolizer_event_data(struct sc_symbolizer *s,
			     const struct sc_trace *t,
			     const struct sc_trace_event *e, uint64_t addr,
			     struct sc_symbol *out)
{
	const struct sc_trace_map *m = sc_trace_event_map(t, e);
	return resolve(s, m ? m->modules : NULL, m ? m->nmodules : 0, addr,
		       true, out);
}

const struct sc_addr_ranges *sc_symbolizer_atomics(struct sc_symbolizer *s,
						     const char *path,
						     uint64_t *first_vaddr)
{
	struct module_info *m = module(s, path);

	if (!m)
		return NULL;
	if (!m->atomics) {
		m->atomics = calloc(1, sizeof(*m->atomics));
		if (!m->atomics || sc_atomic_ranges_read(path, m->atomics) < 0) {
			free(m->atomics);
			m->atomics = NULL;
			return NULL;
		}
	}
	*first_vaddr = m->first_vaddr;
	return m->atomics;
}
