/*
 * strategy_view.h - synthetic scheduling views for the strategy unit
 * tests: NTHREADS threads, an enabled mask, a pending event per thread.
 */
#ifndef SCHEDCTL_TEST_STRATEGY_VIEW_H
#define SCHEDCTL_TEST_STRATEGY_VIEW_H

#include <stdint.h>

#include "strategy/strategy.h"
#include "tap.h"

#define NTHREADS 6

struct view_buf {
	struct sc_thread_view threads[NTHREADS];
	uint32_t enabled[NTHREADS];
	struct sc_sched_view view;
};

/* Threads 0..NTHREADS-1, those in mask enabled; thread i's pending event
 * is a mutex lock at pc 0x400000 + 0x10 i on object objects[i] (or
 * 0x1000 + i when objects is NULL). */
static inline void make_view(struct view_buf *b, unsigned mask, uint64_t step,
		      const uint64_t *objects)
{
	size_t n = 0;

	for (uint32_t i = 0; i < NTHREADS; i++) {
		b->threads[i] = (struct sc_thread_view){
			.thread = i,
			.state = SC_TS_READY,
			.enabled = (mask >> i) & 1,
			.next = { .kind = SC_EV_MUTEX_LOCK,
				  .object = objects ? objects[i] : 0x1000 + i,
				  .pc = 0x400000 + 0x10 * i },
		};
		if ((mask >> i) & 1)
			b->enabled[n++] = i;
	}
	b->view = (struct sc_sched_view){
		.step = step, .nthreads = NTHREADS, .threads = b->threads,
		.nenabled = n, .enabled = b->enabled,
	};
}

static inline struct sc_policy make_policy(const char *name, const char *params,
				    uint64_t seed, uint32_t run,
				    struct sc_strategy_session *s)
{
	const struct sc_strategy *st = sc_strategy_find(name);
	struct sc_policy p = { 0 };
	char err[256];

	if (!st || st->create(params, seed, run, s, &p, err, sizeof(err)) < 0)
		bail_out(err);
	return p;
}

static inline void destroy_policy(const char *name, struct sc_policy *p)
{
	sc_strategy_find(name)->destroy(p);
}

/* One step: pick under mask, then report the picked thread's event as
 * executed.  Returns the picked thread, or -1. */
static inline int step_policy(struct sc_policy *p, unsigned mask, uint64_t step,
		       const uint64_t *objects)
{
	struct view_buf v;
	int i;

	make_view(&v, mask, step, objects);
	i = p->pick(p->ctx, &v.view);
	if (i < 0 || i >= NTHREADS)
		return -1;
	if (p->executed) {
		struct sc_event ev = v.threads[i].next;

		ev.step = step;
		ev.thread = (uint32_t)i;
		p->executed(p->ctx, &ev);
	}
	return i;
}

/* Run `steps` steps of two policies made alike from (name, params, seed)
 * under a changing mask: true when they pick the same threads and every
 * pick is enabled.  *enabled_only says whether all picks were enabled. */
static inline int same_schedule(const char *name, const char *params, uint64_t s1,
			 uint64_t s2, int steps, int *enabled_only)
{
	struct sc_policy a = make_policy(name, params, s1, 1, NULL),
			 b = make_policy(name, params, s2, 1, NULL);
	int same = 1;

	*enabled_only = 1;
	for (int k = 0; k < steps; k++) {
		unsigned mask = (unsigned)((k * 2654435761u) >> 7) & 0x3f;
		int x, y;

		if (!mask)
			mask = 0x21;
		x = step_policy(&a, mask, (uint64_t)k, NULL);
		y = step_policy(&b, mask, (uint64_t)k, NULL);
		if (x < 0 || !((mask >> x) & 1) || y < 0 || !((mask >> y) & 1))
			*enabled_only = 0;
		if (x != y)
			same = 0;
	}
	destroy_policy(name, &a);
	destroy_policy(name, &b);
	return same;
}

#endif /* SCHEDCTL_TEST_STRATEGY_VIEW_H */
