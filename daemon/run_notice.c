/* run_notice.c - warnings about how a run was controlled.
 *
 * A run of several threads that shows almost no synchronisation is not
 * being explored: every schedule is the same, and "no bug in 300 runs"
 * means nothing.  That happens when the program synchronises in ways
 * schedctl does not see (its own locks of plain loads and stores, a
 * runtime that multiplexes its own tasks on threads, such as Go's
 * goroutines), so the user hears it once, with the likely causes.
 */
#include <stdio.h>

#include "run_notice.h"

/* Below one synchronisation point per two threads (T0 aside) besides
 * the start and exit of threads, a run is said to show almost none: a
 * thread that takes a lock shows at least its acquisition (a spinlock's
 * release is a plain store, so not always two), and the programs this
 * is about show none at all; one point per thread was too strict for
 * eighty threads each doing one atomic add, some before the next was
 * created. */

size_t sc_run_notices(const struct sc_run_result *res,
		      char lines[][SC_NOTICE_LEN], size_t max)
{
	size_t n = 0;

	if (n < max && res->notice[0])
		snprintf(lines[n++], sizeof(lines[0]), "%s", res->notice);
	/* Threads of one process: a script's single-threaded processes
	 * (make, the compiler) have nothing to synchronise. */
	if (n < max && res->process_threads >= 2 &&
	    res->sync_steps * 2 < (uint64_t)(res->threads - 1))
		snprintf(lines[n++], sizeof(lines[0]),
			 "warning: run 1 had %u threads in one process, but "
			 "the threads other than main showed only %llu "
			 "synchronisation points: the program may synchronise in ways schedctl "
			 "cannot see (locks or flags of plain loads and stores, "
			 "a runtime that schedules its own tasks on threads "
			 "such as Go's goroutines), so few schedules get "
			 "explored (try --granularity mem)", res->process_threads,
			 (unsigned long long)res->sync_steps);
	return n;
}
