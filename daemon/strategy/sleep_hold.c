/* sleep_hold.c - a sleeping thread sometimes stays asleep while the
 * others make progress (sleep_hold.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/rng.h"
#include "strategy/sleep_hold.h"

void sc_sleep_hold_init(struct sc_sleep_hold *h, uint64_t seed)
{
	memset(h, 0, sizeof(*h));
	h->seed = seed;
}

void sc_sleep_hold_free(struct sc_sleep_hold *h)
{
	free(h->until);
	free(h->slept);
	memset(h, 0, sizeof(*h));
}

/* *v (of h->nthreads entries) grown to n zeroed ones. */
static bool grow(uint64_t **v, size_t old, size_t n)
{
	uint64_t *u = realloc(*v, n * sizeof(*u));
	if (!u)
		return false;
	memset(u + old, 0, (n - old) * sizeof(*u));
	*v = u;
	return true;
}

/* until[] and slept[] grown to hold thread; false when out of memory
 * (no hold). */
static bool reserve(struct sc_sleep_hold *h, uint32_t thread)
{
	if (thread < h->nthreads)
		return true;
	size_t n = h->nthreads ? h->nthreads : 16;
	while (n <= thread)
		n *= 2;
	if (!grow(&h->until, h->nthreads, n) || !grow(&h->slept, h->nthreads, n))
		return false;
	h->nthreads = n;
	return true;
}

void sc_sleep_hold_executed(struct sc_sleep_hold *h, const struct sc_event *ev)
{
	h->executed++;
	if (ev->kind != SC_EV_SLEEP || ev->thread == UINT32_MAX ||
	    !reserve(h, ev->thread))
		return;
	uint64_t before = h->slept[ev->thread];
	h->slept[ev->thread] = before + ev->sleep_ns < before ? UINT64_MAX
			       : before + ev->sleep_ns;
	/* Its own bits: the strategies' generators start from the seed
	 * itself. */
	if (before < SC_SLEEP_HOLD_FREE_NS ||
	    (sc_splitmix64(h->seed ^ 0x5ee9f0a1d2c3b4e5ULL ^
			   ev->step * 0x9e3779b97f4a7c15ULL) & 1))
		return;
	uint64_t n = ev->sleep_ns / SC_SLEEP_HOLD_NS_PER_EVENT;
	if (n < 1)
		n = 1;
	if (n > SC_SLEEP_HOLD_MAX_EVENTS)
		n = SC_SLEEP_HOLD_MAX_EVENTS;
	h->until[ev->thread] = h->executed + n;
}

bool sc_sleep_hold_held(const struct sc_sleep_hold *h, uint32_t thread)
{
	return thread < h->nthreads && h->executed < h->until[thread];
}
