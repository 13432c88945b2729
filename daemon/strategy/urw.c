/*
 * urw.c - uniform random walk (urw) and selectively uniform random walk
 * (surw) (Zhao, Wang, Cheng, Rigger, Roychoudhury, "Selectively Uniform
 * Concurrency Testing", ASPLOS 2025).
 *
 * A random walk that draws threads uniformly favours interleavings where
 * a short thread finishes early.  urw draws each thread in proportion to
 * the number of events it has left, which samples the interleavings of
 * the threads' events uniformly.  The counts are not known before a run,
 * so they are estimated per logical thread from the earlier runs of the
 * session (the average of its events per run; the mean of the known
 * threads for a thread not seen yet); a thread's weight is then
 * max(1, estimate - events it already ran).
 *
 * surw makes that choice only at interesting events: events on a shared
 * object (not 0, touched by more than one thread earlier in this run or
 * in an earlier run of the session).  Elsewhere the thread that ran last
 * keeps running (unless it is not enabled, or it spins: a yield, sleep or
 * preempt, or the same read or compare-and-swap again and again, lets the
 * others run).  Interleaving only where threads
 * interact keeps the uniformity where it matters.  It keeps a thread
 * running that way at most SURW_KEEP_MAX decisions in a row while others
 * are enabled: a poller that locks a mutex no other thread has touched
 * yet in this run (the thread that sets its flag has not started) would
 * otherwise starve that thread for good, and a correct program was
 * reported as a hang.
 * Futex wakes release a uniform subset of the waiters.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "strategy/learn.h"
#include "strategy/rng.h"
#include "strategy/strategy.h"

/* Decisions in a row that surw keeps the last thread running at events
 * that are not interesting while others are enabled. */
#define SURW_KEEP_MAX 64

struct urw_ctx {
	struct sc_rng rng;          /* first: sc_rng_pick_wake */
	bool selective;             /* surw */
	struct sc_strategy_session *session;
	struct sc_learn *learn;     /* the session's, or own_learn */
	struct sc_learn *own_learn;
	/* Estimates are fixed when the run starts: learning during the run
	 * (events of this run) must not change them. */
	double estimate[SC_LEARN_THREADS];
	double mean;
	struct sc_run_stats stats;
	uint32_t last;              /* thread picked last, UINT32_MAX: none */
	uint32_t kept;              /* decisions in a row it was kept */
	bool last_spun;
	struct sc_spin_watch spin;
};

uint64_t sc_urw_weight(const struct sc_policy *p, uint32_t thread)
{
	const struct urw_ctx *c = p->ctx;
	double est = thread < SC_LEARN_THREADS ? c->estimate[thread] : c->mean;
	uint64_t done = thread < SC_LEARN_THREADS ? c->stats.events[thread] : 0;

	if (est <= (double)done + 1)
		return 1;
	return (uint64_t)(est - (double)done + 0.5);
}

/* An event where the walk chooses: one on an object more than one thread
 * touched, or the end of the process (exit_group ends every other live
 * thread, so it is ordered against each of their events: a main that
 * returns without joining its threads, with a checker thread that must
 * run before). */
static bool interesting(const struct urw_ctx *c, const struct sc_event *e)
{
	if (e->kind == SC_EV_PROCESS_EXIT)
		return true;
	return e->object != 0 && sc_learn_shared(c->learn, e->object);
}

static int urw_pick(void *ctx, const struct sc_sched_view *view)
{
	struct urw_ctx *c = ctx;
	struct sc_policy self = { .ctx = c };
	uint64_t total = 0, r;
	size_t pick;

	if (view->nenabled == 0)
		return SC_PICK_ABORT;   /* the engine never asks then */
	pick = view->enabled[0];
	sc_run_stats_pick(&c->stats, c->session, view);
	if (view->nenabled == 1)
		goto out;
	if (c->selective && !c->last_spun && c->kept < SURW_KEEP_MAX)
		for (size_t i = 0; i < view->nenabled; i++) {
			const struct sc_thread_view *tv =
				&view->threads[view->enabled[i]];

			if (tv->thread == c->last && !interesting(c, &tv->next)) {
				pick = view->enabled[i];
				c->kept++;
				goto out;
			}
		}
	c->kept = 0;
	for (size_t i = 0; i < view->nenabled; i++)
		total += sc_urw_weight(&self, view->threads[view->enabled[i]].thread);
	r = sc_rng_below(&c->rng, total);
	for (size_t i = 0; i < view->nenabled; i++) {
		uint64_t w = sc_urw_weight(&self,
					   view->threads[view->enabled[i]].thread);

		if (r < w) {
			pick = view->enabled[i];
			break;
		}
		r -= w;
	}
out:
	c->last = view->threads[pick].thread;
	return (int)pick;
}

static void urw_executed(void *ctx, const struct sc_event *ev)
{
	struct urw_ctx *c = ctx;

	sc_run_stats_executed(&c->stats, c->learn, ev);
	bool repeating = sc_spin_watch_event(&c->spin, ev);
	if (ev->thread == c->last)
		c->last_spun = sc_event_is_spin(ev->kind) || repeating;
}

static int create(const char *name, bool selective, const char *params,
		  uint64_t seed, struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen)
{
	struct urw_ctx *c;

	if (params && *params) {
		snprintf(err, errlen, "strategy %s takes no parameters (got '%s')",
			 name, params);
		return -1;
	}
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
	c->selective = selective;
	c->session = session;
	c->learn = session ? &session->learn : c->own_learn;
	c->mean = sc_learn_estimate(c->learn, SC_LEARN_THREADS);
	for (uint32_t t = 0; t < SC_LEARN_THREADS; t++)
		c->estimate[t] = sc_learn_estimate(c->learn, t);
	c->last = UINT32_MAX;
	*out = (struct sc_policy){
		.ctx = c,
		.pick = urw_pick,
		.pick_wake = sc_rng_pick_wake,
		.executed = urw_executed,
	};
	return 0;
}

int sc_urw_create(const char *params, uint64_t seed, uint32_t run,
		  struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen)
{
	(void)run;
	return create("urw", false, params, seed, session, out, err, errlen);
}

int sc_surw_create(const char *params, uint64_t seed, uint32_t run,
		   struct sc_strategy_session *session,
		   struct sc_policy *out, char *err, size_t errlen)
{
	(void)run;
	return create("surw", true, params, seed, session, out, err, errlen);
}

void sc_urw_destroy(struct sc_policy *p)
{
	struct urw_ctx *c = p->ctx;

	if (c) {
		sc_run_stats_end(&c->stats, c->session);
		free(c->own_learn);
	}
	free(c);
	p->ctx = NULL;
}
