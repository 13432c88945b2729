/* race_pilot.c - the racing instructions learnt from a session's first
 * runs, in run order (race_pilot.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/race_pilot.h"

/* Pilot run number j (1-based): 1..first, then the powers of two from
 * SC_RACE_PILOT_LATER on. */
static uint32_t pilot_run(const struct sc_race_pilot *p, uint32_t j)
{
	uint32_t later = j - p->first - 1;

	if (j <= p->first)
		return j;
	return later < 26 ? (uint32_t)SC_RACE_PILOT_LATER << later : UINT32_MAX;
}

/* How many pilot runs come before run `run`. */
static uint32_t pilots_below(const struct sc_race_pilot *p, uint32_t run)
{
	uint32_t n = 0;

	while (n < p->size && pilot_run(p, n + 1) < run)
		n++;
	return n;
}

void sc_race_pilot_init(struct sc_race_pilot *p, uint32_t runs)
{
	memset(p, 0, sizeof(*p));
	p->first = runs < SC_RACE_PILOT_RUNS ? runs : SC_RACE_PILOT_RUNS;
	p->size = p->first;
	while (p->size < p->first + 26 && pilot_run(p, p->size + 1) <= runs)
		p->size++;
}

void sc_race_pilot_free(struct sc_race_pilot *p)
{
	free(p->pcs);
	memset(p, 0, sizeof(*p));
}

bool sc_race_pilot_is_pilot(const struct sc_race_pilot *p, uint32_t run)
{
	uint32_t j = pilots_below(p, run) + 1;

	return run >= 1 && j <= p->size && pilot_run(p, j) == run;
}

uint32_t sc_race_pilot_next_silent(const struct sc_race_pilot *p,
				   uint32_t run)
{
	uint32_t need;

	if (run == 0)
		return 0;
	need = pilots_below(p, run);
	return p->done < need ? pilot_run(p, p->done + 1) : 0;
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

	if (p->done >= p->size || run != pilot_run(p, p->done + 1))
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
	p->done++;
	return 0;
}
