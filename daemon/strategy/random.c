/*
 * random.c - the random walk: at every scheduling point run a thread drawn
 * uniformly from the enabled set; a futex wake releases a uniformly drawn
 * subset of the waiters of the size the kernel would wake.  Every draw
 * comes from the run's seed, so a seed reproduces the schedule.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "strategy/rng.h"
#include "strategy/strategy.h"

struct random_ctx {
	struct sc_rng rng;          /* first: sc_rng_pick_wake */
	bool alone;                 /* the last view had one live thread */
};

static int random_pick(void *ctx, const struct sc_sched_view *view)
{
	struct random_ctx *c = ctx;

	c->alone = view->nthreads == 1;
	if (view->nenabled == 0)
		return SC_PICK_ABORT;   /* the engine never asks then */
	/* No choice, no draw: a timing-dependent step of a sequential
	 * phase (a slow syscall's return) must not shift the schedule. */
	if (view->nenabled == 1)
		return (int)view->enabled[0];
	return (int)view->enabled[sc_rng_below(&c->rng, view->nenabled)];
}

/* Blocking syscalls of the only live thread are awaited (learn.h). */
static int random_release(void *ctx, const struct sc_event *ev)
{
	struct random_ctx *c = ctx;

	(void)ev;
	return sc_release_mode(c->alone);
}

int sc_random_create(const char *params, uint64_t seed, uint32_t run,
		     struct sc_strategy_session *session,
		     struct sc_policy *out, char *err, size_t errlen)
{
	struct random_ctx *c;

	(void)run;
	(void)session;
	if (params && *params) {
		snprintf(err, errlen, "strategy random takes no parameters (got '%s')",
			 params);
		return -1;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sc_rng_seed(&c->rng, seed);
	*out = (struct sc_policy){
		.ctx = c,
		.pick = random_pick,
		.pick_wake = sc_rng_pick_wake,
		.release = random_release,
	};
	return 0;
}

void sc_random_destroy(struct sc_policy *p)
{
	free(p->ctx);
	p->ctx = NULL;
}
