/*
 * learn.h - what the noise, speed, urw/surw and portfolio strategies learn
 * across the runs of a launch (embedded in struct sc_strategy_session), and
 * the per-run counters that feed it.
 *
 * Everything is in fixed-size tables so that the session stays a plain
 * zero-initialised value that the launch never has to free: a table that
 * is full stops learning new entries (the estimates then undercount, which
 * only makes the strategies a little less informed).
 */
#ifndef SCHEDCTL_LEARN_H
#define SCHEDCTL_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer.h"

#define SC_LEARN_PCS 4096          /* distinct program locations (slots) */
#define SC_LEARN_OBJECTS 2048      /* objects with their first toucher */
#define SC_LEARN_THREADS 64        /* logical ids with event averages */

struct sc_learn_object {
	uint64_t object;            /* 0: free slot */
	uint32_t thread;            /* first thread that touched it */
	bool shared;                /* touched by another thread since */
};

struct sc_learn {
	/* noise best: the distinct pcs of executed events. */
	uint64_t pcs[SC_LEARN_PCS];         /* open addressing, 0 free */
	uint32_t npcs;
	/* surw: objects touched by more than one thread (any run). */
	struct sc_learn_object objects[SC_LEARN_OBJECTS];
	uint32_t nobjects;
	/* urw: events per logical thread, summed over the runs it ran in. */
	uint64_t thread_events[SC_LEARN_THREADS];
	uint32_t thread_runs[SC_LEARN_THREADS];
};

/* Record pc (0 ignored); returns the number of distinct pcs so far. */
uint32_t sc_learn_pc(struct sc_learn *l, uint64_t pc);
/* Record that thread touched object (0 ignored). */
void sc_learn_touch(struct sc_learn *l, uint64_t object, uint32_t thread);
/* True when object (not 0) was touched by more than one thread. */
bool sc_learn_shared(const struct sc_learn *l, uint64_t object);
/* The expected number of events of a logical thread in a run: its average
 * over earlier runs, else the mean of the known threads, else 0. */
double sc_learn_estimate(const struct sc_learn *l, uint32_t thread);

struct sc_strategy_session;

/* What one run did, for the session: contested points (PCT's k), threads,
 * events per thread.  Zero it at create(). */
struct sc_run_stats {
	uint64_t points;            /* picks with more than one enabled */
	/* Threads seen: logical ids count up from T0 in creation order,
	 * so the highest id seen + 1. */
	uint32_t nthreads;
	uint64_t events[SC_LEARN_THREADS];  /* executed, per logical id */
};

/* At each pick: count the point and the threads into s (may be NULL). */
void sc_run_stats_pick(struct sc_run_stats *rs, struct sc_strategy_session *s,
		       const struct sc_sched_view *view);
/* After each event: count it and learn its pc and object into l.
 * syscall_return and preempt events, which come and go with timing, are
 * not counted. */
void sc_run_stats_executed(struct sc_run_stats *rs, struct sc_learn *l,
			   const struct sc_event *ev);
/* A thread that does the same read or read-modify-write (kind, pc,
 * object) this many times in a row spins: at mem granularity (or with
 * --atomics) a busy-wait loop is a run of identical loads or
 * compare-and-swaps, and a strategy that lets the last thread go on
 * would wait forever for a thread it never runs. */
#define SC_SPIN_REPEATS 8

struct sc_spin_watch {
	uint32_t thread;
	uint16_t kind;
	uint64_t pc, object;
	uint32_t repeats;
};

/* After each event: true while ev's thread is repeating its event
 * (SC_SPIN_REPEATS or more times).  Zero the watch at create(). */
bool sc_spin_watch_event(struct sc_spin_watch *w, const struct sc_event *ev);

/* At destroy(): fold the per-thread event counts into s and count the
 * run (s may be NULL). */
void sc_run_stats_end(const struct sc_run_stats *rs,
		      struct sc_strategy_session *s);

/* The release mode (tracer.h) for a possibly blocking syscall, given
 * whether the thread is the only live one: wait for it however long it
 * takes.  Nobody else could run meanwhile, and a slow return (a loaded
 * machine) then adds no syscall_return event, so the steps of a
 * sequential phase do not depend on timing.  With other threads alive,
 * the engine's default (AUTO) lets them run. */
static inline int sc_release_mode(bool alone)
{
	return alone ? SC_RELEASE_AWAIT : SC_RELEASE_AUTO;
}

/* Yield-like events: the thread waits for another one to act. */
bool sc_event_is_spin(uint16_t kind);

/* A double uniform in [0, 1) from the top 53 bits of a draw. */
double sc_unit_double(uint64_t draw);

#endif /* SCHEDCTL_LEARN_H */
