/*
 * jobs.h - the runs of one session in J job processes (launch --jobs J).
 *
 * The session's worker forks J jobs.  Job j runs the runs at positions
 * p of the plan with p % J == j (the plan is the session's run numbers in
 * increasing order: 1..N, or the runs of a --shard), each job pinned with
 * its targets to its own CPU.  A job sends one Reply{run} per run to the
 * session over a socketpair; the session puts them back in plan order
 * before it looks at them, so what it reports, stores and counts is the
 * same as with one job.  Run r always uses the seed of run r (seeds.h),
 * and what the strategy learnt from the session's pilot runs below r,
 * which each job runs itself (strategy/pilot.h).
 *
 * First bug, deterministically: without --keep-going the session stops at
 * the LOWEST failing run f.  Every run below f is completed (jobs go on
 * with them); no job starts a run above the lowest failure known so far;
 * runs above f that were already running when f was found are discarded
 * (not reported, not counted, their files removed).  So the failing run,
 * the runs counted and the output are those of --jobs 1.
 */
#ifndef SCHEDCTL_JOBS_H
#define SCHEDCTL_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control.pb-c.h"

struct sc_jobs {
	uint32_t njobs;
	const uint32_t *plan;       /* run numbers, increasing */
	size_t nplan;
	bool stop_at_first_bug;
	/* In job `job`'s process: run plan[p] for p % njobs == job, asking
	 * sc_jobs_may_start() before each, and send a Reply per run to fd.
	 * cpu: where to pin.  Returns the job's exit status. */
	int (*child)(void *ctx, int fd, uint32_t job, int cpu);
	/* In the session, in plan order: one Reply{run}.  Return false to
	 * stop the session (first bug without --keep-going). */
	bool (*deliver)(void *ctx, const Scctl__Reply *r);
	/* In the session: a run the session will not report (above the
	 * first bug); remove its files.  May be NULL. */
	void (*discard)(void *ctx, const Scctl__RunResult *run);
	/* In the session: a job's Reply{learnt}.  May be NULL. */
	void (*learnt)(void *ctx, const Scctl__LearntStats *s);
	/* In the session: no job has had anything to say for a moment
	 * (IDLE_MS): write out what deliver keeps in batches.  May be
	 * NULL. */
	void (*idle)(void *ctx);
	void *ctx;
};

/* Run the session's runs.  Returns 0; -1 when a job failed (err holds the
 * first job's error line, or why the jobs could not start).  Stops early
 * (without an error) when sc_worker_cancel is set. */
int sc_jobs_run(const struct sc_jobs *J, char *err, size_t errlen);

/* In a job: may run `run` start?  False once a lower run failed (without
 * --keep-going) or the session is stopping. */
bool sc_jobs_may_start(uint32_t run);

/* The CPUs this process may run on (sched_getaffinity), at most max, in
 * increasing order; returns how many (at least 1: CPU 0 if unknown). */
size_t sc_jobs_cpus(int *cpus, size_t max);

#endif /* SCHEDCTL_JOBS_H */
