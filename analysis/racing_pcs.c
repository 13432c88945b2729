/*
 * racing_pcs.c - the instructions of a run that took part in a data race,
 * for race granularity: later runs of the session schedule exactly there.
 */
#include <stdlib.h>
#include <string.h>

#include "race_detect.h"

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
