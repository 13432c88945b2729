/*
 * strategy.h - the registry of scheduling strategies.
 *
 * A strategy turns (parameters, run seed, run index) into a struct
 * sc_policy (tracer.h) for one run.  It sees threads, their next events
 * and the enabled set, never ptrace.  Each strategy lives in its own file
 * (random.c, pct.c, pos.c...) and is listed in registry.c.
 *
 * What a strategy learns across the runs of a launch (PCT estimates the
 * length of a run from the runs already done) lives in a struct
 * sc_strategy_session handed to every create().  The launch lets it learn
 * only from the session's first runs, the pilot, and hands later runs a
 * copy that is thrown away (pilot.h): so a run's schedule depends on its
 * seed, not on --jobs or --shard.
 */
#ifndef SCHEDCTL_STRATEGY_H
#define SCHEDCTL_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer.h"
#include "strategy/learn.h"

/* The strategy of a launch without --strategy, chosen by the benchmarks
 * measured side by side: pos had the best geometric-mean hit ratio on
 * SCTBench (tests/bench/sctbench.sh, 32 cases, 100 runs: 0.149 and 31
 * cases hit, against 0.109 and 26 for surw and 0.143 for surw and pos in
 * turn) and on the project's targets (tests/bench/hitrate.sh, 12
 * targets, 200 runs: 0.242 against 0.195 for surw and 0.184 for mix). */
#define SC_DEFAULT_STRATEGY "pos"
/* What attach takes: not chess (a search over many runs from the
 * program's start), not native (no control). */
#define SC_ATTACH_STRATEGIES "random, pct, pos, pos-rw, noise, speed, urw, " \
	"surw, portfolio, mix"

/* What a systematic search (chess) did so far, for the launch's summary.
 * Plain values: a job process sends them to its session (control.proto
 * SearchStats). */
/* Preemption counts a search tells apart: 0 .. SC_CHESS_MAX_PREEMPTIONS. */
#define SC_SEARCH_LEVELS 17

/* A preemption of a run: at step, thread `from` (about to do an event of
 * kind on object at pc) could have gone on, and `to` ran instead. */
struct sc_search_point {
	uint64_t step;
	uint32_t from, to;
	uint16_t kind;
	uint64_t object, pc;
};

struct sc_search_stats {
	bool active;                /* the strategy is a systematic search */
	uint32_t bound;             /* C: preemptions allowed */
	uint32_t schedules;         /* runs done by the search */
	/* Of them, those with 0, 1, ... preemptions. */
	uint32_t per_level[SC_SEARCH_LEVELS];
	bool exhausted;             /* every schedule within the bound ran */
	/* Highest c such that every schedule with <= c preemptions was
	 * explored (-1: not even those with 0). */
	int32_t complete_bound;
	uint32_t cache_hits;        /* states reached again, not re-explored */
	bool cache;                 /* happens-before state caching on */
	uint64_t beyond_bound;      /* alternatives that needed > C */
	bool truncated;             /* out of search memory: not exhaustive */
	uint32_t nondeterministic;  /* runs that did not follow their prefix */
	uint32_t nondet_first_run;  /* the first of them (0: none) */
	char nondet_first[256];     /* what it did instead */
	uint32_t last_preemptions;  /* of the last run */
	/* Its preemptions (at most C of them). */
	struct sc_search_point points[SC_SEARCH_LEVELS];
	uint32_t npoints;
	/* The first failing run's preemptions in words (the launch fills
	 * them from points[], with names from the run's trace). */
	char bug_points[SC_SEARCH_LEVELS][256];
	uint32_t nbug_points;
	int32_t bug_preemptions;    /* of the first failing run, -1: none */
};

struct sc_chess_search;

/* What the runs of one launch taught the strategies so far.  The launch
 * zeroes it once; policies update it while they run (and in destroy()).
 * A plain value but for chess: pilot.h copies it for the runs after the
 * pilot. */
struct sc_strategy_session {
	uint32_t runs;              /* runs whose policy was destroyed */
	/* Most scheduling points of one run, counting only the steps where
	 * more than one thread was enabled (PCT's k). */
	uint64_t max_points;
	uint32_t max_threads;       /* most threads seen in one run */
	/* noise, speed, urw/surw, portfolio (learn.h). */
	struct sc_learn learn;
	/* chess: the search tree and state cache (chess_search.c), made by
	 * the first run; sc_strategy_session_free() releases it. */
	struct sc_chess_search *chess;
	struct sc_search_stats search;
};

/* Release what the runs of a session allocated (the chess search). */
void sc_strategy_session_free(struct sc_strategy_session *s);

/* PCT's guarantee for a session (struct sc_strategy.bound). */
struct sc_bound {
	uint32_t depth;             /* d */
	uint32_t threads;           /* n: most threads seen (at least 1) */
	uint64_t points;            /* k: the estimate (at least 1) */
	double per_run;             /* 1 / (n k^(d-1)) */
};

struct sc_strategy {
	const char *name;
	const char *summary;        /* one line for --help */
	/* Build the policy of run `run` (1-based) seeded with `seed`
	 * (seeds.h).  params is the "key=value,..." text (may be empty).
	 * session is the launch's (may be NULL: a run on its own, or a
	 * check of the parameters).  Returns 0, or -1 with a one-line
	 * reason in err.  NULL for `native`: the run is not controlled and
	 * has no policy. */
	int (*create)(const char *params, uint64_t seed, uint32_t run,
		      struct sc_strategy_session *session,
		      struct sc_policy *out, char *err, size_t errlen);
	/* Free what create() allocated. */
	void (*destroy)(struct sc_policy *p);
	/* Optional: the worst-case probability that one run hits a given
	 * bug of the strategy's depth, from what the session learnt.
	 * Returns false when there is none (bad params). */
	bool (*bound)(const char *params, const struct sc_strategy_session *s,
		      struct sc_bound *out);
	/* Optional, systematic searches: true when the session has nothing
	 * left to explore (the launch stops).  A search runs in one job and
	 * cannot be sharded. */
	bool (*done)(const struct sc_strategy_session *s);
	/* create() ignores the session: nothing is learnt, so a job does
	 * not run the pilot runs of the others (pilot.h) for it. */
	bool stateless;
	/* Optional: the strategy that runs its race-pilot runs (race
	 * granularity's mem runs, race_pilot.h), when its own schedules
	 * would hide the races they are there to see; NULL: itself. */
	const char *race_pilot_by;
};

/* The strategy called name, or NULL. */
const struct sc_strategy *sc_strategy_find(const char *name);

/* table.c: grow the zero-initialised per-thread array *v of *n elements
 * of size elem (doubling) so that index id is valid.  0, or -1 when out of
 * memory (the array is unchanged). */
int sc_grow_table(void **v, size_t *n, size_t id, size_t elem);

/* True for names of the design that are not implemented yet (pos, pct...):
 * the CLI says "not implemented yet" rather than "unknown". */
bool sc_strategy_planned(const char *name);

/* "random, native": the implemented names, for error messages. */
const char *sc_strategy_list(void);

/* Iterate: the i-th strategy, NULL past the end. */
const struct sc_strategy *sc_strategy_at(size_t i);

/* random.c */
int sc_random_create(const char *params, uint64_t seed, uint32_t run,
		     struct sc_strategy_session *session,
		     struct sc_policy *out, char *err, size_t errlen);
void sc_random_destroy(struct sc_policy *p);

/* pct.c: PCT, params "depth=D" (default SC_PCT_DEFAULT_DEPTH). */
#define SC_PCT_DEFAULT_DEPTH 3
#define SC_PCT_MAX_DEPTH 64
/* k of the first run of a session, before any run was measured. */
#define SC_PCT_DEFAULT_POINTS 100
int sc_pct_create(const char *params, uint64_t seed, uint32_t run,
		  struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen);
void sc_pct_destroy(struct sc_policy *p);
bool sc_pct_bound(const char *params, const struct sc_strategy_session *s,
		  struct sc_bound *out);
/* (1 - p)^n: the chance that n independent runs all miss a bug that each
 * finds with probability p. */
double sc_miss_probability(double p, uint32_t n);

/* pos.c: POS (pos) and its read-only relaxation POS* (pos-rw). */
int sc_pos_create(const char *params, uint64_t seed, uint32_t run,
		  struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen);
int sc_pos_rw_create(const char *params, uint64_t seed, uint32_t run,
		     struct sc_strategy_session *session,
		     struct sc_policy *out, char *err, size_t errlen);
void sc_pos_destroy(struct sc_policy *p);

/* For the unit tests: the current priority of a thread's pending event
 * (pos) or of the thread (pct); false when the thread has none yet. */
bool sc_pos_priority(const struct sc_policy *p, uint32_t thread,
		     uint64_t *prio);
bool sc_pct_priority(const struct sc_policy *p, uint32_t thread,
		     int64_t *prio);

/* noise.c: noise making, params "noise=white|random|best,p=P,c=C". */
#define SC_NOISE_DEFAULT_P 0.1
#define SC_NOISE_DEFAULT_C (1.0 / 3.0)
int sc_noise_create(const char *params, uint64_t seed, uint32_t run,
		    struct sc_strategy_session *session,
		    struct sc_policy *out, char *err, size_t errlen);
void sc_noise_destroy(struct sc_policy *p);
/* For the unit tests: the probability of a yield before an event at pc
 * of the running thread. */
double sc_noise_probability(const struct sc_policy *p, uint64_t pc);

/* speed.c: thread speed control, params "epoch=L,k=K". */
#define SC_SPEED_DEFAULT_EPOCH 64
#define SC_SPEED_DEFAULT_K 7
#define SC_SPEED_DEFAULT_THREADS 4
int sc_speed_create(const char *params, uint64_t seed, uint32_t run,
		    struct sc_strategy_session *session,
		    struct sc_policy *out, char *err, size_t errlen);
void sc_speed_destroy(struct sc_policy *p);
/* For the unit tests: a thread's events per epoch in this run. */
bool sc_speed_quota(const struct sc_policy *p, uint32_t thread,
		    uint64_t *quota);

/* urw.c: uniform (urw) and selectively uniform (surw) random walks. */
int sc_urw_create(const char *params, uint64_t seed, uint32_t run,
		  struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen);
int sc_surw_create(const char *params, uint64_t seed, uint32_t run,
		   struct sc_strategy_session *session,
		   struct sc_policy *out, char *err, size_t errlen);
void sc_urw_destroy(struct sc_policy *p);
/* For the unit tests: a thread's weight now (its estimated events left). */
uint64_t sc_urw_weight(const struct sc_policy *p, uint32_t thread);

/* portfolio.c: run r uses one of pos, pct, pos-rw, surw, random, noise
 * and speed in turn. */
int sc_portfolio_create(const char *params, uint64_t seed, uint32_t run,
			struct sc_strategy_session *session,
			struct sc_policy *out, char *err, size_t errlen);
void sc_portfolio_destroy(struct sc_policy *p);
/* The name of the strategy run r (1-based) uses. */
const char *sc_portfolio_member(uint32_t run);
/* mix: run r uses surw, surw, pct (depth 3) in turn (destroyed by
 * sc_portfolio_destroy). */
int sc_mix_create(const char *params, uint64_t seed, uint32_t run,
		  struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen);
const char *sc_mix_member(uint32_t run);

/* chess.c: CHESS, a depth-first search over schedules with iterative
 * preemption bounding, fair scheduling and happens-before state caching;
 * params "preemptions=C,cache=0|1". */
#define SC_CHESS_DEFAULT_PREEMPTIONS 2
#define SC_CHESS_MAX_PREEMPTIONS 16
int sc_chess_create(const char *params, uint64_t seed, uint32_t run,
		    struct sc_strategy_session *session,
		    struct sc_policy *out, char *err, size_t errlen);
void sc_chess_destroy(struct sc_policy *p);
bool sc_chess_done(const struct sc_strategy_session *s);
/* For the unit tests: the preemptions of the run so far. */
uint32_t sc_chess_preemptions(const struct sc_policy *p);

#endif /* SCHEDCTL_STRATEGY_H */
