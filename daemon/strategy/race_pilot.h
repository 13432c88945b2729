/*
 * race_pilot.h - what race granularity learns: the racing instructions of
 * the session's first runs.
 *
 * Runs 1..P of a session (P = min(SC_RACE_PILOT_RUNS, runs)), and then
 * runs 32, 64, 128, ... (SC_RACE_PILOT_LATER and its doublings), run at
 * mem granularity over the program's own code and their traces go
 * through the happens-before race detector; every other run schedules
 * memory accesses only at the instructions found racing so far (both
 * sides of every race), on top of the sync points.  As with the strategies' pilot
 * (pilot.h), the set a run gets must be a function of the seed alone,
 * whatever --jobs or --shard say:
 *
 *   - the set after pilot run q is the union of what the pilot runs up
 *     to q found, learnt in run order (sc_race_pilot_learn() refuses
 *     anything else);
 *   - a job learns the pilot runs it does not own by running them
 *     silently first (sc_race_pilot_next_silent()), like pilot.h's.
 *
 * Why P = 5: the detector reports a race whenever the two accesses are
 * unordered by synchronisation, whatever order they ran in, so a race on
 * a path every run takes shows up in run 1, and more runs only add the
 * races of rarer paths; while a pilot run costs a mem run (5-40x a sync
 * run on the test targets) and each of J jobs pays up to P of them once.
 * Five keeps the pilot within 5% of a default 100-run session and still
 * samples a few schedules for the rarer paths.
 *
 * Why the later ones: what five runs miss, no later run can schedule.
 * QA: with one seed the five pilot runs of a double-checked lock never
 * ran the second racing pair, and 0 of 500 runs failed (116 of 500 with
 * three other seeds).  A pilot run at each doubling samples the session's
 * own schedules again for log2(runs) mem runs: 4 more in 500.
 */
#ifndef SCHEDCTL_RACE_PILOT_H
#define SCHEDCTL_RACE_PILOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_RACE_PILOT_RUNS 5
#define SC_RACE_PILOT_LATER 32

/* A pilot run schedules the first this many memory accesses, then goes
 * on at sync granularity (sc_run_config.mem_event_cap): the races of a
 * test show up early, while every access of a long computation (sort's
 * comparisons, a compressor's loops: millions) would take minutes at
 * 10-40 us each and end as a false hang.  100000 is 1-4 s of a run. */
#define SC_RACE_PILOT_MEM_EVENTS 100000

/* ... and each access instruction at most this many times
 * (sc_run_config.mem_site_cap), so that the set-up's hot loops leave
 * room in those 100000 for what runs after them. */
#define SC_RACE_PILOT_SITE_EVENTS 64

/* After the pilots, a racing instruction is a scheduling point for its
 * first this many executions in a run (sc_run_config.mem_site_cap): a
 * race in a loop that runs long would otherwise stop the run at every
 * turn (QA: Rust's backtrace printer, seen racing in a pilot, made 55000
 * events a run under RUST_BACKTRACE=1, 272 s for 300 runs instead of 5). */
#define SC_RACE_SITE_EVENTS 1000

struct sc_race_pilot {
	uint32_t first;         /* P: runs 1..P */
	uint32_t size;          /* pilot runs in the session, P and later */
	uint32_t done;          /* the first `done` pilot runs learnt from */
	uint64_t *pcs;          /* sorted, distinct */
	size_t n, cap;
};

void sc_race_pilot_init(struct sc_race_pilot *p, uint32_t runs);
void sc_race_pilot_free(struct sc_race_pilot *p);

/* Run `run` is a pilot run: it runs at mem granularity. */
bool sc_race_pilot_is_pilot(const struct sc_race_pilot *p, uint32_t run);

/* The pilot run to run silently before run `run`, or 0 when the set is
 * ready for it. */
uint32_t sc_race_pilot_next_silent(const struct sc_race_pilot *p,
				   uint32_t run);

/* Pilot run `run` found the racing instructions pcs[0..n) (any order,
 * duplicates allowed): add them.  Only the next pilot run in order is
 * learnt from; any other run is ignored (returns 0).  -1 when out of
 * memory (nothing learnt). */
int sc_race_pilot_learn(struct sc_race_pilot *p, uint32_t run,
			const uint64_t *pcs, size_t n);

#endif /* SCHEDCTL_RACE_PILOT_H */
