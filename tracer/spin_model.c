/* spin_model.c - pthread_spin_lock as a lock the schedule knows about.
 *
 * One thread runs at a time, so a thread spinning on a held spinlock can
 * make no progress until the holder runs again: without a model it burns
 * its slice, is probed and preempted in the spin (preempt.c), is picked
 * again, and so on, tens of milliseconds of CPU per wait.  With
 * cfg->spin_model, a thread stopped at the entry of pthread_spin_lock on
 * a held lock is not a choice of the schedule, as if blocked; the
 * holder's pthread_spin_unlock frees the word and makes it one again.
 * glibc's x86-64 spinlock is an int that is free while positive:
 * pthread_spin_init and pthread_spin_unlock store 1, pthread_spin_lock
 * decrements it to 0 and, when that did not give 0, spins until it is
 * positive again (a zeroed, never initialised lock spins for ever natively
 * too).  When every thread waits so, or on something else,
 * the run is a deadlock.  pthread_spin_trylock never waits.
 *
 * Whether the lock is held is read from the target's memory at each
 * decision: every thread is stopped then, so the word cannot change
 * under the reading.
 */
#include <string.h>

#include "internal.h"

bool sc_spin_waits(const struct sc_engine *e, struct sc_thread *t)
{
	const struct sc_breakpoint *bp;
	int32_t word = 0;

	if (!e->cfg->spin_model || t->state != TH_READY ||
	    t->next.kind != SC_EV_SPIN_LOCK)
		return false;
	bp = sc_bp_find(t->proc, t->next.pc);
	if (!bp || !bp->name || strcmp(bp->name, "pthread_spin_lock") != 0)
		return false;
	if (sc_mem_read(t->proc, t->next.object, &word, sizeof(word)) < 0)
		return false;   /* a bad pointer: let it fault for itself */
	return word <= 0;
}
