/*
 * test_pilot.c - strategies learn only from the session's pilot
 * (strategy/pilot.h): runs 1..P learn in run order, later runs get a copy
 * of the frozen state that is thrown away, and a job or shard that runs
 * the pilot runs it does not own silently schedules every run it owns as
 * one job would.  Simulated runs: synthetic views (strategy_view.h) whose
 * length and contention depend on the run, so that each run teaches the
 * strategy something new.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "seeds.h"
#include "strategy/pilot.h"
#include "strategy_view.h"

#define RUNS 25
#define SEED 0x5eed

struct strat {
	const char *name, *params;
};

static const struct strat strats[] = {
	{ "pct", "depth=3" }, { "urw", "" }, { "surw", "" },
	{ "noise", "noise=best" }, { "speed", "" }, { "portfolio", "" },
};

/* What one simulated session saw, by run. */
struct record {
	uint64_t picks[RUNS + 1];   /* hash of the run's picks */
	bool ran[RUNS + 1];         /* owned by this job and run */
	bool silent[RUNS + 1];      /* run silently */
	uint32_t order[2 * RUNS];   /* runs in the order they ran */
	uint32_t norder;
};

/* Run r: its picks hashed.  Run r is 20 + (7 r mod 31) steps long, its
 * enabled masks and the objects of its events depend on r. */
static uint64_t simulate_run(const struct strat *st, struct sc_pilot *p,
			     uint32_t r)
{
	struct sc_policy pol = make_policy(st->name, st->params,
					   sc_run_seed(SEED, r), r,
					   sc_pilot_session(p, r));
	uint64_t objects[NTHREADS], h = 1469598103934665603ULL;
	int steps = 20 + (int)(7 * r % 31);

	for (uint32_t i = 0; i < NTHREADS; i++)
		objects[i] = 0x1000 + (i + r) % 4;
	for (int k = 0; k < steps; k++) {
		unsigned mask = (unsigned)(((k + r) * 2654435761u) >> 9) &
				((1u << (2 + r % 4)) - 1);
		int x;

		if (!mask)
			mask = 1;
		x = step_policy(&pol, mask, (uint64_t)k, objects);
		h = (h ^ (uint64_t)(x + 1)) * 1099511628211ULL;
	}
	destroy_policy(st->name, &pol);
	sc_pilot_ran(p, r);
	return h;
}

/* Job `job` of `njobs` of shard `shard` of `nshards` (1-based), as
 * worker_launch.c runs it: before each run it owns, the pilot runs it
 * lacks, silently.  learnt: where its state ends up. */
static void simulate_job(const struct strat *st, uint32_t nshards,
			 uint32_t shard, uint32_t njobs, uint32_t job,
			 struct sc_strategy_session *learnt, struct record *rec)
{
	struct sc_pilot p;
	size_t pos = 0;

	memset(learnt, 0, sizeof(*learnt));
	memset(rec, 0, sizeof(*rec));
	if (sc_pilot_init(&p, learnt, RUNS, false) < 0)
		bail_out("out of memory");
	for (uint32_t r = shard; r <= RUNS; r += nshards, pos++) {
		uint32_t q;

		if (pos % njobs != job)
			continue;
		while ((q = sc_pilot_next_silent(&p, r)) != 0) {
			rec->silent[q] = true;
			rec->order[rec->norder++] = q;
			simulate_run(st, &p, q);
		}
		rec->order[rec->norder++] = r;
		rec->ran[r] = true;
		rec->picks[r] = simulate_run(st, &p, r);
	}
	sc_pilot_free(&p);
}

/* The pilot part of a job's order is 1, 2, ... in order, each once. */
static bool pilot_in_order(const struct record *rec)
{
	uint32_t next = 1;

	for (uint32_t i = 0; i < rec->norder; i++)
		if (rec->order[i] <= SC_PILOT_RUNS && rec->order[i] != next++)
			return false;
	return true;
}

static void test_same_as_one_job(const struct strat *st)
{
	static struct sc_strategy_session one, other;
	struct record ref, rec;
	const uint32_t cfg[][2] = { { 1, 2 }, { 1, 3 }, { 2, 1 }, { 3, 2 } };

	simulate_job(st, 1, 1, 1, 0, &one, &ref);
	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		uint32_t nshards = cfg[c][0], njobs = cfg[c][1];
		bool same = true, order = true, silent_ok = true;
		uint32_t silent = 0;

		for (uint32_t s = 1; s <= nshards; s++)
			for (uint32_t j = 0; j < njobs; j++) {
				simulate_job(st, nshards, s, njobs, j, &other,
					     &rec);
				for (uint32_t r = 1; r <= RUNS; r++) {
					if (rec.ran[r] &&
					    rec.picks[r] != ref.picks[r])
						same = false;
					if (rec.silent[r] &&
					    (rec.ran[r] || r > SC_PILOT_RUNS))
						silent_ok = false;
					silent += rec.silent[r];
				}
				order &= pilot_in_order(&rec);
				/* Every job here owns runs after the
				 * pilot: it learnt what one job did. */
				same &= memcmp(&other, &one, sizeof(one)) == 0;
			}
		ok(same, "%s: %u shard(s) x %u jobs schedule every run as one "
		   "job does, and end with its learnt state", st->name,
		   nshards, njobs);
		ok(order && silent_ok, "%s: %u shard(s) x %u jobs: pilot runs "
		   "in run order, silent ones only from the pilot and not "
		   "owned (%u silent)", st->name, nshards, njobs, silent);
	}
}

/* One job: the state is frozen after run P, and every later run starts
 * from it. */
static void test_frozen(const struct strat *st)
{
	static struct sc_strategy_session learnt, after_pilot, first;
	struct sc_pilot p;
	bool frozen = true, handed = true;

	memset(&learnt, 0, sizeof(learnt));
	if (sc_pilot_init(&p, &learnt, RUNS, false) < 0)
		bail_out("out of memory");
	for (uint32_t r = 1; r <= RUNS; r++) {
		if (r == 2)
			first = learnt;
		if (r == SC_PILOT_RUNS + 1)
			after_pilot = learnt;
		if (r > SC_PILOT_RUNS) {
			/* What run r is given is the frozen state. */
			handed &= memcmp(sc_pilot_session(&p, r),
					 &after_pilot, sizeof(learnt)) == 0;
		}
		simulate_run(st, &p, r);
		if (r > SC_PILOT_RUNS)
			frozen &= memcmp(&learnt, &after_pilot,
					 sizeof(learnt)) == 0;
	}
	ok(memcmp(&first, &after_pilot, sizeof(learnt)) != 0,
	   "%s: the pilot runs teach something (state after run 1 != after "
	   "run %d)", st->name, SC_PILOT_RUNS);
	ok(frozen, "%s: runs after the pilot leave the learnt state as it "
	   "was", st->name);
	ok(handed, "%s: every run after the pilot starts from the state "
	   "after the pilot", st->name);
	is_int(p.done, SC_PILOT_RUNS, "%s: %d pilot runs learnt from",
	       st->name, SC_PILOT_RUNS);
	ok(p.points[SC_PILOT_RUNS - 1] == learnt.max_points &&
	   p.threads[SC_PILOT_RUNS - 1] == learnt.max_threads,
	   "%s: the points and threads after the pilot are recorded "
	   "(%llu, %u)", st->name,
	   (unsigned long long)p.points[SC_PILOT_RUNS - 1],
	   p.threads[SC_PILOT_RUNS - 1]);
	sc_pilot_free(&p);
}

static void test_rules(void)
{
	static struct sc_strategy_session s;
	struct sc_pilot p;

	memset(&s, 0, sizeof(s));
	if (sc_pilot_init(&p, &s, 4, false) < 0)
		bail_out("out of memory");
	is_int(p.size, 4, "a session shorter than the pilot: all its runs "
	       "are the pilot");
	is_int(sc_pilot_next_silent(&p, 1), 0, "run 1 needs nothing before it");
	is_int(sc_pilot_next_silent(&p, 3), 1, "run 3 needs run 1 first");
	ok(sc_pilot_session(&p, 3) != &s, "an out-of-order run gets a copy");
	sc_pilot_ran(&p, 3);
	is_int(p.done, 0, "and is not learnt from");
	ok(sc_pilot_session(&p, 1) == &s, "the next pilot run learns into "
	   "the state itself");
	sc_pilot_ran(&p, 1);
	is_int(sc_pilot_next_silent(&p, 9), 2, "a later run: the rest of the "
	       "pilot first (run 2)");
	sc_pilot_free(&p);

	if (sc_pilot_init(&p, &s, 100, true) < 0)
		bail_out("out of memory");
	ok(sc_pilot_session(&p, 50) == &s && sc_pilot_next_silent(&p, 50) == 0,
	   "exempt (a search): every run learns, nothing runs silently");
	sc_pilot_free(&p);
}

int main(void)
{
	test_rules();
	for (size_t i = 0; i < sizeof(strats) / sizeof(strats[0]); i++) {
		test_frozen(&strats[i]);
		test_same_as_one_job(&strats[i]);
	}
	return done_testing();
}
