/*
 * test_strategy_chess.c - chess (systematic search with iterative
 * preemption bounding, fair scheduling and happens-before state caching)
 * driven run by run over tiny simulated programs, the way a launch drives
 * it: one zeroed struct sc_strategy_session, then create / run / destroy
 * until sc_chess_done().
 *
 * The simulator: threads run scripts of lock(m), unlock(m), yield, a
 * spin (yield until another thread has executed an event) and a futex
 * wake.  A thread whose next event is lock(m) while another thread holds
 * m is blocked; a thread whose script is over leaves the view.  pick() is
 * asked at every scheduling point, even with one thread enabled, as the
 * engine does.
 *
 * Hand counts (two threads T0 = X, T1 = Y, each lock; unlock; lock;
 * unlock, 4 events; "preemption" = switching away from the thread that
 * ran the last event while it is still enabled and that event was not a
 * yield; the very first pick has no last thread, so either choice is
 * free, and so is the switch when the running thread's script ends):
 *
 *  Separate mutexes (X uses m1, Y uses m2: nothing ever blocks).  A
 *  schedule is an interleaving of XXXX and YYYY; with k blocks it costs
 *  k - 2 preemptions (the last block switch is free: the other thread
 *  ended).
 *    C=0: 2 blocks, X^4 Y^4 and Y^4 X^4                              -> 2
 *    C=1: + 3 blocks X^a Y^4 X^(4-a), a = 1..3, both first threads   -> 2+6 = 8
 *    C=2: + 4 blocks X^a Y^b X^(4-a) Y^(4-b), a, b = 1..3: 9 each    -> 8+18 = 26
 *    (all 70 interleavings need at most 6 preemptions: XYXYXYXY.)
 *
 *  One shared mutex m.  While the running thread holds m the other one is
 *  blocked, so the only choice points are the first pick and the point
 *  after an unlock with a lock to come (after the first unlock).
 *    C=0: X^4 Y^4, Y^4 X^4                                           -> 2
 *    C=1: + X^2 Y^4 X^2, Y^2 X^4 Y^2                                 -> 4
 *    C=2: + X^2 Y^2 X^2 Y^2, Y^2 X^2 Y^2 X^2                         -> 6
 *
 * Besides the hand counts, every search is compared with a brute-force
 * enumeration of the program's schedules of at most C preemptions.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/strategy.h"
#include "tap.h"

#define MAXT 3
#define MAXOPS 12
#define MAXSTEPS 96
#define MAXRUNS 400
#define NLOCKS 4

#define M1 0x1000
#define M2 0x2000
#define FUTEX 0x3000
#define M3 0x4000

enum op { OP_LOCK = 1, OP_UNLOCK, OP_YIELD, OP_SPIN, OP_WAKE };

struct op_s {
	enum op op;
	uint64_t obj;           /* lock/futex; OP_SPIN: the thread waited for */
};

struct prog {
	uint32_t nthreads;
	uint32_t len[MAXT];
	struct op_s ops[MAXT][MAXOPS];
	/* OP_WAKE offers the policy the waiters {1, 2} (pick_wake). */
	bool offer_wake;
};

/* Builds the program of run `run` (1-based): a deterministic program
 * ignores run; a non-deterministic one changes from some run on. */
typedef void (*build_fn)(struct prog *p, uint32_t run);

static void add(struct prog *p, uint32_t t, enum op op, uint64_t obj)
{
	if (p->len[t] >= MAXOPS)
		bail_out("script too long");
	p->ops[t][p->len[t]++] = (struct op_s){ op, obj };
	if (t + 1 > p->nthreads)
		p->nthreads = t + 1;
}

static void lock_unlock_twice(struct prog *p, uint32_t t, uint64_t m)
{
	add(p, t, OP_LOCK, m);
	add(p, t, OP_UNLOCK, m);
	add(p, t, OP_LOCK, m);
	add(p, t, OP_UNLOCK, m);
}

static void build_separate(struct prog *p, uint32_t run)
{
	(void)run;
	memset(p, 0, sizeof(*p));
	lock_unlock_twice(p, 0, M1);
	lock_unlock_twice(p, 1, M2);
}

static void build_shared(struct prog *p, uint32_t run)
{
	(void)run;
	memset(p, 0, sizeof(*p));
	lock_unlock_twice(p, 0, M1);
	lock_unlock_twice(p, 1, M1);
}

/* ---- the simulated machine ---- */

struct sim {
	const struct prog *p;
	uint32_t pc[MAXT];
	uint32_t events[MAXT];          /* executed per thread */
	int32_t holder[NLOCKS];         /* thread holding lock i, -1: free */
	uint64_t lockobj[NLOCKS];
	uint32_t nlocks;
};

static void sim_init(struct sim *s, const struct prog *p)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
}

static int32_t *holder_of(struct sim *s, uint64_t obj)
{
	for (uint32_t i = 0; i < s->nlocks; i++)
		if (s->lockobj[i] == obj)
			return &s->holder[i];
	if (s->nlocks == NLOCKS)
		bail_out("too many locks");
	s->lockobj[s->nlocks] = obj;
	s->holder[s->nlocks] = -1;
	return &s->holder[s->nlocks++];
}

/* Thread t's next operation (a satisfied spin is passed over), NULL when
 * its script is over. */
static const struct op_s *next_op(struct sim *s, uint32_t t)
{
	const struct prog *p = s->p;

	while (s->pc[t] < p->len[t] && p->ops[t][s->pc[t]].op == OP_SPIN &&
	       s->events[p->ops[t][s->pc[t]].obj] > 0)
		s->pc[t]++;
	return s->pc[t] < p->len[t] ? &p->ops[t][s->pc[t]] : NULL;
}

static bool op_enabled(struct sim *s, uint32_t t, const struct op_s *op)
{
	if (op->op != OP_LOCK)
		return true;
	int32_t h = *holder_of(s, op->obj);
	return h < 0 || (uint32_t)h == t;
}

static struct sc_event event_of(uint32_t t, const struct op_s *op)
{
	struct sc_event ev = { .thread = t };

	switch (op->op) {
	case OP_LOCK:
		ev.kind = SC_EV_MUTEX_LOCK;
		ev.access = SC_ACC_RMW;
		ev.object = op->obj;
		break;
	case OP_UNLOCK:
		ev.kind = SC_EV_MUTEX_UNLOCK;
		ev.access = SC_ACC_RMW;
		ev.object = op->obj;
		break;
	case OP_WAKE:
		ev.kind = SC_EV_FUTEX_WAKE;
		ev.access = SC_ACC_RMW;
		ev.object = op->obj;
		break;
	case OP_YIELD:
	case OP_SPIN:
		ev.kind = SC_EV_YIELD;
		break;
	}
	ev.pc = 0x400000 + (uint64_t)op->op * 0x10;
	return ev;
}

/* Execute thread t's next operation (the caller checked it is enabled). */
static void sim_apply(struct sim *s, uint32_t t)
{
	const struct op_s *op = next_op(s, t);

	switch (op->op) {
	case OP_LOCK:
		*holder_of(s, op->obj) = (int32_t)t;
		break;
	case OP_UNLOCK:
		*holder_of(s, op->obj) = -1;
		break;
	default:
		break;
	}
	if (op->op != OP_SPIN)  /* a spin yields without moving on */
		s->pc[t]++;
	s->events[t]++;
}

struct view_buf {
	struct sc_thread_view threads[MAXT];
	uint32_t enabled[MAXT];
	struct sc_sched_view view;
};

/* The engine's view of the live threads, by logical id. */
static void sim_view(struct sim *s, uint64_t step, struct view_buf *b)
{
	size_t n = 0, ne = 0;

	for (uint32_t t = 0; t < s->p->nthreads; t++) {
		const struct op_s *op = next_op(s, t);
		bool e;

		if (!op)
			continue;
		e = op_enabled(s, t, op);
		b->threads[n] = (struct sc_thread_view){
			.thread = t,
			.state = e ? SC_TS_READY : SC_TS_BLOCKED,
			.enabled = e,
			.next = event_of(t, op),
		};
		if (e)
			b->enabled[ne++] = (uint32_t)n;
		n++;
	}
	b->view = (struct sc_sched_view){
		.step = step, .nthreads = n, .threads = b->threads,
		.nenabled = ne, .enabled = b->enabled,
	};
}

/* ---- one run under a policy ---- */

struct run_rec {
	char seq[MAXSTEPS + 1];         /* '0' + thread per executed event */
	uint32_t len;
	uint32_t pre;                   /* sc_chess_preemptions() at the end */
	uint32_t my_pre;                /* counted by the simulator */
	int wake;                       /* waiter a wake released, -1: none */
	uint32_t yields[MAXT];
	bool complete;                  /* every script ran to its end */
	bool aborted, bad_pick, overflow;
};

static void simulate(struct sc_policy *pol, const struct prog *p,
		     struct run_rec *r)
{
	struct sim s;
	bool have_last = false, last_yield = false;
	uint32_t last = 0;

	sim_init(&s, p);
	memset(r, 0, sizeof(*r));
	r->wake = -1;
	for (uint64_t step = 0;; step++) {
		struct view_buf b;
		bool last_enabled = false;
		struct sc_event ev;
		uint32_t t, woken;
		int k;

		sim_view(&s, step, &b);
		if (b.view.nthreads == 0) {
			r->complete = true;
			break;
		}
		if (step >= MAXSTEPS) {
			r->overflow = true;
			break;
		}
		for (size_t i = 0; i < b.view.nenabled; i++)
			if (have_last && b.threads[b.enabled[i]].thread == last)
				last_enabled = true;
		k = pol->pick(pol->ctx, &b.view);
		if (k < 0) {
			r->aborted = true;
			break;
		}
		if ((size_t)k >= b.view.nthreads || !b.threads[k].enabled) {
			r->bad_pick = true;
			break;
		}
		t = b.threads[k].thread;
		if (have_last && t != last && last_enabled && !last_yield)
			r->my_pre++;
		ev = b.threads[k].next;
		ev.step = step;
		ev.enabled = (uint32_t)b.view.nenabled;
		if (ev.kind == SC_EV_FUTEX_WAKE && p->offer_wake) {
			static const uint32_t waiters[2] = { 1, 2 };
			uint32_t out[2] = { 99, 99 };
			size_t m = pol->pick_wake(pol->ctx, &ev, waiters, 2, 1,
						  out);

			if (m != 1 || out[0] >= 2) {
				r->bad_pick = true;
				break;
			}
			woken = waiters[out[0]];
			r->wake = (int)woken;
			ev.nwoken = 1;
			ev.woken = &woken;
		}
		if (ev.kind == SC_EV_YIELD)
			r->yields[t]++;
		sim_apply(&s, t);
		r->seq[r->len++] = (char)('0' + t);
		pol->executed(pol->ctx, &ev);
		have_last = true;
		last = t;
		last_yield = ev.kind == SC_EV_YIELD;
	}
	r->seq[r->len] = '\0';
	r->pre = sc_chess_preemptions(pol);
}

/* ---- a launch: runs until the search is done ---- */

struct explore {
	uint32_t runs;
	struct run_rec rec[MAXRUNS];
	bool done;                      /* sc_chess_done() at the end */
	bool create_failed;
	char err[256];
	struct sc_search_stats stats;
};

/* Runs as a launch does, at most max_runs of them (--runs). */
static struct explore *explore(const char *params, build_fn build,
			       uint32_t max_runs)
{
	struct explore *ex = calloc(1, sizeof(*ex));
	struct sc_strategy_session session;

	if (!ex)
		bail_out("out of memory");
	memset(&session, 0, sizeof(session));
	if (max_runs > MAXRUNS)
		max_runs = MAXRUNS;
	for (uint32_t run = 1; run <= max_runs; run++) {
		struct sc_policy pol = { 0 };
		struct prog p;

		if (sc_chess_done(&session) && run > 1)
			break;
		build(&p, run);
		if (sc_chess_create(params, 0x5eed + run, run, &session, &pol,
				    ex->err, sizeof(ex->err)) < 0) {
			ex->create_failed = true;
			break;
		}
		simulate(&pol, &p, &ex->rec[run - 1]);
		sc_chess_destroy(&pol);
		ex->runs = run;
	}
	ex->done = sc_chess_done(&session);
	ex->stats = session.search;
	sc_strategy_session_free(&session);
	return ex;
}

/* ---- brute force: every schedule with at most bound preemptions ---- */

struct seqset {
	uint32_t n;
	char seq[MAXRUNS][MAXSTEPS + 1];
};

static void enumerate_from(const struct sim *s0, bool have_last,
			   uint32_t last, bool last_yield, uint32_t pre,
			   uint32_t bound, char *seq, uint32_t len,
			   struct seqset *out)
{
	struct sim s = *s0;
	struct view_buf b;

	sim_view(&s, len, &b);
	if (b.view.nthreads == 0) {
		if (out->n == MAXRUNS)
			bail_out("too many schedules");
		seq[len] = '\0';
		memcpy(out->seq[out->n++], seq, len + 1);
		return;
	}
	if (len >= MAXSTEPS)
		bail_out("enumerate: schedule too long");
	bool last_enabled = false;
	for (size_t i = 0; i < b.view.nenabled; i++)
		if (have_last && b.threads[b.enabled[i]].thread == last)
			last_enabled = true;
	for (size_t i = 0; i < b.view.nenabled; i++) {
		uint32_t t = b.threads[b.enabled[i]].thread;
		uint32_t cost = have_last && t != last && last_enabled &&
				!last_yield;
		struct sim next = s;

		if (pre + cost > bound)
			continue;
		bool y = b.threads[b.enabled[i]].next.kind == SC_EV_YIELD;
		sim_apply(&next, t);
		seq[len] = (char)('0' + t);
		enumerate_from(&next, true, t, y, pre + cost, bound, seq,
			       len + 1, out);
	}
}

static struct seqset *enumerate(build_fn build, uint32_t bound)
{
	struct seqset *out = calloc(1, sizeof(*out));
	struct prog p;
	struct sim s;
	char seq[MAXSTEPS + 1];

	if (!out)
		bail_out("out of memory");
	build(&p, 1);
	sim_init(&s, &p);
	enumerate_from(&s, false, 0, false, 0, bound, seq, 0, out);
	return out;
}

static bool in_set(const struct seqset *set, const char *seq)
{
	for (uint32_t i = 0; i < set->n; i++)
		if (strcmp(set->seq[i], seq) == 0)
			return true;
	return false;
}

/* ---- checks shared by the searches ---- */

static bool all_distinct(const struct explore *ex)
{
	for (uint32_t i = 0; i < ex->runs; i++)
		for (uint32_t j = i + 1; j < ex->runs; j++)
			if (strcmp(ex->rec[i].seq, ex->rec[j].seq) == 0 &&
			    ex->rec[i].wake == ex->rec[j].wake)
				return false;
	return true;
}

static bool all_complete(const struct explore *ex)
{
	for (uint32_t i = 0; i < ex->runs; i++)
		if (!ex->rec[i].complete || ex->rec[i].aborted ||
		    ex->rec[i].bad_pick || ex->rec[i].overflow)
			return false;
	return true;
}

static bool preemptions_agree(const struct explore *ex, uint32_t bound)
{
	for (uint32_t i = 0; i < ex->runs; i++)
		if (ex->rec[i].pre != ex->rec[i].my_pre ||
		    ex->rec[i].pre > bound)
			return false;
	return true;
}

/* Iterative bounding: run r never has fewer preemptions than run r-1. */
static bool nondecreasing(const struct explore *ex)
{
	for (uint32_t i = 1; i < ex->runs; i++)
		if (ex->rec[i].pre < ex->rec[i - 1].pre)
			return false;
	return true;
}

static void show_runs(const char *what, const struct explore *ex)
{
	for (uint32_t i = 0; i < ex->runs; i++)
		diag("  %s run %u: %s (%u preemptions)", what, i + 1,
		     ex->rec[i].seq, ex->rec[i].pre);
}

/* A full search (cache=0) of a deterministic program against the hand
 * count and the brute-force set. */
static void check_search(const char *name, build_fn build, uint32_t bound,
			 uint32_t cache, uint32_t want)
{
	char params[64];
	struct explore *ex;
	struct seqset *all = enumerate(build, bound);
	bool same = true;

	snprintf(params, sizeof(params), "preemptions=%u,cache=%u", bound,
		 cache);
	ex = explore(params, build, MAXRUNS);
	ok(!ex->create_failed, "%s %s: every run is created%s%s", name,
	   params, ex->create_failed ? ": " : "", ex->err);
	ok(ex->done, "%s %s: the search ends", name, params);
	if (!is_int(ex->runs, want, "%s %s: %u runs", name, params, want))
		show_runs(name, ex);
	is_int(all->n, want, "%s C=%u: brute force agrees with the hand count",
	       name, bound);
	for (uint32_t i = 0; i < ex->runs; i++)
		same &= in_set(all, ex->rec[i].seq);
	ok(same && ex->runs == all->n && all_distinct(ex),
	   "%s %s: the runs are exactly the schedules with <= %u preemptions",
	   name, params, bound);
	ok(all_complete(ex), "%s %s: every run ran to completion", name,
	   params);
	ok(preemptions_agree(ex, bound), "%s %s: sc_chess_preemptions() counts "
	   "the run's preemptions, <= %u", name, params, bound);
	ok(nondecreasing(ex), "%s %s: preemptions never decrease from run to "
	   "run (iterative bounding)", name, params);
	ok(ex->stats.active && ex->stats.exhausted &&
	   ex->stats.schedules == ex->runs &&
	   ex->stats.complete_bound == (int32_t)bound &&
	   ex->stats.bound == bound && !ex->stats.truncated &&
	   ex->stats.nondeterministic == 0 && ex->stats.cache == (cache != 0),
	   "%s %s: stats say exhausted, schedules %u == runs, complete_bound "
	   "%d == C", name, params, ex->stats.schedules,
	   ex->stats.complete_bound);
	{
		uint32_t level[SC_SEARCH_LEVELS] = { 0 };
		bool agree = true;

		for (uint32_t i = 0; i < ex->runs; i++)
			if (ex->rec[i].my_pre < SC_SEARCH_LEVELS)
				level[ex->rec[i].my_pre]++;
		for (uint32_t l = 0; l < SC_SEARCH_LEVELS; l++)
			agree &= level[l] == ex->stats.per_level[l];
		ok(agree, "%s %s: schedules per preemption count as counted "
		   "by the simulator (%u with 0, %u with 1, %u with 2)", name,
		   params, level[0], level[1], level[2]);
	}
	free(ex);
	free(all);
}

/* ---- the tests ---- */

static void test_params(void)
{
	const struct sc_strategy *st = sc_strategy_find("chess");
	struct sc_policy p = { 0 };
	char err[256];
	static const struct {
		const char *params, *names;
	} bad[] = {
		{ "preemptions=17", "preemptions" },
		{ "cache=2", "cache" },
		{ "depth=3", "depth" },
		{ "preemptions=-1", "preemptions" },
		{ "preemptions", "preemptions" },
	};
	static const char *const good[] = {
		"", "preemptions=0,cache=0", "preemptions=16", "cache=1",
	};

	ok(st && st->create == sc_chess_create && st->destroy ==
	   sc_chess_destroy && st->done == sc_chess_done,
	   "chess is registered with done()");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ok(sc_chess_create(bad[i].params, 1, 1, NULL, &p, err,
				   sizeof(err)) < 0 &&
		   strstr(err, bad[i].names),
		   "'%s' is rejected: %s", bad[i].params, err);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err[0] = '\0';
		if (sc_chess_create(good[i], 1, 1, NULL, &p, err,
				    sizeof(err)) == 0) {
			ok(p.pick && p.pick_wake && p.executed,
			   "'%s' is accepted", good[i]);
			sc_chess_destroy(&p);
			ok(p.ctx == NULL, "destroy clears the context");
		} else {
			ok(0, "'%s' is accepted: %s", good[i], err);
			skip(1, "not created");
		}
	}
}

/* Without a session: one run, the root of the tree (the defaults). */
static void test_no_session(void)
{
	struct sc_policy p = { 0 };
	struct prog prog;
	struct run_rec r;
	char err[256] = "";

	build_separate(&prog, 1);
	if (sc_chess_create("", 7, 1, NULL, &p, err, sizeof(err)) < 0) {
		ok(0, "create without a session: %s", err);
		return;
	}
	simulate(&p, &prog, &r);
	sc_chess_destroy(&p);
	ok(r.complete, "without a session the run completes");
	is_str(r.seq, "00001111", "without a session: the default schedule");
	is_int(r.pre, 0, "... with no preemption");
}

static void test_counts(void)
{
	static const uint32_t sep[] = { 2, 8, 26 }, shr[] = { 2, 4, 6 };

	for (uint32_t c = 0; c <= 2; c++)
		check_search("separate", build_separate, c, 0, sep[c]);
	for (uint32_t c = 0; c <= 2; c++)
		check_search("shared", build_shared, c, 0, shr[c]);
	/* Every interleaving of XXXX and YYYY has at most 6 preemptions. */
	check_search("separate", build_separate, 6, 0, 70);
	check_search("separate", build_separate, 16, 0, 70);
	/* The shared mutex admits C(4,2) = 6 orders of the four critical
	 * sections, all reached with 2 preemptions. */
	check_search("shared", build_shared, 16, 0, 6);
}

/* Separate mutexes first, then one shared one: the only state that
 * differs between the runs at the end is the order of the two
 * threads' critical sections on the shared mutex. */
static void build_mixed(struct prog *p, uint32_t run)
{
	(void)run;
	memset(p, 0, sizeof(*p));
	add(p, 0, OP_LOCK, M1);
	add(p, 0, OP_UNLOCK, M1);
	add(p, 0, OP_LOCK, M3);
	add(p, 0, OP_UNLOCK, M3);
	add(p, 1, OP_LOCK, M2);
	add(p, 1, OP_UNLOCK, M2);
	add(p, 1, OP_LOCK, M3);
	add(p, 1, OP_UNLOCK, M3);
}

/* Which thread took the shared lock first ('0' or '1'): the mixed
 * program's final state. */
static char first_on_shared(const char *seq)
{
	int n[2] = { 0, 0 };

	for (const char *s = seq; *s; s++)
		if (++n[*s - '0'] == 3)
			return *s;
	return '?';
}

static void test_cache(void)
{
	struct explore *ex;
	uint32_t runs_nocache[5] = { 0 };
	static const uint32_t shr[] = { 2, 4, 6 };

	/* What the cache saves on separate mutexes, bound by bound. */
	for (uint32_t c = 0; c <= 4; c++) {
		char params[64];

		snprintf(params, sizeof(params), "preemptions=%u,cache=0", c);
		ex = explore(params, build_separate, MAXRUNS);
		runs_nocache[c] = ex->runs;
		free(ex);
	}
	for (uint32_t c = 0; c <= 4; c++) {
		char params[64];

		snprintf(params, sizeof(params), "preemptions=%u,cache=1", c);
		ex = explore(params, build_separate, MAXRUNS);
		diag("separate C=%u: %u runs with cache=1, %u with cache=0, "
		     "%u cache hits", c, ex->runs, runs_nocache[c],
		     ex->stats.cache_hits);
		ok(ex->done && ex->stats.exhausted &&
		   ex->stats.complete_bound == (int32_t)c &&
		   ex->stats.schedules == ex->runs,
		   "separate %s: done, exhausted, complete_bound %u", params, c);
		ok(ex->runs >= 2 && ex->runs <= runs_nocache[c],
		   "separate %s: %u runs, between 2 and %u", params, ex->runs,
		   runs_nocache[c]);
		ok(all_complete(ex) && all_distinct(ex) &&
		   preemptions_agree(ex, c) && nondecreasing(ex),
		   "separate %s: distinct complete runs (all 8 events), "
		   "bounded, in bound order", params);
		if (c == 2) {
			ok(ex->stats.cache_hits > 0, "separate %s: %u cache hits",
			   params, ex->stats.cache_hits);
			/* By hand: 14 runs, 26 without the cache.  An
			 * alternative whose next event leads into a state
			 * reached before (same partial order, same last
			 * thread, no more preemptions) gets no run.  Levels
			 * 0 and 1 (2 + 6 runs) meet no state twice.  Of the
			 * 18 level-2 schedules X^a Y^b X^(4-a) Y^(4-b), those
			 * with a = 1, 2 switch back to X into the state
			 * {X^(a+1), Y^b, last X}, which the level-1 run
			 * Y^b X^4 Y^(4-b) passed at a choice point: 2 x 3
			 * per first thread, 12 in all, leaving 6. */
			is_int(ex->runs, 14, "separate %s: 14 runs, the hand "
			       "count with caching", params);
		}
		if (c >= 3)
			ok(ex->runs < runs_nocache[c], "separate %s: the cache "
			   "saves runs (%u < %u)", params, ex->runs,
			   runs_nocache[c]);
		free(ex);
	}
	/* Shared mutex: no two runs reach one state before their end. */
	for (uint32_t c = 0; c <= 2; c++)
		check_search("shared", build_shared, c, 1, shr[c]);

	/* Every final state is still reached with the cache. */
	for (uint32_t c = 0; c <= 4; c++) {
		char p0[64], p1[64];
		struct explore *a, *b;
		unsigned fa = 0, fb = 0;

		snprintf(p0, sizeof(p0), "preemptions=%u,cache=0", c);
		snprintf(p1, sizeof(p1), "preemptions=%u,cache=1", c);
		a = explore(p0, build_mixed, MAXRUNS);
		b = explore(p1, build_mixed, MAXRUNS);
		for (uint32_t i = 0; i < a->runs; i++)
			fa |= 1u << (first_on_shared(a->rec[i].seq) - '0');
		for (uint32_t i = 0; i < b->runs; i++)
			fb |= 1u << (first_on_shared(b->rec[i].seq) - '0');
		diag("mixed C=%u: %u runs with cache=0, %u with cache=1 (%u "
		     "hits)", c, a->runs, b->runs, b->stats.cache_hits);
		ok(a->done && b->done && fa == 3 && fb == 3 &&
		   all_complete(b) && all_distinct(b) && b->runs <= a->runs,
		   "mixed C=%u: cache=1 reaches both final states, as cache=0",
		   c);
		free(a);
		free(b);
	}
}

/* --runs smaller than the search: not exhausted, complete_bound is the
 * highest level fully explored. */
static void test_stopped_early(void)
{
	static const struct {
		uint32_t runs;
		int32_t complete;
	} cases[] = { { 1, -1 }, { 2, 0 }, { 5, 0 }, { 8, 1 }, { 25, 1 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct explore *ex = explore("preemptions=2,cache=0",
					     build_separate, cases[i].runs);

		ok(ex->runs == cases[i].runs && !ex->done &&
		   !ex->stats.exhausted &&
		   ex->stats.schedules == cases[i].runs,
		   "separate C=2, stopped after %u runs: not exhausted",
		   cases[i].runs);
		is_int(ex->stats.complete_bound, cases[i].complete,
		       "... complete_bound %d", cases[i].complete);
		is_int(ex->stats.last_preemptions, ex->rec[ex->runs - 1].pre,
		       "... last_preemptions is the last run's");
		free(ex);
	}
}

/* T0 locks m1, wakes one of {T1, T2} on a futex, unlocks; T1 locks and
 * unlocks m2.  The waiters are abstract (the wake releases nobody the
 * simulator runs): only the choice matters. */
static void build_wake_choice(struct prog *p, uint32_t run)
{
	(void)run;
	memset(p, 0, sizeof(*p));
	add(p, 0, OP_LOCK, M1);
	add(p, 0, OP_WAKE, FUTEX);
	add(p, 0, OP_UNLOCK, M1);
	add(p, 1, OP_LOCK, M2);
	add(p, 1, OP_UNLOCK, M2);
	p->offer_wake = true;
}

static void build_wake_plain(struct prog *p, uint32_t run)
{
	build_wake_choice(p, run);
	p->offer_wake = false;
}

static void test_wake(void)
{
	for (uint32_t c = 0; c <= 2; c++) {
		char params[64];
		struct explore *with, *without;
		bool both = true, w1 = false, w2 = false;

		snprintf(params, sizeof(params), "preemptions=%u,cache=0", c);
		with = explore(params, build_wake_choice, MAXRUNS);
		without = explore(params, build_wake_plain, MAXRUNS);
		diag("wake %s: %u runs, %u without the wake choice", params,
		     with->runs, without->runs);
		ok(with->done && without->done && all_complete(with) &&
		   all_distinct(with) && preemptions_agree(with, c) &&
		   nondecreasing(with),
		   "wake %s: distinct complete runs in bound order", params);
		is_int(with->runs, 2 * without->runs,
		       "wake %s: the wake choice doubles the runs", params);
		/* Each schedule of the threads with each waiter. */
		for (uint32_t i = 0; i < without->runs; i++) {
			bool a = false, b = false;

			for (uint32_t j = 0; j < with->runs; j++) {
				if (strcmp(with->rec[j].seq,
					   without->rec[i].seq) != 0)
					continue;
				a |= with->rec[j].wake == 1;
				b |= with->rec[j].wake == 2;
			}
			both &= a && b;
		}
		for (uint32_t j = 0; j < with->runs; j++) {
			w1 |= with->rec[j].wake == 1;
			w2 |= with->rec[j].wake == 2;
		}
		ok(w1 && w2 && both, "wake %s: both waiters released, with "
		   "every schedule", params);
		free(with);
		free(without);
	}
	/* With the cache the choice is explored too. */
	struct explore *ex = explore("preemptions=2,cache=1",
				     build_wake_choice, MAXRUNS);
	bool w1 = false, w2 = false;

	for (uint32_t j = 0; j < ex->runs; j++) {
		w1 |= ex->rec[j].wake == 1;
		w2 |= ex->rec[j].wake == 2;
	}
	diag("wake preemptions=2,cache=1: %u runs, %u hits", ex->runs,
	     ex->stats.cache_hits);
	ok(ex->done && w1 && w2 && all_complete(ex),
	   "wake preemptions=2,cache=1: both waiters released");
	free(ex);
}

/* T0 yields until T1 has executed an event, then locks and unlocks m1;
 * T1 locks and unlocks m2.  Without fairness the default after a yield
 * (the lowest id, T0) would spin forever; fairness makes T0 give way to
 * T1 at its second yield. */
static void build_spin(struct prog *p, uint32_t run)
{
	(void)run;
	memset(p, 0, sizeof(*p));
	add(p, 0, OP_SPIN, 1);
	add(p, 0, OP_LOCK, M1);
	add(p, 0, OP_UNLOCK, M1);
	add(p, 1, OP_LOCK, M2);
	add(p, 1, OP_UNLOCK, M2);
}

static void test_fairness(void)
{
	for (uint32_t c = 0; c <= 2; c++) {
		for (uint32_t cache = 0; cache <= 1; cache++) {
			char params[64];
			struct explore *ex;
			uint32_t most = 0;

			snprintf(params, sizeof(params),
				 "preemptions=%u,cache=%u", c, cache);
			ex = explore(params, build_spin, 50);
			for (uint32_t i = 0; i < ex->runs; i++)
				if (ex->rec[i].yields[0] > most)
					most = ex->rec[i].yields[0];
			diag("spin %s: %u runs, at most %u yields of T0",
			     params, ex->runs, most);
			if (c == 0) {
				ok(ex->done && ex->runs <= 10,
				   "spin %s: done in %u <= 10 runs", params,
				   ex->runs);
				if (cache == 0)
					show_runs("spin", ex);
			} else {
				ok(ex->done, "spin %s: done in %u runs", params,
				   ex->runs);
			}
			ok(all_complete(ex) && most <= 10,
			   "spin %s: every run completes, T0 yields at most %u "
			   "<= 10 times", params, most);
			ok(most <= 2, "spin %s: T0 gives way at its second "
			   "yield", params);
			free(ex);
		}
	}
}

/* Non-deterministic programs: from run 3 on, T1 behaves differently. */
static void build_nondet_yield(struct prog *p, uint32_t run)
{
	build_separate(p, run);
	if (run >= 3) {
		/* T1 starts with a yield: at the choice point after it the
		 * last thread may no longer go on for free. */
		memset(p->ops[1], 0, sizeof(p->ops[1]));
		p->len[1] = 0;
		add(p, 1, OP_YIELD, 0);
		lock_unlock_twice(p, 1, M2);
	}
}

static void build_nondet_shorter(struct prog *p, uint32_t run)
{
	build_separate(p, run);
	if (run >= 3)
		p->len[1] = 2;          /* T1 locks and unlocks m2 once */
}

static void build_nondet_blocked(struct prog *p, uint32_t run)
{
	build_separate(p, run);
	if (run >= 3)
		/* T1 takes T0's mutex: T0 is blocked where it was enabled. */
		for (uint32_t i = 0; i < p->len[1]; i++)
			p->ops[1][i].obj = M1;
}

static void test_nondeterminism(void)
{
	struct explore *ex = explore("preemptions=1,cache=0",
				     build_nondet_yield, MAXRUNS);

	diag("nondet (yield) : %u runs, %u nondeterministic, first run %u: %s",
	     ex->runs, ex->stats.nondeterministic, ex->stats.nondet_first_run,
	     ex->stats.nondet_first);
	ok(ex->stats.nondeterministic > 0, "a run that leaves its prefix is "
	   "counted (%u)", ex->stats.nondeterministic);
	is_int(ex->stats.nondet_first_run, 3, "... first in run 3");
	ok(strstr(ex->stats.nondet_first, "choice point") != NULL,
	   "... described: %s", ex->stats.nondet_first);
	ok(ex->done && ex->runs < MAXRUNS && all_complete(ex),
	   "... and the search still ends (%u runs)", ex->runs);
	free(ex);

	/* Two subtler ways to leave a prefix:
	 *  - shorter T1: run 3 replays Y Y Y X (4 choice points) but T1
	 *    now ends after 2 events, so the run ends at choice point 2:
	 *    counted when the run ends with its prefix not used up.
	 *  - blocked T0: T1 now takes T0's mutex, so while T1 holds it T0
	 *    is blocked and there is no choice point where the recording
	 *    had one; the next one comes an event later, and the recorded
	 *    candidates (with each one's count of events so far) differ. */
	ex = explore("preemptions=1,cache=0", build_nondet_shorter, MAXRUNS);
	diag("nondet (shorter T1): %u runs, %u nondeterministic: %s",
	     ex->runs, ex->stats.nondeterministic, ex->stats.nondet_first);
	show_runs("shorter T1", ex);
	ok(ex->done && all_complete(ex), "shorter T1: the search ends");
	ok(ex->stats.nondeterministic > 0, "shorter T1 from run 3: the "
	   "divergence is reported (%s)", ex->stats.nondet_first);
	free(ex);
	ex = explore("preemptions=1,cache=0", build_nondet_blocked, MAXRUNS);
	diag("nondet (blocked T0): %u runs, %u nondeterministic: %s",
	     ex->runs, ex->stats.nondeterministic, ex->stats.nondet_first);
	show_runs("blocked T0", ex);
	ok(ex->done && all_complete(ex), "blocked T0: the search ends");
	ok(ex->stats.nondeterministic > 0, "blocked T0 from run 3: the "
	   "divergence is reported (%s)", ex->stats.nondet_first);
	free(ex);
}

int main(void)
{
	test_params();
	test_no_session();
	test_counts();
	test_cache();
	test_stopped_early();
	test_wake();
	test_fairness();
	test_nondeterminism();
	return done_testing();
}
