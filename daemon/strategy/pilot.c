/* pilot.c - strategies learn only from the session's pilot (pilot.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/pilot.h"

int sc_pilot_init(struct sc_pilot *p, struct sc_strategy_session *learnt,
		  uint32_t runs, bool exempt)
{
	memset(p, 0, sizeof(*p));
	p->size = runs < SC_PILOT_RUNS ? runs : SC_PILOT_RUNS;
	p->exempt = exempt;
	p->learnt = learnt;
	if (exempt)
		return 0;
	/* Allocated once: the session holds tables of some 70 KB. */
	p->scratch = malloc(sizeof(*p->scratch));
	return p->scratch ? 0 : -1;
}

void sc_pilot_skip(struct sc_pilot *p, uint32_t runs, uint32_t skip)
{
	uint32_t left = runs > skip ? runs - skip : 0;

	p->skip = skip;
	p->size = left < SC_PILOT_RUNS ? left : SC_PILOT_RUNS;
}

void sc_pilot_free(struct sc_pilot *p)
{
	free(p->scratch);
	p->scratch = NULL;
}

uint32_t sc_pilot_next_silent(const struct sc_pilot *p, uint32_t run)
{
	uint32_t need;

	if (p->exempt || run <= p->skip + 1)
		return 0;
	need = run - 1 - p->skip;
	if (need > p->size)
		need = p->size;
	return p->done < need ? p->skip + p->done + 1 : 0;
}

/* Run `run` learns into the state itself. */
static bool learns(const struct sc_pilot *p, uint32_t run)
{
	return p->exempt || (run > p->skip && run - p->skip <= p->size &&
			     run - p->skip == p->done + 1);
}

struct sc_strategy_session *sc_pilot_session(struct sc_pilot *p,
					     uint32_t run)
{
	if (learns(p, run))
		return p->learnt;
	/* After the pilot (or out of order, which a caller that follows
	 * sc_pilot_next_silent() never asks): the frozen state, to be
	 * thrown away.  Only a search has a chess tree, and it is exempt. */
	memcpy(p->scratch, p->learnt, sizeof(*p->scratch));
	p->scratch->chess = NULL;
	return p->scratch;
}

void sc_pilot_ran(struct sc_pilot *p, uint32_t run)
{
	if (p->exempt || !learns(p, run))
		return;
	p->points[run - p->skip - 1] = p->learnt->max_points;
	p->threads[run - p->skip - 1] = p->learnt->max_threads;
	p->done = run - p->skip;
}
