/*
 * sleep_hold.h - a sleeping thread sometimes stays asleep while the
 * others make progress (part of the wrapper of exit_defer.h).
 *
 * Sleeps end at once in the engine's abstract time, so a thread that
 * polls with a sleep (SQLite's busy handler: 59 sleeps of 1 to 100 ms,
 * 5 s in all, before "database is locked") could use up its whole
 * timeout while the thread it waits for made a few dozen of the
 * thousand steps it needed: random and PCT reported a correct program
 * failing in most runs.  A real sleep of d lets the other threads run
 * for d.
 *
 * Once a thread has slept SC_SLEEP_HOLD_FREE_NS in all (a retry loop
 * that has waited a while), after each of its sleeps, with probability
 * 1/2 (from the run's seed and the step: a function of the schedule, so
 * replays need nothing), it is held out of the choices until the other
 * threads executed one event per SC_SLEEP_HOLD_NS_PER_EVENT of the sleep
 * (at least 1, at most SC_SLEEP_HOLD_MAX_EVENTS), as long as one of them
 * can make progress (not a yield, sleep, time slice or timeout: then
 * time passes and it wakes).  Otherwise it wakes at once as before.  So
 * a test that sleeps to let another thread finish, and fails when that
 * thread is slow, is found as often as before, and so is a race that
 * needs a polling thread to wake early (pbzip2's writer polls every
 * 50 ms: its SCTBench bug went from 49 of 300 runs to 1 when every
 * sleep could be held).
 */
#ifndef SCHEDCTL_SLEEP_HOLD_H
#define SCHEDCTL_SLEEP_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer.h"

#define SC_SLEEP_HOLD_FREE_NS 1000000000ULL     /* 1 s */
#define SC_SLEEP_HOLD_NS_PER_EVENT 100000ULL    /* 100 us */
#define SC_SLEEP_HOLD_MAX_EVENTS 100000ULL

struct sc_sleep_hold {
	uint64_t seed;
	uint64_t executed;      /* events executed in the run */
	uint64_t *until;        /* by logical thread: held while executed
				 * is below it */
	uint64_t *slept;        /* by logical thread: its sleeps' ns */
	size_t nthreads;
};

void sc_sleep_hold_init(struct sc_sleep_hold *h, uint64_t seed);
void sc_sleep_hold_free(struct sc_sleep_hold *h);
/* Count an executed event; after a sleep, decide its thread's hold. */
void sc_sleep_hold_executed(struct sc_sleep_hold *h, const struct sc_event *ev);
/* Whether thread (a logical id) is held out of the choices now. */
bool sc_sleep_hold_held(const struct sc_sleep_hold *h, uint32_t thread);

#endif
