/*
 * minimize_pair.c - name the two events whose order decides a failure,
 * from the minimised trace and the point where moving a preemption made
 * the run pass (cmd_minimize.c).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "minimize.h"
#include "strategy/guide.h"

/* Index in t of the event of `thread` that is its counted event number
 * `n` (0-based, guide.h's counting); -1 when the trace has none. */
static long counted_event(const struct sc_trace *t, uint32_t thread,
			  uint32_t n)
{
	uint32_t seen = 0;

	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->thread != thread || !sc_guide_counts(e->kind))
			continue;
		if (seen++ == n)
			return (long)i;
	}
	return -1;
}

static bool writes(const struct sc_trace_event *e)
{
	return e->access == SC_ACC_WRITE || e->access == SC_ACC_RMW;
}

/* Two events conflict: the same object, and at a memory access not two
 * reads. */
static bool conflict(const struct sc_trace_event *a,
		     const struct sc_trace_event *b)
{
	if (a->object != b->object || !a->object)
		return false;
	if (a->access == SC_ACC_NONE || b->access == SC_ACC_NONE)
		return true;
	return writes(a) || writes(b);
}

static bool is_mem(const struct sc_trace_event *e)
{
	return e->kind == SC_EV_MEM_READ || e->kind == SC_EV_MEM_WRITE ||
	       e->kind == SC_EV_MEM_RMW;
}

/* Two memory accesses to overlapping bytes, not two reads: a data
 * conflict, which says more than two calls on one lock. */
static bool mem_conflict(const struct sc_trace_event *a,
			 const struct sc_trace_event *b)
{
	uint64_t alen = a->size ? a->size : 1, blen = b->size ? b->size : 1;

	return is_mem(a) && is_mem(b) && a->object < b->object + blen &&
	       b->object < a->object + alen && (writes(a) || writes(b));
}

/* The mutexes (and write-locked rwlocks) e's thread holds at e, from
 * its lock and unlock events before it in t; returns how many (at most
 * max).  A condition wait gives its mutex back only while it waits. */
#define MAX_HELD 16
static size_t held_locks(const struct sc_trace *t,
			 const struct sc_trace_event *e, uint64_t *held,
			 size_t max)
{
	size_t n = 0;

	for (const struct sc_trace_event *p = t->events; p < e; p++) {
		if (p->thread != e->thread)
			continue;
		if (p->kind == SC_EV_MUTEX_LOCK || p->kind == SC_EV_RWLOCK_WRLOCK) {
			if (n < max)
				held[n++] = p->object;
		} else if (p->kind == SC_EV_MUTEX_UNLOCK ||
			   p->kind == SC_EV_RWLOCK_UNLOCK) {
			for (size_t i = n; i-- > 0;)
				if (held[i] == p->object) {
					held[i] = held[--n];
					break;
				}
		}
	}
	return n;
}

/* b (in tb) under one of the na locks la that another event holds:
 * their order is the lock's, not a race (at mem granularity the accesses
 * inside a critical section conflict too, and naming them would blame
 * correct code). */
static bool same_lock(const uint64_t *la, size_t na,
		      const struct sc_trace *tb, const struct sc_trace_event *b)
{
	uint64_t lb[MAX_HELD];
	size_t nb = na ? held_locks(tb, b, lb, MAX_HELD) : 0;

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (la[i] == lb[j])
				return true;
	return false;
}

/* The first event of another thread than `thread` in t's (from, end)
 * that conflicts with a, which is in ta (mem: a data conflict that no
 * common lock orders); NULL when none. */
static const struct sc_trace_event *first_conflict(const struct sc_trace *t,
						   uint32_t thread, long from,
						   long end,
						   const struct sc_trace *ta,
						   const struct sc_trace_event *a,
						   bool mem)
{
	uint64_t held[MAX_HELD];
	size_t nheld = mem ? held_locks(ta, a, held, MAX_HELD) : 0;

	for (long i = from + 1; i < end; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->thread == thread || !sc_guide_counts(e->kind))
			continue;
		if (mem ? mem_conflict(a, e) && !same_lock(held, nheld, t, e)
			: conflict(a, e))
			return e;
	}
	return NULL;
}

/* Events of the preempted thread looked at around the decisive one when
 * it has no data conflict: the event counts of two schedules differ where
 * a lock was contended in one (a futex wake only then), so the decisive
 * number may land on the lock call next to the access that matters. */
#define NEAR_EVENTS 8

static const char *verb(const struct sc_trace_event *e)
{
	switch (e->kind) {
	case SC_EV_MEM_READ: return "reads";
	case SC_EV_MEM_WRITE: return "writes";
	case SC_EV_MEM_RMW: return "updates";
	case SC_EV_MUTEX_LOCK: return "locks";
	case SC_EV_MUTEX_TRYLOCK: return "trylocks";
	case SC_EV_MUTEX_UNLOCK: return "unlocks";
	case SC_EV_COND_WAIT: return "waits on";
	case SC_EV_COND_SIGNAL: return "signals";
	case SC_EV_COND_BROADCAST: return "broadcasts";
	case SC_EV_FUTEX_WAIT: return "waits on";
	case SC_EV_FUTEX_WAKE: return "wakes";
	case SC_EV_WAIT_RETURN: return "returns from waiting on";
	case SC_EV_RWLOCK_RDLOCK: return "read-locks";
	case SC_EV_RWLOCK_WRLOCK: return "write-locks";
	case SC_EV_RWLOCK_UNLOCK: return "unlocks";
	case SC_EV_SEM_WAIT: return "waits on";
	case SC_EV_SEM_POST: return "posts";
	default: return sc_event_kind_name(e->kind);
	}
}

static const char *past(const struct sc_trace_event *e)
{
	switch (e->kind) {
	case SC_EV_MEM_READ: return "read";
	case SC_EV_MEM_WRITE: return "wrote";
	case SC_EV_MEM_RMW: return "updated";
	case SC_EV_MUTEX_LOCK: return "locked";
	case SC_EV_MUTEX_TRYLOCK: return "trylocked";
	case SC_EV_MUTEX_UNLOCK: return "unlocked";
	case SC_EV_COND_WAIT: return "waited on";
	case SC_EV_COND_SIGNAL: return "signalled";
	case SC_EV_COND_BROADCAST: return "broadcast";
	case SC_EV_FUTEX_WAIT: return "waited on";
	case SC_EV_FUTEX_WAKE: return "woke";
	case SC_EV_WAIT_RETURN: return "returned from waiting on";
	case SC_EV_RWLOCK_RDLOCK: return "read-locked";
	case SC_EV_RWLOCK_WRLOCK: return "write-locked";
	case SC_EV_RWLOCK_UNLOCK: return "unlocked";
	case SC_EV_SEM_WAIT: return "waited on";
	case SC_EV_SEM_POST: return "posted";
	default: return sc_event_kind_name(e->kind);
	}
}

static void describe_side(struct sc_symbolizer *sym, const struct sc_trace *t,
			  const struct sc_trace_event *e,
			  struct minimize_side *out)
{
	struct sc_symbol s = { 0 };

	out->thread = e->thread;
	out->step = e->step;
	out->kind = sc_event_kind_name(e->kind);
	out->object = e->object;
	snprintf(out->object_name, sizeof(out->object_name), "0x%" PRIx64,
		 e->object);
	if (e->object &&
	    sc_symbolizer_event_data(sym, t, e, e->object, &s) == 0 &&
	    s.location && s.location[0] != '0')
		snprintf(out->object_name, sizeof(out->object_name), "%s",
			 s.location);
	memset(&s, 0, sizeof(s));
	out->location[0] = out->function[0] = '\0';
	/* A library call: the caller's line (the return address is just
	 * past the call instruction).  A futex inside one (a condition
	 * wait's): the call it is part of, the thread's last one. */
	uint64_t pc = e->call_site ? e->call_site - 1 : e->pc;
	if (!e->call_site &&
	    (sc_symbolizer_event_pc(sym, t, e, pc, &s) != 0 ||
	     !s.has_line)) {
		for (const struct sc_trace_event *p = e; p-- > t->events;)
			if (p->thread == e->thread && p->call_site) {
				pc = p->call_site - 1;
				break;
			}
	}
	memset(&s, 0, sizeof(s));
	if (sc_symbolizer_event_pc(sym, t, e, pc, &s) == 0) {
		snprintf(out->location, sizeof(out->location), "%s",
			 s.location ? s.location : "?");
		/* A C++ template's name can be thousands of characters:
		 * its template arguments give way, not its end. */
		sc_short_name(s.function ? s.function : "",
			      sizeof(out->function) / 2, out->function,
			      sizeof(out->function));
		out->in_program = s.in_program;
	}
}

int minimize_name_pair(const struct sc_trace *t, const struct sc_trace *moved,
		       uint32_t thread, uint32_t switch_at, uint32_t decisive,
		       struct minimize_pair *out)
{
	long ia = counted_event(t, thread, decisive), end = ia;
	long from = switch_at ? counted_event(t, thread, switch_at - 1) : -1;
	const struct sc_trace *ta = t;

	/* The failure came first (an assert in another thread ended the
	 * run): a is in the passing run, the window lasts to the end. */
	if (ia < 0 && moved) {
		ta = moved;
		ia = counted_event(moved, thread, decisive);
		end = (long)t->nevents;
	}
	if (ia < 0)
		return -1;
	const struct sc_trace_event *a = &ta->events[ia], *b = NULL;
	/* The other threads' events that ran between the preemption and a:
	 * the first with a data conflict with a; else the thread's other
	 * events nearby with one (NEAR_EVENTS); else the first that
	 * conflicts with a at all; else the first of them. */
	b = first_conflict(t, thread, from, end, ta, a, true);
	for (long d = 1; !b && d <= NEAR_EVENTS; d++) {
		for (int sign = -1; !b && sign <= 1; sign += 2) {
			long n = (long)decisive + sign * d;
			if (n < (long)switch_at)
				continue;   /* ran before the preemption */
			long ic = counted_event(ta, thread, (uint32_t)n);
			if (ic < 0)
				continue;
			b = first_conflict(t, thread, from, ta == t ? ic : end,
					   ta, &ta->events[ic], true);
			if (b)
				a = &ta->events[ic];
		}
	}
	if (!b)
		b = first_conflict(t, thread, from, end, ta, a, false);
	for (long i = from + 1; !b && i < end; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->thread != thread && sc_guide_counts(e->kind))
			b = e;
	}
	if (!b)
		return -1;
	struct sc_symbolizer *sym = sc_symbolizer_new();
	if (!sym)
		return -1;
	describe_side(sym, ta, a, &out->later);
	describe_side(sym, t, b, &out->earlier);
	sc_symbolizer_free(sym);
	out->conflict = conflict(a, b) || mem_conflict(a, b);
	out->same_object = a->object == b->object || mem_conflict(a, b);
	snprintf(out->later.verb, sizeof(out->later.verb), "%s", verb(a));
	snprintf(out->earlier.verb, sizeof(out->earlier.verb), "%s", past(b));
	return 0;
}
