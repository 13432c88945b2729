/*
 * test_race_pilot.c - race granularity's learnt instructions
 * (strategy/race_pilot.h): the set after pilot run q is the sorted,
 * distinct union of what runs 1..q found, learnt in run order only, and
 * a job that owns every J-th run (catching up on the pilot runs it does
 * not own, silently) gives each of its runs the set that one job would.
 * And the strategies' pilot, skipped past those mem runs (sc_pilot_skip),
 * learns from the runs after them, in order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/pilot.h"
#include "strategy/race_pilot.h"
#include "tap.h"

#define RUNS 100

/* What pilot run r "found": overlapping, unsorted, with duplicates. */
static size_t found(uint32_t r, uint64_t *out)
{
	size_t n = 0;

	out[n++] = 0x1000 + 0x10 * (r % 3);
	out[n++] = 0x2000 - r;
	out[n++] = 0x1000;              /* every run sees this one */
	out[n++] = 0x2000 - r;          /* twice in one run */
	return n;
}

static bool sorted_distinct(const struct sc_race_pilot *p)
{
	for (size_t i = 1; i < p->n; i++)
		if (p->pcs[i - 1] >= p->pcs[i])
			return false;
	return true;
}

/* A hash of the set a run gets. */
static uint64_t set_hash(const struct sc_race_pilot *p)
{
	uint64_t h = 1469598103934665603ULL ^ p->n;

	for (size_t i = 0; i < p->n; i++)
		h = (h ^ p->pcs[i]) * 1099511628211ULL;
	return h;
}

/* A job of njobs: the sets its runs got, by run (0: not its run). */
static void job(uint32_t index, uint32_t njobs, uint64_t *got)
{
	struct sc_race_pilot p;
	uint64_t pcs[8];

	sc_race_pilot_init(&p, RUNS);
	for (uint32_t r = index + 1; r <= RUNS; r += njobs) {
		uint32_t q;
		while ((q = sc_race_pilot_next_silent(&p, r)) != 0)
			sc_race_pilot_learn(&p, q, pcs, found(q, pcs));
		got[r] = set_hash(&p);
		if (sc_race_pilot_is_pilot(&p, r))
			sc_race_pilot_learn(&p, r, pcs, found(r, pcs));
	}
	sc_race_pilot_free(&p);
}

int main(void)
{
	struct sc_race_pilot p;
	uint64_t pcs[8];

	sc_race_pilot_init(&p, 100);
	is_int(p.first, SC_RACE_PILOT_RUNS, "P = SC_RACE_PILOT_RUNS");
	is_int(p.size, SC_RACE_PILOT_RUNS + 2, "100 runs: P pilot runs, then 32 and 64");
	ok(sc_race_pilot_is_pilot(&p, 1) &&
	   sc_race_pilot_is_pilot(&p, SC_RACE_PILOT_RUNS) &&
	   !sc_race_pilot_is_pilot(&p, SC_RACE_PILOT_RUNS + 1) &&
	   !sc_race_pilot_is_pilot(&p, 0), "runs 1..P are the pilot");
	ok(sc_race_pilot_is_pilot(&p, 32) && sc_race_pilot_is_pilot(&p, 64) &&
	   !sc_race_pilot_is_pilot(&p, 16) && !sc_race_pilot_is_pilot(&p, 33) &&
	   !sc_race_pilot_is_pilot(&p, 128),
	   "and runs 32 and 64, not 16, 33 or 128 (past the session)");
	is_int(sc_race_pilot_next_silent(&p, 1), 0, "run 1 needs nothing");
	is_int(sc_race_pilot_next_silent(&p, 4), 1,
	       "run 4 needs pilot run 1 first");
	ok(sc_race_pilot_learn(&p, 2, pcs, found(2, pcs)) == 0 && p.done == 0 &&
	   p.n == 0, "out of order: ignored");
	sc_race_pilot_learn(&p, 1, pcs, found(1, pcs));
	is_int(p.done, 1, "run 1 learnt");
	is_int((long long)p.n, 3, "run 1: 3 distinct pcs of 4");
	ok(sorted_distinct(&p), "sorted and distinct");
	sc_race_pilot_learn(&p, 1, pcs, found(1, pcs));
	is_int(p.done, 1, "run 1 twice: learnt once");
	sc_race_pilot_learn(&p, 2, pcs, found(2, pcs));
	is_int((long long)p.n, 5, "run 2 adds two new pcs");
	ok(sorted_distinct(&p), "still sorted and distinct");
	for (uint32_t r = 3; r <= SC_RACE_PILOT_RUNS; r++)
		sc_race_pilot_learn(&p, r, pcs, found(r, pcs));
	size_t frozen = p.n;
	sc_race_pilot_learn(&p, SC_RACE_PILOT_RUNS + 1, pcs,
			    found(SC_RACE_PILOT_RUNS + 1, pcs));
	ok(p.n == frozen && p.done == SC_RACE_PILOT_RUNS,
	   "after the first pilot runs the set stays until run 32");
	is_int(sc_race_pilot_next_silent(&p, 20), 0,
	       "run 20 needs nothing more");
	is_int(sc_race_pilot_next_silent(&p, 50), 32,
	       "run 50 needs pilot run 32 first");
	sc_race_pilot_learn(&p, 64, pcs, found(64, pcs));
	is_int(p.done, SC_RACE_PILOT_RUNS, "run 64 before run 32: ignored");
	sc_race_pilot_learn(&p, 32, pcs, found(32, pcs));
	ok(p.done == SC_RACE_PILOT_RUNS + 1 && p.n > frozen,
	   "run 32 learnt: the set grows again");
	is_int(sc_race_pilot_next_silent(&p, 64), 0, "run 64 needs nothing more");
	is_int(sc_race_pilot_next_silent(&p, 100), 64, "run 100 needs run 64");
	sc_race_pilot_learn(&p, 0, NULL, 0);
	sc_race_pilot_free(&p);

	sc_race_pilot_init(&p, 3);
	is_int(p.size, 3, "a 3-run session: P = 3");
	sc_race_pilot_learn(&p, 1, NULL, 0);
	ok(p.done == 1 && p.n == 0 && !p.pcs, "a run without races");
	sc_race_pilot_free(&p);

	/* --jobs 1 against every job of --jobs 2 and 3 (and shards, which
	 * are the same thing: every N-th run). */
	uint64_t one[RUNS + 1] = { 0 };
	job(0, 1, one);
	for (uint32_t nj = 2; nj <= 3; nj++) {
		uint64_t got[RUNS + 1] = { 0 };
		bool same = true;
		for (uint32_t j = 0; j < nj; j++)
			job(j, nj, got);
		for (uint32_t r = 1; r <= RUNS; r++)
			same = same && got[r] == one[r];
		ok(same, "--jobs %u: every run gets the set of --jobs 1", nj);
	}
	ok(one[1] != one[2] && one[2] != one[3] &&
	   one[SC_RACE_PILOT_RUNS + 1] == one[32] && one[32] != one[33] &&
	   one[33] == one[64] && one[64] != one[65] && one[65] == one[RUNS],
	   "the set grows over the pilot, stays, and grows at runs 32 and 64");
	/* The strategies' pilot after a race pilot of 5 runs. */
	struct sc_strategy_session learnt = { 0 };
	struct sc_pilot sp;
	if (sc_pilot_init(&sp, &learnt, 100, false) == 0) {
		sc_pilot_skip(&sp, 100, 5);
		is_int(sp.size, SC_PILOT_RUNS, "skip 5: P stays SC_PILOT_RUNS");
		ok(sc_pilot_next_silent(&sp, 3) == 0 &&
		   sc_pilot_next_silent(&sp, 6) == 0,
		   "runs up to 6 need no strategy pilot run");
		is_int(sc_pilot_next_silent(&sp, 9), 6,
		       "run 9 needs run 6 (the first pilot run) first");
		ok(sc_pilot_session(&sp, 3) != &learnt,
		   "a skipped run gets a copy of the fresh state");
		ok(sc_pilot_session(&sp, 6) == &learnt, "run 6 learns");
		learnt.max_points = 42;
		sc_pilot_ran(&sp, 6);
		ok(sp.done == 1 && sp.points[0] == 42, "run 6 is pilot run 1");
		is_int(sc_pilot_next_silent(&sp, 9), 7, "then run 7");
		is_int(sc_pilot_next_silent(&sp, 50), 7,
		       "a late run needs runs 7..15");
		sc_pilot_skip(&sp, 8, 5);
		is_int(sp.size, 3, "an 8-run session: runs 6..8 are its pilot");
		sc_pilot_free(&sp);
	}
	return done_testing();
}
