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

/* "blocked in futex_wait 0x4040c0" and the like, for error messages. */
static void describe(const struct sc_thread_view *tv, char *buf, size_t len)
{
	const char *kind = sc_event_kind_name(tv->next.kind);

	switch (tv->state) {
	case SC_TS_BLOCKED:
		snprintf(buf, len, "blocked in %s 0x%" PRIx64, kind,
			 tv->next.object);
		return;
	case SC_TS_IN_KERNEL:
		snprintf(buf, len, "inside a system call");
		return;
	case SC_TS_READY:
		break;
	}
	snprintf(buf, len, "%sabout to %s 0x%" PRIx64,
		 tv->enabled ? "" : "not enabled, ", kind, tv->next.object);
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
	idx = (size_t)(s - c->base);
	e = &t->events[idx];
	tv = find_thread(view, e->thread, &i);
	if (tv && tv->enabled && tv->next.kind == e->kind &&
	    tv->next.object == e->object) {
		c->cur = idx;
		memset(c->consumed, 0, c->max_woken * sizeof(*c->consumed));
		return (int)i;
	}
	if (tv && tv->state == SC_TS_IN_KERNEL)
		return SC_PICK_WAIT;
	if (tv)
		describe(tv, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "not a live thread");
	diverge(c, s, "step %" PRIu64 ": expected T%u %s 0x%" PRIx64
		", but T%u is %s", s, e->thread,
		sc_event_kind_name(e->kind), e->object, e->thread, what);
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

/* A released syscall: did it come back as its own event in the recording
 * (the others ran meanwhile), or was it a plain step?  Follow the trace,
 * not this run's timing. */
static int replay_release(void *ctx, const struct sc_event *ev)
{
	struct replay_ctx *c = ctx;
	const struct sc_trace *t = c->t;

	if (ev->step < c->base)
		return SC_RELEASE_AUTO;
	for (size_t i = (size_t)(ev->step - c->base) + 1; i < t->nevents; i++) {
		if (t->events[i].thread != ev->thread)
			continue;
		return t->events[i].kind == SC_EV_SYSCALL_RETURN ?
		       SC_RELEASE_NOW : SC_RELEASE_AWAIT;
	}
	return SC_RELEASE_AWAIT;
}

/* Preemptions are time based: when the recording shows that `thread`'s
 * next event was a preemption, give it a short slice so that a spinning
 * thread is preempted again rather than running on into a later event. */
#define REPLAY_PREEMPT_SLICE_US 100

static uint32_t replay_slice(void *ctx, uint64_t step, uint32_t thread)
{
	struct replay_ctx *c = ctx;
	const struct sc_trace *t = c->t;

	if (step < c->base)
		return 0;
	for (size_t i = (size_t)(step - c->base) + 1; i < t->nevents; i++) {
		if (t->events[i].thread != thread)
			continue;
		return t->events[i].kind == SC_EV_PREEMPT ?
		       REPLAY_PREEMPT_SLICE_US : 0;
	}
	return 0;
}

static const char *replay_error(void *ctx)
{
	struct replay_ctx *c = ctx;

	return c->diverged_at >= 0 ? c->err : NULL;
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
	if (!c || !c->consumed) {
		free(c);
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
		.error = replay_error,
	};
	return 0;
}

void sc_replay_destroy(struct sc_policy *p)
{
	struct replay_ctx *c = p->ctx;

	if (c) {
		free(c->consumed);
		free(c);
	}
	p->ctx = NULL;
}

int64_t sc_replay_diverged_at(const struct sc_policy *p)
{
	const struct replay_ctx *c = p->ctx;

	return c ? c->diverged_at : -1;
}
