/*
 * chess.c - CHESS (Musuvathi et al., OSDI 2008): a systematic search over
 * the schedules of a test, one run at a time, with iterative preemption
 * bounding, fair scheduling and happens-before state caching.
 *
 * Each run replays the choices of a path of the search tree (its prefix,
 * chess_search.h), then goes on with the default choice at every
 * scheduling point (the running thread keeps running; when it cannot, the
 * lowest enabled thread) and records every other candidate as an
 * alternative for a later run, on the stack of the preemptions it would
 * cost.  A preemption is running another thread while the last one could
 * go on; switches after a block, a yield, a sleep, a slice expiry or an
 * exit are free.  Which waiter a wake of one releases is a choice too.
 *
 * A run that meets other candidates than its prefix recorded did not
 * behave like the run it replays (the program is not deterministic for a
 * fixed schedule): it is counted and reported, and runs on without
 * recording alternatives, as the paper describes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/chess_fair.h"
#include "strategy/chess_hb.h"
#include "strategy/chess_search.h"
#include "strategy/params.h"
#include "strategy/rng.h"
#include "strategy/strategy.h"

struct chess_ctx {
	struct sc_chess_search *search;     /* the session's */
	struct sc_search_stats *stats;      /* the session's, or own */
	struct sc_search_stats own_stats;   /* a run without a session */
	bool own_search;                    /* search is ours to free */
	/* The path this run replays, then the choices it made after it. */
	struct sc_chess_choice *path;
	size_t npath;                       /* forced: path[0..nforced) */
	size_t nforced, cappath;
	size_t at;                          /* choice points met so far */
	uint64_t step;                      /* of the last pick */
	uint32_t item;                      /* node of path[nforced - 1] */
	/* path[nforced..nmade) are in the tree as nodes (parents of the
	 * alternatives recorded after them); the rest only in path[]. */
	size_t nmade;
	uint32_t made_node;                 /* node of path[nmade - 1] */
	bool searching;                     /* record alternatives */
	uint32_t preemptions;
	struct sc_search_point points[SC_SEARCH_LEVELS];
	uint32_t npoints;
	/* The last executed event. */
	bool have_last;
	uint32_t last_thread;
	uint16_t last_kind;
	bool fair_pending;                  /* executed since the last pick */
	bool alone;                         /* one live thread at the last pick */
	struct sc_chess_fair fair;
	struct sc_chess_hb hb;
};

/* Yield-like events: the thread waits for another one to act. */
static bool yields(uint16_t kind)
{
	return kind == SC_EV_YIELD || kind == SC_EV_SLEEP ||
	       kind == SC_EV_PREEMPT;
}

static uint32_t hash32(uint64_t h)
{
	return (uint32_t)(sc_splitmix64(h) >> 32);
}

/* ---- the path ---- */

static bool path_append(struct chess_ctx *c, const struct sc_chess_choice *ch)
{
	if (c->npath == c->cappath) {
		size_t cap = c->cappath ? c->cappath * 2 : 64;
		struct sc_chess_choice *p = realloc(c->path, cap * sizeof(*p));

		if (!p)
			return false;
		c->path = p;
		c->cappath = cap;
	}
	c->path[c->npath++] = *ch;
	return true;
}

/* The node of the path so far, made in the tree on demand: only paths
 * with alternatives hanging off them cost memory. */
static uint32_t path_node(struct chess_ctx *c)
{
	while (c->nmade < c->npath) {
		uint32_t n = sc_chess_search_add(c->search, c->made_node,
						 &c->path[c->nmade], false, 0);
		if (n == SC_CHESS_NO_NODE)
			return SC_CHESS_NO_NODE;
		c->made_node = n;
		c->nmade++;
	}
	return c->made_node;
}

/* The search stops recording in this run (a state seen before, a
 * different behaviour, or no memory). */
static void stop_searching(struct chess_ctx *c)
{
	c->searching = false;
}

/* ---- the state cache ---- */

/* The state key of the cache: the partial order so far (fingerprint
 * sum), who ran last and whether that was a yield (with the state, they
 * say whether it may go on for free), and the fairness priorities. */
static uint64_t key_of(uint64_t sum, uint32_t last, bool yielded,
		       uint64_t fair)
{
	uint64_t k = sc_splitmix64(sum ^ ((uint64_t)last << 1 | yielded));

	return sc_splitmix64(k ^ fair);
}

static uint64_t state_key(const struct chess_ctx *c)
{
	return key_of(c->hb.sum, c->last_thread, yields(c->last_kind),
		      sc_chess_fair_hash(&c->fair));
}

/* Events whose effect on the state key is known before they run: no
 * wakes (which waiters they release is decided as they run), no yields
 * (they change the fairness priorities). */
static bool predictable(uint16_t kind)
{
	switch (kind) {
	case SC_EV_FUTEX_WAKE: case SC_EV_FUTEX_WAKE_OP:
	case SC_EV_FUTEX_REQUEUE: case SC_EV_FUTEX_OTHER:
	case SC_EV_THREAD_EXIT: case SC_EV_PROCESS_EXIT:
	case SC_EV_SYSCALL_BLOCKING: case SC_EV_FORK: case SC_EV_EXEC:
		return false;
	default:
		return !yields(kind);
	}
}

/* The state key the run would reach by running ev next, when it can be
 * known in advance; 0 otherwise. */
static uint64_t key_after(const struct chess_ctx *c, const struct sc_event *ev)
{
	struct sc_event e;
	uint64_t k;

	if (!c->search->cache || c->hb.failed || !predictable(ev->kind) ||
	    !sc_chess_fair_quiet(&c->fair))
		return 0;
	e = *ev;
	e.woken = NULL;
	e.nwoken = 0;
	k = key_of(sc_chess_hb_after(&c->hb, &e), e.thread, false,
		   sc_chess_fair_hash(&c->fair));
	return k ? k : 1;
}

/* ---- choice points ---- */

/* The first run that did not follow its prefix, for the summary: "at
 * choice point 3 of 5 (step 40) the candidates were T0, T1, not those of
 * the recorded run, which ran T2 there". */
static void describe_divergence(struct chess_ctx *c,
				const struct sc_chess_choice *f,
				const uint32_t *cand, size_t n)
{
	struct sc_search_stats *st = c->stats;
	size_t len = sizeof(st->nondet_first), o;

	st->nondet_first_run = st->schedules + 1;
	o = (size_t)snprintf(st->nondet_first, len, "at choice point %zu of "
			     "%zu (step %" PRIu64 ") the %s were ", c->at + 1,
			     c->nforced, c->step, f->kind == SC_CHESS_WAKE
			     ? "waiters of a wake" : "candidates");
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(st->nondet_first + o, len - o, "%sT%u",
				      i ? ", " : "", cand[i]);
	if (o < len)
		snprintf(st->nondet_first + o, len - o, ", not those of the "
			 "recorded run, which %s T%u there",
			 f->kind == SC_CHESS_WAKE ? "woke" : "ran", f->choice);
}

/* A choice point with candidates cand[0..n) (logical ids; next[i] is
 * what cand[i] would do, or next is NULL), default cand[dflt]; choosing
 * anything else costs extra preemptions.  Returns the index into cand of
 * the choice. */
static size_t choose(struct chess_ctx *c, uint8_t kind, const uint32_t *cand,
		     const struct sc_event *const *next, size_t n, size_t dflt,
		     uint32_t extra, uint64_t state)
{
	uint32_t hash = hash32(state);
	size_t pick = dflt;

	if (c->at < c->nforced) {
		const struct sc_chess_choice *f = &c->path[c->at];

		pick = n;
		if (f->kind == kind && f->candidates == hash)
			for (size_t i = 0; i < n; i++)
				if (cand[i] == f->choice)
					pick = i;
		if (pick == n) {
			c->stats->nondeterministic++;
			if (!c->stats->nondet_first_run)
				describe_divergence(c, f, cand, n);
			/* Go on with the defaults, recording nothing: the
			 * tree below this point is not this program's. */
			c->nforced = c->at;
			c->npath = c->at;
			stop_searching(c);
			pick = dflt;
		} else if (cand[pick] != cand[dflt]) {
			c->preemptions += extra;
		}
		c->at++;
		return pick;
	}
	c->at++;
	if (c->searching) {
		uint32_t parent = path_node(c);

		for (size_t i = 0; i < n && parent != SC_CHESS_NO_NODE; i++) {
			struct sc_chess_choice alt = {
				.kind = kind, .choice = cand[i],
				.candidates = hash,
				.preemptions = (uint8_t)(c->preemptions + extra),
			};

			if (i == dflt)
				continue;
			if (c->preemptions + extra > c->search->bound) {
				c->stats->beyond_bound++;
				continue;
			}
			/* An alternative that leads into a state explored
			 * before needs no run: what follows that state was
			 * recorded then.  Its key is kept, for states
			 * explored between now and its turn. */
			uint64_t key = next ? key_after(c, next[i]) : 0;

			if (key && sc_chess_search_known(c->search, key,
							 alt.preemptions)) {
				c->stats->cache_hits++;
				continue;
			}
			sc_chess_search_add(c->search, parent, &alt, true, key);
		}
		if (parent == SC_CHESS_NO_NODE)
			stop_searching(c);
	}
	if (c->searching) {
		struct sc_chess_choice taken = {
			.kind = kind, .choice = cand[dflt], .candidates = hash,
			.preemptions = (uint8_t)c->preemptions,
		};

		if (!path_append(c, &taken))
			stop_searching(c);
	}
	return pick;
}

/* ---- scheduling points ---- */

/* Events thread t executed so far (the fingerprint counts them). */
static uint32_t events_of(const struct chess_ctx *c, uint32_t t)
{
	return t < c->hb.nindex ? c->hb.index[t] : 0;
}

static int chess_pick(void *ctx, const struct sc_sched_view *view)
{
	struct chess_ctx *c = ctx;
	uint32_t cand[SC_FAIR_THREADS * 4];
	size_t idx[SC_FAIR_THREADS * 4], n = 0, dflt = 0;
	const struct sc_event *next[SC_FAIR_THREADS * 4];
	uint64_t enabled = 0;
	bool last_may_go_on = false;

	c->alone = view->nthreads == 1;
	c->step = view->step;
	if (view->nenabled == 0)
		return SC_PICK_ABORT;
	for (size_t i = 0; i < view->nenabled; i++)
		enabled |= sc_fair_bit(view->threads[view->enabled[i]].thread);
	if (c->fair_pending && c->have_last)
		sc_chess_fair_executed(&c->fair, c->last_thread,
				       yields(c->last_kind), enabled);
	c->fair_pending = false;
	/* The candidates: enabled threads fairness lets run, by id. */
	for (size_t i = 0; i < view->nenabled && n < sizeof(cand) / sizeof(cand[0]); i++) {
		uint32_t e = view->enabled[i];
		uint32_t t = view->threads[e].thread;

		if (!sc_chess_fair_may_run(&c->fair, t, enabled))
			continue;
		size_t j = n++;
		while (j > 0 && cand[j - 1] > t) {
			cand[j] = cand[j - 1];
			idx[j] = idx[j - 1];
			j--;
		}
		cand[j] = t;
		idx[j] = e;
	}
	if (n == 0) {
		/* Priorities that shut everyone out cannot come from the
		 * rule, but a run must never stall on them. */
		for (size_t i = 0; i < view->nenabled && i < sizeof(cand) / sizeof(cand[0]); i++) {
			idx[n] = view->enabled[i];
			cand[n++] = view->threads[view->enabled[i]].thread;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (c->have_last && cand[i] == c->last_thread &&
		    !yields(c->last_kind)) {
			last_may_go_on = true;
			dflt = i;
		}
	if (n == 1) {
		/* No choice, no choice point. */
		return (int)idx[0];
	}
	if (c->searching && c->at >= c->nforced &&
	    !c->hb.failed &&
	    sc_chess_search_seen(c->search, state_key(c), c->preemptions)) {
		c->stats->cache_hits++;
		stop_searching(c);
	}
	/* What a replayed prefix must meet here: the same candidates, each
	 * as far into its thread (events so far, timing events left out),
	 * after the same last thread.  A thread that did more or less than
	 * in the recorded run moved the choice point. */
	uint64_t state = (uint64_t)c->last_thread << 1 | last_may_go_on;
	for (size_t i = 0; i < n; i++)
		state = sc_splitmix64(state ^ cand[i] ^
				      (uint64_t)events_of(c, cand[i]) << 32);
	for (size_t i = 0; i < n; i++)
		next[i] = &view->threads[idx[i]].next;
	uint32_t before = c->preemptions;
	size_t pick = choose(c, SC_CHESS_PICK, cand, next, n, dflt,
			     last_may_go_on ? 1 : 0, state);
	/* Where the run preempts, for the report of a failing one. */
	if (c->preemptions > before && c->npoints < SC_SEARCH_LEVELS)
		c->points[c->npoints++] = (struct sc_search_point){
			.step = view->step, .from = cand[dflt],
			.to = cand[pick], .kind = next[dflt]->kind,
			.object = next[dflt]->object, .pc = next[dflt]->pc,
		};
	return (int)idx[pick];
}

static size_t chess_pick_wake(void *ctx, const struct sc_event *waker,
			      const uint32_t *waiters, size_t nwaiters,
			      size_t nwake, uint32_t *out)
{
	struct chess_ctx *c = ctx;
	uint64_t state = 0x77616b65;

	(void)waker;
	/* Only a wake of one among several is a choice: which one.  A wake
	 * of some but not all of several releases the oldest (the subsets
	 * would multiply the tree for a case glibc hardly makes). */
	if (nwake != 1 || nwaiters < 2) {
		size_t k = nwake < nwaiters ? nwake : nwaiters;

		for (size_t i = 0; i < k; i++)
			out[i] = (uint32_t)i;
		return k;
	}
	for (size_t i = 0; i < nwaiters; i++)
		state = sc_splitmix64(state ^ waiters[i]);
	out[0] = (uint32_t)choose(c, SC_CHESS_WAKE, waiters, NULL, nwaiters, 0,
				  0, state);
	return 1;
}

static void chess_executed(void *ctx, const struct sc_event *ev)
{
	struct chess_ctx *c = ctx;

	/* The fairness update needs the enabled set after the event: the
	 * next pick applies it. */
	if (c->fair_pending && c->have_last)
		sc_chess_fair_executed(&c->fair, c->last_thread,
				       yields(c->last_kind), ~0ULL);
	c->have_last = true;
	c->last_thread = ev->thread;
	c->last_kind = ev->kind;
	c->fair_pending = true;
	sc_chess_hb_event(&c->hb, ev);
}

/* Blocking syscalls of the only live thread are awaited (learn.h). */
static int chess_release(void *ctx, const struct sc_event *ev)
{
	struct chess_ctx *c = ctx;

	(void)ev;
	return sc_release_mode(c->alone);
}

/* ---- the strategy ---- */

static int parse(const char *params, uint32_t *bound, bool *cache, char *err,
		 size_t errlen)
{
	struct sc_params p;

	*bound = SC_CHESS_DEFAULT_PREEMPTIONS;
	*cache = true;
	if (sc_params_split(&p, "chess", params, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < p.n; i++) {
		uint32_t v;

		if (strcmp(p.key[i], "preemptions") == 0) {
			if (sc_params_u32("chess", "preemptions", p.val[i], 0,
					  SC_CHESS_MAX_PREEMPTIONS, bound, err,
					  errlen) < 0)
				return -1;
		} else if (strcmp(p.key[i], "cache") == 0) {
			if (sc_params_u32("chess", "cache", p.val[i], 0, 1, &v,
					  err, errlen) < 0)
				return -1;
			*cache = v;
		} else {
			snprintf(err, errlen, "strategy chess: unknown parameter "
				 "'%.32s' (known: preemptions, cache)", p.key[i]);
			return -1;
		}
	}
	return 0;
}

int sc_chess_create(const char *params, uint64_t seed, uint32_t run,
		    struct sc_strategy_session *session,
		    struct sc_policy *out, char *err, size_t errlen)
{
	struct chess_ctx *c;
	uint32_t bound;
	bool cache;
	long n;

	(void)seed;     /* a systematic search draws nothing */
	(void)run;
	if (parse(params, &bound, &cache, err, errlen) < 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sc_chess_hb_init(&c->hb);
	c->stats = session ? &session->search : &c->own_stats;
	if (session && !session->chess) {
		session->chess = sc_chess_search_new(bound, cache);
		session->search = (struct sc_search_stats){
			.active = true, .bound = bound, .cache = cache,
			.complete_bound = -1, .bug_preemptions = -1,
		};
	}
	c->search = session ? session->chess
			    : sc_chess_search_new(bound, cache);
	c->own_search = !session;
	if (!c->search) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (!sc_chess_search_next(c->search, &c->item)) {
		snprintf(err, errlen, "chess: the search is exhausted");
		goto fail;
	}
	n = sc_chess_search_path(c->search, c->item, &c->path);
	if (n < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	c->npath = c->nforced = c->nmade = (size_t)n;
	c->cappath = (size_t)n + 1;
	c->made_node = c->item;
	c->searching = true;
	*out = (struct sc_policy){
		.ctx = c,
		.pick = chess_pick,
		.pick_wake = chess_pick_wake,
		.executed = chess_executed,
		.release = chess_release,
	};
	return 0;
fail:
	if (c->own_search)
		sc_chess_search_free(c->search);
	sc_chess_hb_free(&c->hb);
	free(c->path);
	free(c);
	return -1;
}

void sc_chess_destroy(struct sc_policy *p)
{
	struct chess_ctx *c = p->ctx;
	struct sc_search_stats *st;
	int level;

	if (!c)
		return;
	st = c->stats;
	if (c->at < c->nforced) {
		/* The run ended before its prefix was used up: it did not
		 * behave like the run it replays, and the alternative it was
		 * made for was not explored. */
		st->nondeterministic++;
		if (!st->nondet_first_run) {
			st->nondet_first_run = st->schedules + 1;
			snprintf(st->nondet_first, sizeof(st->nondet_first),
				 "the run ended at choice point %zu of the %zu "
				 "recorded", c->at, c->nforced);
		}
	}
	st->schedules++;
	if (c->preemptions < SC_SEARCH_LEVELS)
		st->per_level[c->preemptions]++;
	st->last_preemptions = c->preemptions;
	memcpy(st->points, c->points, sizeof(st->points));
	st->npoints = c->npoints;
	st->cache_hits += sc_chess_search_prune(c->search);
	st->truncated = c->search->truncated;
	level = sc_chess_search_level(c->search);
	st->exhausted = level < 0 && !st->truncated;
	/* Every schedule with fewer preemptions than the lowest level with
	 * alternatives left has run. */
	st->complete_bound = st->truncated ? -1
			     : level < 0 ? (int32_t)c->search->bound
			     : level - 1;
	if (c->own_search)
		sc_chess_search_free(c->search);
	sc_chess_hb_free(&c->hb);
	free(c->path);
	free(c);
	p->ctx = NULL;
}

bool sc_chess_done(const struct sc_strategy_session *s)
{
	return s->chess && sc_chess_search_level(s->chess) < 0;
}

uint32_t sc_chess_preemptions(const struct sc_policy *p)
{
	const struct chess_ctx *c = p->ctx;

	return c ? c->preemptions : 0;
}

void sc_strategy_session_free(struct sc_strategy_session *s)
{
	sc_chess_search_free(s->chess);
	s->chess = NULL;
}
