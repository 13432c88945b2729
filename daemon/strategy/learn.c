/*
 * learn.c - session learning shared by noise, speed, urw/surw and
 * portfolio (learn.h).
 */
#include "config.h"

#include "strategy/learn.h"
#include "strategy/rng.h"
#include "strategy/strategy.h"

uint32_t sc_learn_pc(struct sc_learn *l, uint64_t pc)
{
	size_t i;

	if (pc == 0)
		return l->npcs;
	i = sc_splitmix64(pc) % SC_LEARN_PCS;
	for (size_t n = 0; n < SC_LEARN_PCS; n++, i = (i + 1) % SC_LEARN_PCS) {
		if (l->pcs[i] == pc)
			return l->npcs;
		if (l->pcs[i] == 0) {
			/* Keep a free slot so that lookups end. */
			if (l->npcs + 1 < SC_LEARN_PCS) {
				l->pcs[i] = pc;
				l->npcs++;
			}
			return l->npcs;
		}
	}
	return l->npcs;
}

/* The slot of object, or of the free slot where it would go; NULL when
 * neither (full). */
static struct sc_learn_object *object_slot(const struct sc_learn *l,
					   uint64_t object)
{
	size_t i = sc_splitmix64(object) % SC_LEARN_OBJECTS;

	for (size_t n = 0; n < SC_LEARN_OBJECTS;
	     n++, i = (i + 1) % SC_LEARN_OBJECTS) {
		const struct sc_learn_object *o = &l->objects[i];

		if (o->object == object || o->object == 0)
			return (struct sc_learn_object *)o;
	}
	return NULL;
}

void sc_learn_touch(struct sc_learn *l, uint64_t object, uint32_t thread)
{
	struct sc_learn_object *o;

	if (object == 0)
		return;
	o = object_slot(l, object);
	if (!o)
		return;
	if (o->object == 0) {
		if (l->nobjects + 1 >= SC_LEARN_OBJECTS)
			return;
		o->object = object;
		o->thread = thread;
		l->nobjects++;
	} else if (o->thread != thread) {
		o->shared = true;
	}
}

bool sc_learn_shared(const struct sc_learn *l, uint64_t object)
{
	const struct sc_learn_object *o;

	if (object == 0)
		return false;
	o = object_slot(l, object);
	return o && o->object == object && o->shared;
}

double sc_learn_estimate(const struct sc_learn *l, uint32_t thread)
{
	uint64_t sum = 0, runs = 0;

	if (thread < SC_LEARN_THREADS && l->thread_runs[thread])
		return (double)l->thread_events[thread] /
		       l->thread_runs[thread];
	for (size_t i = 0; i < SC_LEARN_THREADS; i++) {
		sum += l->thread_events[i];
		runs += l->thread_runs[i];
	}
	return runs ? (double)sum / (double)runs : 0.0;
}

void sc_run_stats_pick(struct sc_run_stats *rs, struct sc_strategy_session *s,
		       const struct sc_sched_view *view)
{
	for (size_t i = 0; i < view->nthreads; i++)
		if (view->threads[i].thread >= rs->nthreads)
			rs->nthreads = view->threads[i].thread + 1;
	if (view->nenabled > 1)
		rs->points++;
	if (!s)
		return;
	if (s->max_points < rs->points)
		s->max_points = rs->points;
	if (s->max_threads < rs->nthreads)
		s->max_threads = rs->nthreads;
}

void sc_run_stats_executed(struct sc_run_stats *rs, struct sc_learn *l,
			   const struct sc_event *ev)
{
	/* Whether a released syscall returns as an event of its own, or a
	 * time slice expires, depends on timing: learning from them would
	 * make a seed's later runs differ from one session to the next. */
	if (ev->kind == SC_EV_SYSCALL_RETURN || ev->kind == SC_EV_PREEMPT)
		return;
	if (ev->thread < SC_LEARN_THREADS)
		rs->events[ev->thread]++;
	if (ev->thread >= rs->nthreads)
		rs->nthreads = ev->thread + 1;
	if (l) {
		sc_learn_pc(l, ev->pc);
		sc_learn_touch(l, ev->object, ev->thread);
	}
}

void sc_run_stats_end(const struct sc_run_stats *rs,
		      struct sc_strategy_session *s)
{
	if (!s)
		return;
	for (uint32_t t = 0; t < rs->nthreads && t < SC_LEARN_THREADS; t++) {
		s->learn.thread_events[t] += rs->events[t];
		s->learn.thread_runs[t]++;
	}
	s->runs++;
}

bool sc_spin_watch_event(struct sc_spin_watch *w, const struct sc_event *ev)
{
	if (ev->thread == w->thread && ev->kind == w->kind &&
	    ev->pc == w->pc && ev->object == w->object) {
		if (w->repeats < UINT32_MAX)
			w->repeats++;
	} else {
		*w = (struct sc_spin_watch){ .thread = ev->thread,
			.kind = ev->kind, .pc = ev->pc, .object = ev->object,
			.repeats = 1 };
	}
	/* Loads (a flag) or compare-and-swaps (a lock) wait for others;
	 * a run of the same lock call is a program's own business. */
	return ev->pc && w->repeats >= SC_SPIN_REPEATS &&
	       (ev->kind == SC_EV_MEM_READ || ev->kind == SC_EV_MEM_RMW);
}

bool sc_event_is_spin(uint16_t kind)
{
	return kind == SC_EV_YIELD || kind == SC_EV_SLEEP ||
	       kind == SC_EV_PREEMPT;
}

double sc_unit_double(uint64_t draw)
{
	return (double)(draw >> 11) * (1.0 / 9007199254740992.0);
}
