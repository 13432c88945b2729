/*
 * pilot.h - what a session's strategy learns: only its pilot.
 *
 * Strategies learn across runs (PCT's k, urw/surw's per-thread events and
 * shared objects, noise best's locations, speed's thread count) in a
 * struct sc_strategy_session.  For a session to be a function of its seed
 * whatever --jobs or --shard say, they learn only from what every job and
 * shard can see alike: the PILOT, runs 1..P of the session with
 * P = min(SC_PILOT_RUNS, runs).
 *
 *   - Run r gets the state learnt from runs 1..min(r - 1, P), in run
 *     order.
 *   - A pilot run (r <= P) updates that state; a later run gets a fresh
 *     copy of the frozen state, which its policy may update but which is
 *     thrown away after it, so a job's later runs do not influence each
 *     other.
 *   - A job (or shard) does not own every pilot run: before each run r it
 *     owns it first runs, silently, the pilot runs below r it has not run
 *     yet (sc_pilot_next_silent()), so that its state is that of --jobs 1.
 *     Each job pays at most P runs for the pilot, once.
 *
 * A systematic search (chess, strategy->done) is exempt: it runs in one
 * job, sees every run and keeps learning from all of them.  So is a
 * strategy that learns nothing (random, pos, pos-rw: strategy->stateless):
 * its jobs run no silent pilot runs.
 *
 * Why P = 10: what the strategies learn saturates within a few runs of a
 * test (the most contested points of a run, the threads, the shared
 * objects and the locations are about the same in every run), while each
 * of J jobs (or shards) pays P - P/J silent runs for it, once: with 10, a
 * default session (100 runs) on 2 jobs runs 10% more runs, a long one
 * (the point of --jobs and --shard) next to nothing.
 */
#ifndef SCHEDCTL_PILOT_H
#define SCHEDCTL_PILOT_H

#include <stdbool.h>
#include <stdint.h>

#include "strategy/strategy.h"

#define SC_PILOT_RUNS 10

struct sc_pilot {
	uint32_t size;              /* P: the pilot's runs, skip+1..skip+P */
	uint32_t skip;              /* runs before the pilot (sc_pilot_skip) */
	bool exempt;                /* learn from every run (a search) */
	uint32_t done;              /* pilot runs 1..done learnt from */
	struct sc_strategy_session *learnt;   /* the state (not owned) */
	struct sc_strategy_session *scratch;  /* a later run's copy */
	/* What the session reports (PCT's bound) after each pilot run
	 * 1..done: the most contested points and threads of a run. */
	uint64_t points[SC_PILOT_RUNS];
	uint32_t threads[SC_PILOT_RUNS];
};

/* The pilot of a session of `runs` runs learning into *learnt.  Returns 0,
 * or -1 when out of memory. */
int sc_pilot_init(struct sc_pilot *p, struct sc_strategy_session *learnt,
		  uint32_t runs, bool exempt);
void sc_pilot_free(struct sc_pilot *p);

/* The pilot starts after run `skip` (right after init): runs 1..skip
 * teach the strategy nothing and get a fresh state.  Race granularity's
 * first runs run at mem, whose events (counts, objects, PCT's k) are not
 * those of the later runs the strategy schedules. */
void sc_pilot_skip(struct sc_pilot *p, uint32_t runs, uint32_t skip);

/* The pilot run to run silently before run `run`, or 0 when the learnt
 * state is ready for it. */
uint32_t sc_pilot_next_silent(const struct sc_pilot *p, uint32_t run);

/* The session to give to the strategy's create() for run `run`: the
 * learnt one for the next pilot run (or always, exempt), else a fresh
 * copy of it. */
struct sc_strategy_session *sc_pilot_session(struct sc_pilot *p,
					     uint32_t run);

/* After run `run`'s policy was destroyed: a pilot run was learnt from. */
void sc_pilot_ran(struct sc_pilot *p, uint32_t run);

#endif /* SCHEDCTL_PILOT_H */
