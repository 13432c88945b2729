/*
 * replay.h - the replay policy: follows the schedule recorded in a trace.
 *
 * pick() at step s returns the thread of recorded event s when that thread
 * is enabled and about to do the recorded kind of event on the recorded
 * object; it waits (SC_PICK_WAIT) while that thread is still inside a
 * released syscall; anything else is a divergence and aborts the run with
 * a one-line reason ("step 12: expected T1 mutex_lock 0x4040a0, but T1 is
 * blocked in futex_wait 0x4040c0").  pick_wake() releases the recorded
 * woken threads.
 *
 * Preemptions (`preempt` events) are time-based: they happened because a
 * thread ran longer than its slice.  On replay the same thread may reach
 * its next synchronisation event before the slice expires, so a run with
 * preemptions may diverge at one of them.
 */
#ifndef SCHEDCTL_REPLAY_H
#define SCHEDCTL_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "tracer.h"

struct sc_trace;

/* Build the policy; t must outlive it.  Returns 0, or -1 with a reason in
 * err (inconsistent trace). */
int sc_replay_create(const struct sc_trace *t, struct sc_policy *out,
		     char *err, size_t errlen);
void sc_replay_destroy(struct sc_policy *p);

/* The step at which the replay aborted, or -1 when it did not. */
int64_t sc_replay_diverged_at(const struct sc_policy *p);

#endif /* SCHEDCTL_REPLAY_H */
