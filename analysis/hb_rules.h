/*
 * hb_rules.h - which events synchronise, and how (internal to
 * libanalysis).  One table shared by the race detector and the DOT
 * export so that both draw the same happens-before relation.
 *
 * Events are recorded *before* they execute, and a thread runs from its
 * event to its next scheduling point, so "event e" stands for the code
 * segment that starts at e.  An acquire joins the object's release clock
 * into the thread; a release joins the thread's clock into the object.
 * Besides the object rules (docs/schedctl.1, ANALYZE):
 *   - thread_create -> first event of the created thread (the next
 *     logical id);
 *   - every event with a woken list -> the next event of each woken thread
 *     (futex wakes, a thread's exit waking its joiner);
 *   - pthread_join -> after the exits of the threads that have exited
 *     (the trace does not say which thread a pthread_t names; this can
 *     only hide a race, never invent one).  Also at the joiner's futex
 *     wait on the thread's tid word inside that pthread_t (glibc: the
 *     join found the thread still running, waits, and the exit came
 *     before the wait: the wait returns at once without a wake).
 */
#ifndef SCHEDCTL_HB_RULES_H
#define SCHEDCTL_HB_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

enum {
	HB_ACQUIRE = 1,
	HB_RELEASE = 2,
};

/* HB_ACQUIRE | HB_RELEASE bits of a kind on its object (0: none). */
unsigned hb_object_role(uint16_t kind);

static inline bool hb_is_mem(uint16_t kind)
{
	return kind == SC_EV_MEM_READ || kind == SC_EV_MEM_WRITE ||
	       kind == SC_EV_MEM_RMW;
}

/* Is e the joiner's wait for a thread named by the pthread_t at join_obj
 * (the object of its last pthread_join)?  glibc keeps the tid word that
 * the kernel clears at exit inside struct pthread. */
static inline bool hb_join_wait(uint64_t join_obj,
				const struct sc_trace_event *e)
{
	return join_obj && (e->kind == SC_EV_FUTEX_WAIT ||
			    e->kind == SC_EV_WAIT_RETURN) &&
	       e->object - join_obj < 0x1000;
}

/* pthread_cond_wait releases and re-takes its mutex inside libc, where
 * no event is recorded; the trace names only the condition.  The mutex is
 * taken to be the one the thread locked last and still holds: released at
 * the cond_wait event, and acquired again at every event of the thread
 * until the wait has returned (its first event that is not part of the
 * wait: futex wait/wake, wait_return, timeout, preemption).  Acquiring it
 * early is sound: the re-lock comes after every release seen by then. */
struct hb_cond {
	uint64_t held;          /* last mutex locked and not unlocked */
	uint64_t waiting;       /* mutex of the cond_wait in progress, or 0 */
};

/* Step the state over event e of its thread: *release (at cond_wait) and
 * *acquire (while waiting) name the mutex to apply at e, or 0. */
static inline void hb_cond_step(struct hb_cond *c,
				const struct sc_trace_event *e,
				uint64_t *release, uint64_t *acquire)
{
	*release = *acquire = 0;
	if (c->waiting) {
		*acquire = c->waiting;
		switch (e->kind) {
		case SC_EV_FUTEX_WAIT:
		case SC_EV_FUTEX_WAKE:
		case SC_EV_FUTEX_OTHER:
		case SC_EV_WAIT_RETURN:
		case SC_EV_TIMEOUT:
		case SC_EV_PREEMPT:
		case SC_EV_SYSCALL_RETURN:
			break;
		default:
			c->waiting = 0;
		}
	}
	switch (e->kind) {
	case SC_EV_MUTEX_LOCK:
	case SC_EV_MUTEX_TRYLOCK:
		c->held = e->object;
		break;
	case SC_EV_MUTEX_UNLOCK:
		if (c->held == e->object)
			c->held = 0;
		break;
	case SC_EV_COND_WAIT:
		if (c->held) {
			*release = c->held;
			c->waiting = c->held;
		}
		break;
	default:
		break;
	}
}

/* Logical ids are small dense numbers; a trace claiming more threads is
 * rejected by the analyses (it would make them allocate n^2 clocks). */
#define HB_MAX_THREADS 1024u

/* Number of thread slots (max logical id + 1) or 0 after writing a
 * one-line reason to err. */
uint32_t hb_thread_slots(const struct sc_trace *t, char *err, size_t errlen);

/* The woken list of event e, or NULL (bounds-checked against the pool). */
const uint32_t *hb_woken(const struct sc_trace *t,
			 const struct sc_trace_event *e);

#endif /* SCHEDCTL_HB_RULES_H */
