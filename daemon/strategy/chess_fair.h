/*
 * chess_fair.h - CHESS's fair scheduler (Musuvathi and Qadeer, "Fair
 * stateless model checking", PLDI 2008), as chess uses it.
 *
 * A thread that yields (sched_yield, a sleep, or a slice expiry: it spins
 * waiting for somebody) while another thread stayed enabled all along
 * since its previous yield and never ran gets a lower priority than that
 * thread: it may not run while that thread is enabled, until that thread
 * has run.  So a spin loop cannot starve the thread it waits for, and the
 * search does not unroll spin loops without end.  Threads are bits of a
 * 64-bit set: logical ids from 64 up take no part (never constrained).
 */
#ifndef SCHEDCTL_CHESS_FAIR_H
#define SCHEDCTL_CHESS_FAIR_H

#include <stdbool.h>
#include <stdint.h>

#define SC_FAIR_THREADS 64

struct sc_chess_fair {
	/* below[t]: the threads t must give way to while they are enabled. */
	uint64_t below[SC_FAIR_THREADS];
	/* Since t's last yield: threads enabled all along, threads run. */
	uint64_t enabled_since[SC_FAIR_THREADS];
	uint64_t ran_since[SC_FAIR_THREADS];
	uint64_t tracked;           /* threads that yielded (sets valid) */
};

/* The bit of a logical id, 0 from SC_FAIR_THREADS up. */
static inline uint64_t sc_fair_bit(uint32_t thread)
{
	return thread < SC_FAIR_THREADS ? 1ULL << thread : 0;
}

/* Thread t executed an event (yielded: a yield-like one); enabled is the
 * set of enabled threads afterwards. */
void sc_chess_fair_executed(struct sc_chess_fair *f, uint32_t t, bool yielded,
			    uint64_t enabled);
/* May thread t run now, enabled being the enabled set? */
bool sc_chess_fair_may_run(const struct sc_chess_fair *f, uint32_t t,
			   uint64_t enabled);
/* No thread yielded yet: no priorities, and none until a yield. */
static inline bool sc_chess_fair_quiet(const struct sc_chess_fair *f)
{
	return f->tracked == 0;
}
/* A hash of the priority state, part of the cache's state key. */
uint64_t sc_chess_fair_hash(const struct sc_chess_fair *f);

#endif /* SCHEDCTL_CHESS_FAIR_H */
