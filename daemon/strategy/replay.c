/* replay.c - the replay policy (see replay.h). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "strategy/replay.h"

#define NO_EVENT SIZE_MAX

struct replay_ctx {
	const struct sc_trace *t;
	/* Per thread, the indexes of its events in order: "the next event
	 * of thread T after step s" is a binary search. */
	size_t **by_thread;
	size_t *nby_thread;
	uint32_t nthreads;
	uint64_t base;          /* step of events[0] */
	size_t cur;             /* index of the event picked last, or NO_EVENT */
	bool *consumed;         /* per entry of cur's woken list */
	size_t max_woken;
	int64_t diverged_at;
	char err[768];
};

static void diverge(struct replay_ctx *c, uint64_t step, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void diverge(struct replay_ctx *c, uint64_t step, const char *fmt, ...)
{
	va_list ap;

	if (c->diverged_at >= 0)
		return;         /* keep the first reason */
	c->diverged_at = (int64_t)step;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

static const struct sc_trace_event *cur_event(const struct replay_ctx *c)
{
	return c->cur == NO_EVENT ? NULL : &c->t->events[c->cur];
}

static const uint32_t *woken_of(const struct replay_ctx *c,
				const struct sc_trace_event *e)
{
	return c->t->wake_pool + e->woken_offset;
}

/* What a recorded or pending event is, in the user's words. */
static void event_words(uint16_t kind, uint64_t object, char *buf, size_t len)
{
	switch (kind) {
	case SC_EV_PREEMPT:
		snprintf(buf, len, "be preempted by the time slice");
		return;
	case SC_EV_SYSCALL_RETURN:
		snprintf(buf, len, "return from a system call");
		return;
	case SC_EV_SYSCALL_BLOCKING:
		snprintf(buf, len, "make a system call (fd %" PRIu64 ")", object);
		return;
	case SC_EV_THREAD_START:
		snprintf(buf, len, "start");
		return;
	case SC_EV_PROCESS_EXIT:
		snprintf(buf, len, "exit the process");
		return;
	default:
		snprintf(buf, len, "%s 0x%" PRIx64, sc_event_kind_name(kind),
			 object);
		return;
	}
}

/* Where the thread is now, in the user's words. */
static void describe(const struct sc_thread_view *tv, char *buf, size_t len)
{
	char what[160];

	switch (tv->state) {
	case SC_TS_BLOCKED:
		event_words(tv->next.kind, tv->next.object, what, sizeof(what));
		snprintf(buf, len, "is blocked in %s", what);
		return;
	case SC_TS_IN_KERNEL:
		snprintf(buf, len, "is inside a system call");
		return;
	case SC_TS_READY:
		break;
	}
	if (tv->next.kind == SC_EV_PREEMPT) {
		snprintf(buf, len, "was interrupted by the time slice at pc 0x%"
			 PRIx64, tv->next.pc);
		return;
	}
	if (tv->next.kind == SC_EV_SYSCALL_RETURN) {
		snprintf(buf, len, "has returned from a system call");
		return;
	}
	event_words(tv->next.kind, tv->next.object, what, sizeof(what));
	snprintf(buf, len, "is %sabout to %s", tv->enabled ? ""
		 : "not enabled, ", what);
}

static const struct sc_thread_view *find_thread(const struct sc_sched_view *v,
						uint32_t id, size_t *index)
{
	for (size_t i = 0; i < v->nthreads; i++)
		if (v->threads[i].thread == id) {
			*index = i;
			return &v->threads[i];
		}
	return NULL;
}

/* Every thread the previous event woke in the recording must have been
 * woken in this run too (a wake_op may call pick_wake twice). */
static bool wakes_complete(struct replay_ctx *c)
{
	const struct sc_trace_event *e = cur_event(c);

	if (!e)
		return true;
	for (uint32_t i = 0; i < e->nwoken; i++)
		if (!c->consumed[i]) {
			diverge(c, e->step, "step %" PRIu64 ": T%u woke T%u in "
				"the recording, but T%u was not waiting on 0x%"
				PRIx64, e->step, e->thread, woken_of(c, e)[i],
				woken_of(c, e)[i], e->object);
			return false;
		}
	return true;
}

/* A system call is told by its pc as well (when the trace has one): two
 * calls on the same descriptor (dash's wait4 and rt_sigsuspend, both on
 * 0) are different steps, and taking one for the other left a replay
 * awaiting a call that never came back (QA). */
static bool same_call_site(const struct sc_trace_event *e,
			   const struct sc_event *next)
{
	return e->kind != SC_EV_SYSCALL_BLOCKING || !e->pc ||
	       next->pc == e->pc;
}

/* The index of the first event of `thread` after step `step`, or
 * NO_EVENT. */
static size_t next_event_of(const struct replay_ctx *c, uint64_t step,
			    uint32_t thread)
{
	if (thread >= c->nthreads || step < c->base)
		return NO_EVENT;
	const size_t *v = c->by_thread[thread];
	size_t lo = 0, hi = c->nby_thread[thread];
	size_t from = (size_t)(step - c->base) + 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nby_thread[thread] ? v[lo] : NO_EVENT;
}

/* A thread stopped at a timing event (a preemption, or the return of a
 * syscall released while the others ran) that the recording does not
 * hold as its next event: in the recording it went on at once, within
 * its own step (a WNOHANG wait4 is back at once, and the thread ran on to
 * its next event).  It goes on now, before the next recorded step, not
 * at its own next one: dash's `wait` polled with wait4 at step 33 and
 * then sat in sigsuspend until step 254; the replay held it at the
 * wait4's return until 254, a child's SIGCHLD came meanwhile, and dash's
 * handler ran before sigsuspend instead of in it: another path (QA: 3 of
 * 20 replays of a ctest-like script diverged).  Returns its view index,
 * or -1. */
static int timing_event_to_go_on(const struct replay_ctx *c,
				 const struct sc_sched_view *view, uint64_t s)
{
	for (size_t i = 0; i < view->nthreads; i++) {
		const struct sc_thread_view *tv = &view->threads[i];
		if (tv->state != SC_TS_READY ||
		    (tv->next.kind != SC_EV_PREEMPT &&
		     tv->next.kind != SC_EV_SYSCALL_RETURN))
			continue;
		size_t n = s > c->base ? next_event_of(c, s - 1, tv->thread)
				       : NO_EVENT;
		if (n != NO_EVENT && c->t->events[n].kind != tv->next.kind)
			return (int)i;
	}
	return -1;
}

static int replay_pick(void *ctx, const struct sc_sched_view *view)
{
	struct replay_ctx *c = ctx;
	const struct sc_trace *t = c->t;
	const struct sc_trace_event *e;
	const struct sc_thread_view *tv;
	uint64_t s = view->step;
	size_t i, idx;
	char what[256];

	if (c->diverged_at >= 0 || !wakes_complete(c))
		return SC_PICK_ABORT;
	if (s < c->base || s - c->base >= t->nevents) {
		uint64_t end = c->base + t->nevents;

		diverge(c, s, "trace ends at step %" PRIu64 " but the program "
			"continued%s", end, t->has_footer ? ""
			: " (the trace is truncated)");
		return SC_PICK_ABORT;
	}
	int go = timing_event_to_go_on(c, view, s);
	if (go >= 0)
		return SC_PICK_GO_ON((size_t)go);
	idx = (size_t)(s - c->base);
	e = &t->events[idx];
	tv = find_thread(view, e->thread, &i);
	if (tv && tv->enabled && tv->next.kind == e->kind &&
	    tv->next.object == e->object && same_call_site(e, &tv->next)) {
		c->cur = idx;
		memset(c->consumed, 0, c->max_woken * sizeof(*c->consumed));
		return (int)i;
	}
	if (tv && tv->state == SC_TS_IN_KERNEL)
		return SC_PICK_WAIT;
	/* A preemption or a syscall return that the recording does not
	 * hold: timing, not a step; the thread goes on to its event. */
	if (tv && tv->state == SC_TS_READY &&
	    (tv->next.kind == SC_EV_PREEMPT ||
	     tv->next.kind == SC_EV_SYSCALL_RETURN) && tv->next.kind != e->kind)
		return SC_PICK_GO_ON(i);
	if (tv)
		describe(tv, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "does not exist (it has exited "
			 "or was never created)");
	char want[160];
	event_words(e->kind, e->object, want, sizeof(want));
	if (tv && tv->next.kind == e->kind && tv->next.object == e->object &&
	    !same_call_site(e, &tv->next))
		diverge(c, s, "step %" PRIu64 ": T%u was to %s at pc 0x%" PRIx64
			", but it is about to make another system call, at pc "
			"0x%" PRIx64 " (it took another path than when "
			"recorded)", s, e->thread, want, e->pc, tv->next.pc);
	else if (e->kind == SC_EV_PREEMPT && e->state)
		diverge(c, s, "step %" PRIu64 ": T%u should have been preempted "
			"at pc 0x%" PRIx64 " (%s) but it %s", s, e->thread,
			e->pc, e->preempt_flags & SC_PREEMPT_SPIN ? "a spin loop"
			: "a long computation", what);
	else
		diverge(c, s, "step %" PRIu64 ": T%u was to %s, but it %s%s", s,
			e->thread, want, what,
			tv && tv->state == SC_TS_READY && tv->next.kind != e->kind
			? " (it took another path than when recorded: did "
			  "something it reads change since, a file, a "
			  "directory's listing, the program itself?  Or did "
			  "a signal from outside the schedule, a timer's "
			  "SIGALRM, come at another point?)" : "");
	return SC_PICK_ABORT;
}

static size_t replay_pick_wake(void *ctx, const struct sc_event *waker,
			       const uint32_t *waiters, size_t nwaiters,
			       size_t nwake, uint32_t *out)
{
	struct replay_ctx *c = ctx;
	const struct sc_trace_event *e = cur_event(c);
	size_t n = 0;

	if (!e) {
		diverge(c, waker->step, "step %" PRIu64 ": a wake before any "
			"recorded event", waker->step);
		return SIZE_MAX;
	}
	for (uint32_t i = 0; i < e->nwoken && n < nwake; i++) {
		uint32_t want = woken_of(c, e)[i];

		if (c->consumed[i])
			continue;
		for (size_t j = 0; j < nwaiters; j++)
			if (waiters[j] == want) {
				out[n++] = (uint32_t)j;
				c->consumed[i] = true;
				break;
			}
	}
	if (n == 0 && nwake > 0 && nwaiters > 0) {
		diverge(c, e->step, "step %" PRIu64 ": T%u's wake on 0x%"
			PRIx64 " released %u thread(s) in the recording, none "
			"of the %zu now waiting (first: T%u)", e->step,
			e->thread, e->object, e->nwoken, nwaiters, waiters[0]);
		return SIZE_MAX;
	}
	return n;
}

/* Did the recording end with threads stuck for good (a deadlock, a
 * hang), some of them perhaps inside a syscall? */
static bool ended_stuck(const struct sc_trace *t)
{
	return t->has_footer && (t->verdict == SC_VERDICT_DEADLOCK ||
				 t->verdict == SC_VERDICT_HANG);
}

/* A read or write on a file descriptor comes back through a
 * syscall-exit stop, which is an event (SYSCALL_RETURN) when the others
 * ran meanwhile.  One whose thread's next recorded event is another
 * came back within its own step, and its thread ran on to that event;
 * the others' events recorded in between came after, because they were
 * picked.  A shell's $(dirname ...): dirname's write to the pipe, then
 * the shell's read of it, then dirname's exit.  Releasing the write as a
 * blocking call made its return an event the recording does not have:
 * dirname was held there, before it closed the pipe, and the shell's
 * next read waited for that end of file for good. */
static bool came_back_within_step(const struct replay_ctx *c,
				  const struct sc_event *ev, size_t next)
{
	if (ev->kind != SC_EV_SYSCALL_BLOCKING ||
	    (ev->access != SC_ACC_READ && ev->access != SC_ACC_WRITE))
		return false;
	/* No event after it, in a run that did not end stuck: it came back
	 * and ran on to a point the run ended at.  Two threads failing an
	 * assert: the first wrote its message and, holding stderr's lock
	 * no longer, waited at abort's; released as a blocking call in
	 * the replay, it still held the lock when the second wrote its
	 * own, which then waited for it: every replay diverged (QA). */
	if (next == NO_EVENT)
		return !ended_stuck(c->t);
	return c->t->events[next].kind != SC_EV_SYSCALL_RETURN;
}

/* A released syscall: did it come back as its own event in the recording
 * (the others ran meanwhile), or was it a plain step?  Follow the trace,
 * not this run's timing.  In a run that ended stuck, a thread with no
 * event after its syscall never came back from it (a shell in wait4 for
 * a child that deadlocked): waiting for it would hang the replay.  In
 * any other run it came back and ran on to the end (an assert's write,
 * then abort) while the others waited.
 *
 * The others' events between the syscall and the thread's next one say
 * it was in the kernel meanwhile even without a return event: a
 * sigsuspend() or pause() that another thread's signal ended returns
 * through the signal handler, with no syscall-exit stop, straight into
 * the thread's next event.  Waiting for it to come back by itself hung
 * every replay of such a run (the signal's sender never ran), and so did
 * a pause() that never returned because another thread exec'd. */
static int replay_release(void *ctx, const struct sc_event *ev)
{
	struct replay_ctx *c = ctx;
	size_t i = next_event_of(c, ev->step, ev->thread);

	if (ev->step < c->base)
		return SC_RELEASE_AUTO;
	size_t after = (size_t)(ev->step - c->base) + 1;
	if (after < c->t->nevents && c->t->events[after].thread != ev->thread &&
	    !came_back_within_step(c, ev, i))
		return SC_RELEASE_NOW;  /* others ran while it was away */
	if (i == NO_EVENT)
		return ended_stuck(c->t) ? SC_RELEASE_NOW : SC_RELEASE_AWAIT;
	/* A timeout of its own (virtual_timeouts) ends a call that slept
	 * without one: it never comes back by itself. */
	return c->t->events[i].kind == SC_EV_SYSCALL_RETURN ||
	       c->t->events[i].kind == SC_EV_TIMEOUT
	       ? SC_RELEASE_NOW : SC_RELEASE_AWAIT;
}

/* Traces without preemption states (before format 1.1) only say that
 * the thread was preempted: give it a short slice of CPU time so that a
 * spinning thread is preempted again rather than running on into a
 * later event.  A thread with no event left while the others have some
 * was stopped by the recording at a point it never went on from (its
 * next event, or a preemption of a spin or a long computation): it gets
 * the recording's own time slices and preemptions (SC_SLICE_AS_RECORDED)
 * where it would otherwise spin for good while the others' events
 * wait. */
#define REPLAY_PREEMPT_SLICE_US 100

/* Was the event of step `step` the end of its thread (or process)?  It
 * goes on only to be reaped, which no slice should interrupt. */
static bool ends_thread(const struct replay_ctx *c, uint64_t step)
{
	if (step < c->base || step - c->base >= c->t->nevents)
		return false;
	uint16_t kind = c->t->events[step - c->base].kind;
	return kind == SC_EV_THREAD_EXIT || kind == SC_EV_PROCESS_EXIT;
}

static uint32_t replay_slice(void *ctx, uint64_t step, uint32_t thread)
{
	struct replay_ctx *c = ctx;
	size_t i = next_event_of(c, step, thread);

	if (i == NO_EVENT)
		return step + 1 < c->base + c->t->nevents &&
		       !ends_thread(c, step) ? SC_SLICE_AS_RECORDED : 0;
	return c->t->events[i].kind == SC_EV_PREEMPT &&
	       !c->t->events[i].state ? REPLAY_PREEMPT_SLICE_US : 0;
}

/* The recorded preemption that ends the thread's next stretch, if any:
 * the engine stops it at the same pc and state. */
static bool replay_preempt_target(void *ctx, uint64_t step, uint32_t thread,
				  struct sc_preempt_target *target)
{
	struct replay_ctx *c = ctx;
	size_t i = next_event_of(c, step, thread);

	if (i == NO_EVENT || c->t->events[i].kind != SC_EV_PREEMPT ||
	    !c->t->events[i].state)
		return false;
	const struct sc_trace_event *e = &c->t->events[i];
	*target = (struct sc_preempt_target){ .pc = e->pc, .state = e->state,
		.cpu_ns = e->cpu_ns, .preempt_flags = e->preempt_flags };
	if (e->has_regs && c->t->regs_pool &&
	    e->regs_offset <= c->t->nregs_pool &&
	    c->t->nregs_pool - e->regs_offset >= SC_PREEMPT_REGS) {
		target->has_regs = true;
		memcpy(target->regs, c->t->regs_pool + e->regs_offset,
		       sizeof(target->regs));
	}
	return true;
}

static const char *replay_error(void *ctx)
{
	struct replay_ctx *c = ctx;

	return c->diverged_at >= 0 ? c->err : NULL;
}

static void free_ctx(struct replay_ctx *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nthreads; i++)
		free(c->by_thread[i]);
	free(c->by_thread);
	free(c->nby_thread);
	free(c->consumed);
	free(c);
}

static int index_threads(struct replay_ctx *c, const struct sc_trace *t)
{
	uint32_t n = 0;

	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].thread >= n)
			n = t->events[i].thread + 1;
	if (n > (1u << 20))
		return -1;      /* no run has a million threads */
	c->by_thread = calloc(n ? n : 1, sizeof(*c->by_thread));
	c->nby_thread = calloc(n ? n : 1, sizeof(*c->nby_thread));
	if (!c->by_thread || !c->nby_thread)
		return -1;
	c->nthreads = n;
	for (size_t i = 0; i < t->nevents; i++)
		c->nby_thread[t->events[i].thread]++;
	for (uint32_t k = 0; k < n; k++) {
		c->by_thread[k] = malloc((c->nby_thread[k] ? c->nby_thread[k]
							   : 1) * sizeof(size_t));
		if (!c->by_thread[k])
			return -1;
		c->nby_thread[k] = 0;
	}
	for (size_t i = 0; i < t->nevents; i++) {
		uint32_t k = t->events[i].thread;
		c->by_thread[k][c->nby_thread[k]++] = i;
	}
	return 0;
}

int sc_replay_create(const struct sc_trace *t, struct sc_policy *out,
		     char *err, size_t errlen)
{
	struct replay_ctx *c;
	size_t max_woken = 1;

	/* Check the wake lists once so that the callbacks can index freely. */
	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];

		if ((uint64_t)e->woken_offset + e->nwoken > t->nwake_pool) {
			snprintf(err, errlen, "corrupt trace: wake list of step %"
				 PRIu64 " out of range", e->step);
			return -1;
		}
		if (e->nwoken > max_woken)
			max_woken = e->nwoken;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->consumed = calloc(max_woken, sizeof(*c->consumed));
	if (!c || !c->consumed || index_threads(c, t) < 0) {
		free_ctx(c);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->t = t;
	c->base = t->nevents ? t->events[0].step : 0;
	c->cur = NO_EVENT;
	c->max_woken = max_woken;
	c->diverged_at = -1;
	*out = (struct sc_policy){
		.ctx = c,
		.pick = replay_pick,
		.pick_wake = replay_pick_wake,
		.release = replay_release,
		.slice = replay_slice,
		.preempt_target = replay_preempt_target,
		.no_slices = true,
		.error = replay_error,
	};
	return 0;
}

void sc_replay_destroy(struct sc_policy *p)
{
	struct replay_ctx *c = p->ctx;

	free_ctx(c);
	p->ctx = NULL;
}

int64_t sc_replay_diverged_at(const struct sc_policy *p)
{
	const struct replay_ctx *c = p->ctx;

	return c ? c->diverged_at : -1;
}
