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

/* The value of general register n of t, as an operand of size bytes
 * (ah..bh for an 8-bit operand numbered 4-7 without a REX prefix). */
static uint64_t operand(const struct sc_thread *t, int n, bool byte_op,
			bool rex)
{
	if (byte_op && !rex && n >= 4 && n <= 7)
		return sc_reg_value(&t->regs, n - 4) >> 8;
	return sc_reg_value(&t->regs, n);
}

/* t is stopped before an atomic read-modify-write (its next event, at a
 * breakpoint of ours) that would leave memory as it is: an xchg that
 * stores what is there already (a test-and-set of a held flag) or a
 * lock cmpxchg whose comparison fails.  Decoded from the instruction's
 * bytes, the registers and the word. */
static bool rmw_changes_nothing(struct sc_thread *t,
				const struct sc_breakpoint *bp)
{
	uint8_t b[8];
	size_t i = 0;
	uint8_t rex = 0;
	uint64_t word = 0;
	size_t size = bp->mem ? bp->mem->size : 0;

	if (!size || size > 8 ||
	    sc_mem_read(t->proc, bp->addr, b, sizeof(b)) < 0 ||
	    sc_mem_read(t->proc, t->next.object, &word, size) < 0)
		return false;
	b[0] = bp->orig;
	while (i < 3 && (b[i] == 0xf0 || b[i] == 0x66 || b[i] == 0x2e ||
			 b[i] == 0x3e || b[i] == 0x64 || b[i] == 0x65))
		i++;
	if ((b[i] & 0xf0) == 0x40)
		rex = b[i++];
	uint64_t mask = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
	if (b[i] == 0x86 || b[i] == 0x87) {             /* xchg r/m, r */
		int reg = ((b[i + 1] >> 3) & 7) | ((rex & 4) ? 8 : 0);
		return ((operand(t, reg, b[i] == 0x86, rex) ^ word) & mask) == 0;
	}
	if (b[i] == 0x0f && (b[i + 1] == 0xb0 || b[i + 1] == 0xb1))
		return ((t->regs.rax ^ word) & mask) != 0;  /* cmpxchg fails */
	return false;
}

/* t loops on an atomic read-modify-write that changes nothing (its last
 * event was at the same instruction): a spin on a held test-and-set or
 * compare-and-swap lock (C11 atomic_flag, std::atomic, Rust's spin
 * locks).  Like a held pthread spinlock, it is no choice of the schedule
 * until another thread writes the word: running it again would only
 * burn a step, and a strategy that favours it (pos) could starve the
 * holder for a hundred thousand steps. */
static bool atomic_spin(struct sc_thread *t)
{
	const struct sc_breakpoint *bp;

	if (t->next.kind != SC_EV_MEM_RMW || t->next.pc != t->last_event_pc ||
	    t->stop != STOP_BREAKPOINT)
		return false;
	bp = sc_bp_find(t->proc, t->next.pc);
	return bp && bp->mem && rmw_changes_nothing(t, bp);
}

bool sc_spin_waits(const struct sc_engine *e, struct sc_thread *t)
{
	const struct sc_breakpoint *bp;
	int32_t word = 0;

	if (!e->cfg->spin_model || t->state != TH_READY)
		return false;
	if (t->next.kind == SC_EV_MEM_RMW)
		return e->cfg->mem_sites >= 3 && atomic_spin(t);
	if (t->next.kind != SC_EV_SPIN_LOCK)
		return false;
	bp = sc_bp_find(t->proc, t->next.pc);
	if (!bp || !bp->name || strcmp(bp->name, "pthread_spin_lock") != 0)
		return false;
	if (sc_mem_read(t->proc, t->next.object, &word, sizeof(word)) < 0)
		return false;   /* a bad pointer: let it fault for itself */
	return word <= 0;
}
