/* symbolize.c - addresses to "function+offset (module)" and data symbols,
 * and the module map of a process, with libelf.
 *
 * Used when reporting (a crash, a deadlock) and once per exec for the
 * module map.  The ELF files' symbols are read once (symbol_cache.h), the
 * names of code addresses kept (frame_memo.h); /proc/PID/maps is read for
 * each address unless held (sc_maps_hold).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "elf_symbols.h"
#include "frame_memo.h"
#include "internal.h"
#include "symbol_cache.h"

struct mapping {
	uint64_t start, end, base;
	char path[4096];
};

struct containing {
	uint64_t addr;
	uint64_t first_start;           /* offset-0 mapping of first_path */
	char first_path[4096];
	struct mapping *out;
};

static int find_containing(const struct sc_map_entry *e, void *arg)
{
	struct containing *c = arg;

	if (e->offset == 0) {
		c->first_start = e->start;
		snprintf(c->first_path, sizeof(c->first_path), "%s", e->path);
	}
	if (c->addr < e->start || c->addr >= e->end)
		return 0;
	c->out->start = e->start;
	c->out->end = e->end;
	c->out->base = strcmp(e->path, c->first_path) == 0 ? c->first_start
							    : e->start - e->offset;
	snprintf(c->out->path, sizeof(c->out->path), "%s", e->path);
	return 1;
}

/* Find the file mapping containing addr and the load base of that file. */
static int find_mapping(pid_t pid, uint64_t addr, struct mapping *m)
{
	struct containing c = { .addr = addr, .out = m };

	return sc_maps_foreach(pid, find_containing, &c) == 1 ? 0 : -1;
}

/* Best symbol of type `type` containing vaddr (file-relative), as the
 * source spells it (demangled); from the file's debug file when the file
 * itself names none (symbol_cache.h). */
static int elf_lookup(const char *path, uint64_t vaddr, int type, bool *is_dyn,
		      char *name, size_t len, uint64_t *offset)
{
	char raw[1024];

	*is_dyn = false;
	if (sc_symbol_cache_lookup(path, vaddr, type, is_dyn, raw, sizeof(raw),
				   offset) < 0)
		return -1;
	/* As the source spells it: mu, not _ZL2mu. */
	char *dm = sc_demangle(raw);
	const char *src = dm ? dm : raw;
	sc_name_copy(name, len, src);
	free(dm);
	return 0;
}

/* snprintf into a text that a long path may not fit: cut, as a report
 * line would be anyway. */
static void put(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* fn followed by rest into buf: when both do not fit, fn is cut and
 * marked with an ellipsis, and rest (where: " at file:line (module)") is
 * kept whole (QA: a long C++ name cut at 255 bytes ran straight into
 * " at stl_tree.h:2384", with nothing to say it was cut). */
static void put_named(char *buf, size_t len, const char *fn, const char *rest)
{
	size_t nr = strlen(rest);

	/* Too little room left for 16 bytes of fn and its mark: cut the
	 * whole line as put does. */
	if (nr + 16 + sizeof(SC_ELLIPSIS) > len) {
		put(buf, len, "%s%s", fn, rest);
		return;
	}
	sc_name_copy(buf, len - nr, fn);
	memcpy(buf + strlen(buf), rest, nr + 1);
}

/* Name addr.  Code with debug information: "function at file:line
 * (module)", one text per level of inlined calls there, innermost first
 * (up to max; the inlined ones end "(module, inlined)"), as a debugger
 * shows them; returns how many.  Otherwise one text: "function+0xoff
 * (module)", "function (module)", "module+0xoff", or (data, without
 * with_module) "name+0xoff".  *pick is the level a one-line location
 * should show: the innermost whose line is not in a system header (the
 * program's line that called std::mutex::lock, not gthr-default.h).
 * systems (when not NULL) tells each level whether its line is in a
 * system header (an -O0 instantiation of a library template). */
static size_t name_levels(const struct mapping *mp, uint64_t addr, int type,
			  bool with_module, char (*texts)[512], size_t max,
			  size_t *pick, bool *systems);

static size_t symbolize_levels(pid_t pid, uint64_t addr, int type,
			       bool with_module, char (*texts)[512],
			       size_t max, size_t *pick, bool *systems)
{
	struct mapping m;

	*pick = 0;
	for (size_t i = 0; systems && i < max; i++)
		systems[i] = false;
	if (find_mapping(pid, addr, &m) < 0) {
		put(texts[0], sizeof(texts[0]), "0x%llx",
		    (unsigned long long)addr);
		return 1;
	}
	/* Names with the module say nothing of where it is loaded: they
	 * are kept (frame_memo.h); a datum's may be its address. */
	if (!with_module || max > SC_INLINE_DEPTH + 1)
		return name_levels(&m, addr, type, with_module, texts, max,
				   pick, systems);

	const struct sc_frame_query q = { m.path, addr - m.base, type,
					  with_module, max };
	const struct sc_frame_names *kept = sc_frame_memo_get(&q);
	struct sc_frame_names fresh;

	if (!kept) {
		memset(fresh.systems, 0, sizeof(fresh.systems));
		fresh.pick = 0;
		fresh.n = name_levels(&m, addr, type, with_module, fresh.texts,
				      max, &fresh.pick, fresh.systems);
		sc_frame_memo_put(&q, &fresh);
		kept = &fresh;
	}
	memcpy(texts, kept->texts, kept->n * sizeof(texts[0]));
	for (size_t i = 0; systems && i < kept->n; i++)
		systems[i] = kept->systems[i];
	*pick = kept->pick;
	return kept->n;
}

/* symbolize_levels for the address addr in the mapping m. */
static size_t name_levels(const struct mapping *mp, uint64_t addr, int type,
			  bool with_module, char (*texts)[512], size_t max,
			  size_t *pick, bool *systems)
{
	const struct mapping m = *mp;
	char name[1024], rest[384];
	uint64_t off = 0;
	bool is_dyn = false;
	char *buf = texts[0];
	const size_t len = sizeof(texts[0]);

	const char *slash = strrchr(m.path, '/');
	const char *mod = slash ? slash + 1 : m.path;
	/* Try file-relative first (PIE, shared objects), then absolute. */
	if (elf_lookup(m.path, addr - m.base, type, &is_dyn, name, sizeof(name),
		       &off) == 0 && is_dyn) {
		/* found */
	} else if (!is_dyn && elf_lookup(m.path, addr, type, &is_dyn, name,
					 sizeof(name), &off) == 0) {
		/* found in a non-PIE executable */
	} else if (with_module) {
		put(buf, len, "%s+0x%llx", mod,
			 (unsigned long long)(addr - m.base));
		return 1;
	} else {
		/* Data that no symbol covers: the address says more than
		 * an offset in the file. */
		put(buf, len, "0x%llx", (unsigned long long)addr);
		return 1;
	}
	uint64_t vaddr = is_dyn ? addr - m.base : addr;
	char src[256];
	unsigned line = 0;
	bool system = false;
	if (with_module && sc_dwarf_addr_line(m.path, vaddr, src, sizeof(src),
					      &line, &system) == 0) {
		struct sc_inline_site chain[SC_INLINE_DEPTH];
		size_t k = max > 1 ? sc_dwarf_inline_chain(m.path, vaddr, chain,
			max - 1 < SC_INLINE_DEPTH ? max - 1 : SC_INLINE_DEPTH) : 0;
		/* Level i (innermost first) is in chain[k-1-i]'s function
		 * (the real one for i = k), at the line table's line for
		 * i = 0, else where chain[k-i] was inlined. */
		for (size_t i = 0; i <= k; i++) {
			const char *fn = i < k ? chain[k - 1 - i].function : name;
			const char *file = i ? chain[k - i].call_file : src;
			unsigned ln = i ? chain[k - i].call_line : line;
			/* Like a debugger: function, then file:line. */
			put(rest, sizeof(rest), " at %s:%u (%s%s)", file, ln,
			    mod, i < k ? ", inlined" : "");
			put_named(texts[i], len, fn, rest);
			if (systems)
				systems[i] = i ? chain[k - i].call_in_system_header
					       : system;
		}
		*pick = sc_inline_program_level(chain, k, system);
		if (*pick == SIZE_MAX)
			*pick = k;
		return k + 1;
	}
	if (with_module && off)
		put(rest, sizeof(rest), "+0x%llx (%s)",
		    (unsigned long long)off, mod);
	else if (with_module)
		put(rest, sizeof(rest), " (%s)", mod);
	else if (off)
		put(rest, sizeof(rest), "+0x%llx", (unsigned long long)off);
	else
		rest[0] = '\0';
	put_named(buf, len, name, rest);
	return 1;
}

static void symbolize_kind(pid_t pid, uint64_t addr, int type, char *buf,
			   size_t len, bool with_module, bool *system)
{
	char texts[SC_INLINE_DEPTH + 1][512];
	bool systems[SC_INLINE_DEPTH + 1];
	size_t pick;

	symbolize_levels(pid, addr, type, with_module, texts,
			 SC_INLINE_DEPTH + 1, &pick, systems);
	if (system)
		*system = systems[pick];
	/* The one-line form: "(module, inlined)" would only confuse. */
	char *inl = strstr(texts[pick], ", inlined)");
	if (inl)
		strcpy(inl, ")");
	snprintf(buf, len, "%s", texts[pick]);
}

size_t sc_symbolize_frames(pid_t pid, uint64_t addr, char (*texts)[512],
			   size_t max, bool *systems)
{
	size_t pick;

	if (max == 0)
		return 0;
	return symbolize_levels(pid, addr, STT_FUNC, true, texts, max, &pick,
				systems);
}

int sc_addr_module(pid_t pid, uint64_t addr, char *path, size_t len)
{
	uint64_t base;

	return sc_addr_module_base(pid, addr, path, len, &base);
}

int sc_addr_module_base(pid_t pid, uint64_t addr, char *path, size_t len,
			uint64_t *base)
{
	struct mapping m;

	if (find_mapping(pid, addr, &m) < 0)
		return -1;
	snprintf(path, len, "%s", m.path);
	*base = m.base;
	return 0;
}

void sc_symbolize(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	symbolize_kind(pid, addr, STT_FUNC, buf, len, true, NULL);
}

void sc_symbolize_code(pid_t pid, uint64_t addr, char *buf, size_t len,
		       bool *system)
{
	symbolize_kind(pid, addr, STT_FUNC, buf, len, true, system);
}

void sc_symbolize_data(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	/* A variable, or an element or member of one (fork_mtx+0x28);
	 * heap and stack objects have no symbol: their address. */
	symbolize_kind(pid, addr, STT_OBJECT, buf, len, false, NULL);
}

size_t sc_elf_build_id(const char *path, uint8_t *out, size_t cap)
{
	size_t got = 0;

	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		got = sc_elf_note_build_id(elf, out, cap);
		elf_end(elf);
	}
	close(fd);
	return got;
}

struct module_list {
	struct sc_module *v;
	size_t n;
};

static int add_module(const struct sc_map_entry *e, void *arg)
{
	struct module_list *l = arg;

	/* Later mappings of the same file extend it. */
	if (l->n && strcmp(l->v[l->n - 1].path, e->path) == 0) {
		l->v[l->n - 1].size = e->end - l->v[l->n - 1].load_address;
		return 0;
	}
	if (e->offset != 0)
		return 0;
	struct sc_module *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv)
		return 1;
	l->v = nv;
	uint8_t *bid = malloc(64);
	size_t bl = bid ? sc_elf_build_id(e->path, bid, 64) : 0;
	l->v[l->n++] = (struct sc_module){ .path = strdup(e->path),
		.build_id = bid, .build_id_len = bl, .load_address = e->start,
		.size = e->end - e->start };
	return 0;
}

/* Every file mapped at offset 0: path, load address, extent, build-id. */
int sc_module_map(pid_t pid, struct sc_module **mods, size_t *n)
{
	struct module_list l = { NULL, 0 };
	int rc = sc_maps_foreach(pid, add_module, &l);

	*mods = l.v;
	*n = l.n;
	return rc < 0 ? -1 : 0;
}

void sc_module_map_free(struct sc_module *mods, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)mods[i].path);
		free((uint8_t *)mods[i].build_id);
	}
	free(mods);
}
