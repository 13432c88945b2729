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
	c->r[c->n++] = (struct sc_code_range){ m->start, m->end,
					       !sc_system_library(m->path) };
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

bool sc_code_is_own(struct sc_process *p, uint64_t pc)
{
	const struct sc_code_range *r = find(p, pc);

	if (!r) {
		struct collect c = { 0 };
		if (sc_maps_foreach(p->pid, add_mapping, &c) < 0) {
			free(c.r);
			return true;    /* unknown: as before, probe at pc */
		}
		sc_code_forget(p);
		p->code = c.r;
		p->ncode = c.n;
		r = find(p, pc);
	}
	/* Anonymous code (a JIT, the vdso): not a library's. */
	return !r || r->own;
}
