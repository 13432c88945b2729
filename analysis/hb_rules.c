/*
 * hb_rules.c - the synchronisation roles of event kinds (hb_rules.h).
 */
#include <stdio.h>

#include "hb_rules.h"

unsigned hb_object_role(uint16_t kind)
{
	switch (kind) {
	case SC_EV_MUTEX_LOCK:
	case SC_EV_MUTEX_TRYLOCK:
	case SC_EV_RWLOCK_RDLOCK:
	case SC_EV_RWLOCK_WRLOCK:
	case SC_EV_SPIN_LOCK:
	case SC_EV_SEM_WAIT:
	/* A futex wait that finds the word changed returns at once having
	 * read what the waker wrote: order it after earlier wakes. */
	case SC_EV_FUTEX_WAIT:
	case SC_EV_WAIT_RETURN:
		return HB_ACQUIRE;
	case SC_EV_MUTEX_UNLOCK:
	case SC_EV_RWLOCK_UNLOCK:
	case SC_EV_SPIN_UNLOCK:
	case SC_EV_SEM_POST:
	case SC_EV_COND_SIGNAL:
	case SC_EV_COND_BROADCAST:
	case SC_EV_FUTEX_WAKE:
	case SC_EV_FUTEX_WAKE_OP:
	case SC_EV_FUTEX_REQUEUE:
	/* Should the engine record the exiting thread's clear_child_tid
	 * word as its object, a joiner's wait on that word follows it. */
	case SC_EV_THREAD_EXIT:
		return HB_RELEASE;
	case SC_EV_BARRIER_WAIT:
	case SC_EV_ONCE:
	/* Atomic read-modify-writes (lock prefix, xchg) synchronise: two of
	 * them on one address are never a data race. */
	case SC_EV_MEM_RMW:
		return HB_ACQUIRE | HB_RELEASE;
	default:
		return 0;
	}
}

uint32_t hb_thread_slots(const struct sc_trace *t, char *err, size_t errlen)
{
	uint32_t max = 0;
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].thread > max)
			max = t->events[i].thread;
	for (size_t j = 0; t->wake_pool && j < t->nwake_pool; j++)
		if (t->wake_pool[j] > max)
			max = t->wake_pool[j];
	if (max >= HB_MAX_THREADS) {
		snprintf(err, errlen, "logical thread id %u is over the "
			 "analyzer's limit of %u threads", max, HB_MAX_THREADS);
		return 0;
	}
	return max + 2;     /* +1: a thread created but never seen running */
}

const uint32_t *hb_woken(const struct sc_trace *t,
			 const struct sc_trace_event *e)
{
	if (!e->nwoken || !t->wake_pool || e->woken_offset > t->nwake_pool ||
	    e->nwoken > t->nwake_pool - e->woken_offset)
		return NULL;
	return t->wake_pool + e->woken_offset;
}
