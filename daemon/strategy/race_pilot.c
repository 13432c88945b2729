/* race_pilot.c - the racing instructions learnt from a session's first
 * runs, in run order (race_pilot.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/race_pilot.h"

void sc_race_pilot_init(struct sc_race_pilot *p, uint32_t runs)
{
	memset(p, 0, sizeof(*p));
	p->size = runs < SC_RACE_PILOT_RUNS ? runs : SC_RACE_PILOT_RUNS;
}

void sc_race_pilot_free(struct sc_race_pilot *p)
{
	free(p->pcs);
	memset(p, 0, sizeof(*p));
}

bool sc_race_pilot_is_pilot(const struct sc_race_pilot *p, uint32_t run)
{
	return run >= 1 && run <= p->size;
}

uint32_t sc_race_pilot_next_silent(const struct sc_race_pilot *p,
				   uint32_t run)
{
	uint32_t need;

	if (run == 0)
		return 0;
	need = run - 1 < p->size ? run - 1 : p->size;
	return p->done < need ? p->done + 1 : 0;
}

/* pc among the sorted pcs[0..n). */
static bool has(const uint64_t *pcs, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pcs[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && pcs[lo] == pc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int sc_race_pilot_learn(struct sc_race_pilot *p, uint32_t run,
			const uint64_t *pcs, size_t n)
{
	size_t old = p->n;

	if (run != p->done + 1 || run > p->size)
		return 0;
	/* Room for all of them up front, so that a failure learns nothing
	 * and the set stays that of runs 1..done. */
	if (old + n > p->cap) {
		size_t cap = old + n;
		uint64_t *nv = realloc(p->pcs, cap * sizeof(*nv));
		if (!nv)
			return -1;
		p->pcs = nv;
		p->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		bool dup = has(p->pcs, old, pcs[i]);
		/* The new ones are unsorted until the end: check them too. */
		for (size_t j = old; j < p->n && !dup; j++)
			dup = p->pcs[j] == pcs[i];
		if (!dup)
			p->pcs[p->n++] = pcs[i];
	}
	if (p->n > old)
		qsort(p->pcs, p->n, sizeof(*p->pcs), cmp_u64);
	p->done = run;
	return 0;
}
