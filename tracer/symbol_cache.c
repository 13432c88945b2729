/* symbol_cache.c - ELF symbol tables read once per process, looked up by
 * binary search (symbol_cache.h). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_symbols.h"
#include "symbol_cache.h"

/* Files kept: the program, libc and its debug file, libstdc++, a few
 * more libraries of a stack; the oldest is dropped. */
#define CACHED_FILES 12

struct sym {
	uint64_t start, size;   /* size 0 counts as 1 */
	uint32_t name;          /* offset into the table's names */
	uint32_t order;         /* in the file: the last of equal starts wins */
};

struct table {
	char *path;
	int type;
	dev_t dev;
	ino_t ino;
	off_t fsize;
	struct timespec mtime;
	bool is_dyn;
	struct sym *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	uint64_t max_size;      /* no symbol further back can contain vaddr */
	char *debug;            /* its debug file's path, NULL: none */
	uint64_t used;          /* tick of the last lookup, for eviction */
};

static struct table cache[CACHED_FILES];
static uint64_t ticks;

static void drop(struct table *t)
{
	free(t->path);
	free(t->debug);
	free(t->v);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

static int collect(const GElf_Sym *s, const char *nm, void *arg)
{
	struct table *t = arg;
	size_t len;

	if (GELF_ST_TYPE(s->st_info) != t->type || !nm || !*nm)
		return 0;
	len = strlen(nm) + 1;
	if (t->names_len + len > UINT32_MAX)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct sym *nv = realloc(t->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		t->v = nv;
		t->cap = cap;
	}
	if (t->names_len + len > t->names_cap) {
		size_t cap = t->names_cap ? 2 * t->names_cap : 4096;
		while (cap < t->names_len + len)
			cap *= 2;
		char *nn = realloc(t->names, cap);
		if (!nn)
			return -1;
		t->names = nn;
		t->names_cap = cap;
	}
	memcpy(t->names + t->names_len, nm, len);
	t->v[t->n] = (struct sym){ s->st_value, s->st_size,
				   (uint32_t)t->names_len, (uint32_t)t->n };
	t->names_len += len;
	if (s->st_size > t->max_size)
		t->max_size = s->st_size;
	t->n++;
	return 1;
}

static int by_start(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The path of elf's separate debug file, if one is installed (malloc'ed;
 * NULL: none). */
static char *debug_file(Elf *elf)
{
	uint8_t bid[64];
	size_t n = sc_elf_note_build_id(elf, bid, sizeof(bid));
	char path[sizeof("/usr/lib/debug/.build-id/") + 2 * sizeof(bid) +
		  sizeof(".debug")];
	int w;

	if (n < 2)
		return NULL;
	w = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/",
		     bid[0]);
	for (size_t i = 1; i < n; i++)
		w += snprintf(path + w, sizeof(path) - (size_t)w, "%02x",
			      bid[i]);
	snprintf(path + w, sizeof(path) - (size_t)w, ".debug");
	return access(path, R_OK) == 0 ? strdup(path) : NULL;
}

/* Read path's symbols of `type` into t (zeroed); -1 when unreadable. */
static int load(struct table *t, const char *path, int type,
		const struct stat *st)
{
	int fd, rc = -1;
	Elf *elf;
	GElf_Ehdr eh;

	t->path = strdup(path);
	if (!t->path)
		return -1;
	t->type = type;
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	t->fsize = st->st_size;
	t->mtime = st->st_mtim;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		t->is_dyn = gelf_getehdr(elf, &eh) && eh.e_type == ET_DYN;
		rc = sc_elf_symbols(elf, collect, t) < 0 ? -1 : 0;
		t->debug = debug_file(elf);
		elf_end(elf);
	}
	close(fd);
	if (rc == 0 && t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_start);
	return rc;
}

/* The table of (path, type), read now if not cached or changed. */
static struct table *table_of(const char *path, int type)
{
	struct stat st;
	struct table *oldest = &cache[0];

	if (stat(path, &st) < 0)
		return NULL;
	for (size_t i = 0; i < CACHED_FILES; i++) {
		struct table *t = &cache[i];
		if (t->path && t->type == type && strcmp(t->path, path) == 0) {
			if (t->dev == st.st_dev && t->ino == st.st_ino &&
			    t->fsize == st.st_size &&
			    t->mtime.tv_sec == st.st_mtim.tv_sec &&
			    t->mtime.tv_nsec == st.st_mtim.tv_nsec) {
				t->used = ++ticks;
				return t;
			}
			oldest = t;     /* changed: read again in its place */
			break;
		}
		if (!t->path) {
			oldest = t;
			break;
		}
		if (t->used < oldest->used)
			oldest = t;
	}
	drop(oldest);
	if (load(oldest, path, type, &st) < 0) {
		drop(oldest);
		return NULL;
	}
	oldest->used = ++ticks;
	return oldest;
}

/* The innermost symbol of t containing vaddr: 0, or -1 when none. */
static int search(const struct table *t, uint64_t vaddr, char *name,
		  size_t len, uint64_t *offset)
{
	size_t lo = 0, hi = t->n;

	/* The first symbol starting after vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Back from there: the first that contains vaddr starts last.  A
	 * symbol further back than the largest size cannot. */
	for (size_t i = lo; i-- > 0;) {
		const struct sym *s = &t->v[i];
		uint64_t size = s->size ? s->size : 1;
		if (vaddr - s->start >= (t->max_size > 1 ? t->max_size : 1))
			break;
		if (vaddr - s->start < size) {
			snprintf(name, len, "%s", t->names + s->name);
			*offset = vaddr - s->start;
			return 0;
		}
	}
	return -1;
}

/* fn on the table of (path, type), then on its debug file's when fn
 * finds nothing there: fn's 0, or -1. */
static int in_file_or_debug(const char *path, int type, bool *is_dyn,
			    int (*fn)(const struct table *t, void *arg),
			    void *arg)
{
	struct table *t = table_of(path, type);
	char *debug;
	int rc;

	if (!t)
		return -1;
	*is_dyn = t->is_dyn;
	if (fn(t, arg) == 0)
		return 0;
	if (!t->debug)
		return -1;
	/* A copy of its path: reading the debug file may evict t. */
	debug = strdup(t->debug);
	if (!debug)
		return -1;
	t = table_of(debug, type);
	rc = t ? fn(t, arg) : -1;
	free(debug);
	return rc;
}

struct by_addr {
	uint64_t vaddr;
	char *name;
	size_t len;
	uint64_t *offset;
};

static int search_by_addr(const struct table *t, void *arg)
{
	struct by_addr *q = arg;

	return search(t, q->vaddr, q->name, q->len, q->offset);
}

int sc_symbol_cache_lookup(const char *path, uint64_t vaddr, int type,
			   bool *is_dyn, char *name, size_t len,
			   uint64_t *offset)
{
	struct by_addr q = { vaddr, name, len, offset };

	return in_file_or_debug(path, type, is_dyn, search_by_addr, &q);
}

struct by_name {
	const char *name;
	uint64_t *vaddr;
};

/* A name is looked up once per report, not per frame: a scan will do. */
static int scan(const struct table *t, void *arg)
{
	struct by_name *q = arg;

	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->names + t->v[i].name, q->name) == 0) {
			*q->vaddr = t->v[i].start;
			return 0;
		}
	return -1;
}

int sc_symbol_cache_find(const char *path, const char *name, int type,
			 bool *is_dyn, uint64_t *vaddr)
{
	struct by_name q = { name, vaddr };

	return in_file_or_debug(path, type, is_dyn, scan, &q);
}
