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
 *   - a write to a file descriptor (a pipe, an eventfd, a socket; not 1
 *     or 2) -> a later read from any descriptor, once it returns;
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

/* Per-thread state of the calls whose synchronisation is not one event
 * on one object (hb_thread_step).
 *
 * A lock is recorded at the *entry* of its call, but it is taken later,
 * inside libc, after any wait: a contended pthread_rwlock_wrlock waits on
 * futex words inside the rwlock (not its address), a spin lock spins with
 * no event at all, a writer can be handed the lock with no futex call, a
 * barrier's last arrival may come after a waiter's futex wait returned
 * EAGAIN.  So the lock's release clock is acquired again at every event of
 * the thread until the call has returned: its events that are part of a
 * wait (futex, wait_return, timeout, preemption, released syscall) and the
 * first one that is not.  That is sound: the lock is taken after every
 * release seen by then, and before that first event.
 *
 * pthread_cond_wait releases and re-takes its mutex inside libc, where no
 * event is recorded; the trace names only the condition.  The mutex is
 * taken to be the one the thread locked last and still holds: released at
 * the cond_wait event, and acquired again as above.
 *
 * A read-write lock has two release clocks: the write unlocks' (key: its
 * address) and the read unlocks' (hb_rw_read_key).  A write lock acquires
 * both; a read lock only the writers' (two readers are not ordered).  The
 * unlock does not say which mode it ends: the thread's held rwlocks say
 * (an unlock of a lock it does not hold counts as a write unlock: more
 * order, so it can only hide a race, never invent one).
 *
 * pthread_once / call_once release at the end of the initialiser, which
 * runs inside the call: the thread keeps releasing into the once object
 * at each of its events up to its next synchronisation event. */
#define HB_CALL_KEYS 2
#define HB_HELD_RW 8

struct hb_rw_held {
	uint64_t lock;
	bool write;
};

struct hb_thread {
	uint64_t held;          /* last mutex locked and not unlocked */
	uint64_t calling[HB_CALL_KEYS]; /* clocks to acquire until the
					 * lock call has returned */
	uint64_t once;          /* once object still being initialised */
	struct hb_rw_held rw[HB_HELD_RW];
	unsigned nrw;
	bool no_io_edges;       /* the race pilot's: no descriptor edges */
};

/* The key of a rwlock's read-unlock clock: user addresses never have the
 * top bit. */
static inline uint64_t hb_rw_read_key(uint64_t lock)
{
	return lock | (1ULL << 63);
}

/* The clock of data passed through file descriptors (hb_thread_step):
 * no user address has bit 62. */
#define HB_IO_KEY (1ULL << 62)

/* Object clocks to acquire before event e (joined into the thread) and to
 * release after it (the thread's clock joined into them), besides the
 * object role of e's kind (hb_object_role). */
struct hb_keys {
	uint64_t acquire[HB_CALL_KEYS + 2];
	unsigned nacquire;
	uint64_t release[2];
	unsigned nrelease;
};

/* Step the thread's state over its event e and say which clocks to apply
 * at e (hb_rules.c). */
void hb_thread_step(struct hb_thread *s, const struct sc_trace_event *e,
		    struct hb_keys *k);

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
