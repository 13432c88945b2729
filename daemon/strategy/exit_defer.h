/*
 * exit_defer.h - a policy wrapper that lets the other threads run before
 * a thread ends the process (exit_group).
 *
 * A main that returns without joining its threads (SCTBench's
 * token_ring_bad, account_bad: a checker thread must run after the
 * others) ends the process at a point where every strategy sees one
 * event of main against the many events the other threads have left, so
 * it comes early: surw weighs main's exit 1 against their estimates,
 * which the same early exits teach to be small; POS gives it a random
 * priority that nothing re-draws.  The threads were cut short in nearly
 * every run (surw: 0 of 1000 runs of token_ring_bad reached its check).
 *
 * With the wrapper a thread whose pending event is the process's exit is
 * not picked while another enabled thread has progress to make (not a
 * yield, sleep or time slice: a watchdog that sleeps in a loop never
 * finishes), up to SC_EXIT_DEFER_MAX such picks per run.  Launch wraps
 * the policy of every pilot run of race granularity (a pilot is there to
 * see the racing accesses, so every thread must reach them) and of every
 * other run whose seed says so (one in two, sc_exit_defer_chosen()), so
 * that the early exits are still explored.  The exit_group comes after
 * main's atexit handlers and static destructors, which still run while
 * the threads are going.
 *
 * Every run of a strategy that is no systematic search is wrapped, for
 * one rule that holds whether exits are deferred or not: when the only
 * threads that could run instead of the exit are computing (stopped by
 * their time slice between scheduling points), the exit goes first.
 *
 * The wrapper also holds a sleeping thread back while the others make
 * progress (sleep_hold.h).
 *
 * The wrapped run's trace records what ran as always, so its replay
 * needs nothing of this.
 */
#ifndef SCHEDCTL_EXIT_DEFER_H
#define SCHEDCTL_EXIT_DEFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strategy/sleep_hold.h"
#include "tracer.h"

#define SC_EXIT_DEFER_MAX 20000

struct sc_exit_defer {
	struct sc_policy inner;
	uint32_t *enabled;      /* the filtered enabled set of a pick */
	size_t cap;
	uint32_t *awake;        /* the enabled threads not held asleep */
	size_t cap_awake;
	struct sc_sleep_hold hold;
	uint32_t deferred;      /* picks that left an exit out */
	bool defer;             /* hold exits back (else only the rule
				 * against computing threads applies) */
};

/* Whether a (not pilot) run with this seed defers its exit: one seed in
 * two, from bits the strategies' generators do not start from. */
static inline bool sc_exit_defer_chosen(uint64_t seed)
{
	uint64_t x = seed ^ 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return ((x ^ (x >> 31)) & 1) != 0;
}

/* Make *p the wrapper of the policy *p was (moved into d->inner); defer:
 * hold exits back as above; seed: the run's (sleep holds). */
void sc_exit_defer_wrap(struct sc_exit_defer *d, struct sc_policy *p,
			bool defer, uint64_t seed);
/* Give *p back its inner policy (to be destroyed by its strategy) and
 * free what the wrapper took. */
void sc_exit_defer_unwrap(struct sc_exit_defer *d, struct sc_policy *p);

#endif
