/* mono_clock.h - seconds on the monotonic clock, for the daemon's
 * deadlines and durations (grace periods, idle exit, session wall time):
 * one helper, so they all measure the same way and a change of the
 * clock (wall time jumps) moves none of them. */
#ifndef SC_MONO_CLOCK_H
#define SC_MONO_CLOCK_H

#include <time.h>

static inline double sc_mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
