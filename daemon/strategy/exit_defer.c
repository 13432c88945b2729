/* exit_defer.c - the other threads run before the process ends
 * (exit_defer.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/exit_defer.h"
#include "strategy/learn.h"

static bool exits(const struct sc_thread_view *tv)
{
	return tv->next.kind == SC_EV_PROCESS_EXIT;
}

/* A thread that would make progress: not ending the process, not
 * waiting for the others (a yield, a sleep, a busy loop's time slice).
 * A watchdog that sleeps in a loop, or a poller, never finishes: the exit
 * is not held back for them. */
static bool progresses(const struct sc_thread_view *tv)
{
	return !exits(tv) && !sc_event_is_spin(tv->next.kind);
}

/* Stopped by its time slice between two scheduling points: computing or
 * spinning, with nothing another thread could see before the process
 * ends (no system call, no synchronisation on the way). */
static bool computing(const struct sc_thread_view *tv)
{
	return tv->next.kind == SC_EV_PREEMPT;
}

/* The inner policy picks among the enabled threads that end the process
 * (exiting) or among the others. */
static int pick_among(struct sc_exit_defer *d,
		      const struct sc_sched_view *view, bool exiting)
{
	struct sc_sched_view v = *view;
	size_t n = 0;

	if (d->cap < view->nenabled) {
		uint32_t *nv = realloc(d->enabled,
				       view->nenabled * sizeof(*nv));
		if (!nv)        /* no filter rather than no run */
			return d->inner.pick(d->inner.ctx, view);
		d->enabled = nv;
		d->cap = view->nenabled;
	}
	for (size_t i = 0; i < view->nenabled; i++)
		if (exits(&view->threads[view->enabled[i]]) == exiting)
			d->enabled[n++] = view->enabled[i];
	v.enabled = d->enabled;
	v.nenabled = n;
	return d->inner.pick(d->inner.ctx, &v);
}

/* Progress a held sleeper waits for: not a timed wait's timeout, which
 * stands for more time passing than the sleep's (pbzip2's consumers
 * timed out of their 1 s waits while its writer was held in a 50 ms
 * sleep, and exited before the writer's end let main free their queue:
 * its crash went from 49 of 300 runs to 1). */
static bool progresses_in_sleep(const struct sc_thread_view *tv)
{
	return progresses(tv) && tv->next.kind != SC_EV_TIMEOUT;
}

/* view without the threads held asleep (sleep_hold.h), in *out, when
 * one of the others can make progress; else view itself. */
static const struct sc_sched_view *
without_sleepers(struct sc_exit_defer *d, const struct sc_sched_view *view,
		 struct sc_sched_view *out)
{
	size_t n = 0, nheld = 0;
	bool progress = false;

	for (size_t i = 0; i < view->nenabled; i++) {
		const struct sc_thread_view *tv =
			&view->threads[view->enabled[i]];
		if (sc_sleep_hold_held(&d->hold, tv->thread))
			nheld++;
		else
			progress = progress || progresses_in_sleep(tv);
	}
	if (!nheld || !progress)
		return view;
	if (d->cap_awake < view->nenabled) {
		uint32_t *nv = realloc(d->awake, view->nenabled * sizeof(*nv));
		if (!nv)        /* no hold rather than no run */
			return view;
		d->awake = nv;
		d->cap_awake = view->nenabled;
	}
	for (size_t i = 0; i < view->nenabled; i++)
		if (!sc_sleep_hold_held(&d->hold,
					view->threads[view->enabled[i]].thread))
			d->awake[n++] = view->enabled[i];
	*out = *view;
	out->enabled = d->awake;
	out->nenabled = n;
	return out;
}

static int defer_pick(void *ctx, const struct sc_sched_view *all)
{
	struct sc_exit_defer *d = ctx;
	size_t nexit = 0, nprogress = 0, ncomputing = 0;
	struct sc_sched_view awake;
	const struct sc_sched_view *view = without_sleepers(d, all, &awake);

	for (size_t i = 0; i < view->nenabled; i++) {
		const struct sc_thread_view *tv =
			&view->threads[view->enabled[i]];

		nexit += exits(tv);
		nprogress += progresses(tv);
		ncomputing += computing(tv);
	}
	/* The exit against threads that only compute (a detached worker
	 * still in its loop when main returns): running them on shows
	 * nothing, and each turn is a time slice budget of CPU (a loop
	 * that never returns: seconds), which a strategy that keeps
	 * choosing it turned into a false hang. */
	if (nexit > 0 && ncomputing > 0 && nexit + ncomputing == view->nenabled)
		return pick_among(d, view, true);
	if (!d->defer || nexit == 0 || nprogress == 0 ||
	    d->deferred >= SC_EXIT_DEFER_MAX)
		return d->inner.pick(d->inner.ctx, view);
	d->deferred++;
	return pick_among(d, view, false);
}

static size_t defer_pick_wake(void *ctx, const struct sc_event *waker,
			      const uint32_t *waiters, size_t nwaiters,
			      size_t nwake, uint32_t *out)
{
	struct sc_exit_defer *d = ctx;

	return d->inner.pick_wake(d->inner.ctx, waker, waiters, nwaiters,
				  nwake, out);
}

static void defer_executed(void *ctx, const struct sc_event *ev)
{
	struct sc_exit_defer *d = ctx;

	sc_sleep_hold_executed(&d->hold, ev);
	if (d->inner.executed)
		d->inner.executed(d->inner.ctx, ev);
}

static int defer_release(void *ctx, const struct sc_event *ev)
{
	struct sc_exit_defer *d = ctx;

	return d->inner.release(d->inner.ctx, ev);
}

static uint32_t defer_slice(void *ctx, uint64_t step, uint32_t thread)
{
	struct sc_exit_defer *d = ctx;

	return d->inner.slice(d->inner.ctx, step, thread);
}

static bool defer_preempt_target(void *ctx, uint64_t step, uint32_t thread,
				 struct sc_preempt_target *target)
{
	struct sc_exit_defer *d = ctx;

	return d->inner.preempt_target(d->inner.ctx, step, thread, target);
}

static const char *defer_error(void *ctx)
{
	struct sc_exit_defer *d = ctx;

	return d->inner.error(d->inner.ctx);
}

void sc_exit_defer_wrap(struct sc_exit_defer *d, struct sc_policy *p,
			bool defer, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->inner = *p;
	d->defer = defer;
	sc_sleep_hold_init(&d->hold, seed);
	/* A callback the inner policy leaves NULL stays NULL: the engine's
	 * default applies. */
	*p = (struct sc_policy){
		.ctx = d,
		.pick = defer_pick,
		.pick_wake = d->inner.pick_wake ? defer_pick_wake : NULL,
		.executed = defer_executed,     /* sleep holds count */
		.release = d->inner.release ? defer_release : NULL,
		.slice = d->inner.slice ? defer_slice : NULL,
		.preempt_target = d->inner.preempt_target ? defer_preempt_target
							  : NULL,
		.no_slices = d->inner.no_slices,
		.error = d->inner.error ? defer_error : NULL,
	};
}

void sc_exit_defer_unwrap(struct sc_exit_defer *d, struct sc_policy *p)
{
	*p = d->inner;
	free(d->enabled);
	d->enabled = NULL;
	d->cap = 0;
	free(d->awake);
	d->awake = NULL;
	d->cap_awake = 0;
	sc_sleep_hold_free(&d->hold);
}
