/*
 * noise.c - noise making (Ben-Asher, Eytani, Farchi, Ur, "Noise makers
 * need to know where to be silent", PADTAD 2006).
 *
 * The thread that ran last keeps running while it is enabled, as an
 * undisturbed scheduler would let it, except that before each of its
 * events a yield is injected with probability p: another enabled thread,
 * drawn uniformly, runs instead.  When the last thread cannot run (it
 * blocked or ended), the next one is drawn uniformly.  Variants (params
 * "noise=KIND,p=P,c=C"):
 *   white   fixed p (default 0.1) at every event;
 *   random  p drawn uniformly in (0, 0.5] for each run;
 *   best    p = 1 / (1 + c n), c default 1/3, n the distinct program
 *           locations (pcs) the session has seen so far; and noise only
 *           at a random half of the locations, drawn anew for each run
 *           (the paper's two-level scheme: silence where noise hurts).
 * A thread that yields, sleeps or was preempted (spinning) always lets
 * another run next: keeping it would starve the thread it waits for.
 * Futex wakes release a uniform subset of the waiters.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/learn.h"
#include "strategy/params.h"
#include "strategy/rng.h"
#include "strategy/strategy.h"

enum noise_kind { NOISE_WHITE, NOISE_RANDOM, NOISE_BEST };

struct noise_ctx {
	struct sc_rng rng;          /* first: sc_rng_pick_wake */
	enum noise_kind kind;
	double p;                   /* white, random: the run's probability */
	double c;                   /* best: p = 1 / (1 + c n) */
	uint64_t salt;              /* best: which locations make noise */
	struct sc_strategy_session *session;
	struct sc_learn *learn;     /* the session's, or own_learn */
	struct sc_learn *own_learn;
	struct sc_run_stats stats;
	uint32_t last;              /* thread picked last, UINT32_MAX: none */
	bool last_spun;             /* its last event was a spin */
	uint64_t noises;            /* yields injected (for the unit tests) */
};

static int parse(const char *params, enum noise_kind *kind, double *p,
		 bool *p_set, double *c, char *err, size_t errlen)
{
	struct sc_params ps;
	bool c_set = false;

	*kind = NOISE_WHITE;
	*p = SC_NOISE_DEFAULT_P;
	*p_set = false;
	*c = SC_NOISE_DEFAULT_C;
	if (sc_params_split(&ps, "noise", params, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < ps.n; i++) {
		const char *k = ps.key[i], *v = ps.val[i];

		if (strcmp(k, "noise") == 0) {
			if (strcmp(v, "white") == 0)
				*kind = NOISE_WHITE;
			else if (strcmp(v, "random") == 0)
				*kind = NOISE_RANDOM;
			else if (strcmp(v, "best") == 0)
				*kind = NOISE_BEST;
			else {
				snprintf(err, errlen, "strategy noise: unknown "
					 "noise '%.32s' (known: white, random, "
					 "best)", v);
				return -1;
			}
		} else if (strcmp(k, "p") == 0) {
			if (sc_params_double("noise", "p", v, 0, 1, p, err,
					     errlen) < 0)
				return -1;
			*p_set = true;
		} else if (strcmp(k, "c") == 0) {
			if (sc_params_double("noise", "c", v, 0, 1e9, c, err,
					     errlen) < 0)
				return -1;
			c_set = true;
		} else {
			snprintf(err, errlen, "strategy noise: unknown parameter "
				 "'%.32s' (known: noise=white|random|best, p=P, "
				 "c=C)", k);
			return -1;
		}
	}
	if (c_set && *kind != NOISE_BEST) {
		snprintf(err, errlen, "strategy noise: c is only for "
			 "noise=best");
		return -1;
	}
	if (*p_set && *kind != NOISE_WHITE) {
		snprintf(err, errlen, "strategy noise: p is only for "
			 "noise=white (random draws it, best derives it)");
		return -1;
	}
	return 0;
}

/* The location of an event for noise best.  Where a time slice stops a
 * thread (a preempt event) depends on timing, within a loop: its pc
 * would decide whether noise is drawn, and so shift every later draw of
 * the seed's stream.  The pc of a syscall's return likewise says nothing
 * about a location.  Both count as one location of their own. */
static uint64_t event_location(const struct sc_event *ev)
{
	if (ev->kind == SC_EV_PREEMPT || ev->kind == SC_EV_SYSCALL_RETURN)
		return 0;
	return ev->pc;
}

/* The probability of noise before the current thread's event at pc. */
static double noise_p(const struct noise_ctx *c, uint64_t pc)
{
	if (c->kind != NOISE_BEST)
		return c->p;
	/* Two-level: a location makes noise in this run with chance 1/2. */
	if (!(sc_splitmix64(pc ^ c->salt) & 1))
		return 0;
	return 1.0 / (1.0 + c->c * (double)c->learn->npcs);
}

/* An enabled thread other than index skip (SIZE_MAX: none), uniformly. */
static size_t uniform_other(struct noise_ctx *c, const struct sc_sched_view *v,
			    size_t skip)
{
	size_t n = v->nenabled - (skip != SIZE_MAX), k;

	k = sc_rng_below(&c->rng, n);
	for (size_t i = 0; i < v->nenabled; i++) {
		if (v->enabled[i] == skip)
			continue;
		if (k-- == 0)
			return v->enabled[i];
	}
	return v->enabled[0];   /* not reached */
}

static int noise_pick(void *ctx, const struct sc_sched_view *view)
{
	struct noise_ctx *c = ctx;
	size_t cur = SIZE_MAX, pick;

	if (view->nenabled == 0)
		return SC_PICK_ABORT;   /* the engine never asks then */
	sc_run_stats_pick(&c->stats, c->session, view);
	for (size_t i = 0; i < view->nenabled; i++)
		if (view->threads[view->enabled[i]].thread == c->last)
			cur = view->enabled[i];
	if (view->nenabled == 1)
		pick = view->enabled[0];
	else if (cur == SIZE_MAX)
		pick = uniform_other(c, view, SIZE_MAX);
	else if (c->last_spun)
		pick = uniform_other(c, view, cur);
	else {
		double p = noise_p(c, event_location(&view->threads[cur].next));

		pick = cur;
		if (p > 0 && sc_unit_double(sc_rng_next(&c->rng)) < p) {
			pick = uniform_other(c, view, cur);
			c->noises++;
		}
	}
	c->last = view->threads[pick].thread;
	return (int)pick;
}

static void noise_executed(void *ctx, const struct sc_event *ev)
{
	struct noise_ctx *c = ctx;

	sc_run_stats_executed(&c->stats, c->learn, ev);
	if (ev->thread == c->last)
		c->last_spun = sc_event_is_spin(ev->kind);
}

int sc_noise_create(const char *params, uint64_t seed, uint32_t run,
		    struct sc_strategy_session *session,
		    struct sc_policy *out, char *err, size_t errlen)
{
	struct noise_ctx *c;
	enum noise_kind kind;
	double p, cc;
	bool p_set;

	(void)run;
	if (parse(params, &kind, &p, &p_set, &cc, err, errlen) < 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!session) {
		c->own_learn = calloc(1, sizeof(*c->own_learn));
		if (!c->own_learn) {
			free(c);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	sc_rng_seed(&c->rng, seed);
	c->kind = kind;
	c->c = cc;
	c->p = p;
	if (kind == NOISE_RANDOM)   /* uniform in (0, 0.5] */
		c->p = 0.5 * (1.0 - sc_unit_double(sc_rng_next(&c->rng)));
	c->salt = sc_rng_next(&c->rng);
	c->session = session;
	c->learn = session ? &session->learn : c->own_learn;
	c->last = UINT32_MAX;
	*out = (struct sc_policy){
		.ctx = c,
		.pick = noise_pick,
		.pick_wake = sc_rng_pick_wake,
		.executed = noise_executed,
	};
	return 0;
}

void sc_noise_destroy(struct sc_policy *p)
{
	struct noise_ctx *c = p->ctx;

	if (c) {
		sc_run_stats_end(&c->stats, c->session);
		free(c->own_learn);
	}
	free(c);
	p->ctx = NULL;
}

double sc_noise_probability(const struct sc_policy *p, uint64_t pc)
{
	const struct noise_ctx *c = p->ctx;

	return c ? noise_p(c, pc) : 0;
}
