/*
 * guide.h - a run steered by a list of context switches (schedctl
 * minimize).
 *
 * A schedule is written as switches "T.n>U": once thread T has done n
 * events, thread U runs next (when it is enabled then).  n counts every
 * event of T but preempt and syscall_return, the two that timing makes:
 * so a switch names the same point of T's program however the run got
 * there, and dropping one switch leaves every other where it was.  A
 * wake choice is written "wT.n=A,B": the wake that T does as its event
 * n (counted the same way) releases waiters A and B.
 *
 * Where no switch applies, the run is not preemptive: the thread that ran
 * last goes on while it can; when it cannot (or it spins, waiting for
 * the others), the lowest enabled thread runs.  A switch whose U is not enabled is skipped.  So every list is a
 * valid schedule, and the guide never diverges: minimize removes
 * switches and looks at whether the run still fails.
 */
#ifndef SCHEDCTL_GUIDE_H
#define SCHEDCTL_GUIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer.h"

struct sc_trace;

/* Events that count toward n. */
static inline bool sc_guide_counts(uint16_t kind)
{
	return kind != SC_EV_PREEMPT && kind != SC_EV_SYSCALL_RETURN;
}

/* Build the policy from the text of switches and wake choices separated
 * by spaces.  Returns 0, or -1 with a one-line reason in err. */
int sc_guide_create(const char *text, struct sc_policy *out, char *err,
		    size_t errlen);
void sc_guide_destroy(struct sc_policy *p);

/* The switches the run took while the thread that ran last could have
 * gone on (its preemptions), written as above into buf; their number. */
uint32_t sc_guide_preemptions(const struct sc_policy *p, char *buf,
			      size_t len);

/* The schedule of a recorded run as such a text (malloc'ed; NULL when
 * out of memory): its context switches, and wake choices where the wake
 * released some of several waiters. */
char *sc_guide_from_trace(const struct sc_trace *t);

#endif /* SCHEDCTL_GUIDE_H */
