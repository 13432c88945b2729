/* chess_fair.c - CHESS's fair scheduler (chess_fair.h). */
#include "config.h"

#include "strategy/chess_fair.h"
#include "strategy/rng.h"

void sc_chess_fair_executed(struct sc_chess_fair *f, uint32_t t, bool yielded,
			    uint64_t enabled)
{
	uint64_t bit = sc_fair_bit(t);

	/* t ran: whoever had to give way to t may go again. */
	for (uint32_t u = 0; u < SC_FAIR_THREADS; u++) {
		f->below[u] &= ~bit;
		f->enabled_since[u] &= enabled;
		f->ran_since[u] |= bit;
	}
	if (!bit || !yielded)
		return;
	/* t yields: from its second yield on, it gives way to every thread
	 * that was enabled all along since its previous yield and never
	 * ran meanwhile.  The first yield only starts the count. */
	if (f->tracked & bit)
		f->below[t] |= f->enabled_since[t] & ~f->ran_since[t] & ~bit;
	f->tracked |= bit;
	f->enabled_since[t] = enabled & ~bit;
	f->ran_since[t] = 0;
}

bool sc_chess_fair_may_run(const struct sc_chess_fair *f, uint32_t t,
			   uint64_t enabled)
{
	return t >= SC_FAIR_THREADS || (f->below[t] & enabled) == 0;
}

uint64_t sc_chess_fair_hash(const struct sc_chess_fair *f)
{
	uint64_t h = 0;

	/* Only what can still matter: the priorities, and for threads that
	 * yielded, who they would give way to at their next yield.  The rest
	 * depends on the order of events, and would keep two orders of
	 * independent events from ever matching. */
	for (uint32_t t = 0; t < SC_FAIR_THREADS; t++) {
		uint64_t bit = sc_fair_bit(t);

		if (!f->below[t] && !(f->tracked & bit))
			continue;
		h = sc_splitmix64(h ^ f->below[t] ^ t);
		if (f->tracked & bit)
			h = sc_splitmix64(h ^ (f->enabled_since[t] &
					       ~f->ran_since[t]));
	}
	return h;
}
