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
	struct sc_rng rng;
};

static int random_pick(void *ctx, const struct sc_sched_view *view)
{
	struct random_ctx *c = ctx;

	if (view->nenabled == 0)
		return SC_PICK_ABORT;   /* the engine never asks then */
	return (int)view->enabled[sc_rng_below(&c->rng, view->nenabled)];
}

static size_t random_pick_wake(void *ctx, const struct sc_event *waker,
			       const uint32_t *waiters, size_t nwaiters,
			       size_t nwake, uint32_t *out)
{
	struct random_ctx *c = ctx;
	size_t k = nwake < nwaiters ? nwake : nwaiters;
	uint32_t stackidx[64];
	uint32_t *idx = nwaiters <= 64 ? stackidx
			: malloc(nwaiters * sizeof(*idx));

	size_t ret = k;

	(void)waker;
	(void)waiters;
	if (!idx)
		return SIZE_MAX;        /* out of memory: abort the run */
	if (k == 0)
		goto out;
	/* Partial Fisher-Yates: the first k slots become a uniform k-subset. */
	for (size_t i = 0; i < nwaiters; i++)
		idx[i] = (uint32_t)i;
	for (size_t i = 0; i < k; i++) {
		size_t j = i + (size_t)sc_rng_below(&c->rng, nwaiters - i);
		uint32_t t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
	}
	/* Report them oldest first, as the default policy would. */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			uint32_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (size_t i = 0; i < k; i++)
		out[i] = idx[i];
out:
	if (idx != stackidx)
		free(idx);
	return ret;
}

int sc_random_create(const char *params, uint64_t seed, uint32_t run,
		     struct sc_policy *out, char *err, size_t errlen)
{
	struct random_ctx *c;

	(void)run;
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
		.pick_wake = random_pick_wake,
	};
	return 0;
}

void sc_random_destroy(struct sc_policy *p)
{
	free(p->ctx);
	p->ctx = NULL;
}
