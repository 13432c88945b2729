/* load_wait.c - how long a run waited for a CPU, so that a busy machine
 * does not make a hang.
 *
 * --timeout is wall-clock time, but a run slowed down by other programs
 * (a busy CI machine, --jobs on few CPUs) is not stuck: a correct xz -T2
 * took 43 s per run at -j1 under load, over 60 s at -j2, and was reported
 * "hang".  The kernel counts, per thread, the time it spent runnable but
 * waiting on a run queue (the second field of /proc/.../schedstat).  When
 * the deadline comes, that time, summed over the supervisor's thread and
 * the program's live threads since the run began, is added to it (at most
 * up to LOAD_WAIT_MAX times the timeout): the program gets its timeout of
 * time it could have run.  A program spinning or stuck still ends, a few
 * times later at the most when the machine is very busy.  Threads that
 * have exited took their waits with them: an underestimate, never a
 * longer run.
 */
#include <stdio.h>

#include "internal.h"

/* The deadline moves at most this many timeouts past the run's start. */
#define LOAD_WAIT_MAX 10

/* Nanoseconds the thread tid of pid (pid 0: this thread of ours) has
 * waited on a run queue; 0 when unknown (no schedstat). */
static uint64_t run_delay_ns(pid_t pid, pid_t tid)
{
	char path[80];
	unsigned long long on_cpu, waited;
	FILE *f;
	int n;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
			 (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/thread-self/schedstat");
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &on_cpu, &waited);
	fclose(f);
	return n == 2 ? (uint64_t)waited : 0;
}

void sc_load_wait_start(struct sc_engine *e)
{
	e->own_delay_at_start_ns = run_delay_ns(0, 0);
}

bool sc_load_wait_extend(struct sc_engine *e)
{
	uint64_t timeout_us = (uint64_t)e->cfg->timeout_ms * 1000u;

	if (!timeout_us || e->attached)
		return false;
	uint64_t own = run_delay_ns(0, 0);
	uint64_t waited_ns = own > e->own_delay_at_start_ns
			     ? own - e->own_delay_at_start_ns : 0;
	for (size_t i = 0; i < e->nthreads; i++) {
		const struct sc_thread *t = e->threads[i];

		/* Not the uncontrolled ones: a child process left to run
		 * freely may wait for a CPU behind the run itself. */
		if (t->controlled && t->proc && t->tid > 0)
			waited_ns += run_delay_ns(t->proc->pid, t->tid);
	}
	uint64_t deadline = e->start_us + timeout_us + waited_ns / 1000u;
	uint64_t last = e->start_us + LOAD_WAIT_MAX * timeout_us;

	if (deadline > last)
		deadline = last;
	if (deadline <= sc_now_us())
		return false;
	e->deadline_us = deadline;
	return true;
}
