/*
 * hb_rules.c - the synchronisation roles of event kinds (hb_rules.h).
 */
#include <stdio.h>
#include <string.h>

#include "hb_rules.h"

unsigned hb_object_role(uint16_t kind)
{
	switch (kind) {
	case SC_EV_MUTEX_LOCK:
	case SC_EV_MUTEX_TRYLOCK:
	case SC_EV_SPIN_LOCK:
	case SC_EV_SEM_WAIT:
	/* A futex wait that finds the word changed returns at once having
	 * read what the waker wrote: order it after earlier wakes. */
	case SC_EV_FUTEX_WAIT:
	case SC_EV_WAIT_RETURN:
		return HB_ACQUIRE;
	case SC_EV_MUTEX_UNLOCK:
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
	/* Read-write locks have two clocks: hb_thread_step. */
	default:
		return 0;
	}
}

/* Is e part of a call that waits (so the call has not returned yet)? */
static bool in_wait(uint16_t kind)
{
	switch (kind) {
	case SC_EV_FUTEX_WAIT:
	case SC_EV_FUTEX_WAKE:
	case SC_EV_FUTEX_OTHER:
	case SC_EV_WAIT_RETURN:
	case SC_EV_TIMEOUT:
	case SC_EV_PREEMPT:
	case SC_EV_SYSCALL_RETURN:
		return true;
	default:
		return false;
	}
}

static void add_key(uint64_t *keys, unsigned *n, unsigned max, uint64_t key)
{
	for (unsigned i = 0; i < *n; i++)
		if (keys[i] == key)
			return;
	if (*n < max)
		keys[(*n)++] = key;
}

static void call_keys(struct hb_thread *s, uint64_t a, uint64_t b)
{
	s->calling[0] = a;
	s->calling[1] = b;
}

/* The mode the thread holds rwlock `lock` in, forgetting it: true for a
 * write lock or one it does not hold. */
static bool rw_unlock_is_write(struct hb_thread *s, uint64_t lock)
{
	for (unsigned i = s->nrw; i-- > 0;) {
		if (s->rw[i].lock != lock)
			continue;
		bool w = s->rw[i].write;
		memmove(s->rw + i, s->rw + i + 1,
			(--s->nrw - i) * sizeof(s->rw[0]));
		return w;
	}
	return true;
}

void hb_thread_step(struct hb_thread *s, const struct sc_trace_event *e,
		    struct hb_keys *k)
{
	unsigned amax = sizeof(k->acquire) / sizeof(k->acquire[0]);
	unsigned rmax = sizeof(k->release) / sizeof(k->release[0]);

	k->nacquire = k->nrelease = 0;
	/* A lock call in progress: this event is part of its wait, or the
	 * first one after it returned. */
	for (unsigned i = 0; i < HB_CALL_KEYS; i++)
		if (s->calling[i])
			add_key(k->acquire, &k->nacquire, amax, s->calling[i]);
	if (!in_wait(e->kind))
		call_keys(s, 0, 0);
	/* An initialiser still running under pthread_once. */
	if (s->once) {
		add_key(k->release, &k->nrelease, rmax, s->once);
		if (!hb_is_mem(e->kind))
			s->once = 0;
	}
	if (!e->object)
		return;
	switch (e->kind) {
	case SC_EV_MUTEX_LOCK:
	case SC_EV_MUTEX_TRYLOCK:
		s->held = e->object;
		call_keys(s, e->object, 0);
		break;
	case SC_EV_MUTEX_UNLOCK:
		if (s->held == e->object)
			s->held = 0;
		break;
	case SC_EV_SPIN_LOCK:
	case SC_EV_SEM_WAIT:
	case SC_EV_BARRIER_WAIT:
		call_keys(s, e->object, 0);
		break;
	case SC_EV_ONCE:
		call_keys(s, e->object, 0);
		s->once = e->object;
		break;
	case SC_EV_COND_WAIT:
		if (s->held) {
			add_key(k->release, &k->nrelease, rmax, s->held);
			call_keys(s, s->held, 0);
		}
		break;
	case SC_EV_RWLOCK_RDLOCK:
	case SC_EV_RWLOCK_WRLOCK: {
		bool w = e->kind == SC_EV_RWLOCK_WRLOCK;
		call_keys(s, e->object, w ? hb_rw_read_key(e->object) : 0);
		for (unsigned i = 0; i < HB_CALL_KEYS; i++)
			if (s->calling[i])
				add_key(k->acquire, &k->nacquire, amax,
					s->calling[i]);
		/* A failed trylock leaves an entry that no unlock removes:
		 * when full, forget the oldest.  The latest entry of a lock
		 * is the one its unlock ends. */
		if (s->nrw == HB_HELD_RW)
			memmove(s->rw, s->rw + 1, --s->nrw * sizeof(s->rw[0]));
		s->rw[s->nrw++] = (struct hb_rw_held){ e->object, w };
		break;
	}
	case SC_EV_RWLOCK_UNLOCK:
		add_key(k->release, &k->nrelease, rmax,
			rw_unlock_is_write(s, e->object) ? e->object
				: hb_rw_read_key(e->object));
		break;
	case SC_EV_SYSCALL_BLOCKING:
		if (s->no_io_edges)
			break;
		/* Data handed over through the kernel: what a thread wrote
		 * to a descriptor (not the terminal's 1 and 2) comes before
		 * what another then reads from one, when its read returns.
		 * The trace does not say which descriptors are the ends of
		 * one pipe: one clock for all (QA: a value written before an
		 * eventfd or pipe write and read after the read "raced" in
		 * every run). */
		if (e->access == SC_ACC_WRITE && e->object > 2)
			add_key(k->release, &k->nrelease, rmax, HB_IO_KEY);
		else if (e->access == SC_ACC_READ) {
			call_keys(s, HB_IO_KEY, 0);
			add_key(k->acquire, &k->nacquire, amax, HB_IO_KEY);
		}
		break;
	default:
		break;
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
