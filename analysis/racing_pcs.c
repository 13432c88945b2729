/*
 * racing_pcs.c - the instructions of a run that took part in a data race,
 * and the plain accesses to words other threads changed atomically, for
 * race granularity: later runs of the session schedule exactly there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race_detect.h"
#include "u64map.h"

struct pcs {
	const struct sc_trace *t;
	uint64_t *v;
	size_t n, cap;
};

static int push(struct pcs *p, uint64_t pc)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint64_t *nv = realloc(p->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		p->v = nv;
		p->cap = cap;
	}
	p->v[p->n++] = pc;
	return 0;
}

static int on_race(void *ctx, size_t first, size_t second)
{
	struct pcs *p = ctx;

	return push(p, p->t->events[first].pc) < 0 ||
	       push(p, p->t->events[second].pc) < 0 ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The plain accesses to words another thread changed with an atomic
 * read-modify-write.  The detector takes them for synchronisation (a
 * spin lock's releasing store, the load of an atomic flag: on x86 plain
 * movs), so they never race; yet the order of threads around them is
 * what such code gets wrong (QA: a reference count decremented with lock
 * xadd and read again with a plain load freed twice, found by mem
 * granularity in 95 of 500 runs and by the default in 0-2; a worker
 * polling an atomic stop flag ran until its slice was used up, 4-20 s a
 * run, since no point let main set the flag). */
static int push_sync_accesses(const struct sc_trace *t, struct pcs *p)
{
	struct u64map first, several;   /* word -> first rmw thread; words
					 * rmw'd by two threads or more */
	int rc = -1, added;

	u64map_init(&first);
	u64map_init(&several);
	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->kind != SC_EV_MEM_RMW)
			continue;
		int64_t th = u64map_get_or_add(&first, e->object >> 3,
					       e->thread, &added);
		if (th < 0 || (!added && (uint32_t)th != e->thread &&
			       u64map_get_or_add(&several, e->object >> 3, 1,
						 &added) < 0))
			goto out;
	}
	for (size_t i = 0; first.len && i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->kind != SC_EV_MEM_READ && e->kind != SC_EV_MEM_WRITE)
			continue;
		int64_t th = u64map_get(&first, e->object >> 3);
		if (th >= 0 && ((uint32_t)th != e->thread ||
				u64map_get(&several, e->object >> 3) >= 0) &&
		    push(p, e->pc) < 0)
			goto out;
	}
	rc = 0;
out:
	u64map_free(&first);
	u64map_free(&several);
	return rc;
}

int sc_trace_racing_pcs(const struct sc_trace *t, uint64_t **pcs, size_t *n,
			char *err, size_t errlen)
{
	struct pcs p = { .t = t };
	size_t k = 0;

	*pcs = NULL;
	*n = 0;
	/* Without the declared atomics: the accesses to an atomic flag or
	 * counter that plain movs make are where the outcome depends on
	 * the order of threads, and so good scheduling points, even though
	 * analyze does not call them races. */
	if (race_detect(t, NULL, NULL, on_race, &p, err, errlen) < 0) {
		free(p.v);
		return -1;
	}
	if (push_sync_accesses(t, &p) < 0) {
		snprintf(err, errlen, "out of memory");
		free(p.v);
		return -1;
	}
	if (p.n)
		qsort(p.v, p.n, sizeof(*p.v), cmp_u64);
	for (size_t i = 0; i < p.n; i++)
		if (p.v[i] != 0 && (k == 0 || p.v[i] != p.v[k - 1]))
			p.v[k++] = p.v[i];
	if (k == 0) {
		free(p.v);
		return 0;
	}
	*pcs = p.v;
	*n = k;
	return 0;
}
