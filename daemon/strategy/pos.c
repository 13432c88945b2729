/*
 * pos.c - POS, partial order sampling (Yuan, Yang, Gu, CAV 2018).
 *
 * Every pending event gets a random priority when it appears (a thread's
 * pending event is new when the thread has executed an event since, or
 * when what it is about to do changed, e.g. a woken waiter).  At each
 * scheduling point the enabled event of highest priority runs.  After an
 * event e has executed, the pending events of the other threads that race
 * with e get new priorities: the same object (not 0), and for pos-rw (the
 * paper's read-only relaxation POS*) not both reads.  Re-drawing the
 * events that race with what just ran is what makes every partial order
 * of racing events likely, unlike a random walk, which favours orders
 * that differ in few places.
 *
 * Spinning: a thread that spins (sched_yield, a sleep, or a busy loop
 * interrupted by the time slice: a preempt event) is waiting for another
 * thread to change some shared state.  At memory granularity the spin's
 * read would race with the awaited write, which would then be re-drawn at
 * every turn of the loop; at synchronisation granularity that read is not
 * seen, so a spin event counts as racing with every pending event (and so
 * does a load repeated in a busy-wait: spin_event).
 * Without this, a waiter whose pending event drew a low priority would be
 * out-drawn by the spinner for a long time (1/p turns for priority p).
 * As in the paper, every priority is also drawn anew after every
 * RESET_YIELDS yield or preempt events.
 *
 * Futex wakes release a uniformly drawn subset of the waiters, like the
 * random walk.
 *
 * Priorities are drawn lazily, at the next point where more than one
 * thread is enabled, in the order of the view: a step with a single
 * choice consumes no randomness, so timing-dependent steps of sequential
 * phases (a slow syscall that comes back as an event of its own) do not
 * shift the rest of the schedule.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/rng.h"
#include "strategy/strategy.h"

#define RESET_YIELDS 1000
/* Creation events picked in a row before the priorities decide anyway: a
 * program that starts threads forever must not starve the others. */
#define EAGER_MAX 256

struct pos_thread {
	uint32_t loads_in_row;      /* its last events executed: loads only */
	bool drawn;                 /* prio is valid for the event below */
	uint64_t prio;
	/* The pending event the priority was drawn for. */
	uint16_t kind;
	uint8_t access;
	uint64_t object;
	uint64_t pc;
};

struct pos_ctx {
	struct sc_rng rng;          /* first: sc_rng_pick_wake */
	bool read_only_relaxed;     /* pos-rw: two reads do not race */
	uint32_t yields;            /* yield and preempt events since a reset */
	bool alone;                 /* the last view had one live thread */
	uint32_t eager;             /* creation events picked in a row */
	struct pos_thread *t;
	size_t nt;
	char err[64];
};

static struct pos_thread *thread_of(struct pos_ctx *c, uint32_t id)
{
	if (sc_grow_table((void **)&c->t, &c->nt, id, sizeof(*c->t)) < 0)
		return NULL;
	return &c->t[id];
}

static bool same_event(const struct pos_thread *t, const struct sc_event *e)
{
	return t->kind == e->kind && t->access == e->access &&
	       t->object == e->object && t->pc == e->pc;
}

/* Events that race with nothing another thread does. */
static bool is_creation(uint16_t kind)
{
	return kind == SC_EV_LIB_CREATE || kind == SC_EV_THREAD_CREATE ||
	       kind == SC_EV_THREAD_START;
}

static int pos_pick(void *ctx, const struct sc_sched_view *view)
{
	struct pos_ctx *c = ctx;
	size_t best = 0;
	uint64_t bestp = 0;

	c->alone = view->nthreads == 1;
	if (view->nenabled == 0)
		return SC_PICK_ABORT;   /* the engine never asks then */
	if (view->nenabled == 1)
		return (int)view->enabled[0];   /* no choice, no draw */
	if (c->eager < EAGER_MAX)
		for (size_t i = 0; i < view->nenabled; i++)
			if (is_creation(view->threads[view->enabled[i]].next.kind)) {
				c->eager++;
				return (int)view->enabled[i];
			}
	c->eager = 0;
	/* Draw for the events that are new or re-drawn, in the view's
	 * order, so that a seed gives the same draws. */
	for (size_t i = 0; i < view->nthreads; i++) {
		const struct sc_thread_view *tv = &view->threads[i];
		struct pos_thread *t = thread_of(c, tv->thread);

		if (!t) {
			snprintf(c->err, sizeof(c->err), "pos: out of memory");
			return SC_PICK_ABORT;
		}
		if (t->drawn && same_event(t, &tv->next))
			continue;
		t->drawn = true;
		t->prio = sc_rng_next(&c->rng);
		t->kind = tv->next.kind;
		t->access = tv->next.access;
		t->object = tv->next.object;
		t->pc = tv->next.pc;
	}
	for (size_t i = 0; i < view->nenabled; i++) {
		size_t e = view->enabled[i];
		uint64_t p = c->t[view->threads[e].thread].prio;

		if (i == 0 || p > bestp) {
			best = e;
			bestp = p;
		}
	}
	return (int)best;
}

static bool is_spin(uint16_t kind)
{
	return kind == SC_EV_YIELD || kind == SC_EV_SLEEP ||
	       kind == SC_EV_PREEMPT;
}

/* Loads in a row (no store, no call) that make a thread a spinner: a
 * busy-wait may read two or three words a turn (a barrier's sense and
 * its own local one), which the engine's "same load again" does not
 * catch. */
#define SPIN_LOADS 64

/* A spin event: a yield, sleep or spin preemption, or at race and mem
 * granularity a busy-wait's loads (steps of their own, and no
 * preemption): the same load again and again, or SPIN_LOADS loads in a
 * row.  Without the loads, threads spinning on a lock word re-drew each
 * other's reads at every turn while the holder's pending event kept the
 * low priority it drew: it ran again after millions of steps, or never
 * (QA: correct TTAS and ticket locks and an atomics barrier were "hangs"
 * in 2 to 5 of 100 runs at --granularity mem). */
static bool spin_event(const struct pos_ctx *c, const struct sc_event *e)
{
	if (is_spin(e->kind))
		return true;
	if (!sc_event_is_load(e->kind))
		return false;
	return e->waits_in_place ||
	       (e->thread < c->nt && c->t[e->thread].loads_in_row >= SPIN_LOADS);
}

static bool races(const struct pos_ctx *c, const struct pos_thread *t,
		  const struct sc_event *e, bool spin)
{
	if (spin)
		return true;
	if (e->object == 0 || t->object != e->object)
		return false;
	if (c->read_only_relaxed && t->access == SC_ACC_READ &&
	    e->access == SC_ACC_READ)
		return false;
	return true;
}

static void pos_executed(void *ctx, const struct sc_event *ev)
{
	struct pos_ctx *c = ctx;

	/* The thread's next event is a new one; it and the events that
	 * race with ev are drawn anew at the next choice. */
	if (ev->thread < c->nt) {
		struct pos_thread *me = &c->t[ev->thread];
		me->drawn = false;
		if (!sc_event_is_load(ev->kind))
			me->loads_in_row = 0;
		else if (me->loads_in_row < UINT32_MAX)
			me->loads_in_row++;
	}
	bool spin = spin_event(c, ev);
	if (ev->kind == SC_EV_YIELD || ev->kind == SC_EV_PREEMPT || spin) {
		if (++c->yields >= RESET_YIELDS) {
			c->yields = 0;
			for (size_t i = 0; i < c->nt; i++)
				c->t[i].drawn = false;
			return;
		}
	}
	for (size_t i = 0; i < c->nt; i++)
		if (i != ev->thread && c->t[i].drawn &&
		    races(c, &c->t[i], ev, spin))
			c->t[i].drawn = false;
}

/* Blocking syscalls of the only live thread are awaited (learn.h). */
static int pos_release(void *ctx, const struct sc_event *ev)
{
	struct pos_ctx *c = ctx;

	(void)ev;
	return sc_release_mode(c->alone);
}

static const char *pos_error(void *ctx)
{
	struct pos_ctx *c = ctx;

	return c->err[0] ? c->err : NULL;
}

static int create(const char *name, bool relaxed, const char *params,
		  uint64_t seed, struct sc_policy *out, char *err,
		  size_t errlen)
{
	struct pos_ctx *c;

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
	sc_rng_seed(&c->rng, seed);
	c->read_only_relaxed = relaxed;
	*out = (struct sc_policy){
		.ctx = c,
		.pick = pos_pick,
		.pick_wake = sc_rng_pick_wake,
		.executed = pos_executed,
		.release = pos_release,
		.error = pos_error,
	};
	return 0;
}

int sc_pos_create(const char *params, uint64_t seed, uint32_t run,
		  struct sc_strategy_session *session,
		  struct sc_policy *out, char *err, size_t errlen)
{
	(void)run;
	(void)session;
	return create("pos", false, params, seed, out, err, errlen);
}

int sc_pos_rw_create(const char *params, uint64_t seed, uint32_t run,
		     struct sc_strategy_session *session,
		     struct sc_policy *out, char *err, size_t errlen)
{
	(void)run;
	(void)session;
	return create("pos-rw", true, params, seed, out, err, errlen);
}

void sc_pos_destroy(struct sc_policy *p)
{
	struct pos_ctx *c = p->ctx;

	if (c)
		free(c->t);
	free(c);
	p->ctx = NULL;
}

bool sc_pos_priority(const struct sc_policy *p, uint32_t thread,
		     uint64_t *prio)
{
	const struct pos_ctx *c = p->ctx;

	if (!c || thread >= c->nt || !c->t[thread].drawn)
		return false;
	*prio = c->t[thread].prio;
	return true;
}
