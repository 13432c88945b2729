/*
 * pct.c - PCT, probabilistic concurrency testing (Burckhardt, Kothari,
 * Musuvathi, Nagarakatte, ASPLOS 2010).
 *
 * Every thread gets a distinct random priority when it first appears, and
 * the enabled thread of highest priority always runs.  d-1 change points
 * are drawn uniformly among the k scheduling points of a run; when the
 * count of points reaches change point i, the thread about to run drops to
 * priority i, below every initial priority.  A bug of depth d is then hit
 * with probability at least 1/(n k^(d-1)) for n threads.
 *
 * Adapted to whole programs:
 *  - k counts only the points where more than one thread is enabled:
 *    sequential phases cannot reorder anything.  k is not known before a
 *    run, so it is estimated from the session: the most points of a run
 *    so far (SC_PCT_DEFAULT_POINTS for the first run).
 *  - A thread that appears gets a random 62-bit key as its priority, which
 *    orders it uniformly at random among the live initial priorities: the
 *    same as drawing its rank among d..d+n as the paper does.
 *  - Starvation: a thread that keeps spinning (yield, sleep, preempted
 *    by the time slice, or the same load or compare-and-swap of a flag
 *    again and again at memory granularity) at the top would never let the thread it waits
 *    for run, so after SPIN_LIMIT such steps in a row it drops below
 *    everyone.  So does a thread picked at RUN_LIMIT contested points in
 *    a row (a polling loop through locks), and the main thread once when
 *    it is about to exit the process (others get to run before it ends).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/learn.h"
#include "strategy/rng.h"
#include "strategy/strategy.h"

/* Spin steps in a row (at contested points) before a thread drops. */
#define SPIN_LIMIT 3
/* Contested points in a row won by one thread before it drops. */
#define RUN_LIMIT 1000
/* Initial priorities live above 2^62; change points are 1..d-1 and
 * starvation drops go below 1. */
#define INITIAL_BASE ((int64_t)1 << 62)

struct pct_thread {
	bool seen;
	bool exit_dropped;          /* main thread: dropped before exit */
	int64_t prio;
	uint32_t spins;             /* spin steps in a row */
};

struct pct_ctx {
	struct sc_rng rng;
	struct sc_strategy_session *session;
	uint32_t depth;
	uint64_t k;
	uint64_t change[SC_PCT_MAX_DEPTH];  /* change[i - 1]: point of change i */
	uint64_t points;            /* contested scheduling points so far */
	int64_t lowest;             /* lowest priority given so far */
	uint32_t nseen;             /* threads seen in this run */
	uint32_t last;              /* thread picked last, for RUN_LIMIT */
	uint32_t run_length;        /* contested points it won in a row */
	bool alone;                 /* the last view had one live thread */
	/* The same load or compare-and-swap again and again: a thread
	 * polling a flag or a lock of its own (learn.h). */
	struct sc_spin_watch spin;
	uint32_t polling;           /* that thread, UINT32_MAX: none */
	struct pct_thread *t;
	size_t nt;
	char err[128];
};

/* Parse "depth=D" (or ""); 0, or -1 with a reason in err. */
static int parse_params(const char *params, uint32_t *depth, char *err,
			size_t errlen)
{
	char buf[256], *save = NULL, *tok;

	*depth = SC_PCT_DEFAULT_DEPTH;
	if (!params || !*params)
		return 0;
	if (strlen(params) >= sizeof(buf)) {
		snprintf(err, errlen, "strategy pct: parameters too long");
		return -1;
	}
	strcpy(buf, params);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v;

		if (strncmp(tok, "depth=", 6) != 0) {
			snprintf(err, errlen, "strategy pct: unknown parameter "
				 "'%.64s' (known: depth=D)", tok);
			return -1;
		}
		errno = 0;
		v = strtoul(tok + 6, &end, 10);
		if (errno || end == tok + 6 || *end || tok[6] == '-' || v < 1 ||
		    v > SC_PCT_MAX_DEPTH) {
			snprintf(err, errlen, "strategy pct: depth must be a "
				 "number from 1 to %d (got '%.32s')",
				 SC_PCT_MAX_DEPTH, tok + 6);
			return -1;
		}
		*depth = (uint32_t)v;
	}
	return 0;
}

/* The entry of thread id, grown on demand; NULL when out of memory. */
static struct pct_thread *thread_of(struct pct_ctx *c, uint32_t id)
{
	if (sc_grow_table((void **)&c->t, &c->nt, id, sizeof(*c->t)) < 0)
		return NULL;
	if (!c->t[id].seen) {
		c->t[id].seen = true;
		c->t[id].prio = INITIAL_BASE + (int64_t)(sc_rng_next(&c->rng) >> 2);
		c->nseen++;
		if (c->session && c->session->max_threads < c->nseen)
			c->session->max_threads = c->nseen;
	}
	return &c->t[id];
}

static void drop_to_bottom(struct pct_ctx *c, struct pct_thread *t)
{
	t->prio = --c->lowest;
}

/* Index into view->threads of the enabled thread of highest priority
 * (ties, which need equal 62-bit draws, go to the lower id). */
static size_t highest(const struct pct_ctx *c, const struct sc_sched_view *v)
{
	size_t best = v->enabled[0];

	for (size_t i = 1; i < v->nenabled; i++) {
		size_t e = v->enabled[i];
		int64_t pe = c->t[v->threads[e].thread].prio;
		int64_t pb = c->t[v->threads[best].thread].prio;

		if (pe > pb || (pe == pb && v->threads[e].thread <
				v->threads[best].thread))
			best = e;
	}
	return best;
}

static bool is_spin(uint16_t kind)
{
	return kind == SC_EV_YIELD || kind == SC_EV_SLEEP ||
	       kind == SC_EV_PREEMPT;
}

static int pct_pick(void *ctx, const struct sc_sched_view *view)
{
	struct pct_ctx *c = ctx;
	size_t h;
	struct pct_thread *th;

	c->alone = view->nthreads == 1;
	for (size_t i = 0; i < view->nthreads; i++)
		if (!thread_of(c, view->threads[i].thread)) {
			snprintf(c->err, sizeof(c->err), "pct: out of memory");
			return SC_PICK_ABORT;
		}
	if (view->nenabled == 0)
		return SC_PICK_ABORT;   /* the engine never asks then */
	if (view->nenabled == 1)
		return (int)view->enabled[0];   /* not a scheduling point */

	c->points++;
	if (c->session && c->session->max_points < c->points)
		c->session->max_points = c->points;
	/* The main thread steps aside once before it ends the process. */
	for (size_t i = 0; i < view->nenabled; i++) {
		const struct sc_thread_view *tv = &view->threads[view->enabled[i]];

		if (tv->thread == 0 && tv->next.kind == SC_EV_PROCESS_EXIT &&
		    !c->t[0].exit_dropped) {
			c->t[0].exit_dropped = true;
			drop_to_bottom(c, &c->t[0]);
		}
	}
	/* Change points: the thread that would run now drops to i. */
	for (uint32_t i = 1; i < c->depth; i++)
		if (c->change[i - 1] == c->points)
			c->t[view->threads[highest(c, view)].thread].prio = i;

	h = highest(c, view);
	th = &c->t[view->threads[h].thread];
	/* Starvation: a spinning thread, or one that never lets go. */
	if (c->last == view->threads[h].thread)
		c->run_length++;
	else
		c->run_length = 1;
	th->spins = is_spin(view->threads[h].next.kind) ||
		    c->polling == view->threads[h].thread ? th->spins + 1 : 0;
	if (th->spins >= SPIN_LIMIT || c->run_length >= RUN_LIMIT) {
		th->spins = 0;
		drop_to_bottom(c, th);
		h = highest(c, view);
		c->run_length = 1;
	}
	c->last = view->threads[h].thread;
	return (int)h;
}

static void pct_executed(void *ctx, const struct sc_event *ev)
{
	struct pct_ctx *c = ctx;

	if (sc_spin_watch_event(&c->spin, ev))
		c->polling = ev->thread;
	else if (ev->thread == c->polling)
		c->polling = UINT32_MAX;
}

/* Wake the waiters of highest priority (reported in ascending index
 * order, as the kernel's default would list them). */
static size_t pct_pick_wake(void *ctx, const struct sc_event *waker,
			    const uint32_t *waiters, size_t nwaiters,
			    size_t nwake, uint32_t *out)
{
	struct pct_ctx *c = ctx;
	size_t k = nwake < nwaiters ? nwake : nwaiters, n = 0;

	(void)waker;
	for (size_t i = 0; i < nwaiters; i++)
		if (!thread_of(c, waiters[i])) {
			snprintf(c->err, sizeof(c->err), "pct: out of memory");
			return SIZE_MAX;
		}
	/* Selection: waiter i is woken when fewer than k waiters beat it. */
	for (size_t i = 0; i < nwaiters && n < k; i++) {
		int64_t pi = c->t[waiters[i]].prio;
		size_t better = 0;

		for (size_t j = 0; j < nwaiters; j++) {
			int64_t pj = c->t[waiters[j]].prio;

			if (pj > pi || (pj == pi && j < i))
				better++;
		}
		if (better < k)
			out[n++] = (uint32_t)i;
	}
	return n;
}

/* Blocking syscalls of the only live thread are awaited (learn.h). */
static int pct_release(void *ctx, const struct sc_event *ev)
{
	struct pct_ctx *c = ctx;

	(void)ev;
	return sc_release_mode(c->alone);
}

static const char *pct_error(void *ctx)
{
	struct pct_ctx *c = ctx;

	return c->err[0] ? c->err : NULL;
}

static uint64_t estimate_points(const struct sc_strategy_session *s)
{
	if (!s || s->runs == 0)
		return SC_PCT_DEFAULT_POINTS;
	return s->max_points ? s->max_points : 1;
}

int sc_pct_create(const char *params, uint64_t seed, uint32_t run,
		  struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen)
{
	struct pct_ctx *c;
	uint32_t depth;

	(void)run;
	if (parse_params(params, &depth, err, errlen) < 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sc_rng_seed(&c->rng, seed);
	c->session = session;
	c->depth = depth;
	c->k = estimate_points(session);
	c->lowest = 1;
	c->last = UINT32_MAX;
	c->polling = UINT32_MAX;
	/* Distinct points when there are enough of them. */
	for (uint32_t i = 0; i + 1 < depth; i++) {
		bool dup;

		do {
			c->change[i] = 1 + sc_rng_below(&c->rng, c->k);
			dup = false;
			for (uint32_t j = 0; j < i; j++)
				dup |= c->change[j] == c->change[i];
		} while (dup && c->k >= depth - 1);
	}
	*out = (struct sc_policy){
		.ctx = c,
		.pick = pct_pick,
		.pick_wake = pct_pick_wake,
		.executed = pct_executed,
		.release = pct_release,
		.error = pct_error,
	};
	return 0;
}

void sc_pct_destroy(struct sc_policy *p)
{
	struct pct_ctx *c = p->ctx;

	if (c && c->session)
		c->session->runs++;
	if (c)
		free(c->t);
	free(c);
	p->ctx = NULL;
}

bool sc_pct_bound(const char *params, const struct sc_strategy_session *s,
		  struct sc_bound *out)
{
	char err[128];
	uint32_t depth;
	double k;

	if (parse_params(params, &depth, err, sizeof(err)) < 0)
		return false;
	/* Nothing learnt (the session stopped at a bug before pct's pilot
	 * run ended): no n or k to state (QA: "n=1 threads, k=100 points"
	 * for a program of 3 threads). */
	if (!s || !s->max_threads)
		return false;
	out->depth = depth;
	out->threads = s->max_threads;
	out->points = estimate_points(s);
	k = (double)out->points;
	out->per_run = 1.0 / out->threads;
	for (uint32_t i = 1; i < depth; i++)
		out->per_run /= k;
	return true;
}

double sc_miss_probability(double p, uint32_t n)
{
	double base = 1.0 - p, r = 1.0;

	/* Exponentiation by squaring: no libm, exact enough. */
	while (n) {
		if (n & 1)
			r *= base;
		base *= base;
		n >>= 1;
	}
	return r;
}

bool sc_pct_priority(const struct sc_policy *p, uint32_t thread,
		     int64_t *prio)
{
	const struct pct_ctx *c = p->ctx;

	if (!c || thread >= c->nt || !c->t[thread].seen)
		return false;
	*prio = c->t[thread].prio;
	return true;
}
