/* code_ranges.c - is a pc in the program's own code or in a system
 * library?  The preemption probe asks at each slice expiry (preempt.c), so
 * the answer comes from a copy of the process's executable mappings, read
 * again from /proc/PID/maps only when a pc falls in none of them (a
 * library loaded since). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct collect {
	struct sc_code_range *r;
	size_t n, cap;
};

static int add_mapping(const struct sc_map_entry *m, void *arg)
{
	struct collect *c = arg;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct sc_code_range *r = realloc(c->r, cap * sizeof(*r));
		if (!r)
			return -1;
		c->r = r;
		c->cap = cap;
	}
	const char *slash = strrchr(m->path, '/');
	const char *base = slash ? slash + 1 : m->path;
	bool glibc = sc_system_library(m->path) &&
		     (strncmp(base, "libc.so", 7) == 0 ||
		      strncmp(base, "libc-", 5) == 0 ||
		      strncmp(base, "ld-linux", 8) == 0);
	bool sanitizer = strncmp(base, "libasan.so", 10) == 0 ||
			 strncmp(base, "libtsan.so", 10) == 0 ||
			 strncmp(base, "liblsan.so", 10) == 0 ||
			 strncmp(base, "libubsan.so", 11) == 0 ||
			 strncmp(base, "libhwasan.so", 12) == 0;
	c->r[c->n++] = (struct sc_code_range){ m->start, m->end,
					       !sc_system_library(m->path),
					       glibc, sanitizer };
	return 0;
}

void sc_code_forget(struct sc_process *p)
{
	free(p->code);
	p->code = NULL;
	p->ncode = 0;
}

static const struct sc_code_range *find(const struct sc_process *p,
					uint64_t pc)
{
	for (size_t i = 0; i < p->ncode; i++)
		if (pc >= p->code[i].start && pc < p->code[i].end)
			return &p->code[i];
	return NULL;
}

int sc_code_refresh(struct sc_process *p)
{
	struct collect c = { 0 };

	if (sc_maps_foreach(p->pid, add_mapping, &c) < 0) {
		free(c.r);
		return -1;
	}
	sc_code_forget(p);
	p->code = c.r;
	p->ncode = c.n;
	return 0;
}

struct sc_code_range *sc_code_dup(const struct sc_code_range *r, size_t n)
{
	struct sc_code_range *copy = n ? malloc(n * sizeof(*r)) : NULL;

	if (copy)
		memcpy(copy, r, n * sizeof(*r));
	return copy;
}

/* The mapping of pc, reading the maps again when it is in none. */
static const struct sc_code_range *lookup(struct sc_process *p, uint64_t pc,
					  bool *unknown)
{
	const struct sc_code_range *r = find(p, pc);

	*unknown = false;
	if (!r) {
		if (sc_code_refresh(p) < 0) {
			*unknown = true;
			return NULL;
		}
		r = find(p, pc);
	}
	return r;
}

bool sc_code_is_own(struct sc_process *p, uint64_t pc)
{
	bool unknown;
	const struct sc_code_range *r = lookup(p, pc, &unknown);

	/* Unknown: as before, probe at pc.  Anonymous code (a JIT, the
	 * vdso): not a library's. */
	return unknown || !r || r->own;
}

bool sc_code_is_sanitizer(struct sc_process *p, uint64_t pc)
{
	bool unknown;
	const struct sc_code_range *r = lookup(p, pc, &unknown);

	return r && r->sanitizer;
}

bool sc_code_is_glibc(struct sc_process *p, uint64_t pc)
{
	bool unknown;
	const struct sc_code_range *r = lookup(p, pc, &unknown);

	return r && r->glibc;
}
