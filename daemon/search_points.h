/*
 * search_points.h - the preemptions of a failing chess run, in words, for
 * the launch's summary: "step 9: T1 was about to mutex_lock lock_b
 * (0x555555558060) in pthread_mutex_lock; T2 ran instead".
 */
#ifndef SCHEDCTL_SEARCH_POINTS_H
#define SCHEDCTL_SEARCH_POINTS_H

#include "strategy/strategy.h"

/* Describe st->points[] into st->bug_points[], naming objects and
 * locations with the symbols of the modules recorded in the run's trace
 * (trace_path; NULL or unreadable: addresses only). */
void sc_search_describe_points(struct sc_search_stats *st,
			       const char *trace_path);

#endif /* SCHEDCTL_SEARCH_POINTS_H */
