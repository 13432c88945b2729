/* jobs.c - a session's runs in J job processes (see jobs.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "framing.h"
#include "jobs.h"
#include "log.h"
#include "mono_clock.h"
#include "worker.h"

/* How often the session looks at its cancel flag while jobs run. */
#define POLL_MS 200
/* How soon an idle session writes out its batched runs (jobs.h). */
#define IDLE_MS 10
/* How long a job may take to end its run after SIGTERM before it is
 * killed: an interrupted run ends in well under a second, even on a busy
 * machine.  A job that does not (stopped, or stuck in a wait that misses
 * its cancel flag) must not keep its session "running" for ever: SIGKILL
 * ends it, and its programs with it (their PR_SET_PDEATHSIG). */
#define TERM_GRACE_S 10

/* Shared with the jobs (MAP_SHARED): no job starts a run above it.  The
 * lowest failing run so far without --keep-going, 0 when stopping. */
static volatile uint32_t *run_limit;

bool sc_jobs_may_start(uint32_t run)
{
	return !run_limit || run < __atomic_load_n(run_limit, __ATOMIC_ACQUIRE);
}

static void lower_limit(uint32_t run)
{
	uint32_t cur = __atomic_load_n(run_limit, __ATOMIC_ACQUIRE);

	while (run < cur &&
	       !__atomic_compare_exchange_n(run_limit, &cur, run, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

size_t sc_jobs_cpus(int *cpus, size_t max)
{
	cpu_set_t set;
	size_t n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
	if (n == 0 && max > 0)
		cpus[n++] = 0;
	return n;
}

struct job {
	pid_t pid;
	int fd;                     /* -1 once it closed its end */
};

struct session {
	const struct sc_jobs *J;
	struct job *jobs;
	Scctl__Reply **pending;     /* by plan position, until delivered */
	size_t next;                /* first position not yet delivered */
	bool stopping;              /* no more deliveries */
	bool killed;                /* SIGTERM sent to the jobs */
	double killed_at;           /* when (sc_mono_seconds) */
	bool forced;                /* SIGKILL sent to the jobs left */
	char *err;
	size_t errlen;
	bool failed;
};

static long position_of(const struct sc_jobs *J, uint32_t run)
{
	size_t lo = 0, hi = J->nplan;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (J->plan[mid] == run)
			return (long)mid;
		if (J->plan[mid] < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void stop_jobs(struct session *S)
{
	__atomic_store_n(run_limit, 0, __ATOMIC_RELEASE);
	if (S->killed)
		return;
	S->killed = true;
	S->killed_at = sc_mono_seconds();
	for (uint32_t j = 0; j < S->J->njobs; j++)
		if (S->jobs[j].pid > 0 && S->jobs[j].fd >= 0)
			kill(S->jobs[j].pid, SIGTERM);
}

/* The jobs still running TERM_GRACE_S after their SIGTERM get SIGKILL,
 * once; the log says which. */
static void force_jobs(struct session *S)
{
	if (!S->killed || S->forced ||
	    sc_mono_seconds() - S->killed_at < TERM_GRACE_S)
		return;
	S->forced = true;
	for (uint32_t j = 0; j < S->J->njobs; j++)
		if (S->jobs[j].pid > 0 && S->jobs[j].fd >= 0) {
			sc_log("job %u (pid %d) still running %d s after "
			       "SIGTERM: killed", j + 1, (int)S->jobs[j].pid,
			       TERM_GRACE_S);
			kill(S->jobs[j].pid, SIGKILL);
		}
}

static void fail(struct session *S, const char *msg)
{
	if (!S->failed) {
		snprintf(S->err, S->errlen, "%s", msg);
		S->failed = true;
	}
	S->stopping = true;
	stop_jobs(S);
}

/* Deliver what is now in order. */
static void flush_in_order(struct session *S)
{
	const struct sc_jobs *J = S->J;

	while (!S->stopping && S->next < J->nplan && S->pending[S->next]) {
		Scctl__Reply *r = S->pending[S->next];

		S->pending[S->next++] = NULL;
		if (!J->deliver(J->ctx, r)) {
			S->stopping = true;
			stop_jobs(S);
		}
		scctl__reply__free_unpacked(r, NULL);
	}
}

/* One message from a job. */
static void take(struct session *S, Scctl__Reply *r)
{
	const struct sc_jobs *J = S->J;

	if (r->learnt && J->learnt)
		J->learnt(J->ctx, r->learnt);
	if (r->has_ok && !r->ok) {
		/* A job's fatal error; expected (and ignored) once we are
		 * cancelling them. */
		if (!S->killed && !sc_worker_cancel)
			fail(S, r->error ? r->error : "a job failed");
		scctl__reply__free_unpacked(r, NULL);
		return;
	}
	if (r->run) {
		long p = position_of(J, r->run->run);

		if (p >= 0 && !S->pending[p] && (size_t)p >= S->next &&
		    !S->stopping) {
			if (r->run->bug && J->stop_at_first_bug)
				lower_limit(r->run->run);
			S->pending[p] = r;
			flush_in_order(S);
			return;
		}
		if (J->discard)
			J->discard(J->ctx, r->run);
	}
	scctl__reply__free_unpacked(r, NULL);
}

static void read_job(struct session *S, struct job *jb)
{
	struct sc_frame f;
	Scctl__Reply *r;
	int st = sc_frame_recv(jb->fd, &f, 0, -1);

	if (st != SC_FRAME_OK) {
		close(jb->fd);
		jb->fd = -1;
		return;
	}
	r = scctl__reply__unpack(NULL, f.len, f.data);
	sc_frame_release(&f);
	if (r)
		take(S, r);
}

static void job_main(const struct sc_jobs *J, struct job *jobs, uint32_t j,
		     int fd, int cpu)
{
	/* Only our own end stays open: a job that sees EOF on nothing
	 * else must not keep the others' sockets alive. */
	for (uint32_t k = 0; k < j; k++)
		if (jobs[k].fd >= 0)
			close(jobs[k].fd);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(3);
	_exit(J->child(J->ctx, fd, j, cpu));
}

/* Reap the jobs; a job killed by a signal we did not send is a failure. */
static void reap_jobs(struct session *S)
{
	for (uint32_t j = 0; j < S->J->njobs; j++) {
		int status;
		char msg[128];

		if (S->jobs[j].pid <= 0)
			continue;
		while (waitpid(S->jobs[j].pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(status) && !S->killed) {
			snprintf(msg, sizeof(msg), "job %u (pid %d) was killed by "
				 "signal %d", j + 1, (int)S->jobs[j].pid,
				 WTERMSIG(status));
			sc_log("%s", msg);
			fail(S, msg);
		}
	}
}

int sc_jobs_run(const struct sc_jobs *J, char *err, size_t errlen)
{
	struct session S = { .J = J, .err = err, .errlen = errlen };
	int cpus[256];
	size_t ncpus = sc_jobs_cpus(cpus, 256);
	uint32_t live = 0;

	err[0] = '\0';
	run_limit = mmap(NULL, sizeof(*run_limit), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run_limit == MAP_FAILED) {
		run_limit = NULL;
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		return -1;
	}
	*run_limit = UINT32_MAX;
	S.jobs = calloc(J->njobs, sizeof(*S.jobs));
	S.pending = calloc(J->nplan ? J->nplan : 1, sizeof(*S.pending));
	if (!S.jobs || !S.pending) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (uint32_t j = 0; j < J->njobs; j++) {
		int sv[2];
		/* One job: where we run now (as before --jobs); several:
		 * one CPU each, round robin over the allowed ones. */
		int cpu = J->njobs == 1 ? sched_getcpu() : cpus[j % ncpus];

		S.jobs[j].fd = -1;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			snprintf(err, errlen, "socketpair: %s", strerror(errno));
			S.failed = true;
			break;
		}
		S.jobs[j].pid = fork();
		if (S.jobs[j].pid == 0) {
			close(sv[0]);
			job_main(J, S.jobs, j, sv[1], cpu);
		}
		close(sv[1]);
		if (S.jobs[j].pid < 0) {
			close(sv[0]);
			snprintf(err, errlen, "fork: %s", strerror(errno));
			S.failed = true;
			break;
		}
		S.jobs[j].fd = sv[0];
		live++;
	}
	if (S.failed)
		stop_jobs(&S);
	while (live > 0) {
		struct pollfd pfd[256];
		uint32_t map[256], n = 0;

		sc_worker_check_client(-1);
		if (sc_worker_cancel && !S.killed) {
			S.stopping = true;
			stop_jobs(&S);
		}
		force_jobs(&S);
		for (uint32_t j = 0; j < J->njobs && n < 256; j++)
			if (S.jobs[j].fd >= 0) {
				pfd[n].fd = S.jobs[j].fd;
				pfd[n].events = POLLIN;
				map[n++] = j;
			}
		if (n == 0)
			break;
		int ready = poll(pfd, n, J->idle ? IDLE_MS : POLL_MS);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "poll: %s", strerror(errno));
			S.failed = true;
			stop_jobs(&S);
			break;
		}
		if (ready == 0 && J->idle)
			J->idle(J->ctx);
		for (uint32_t i = 0; i < n; i++)
			if (pfd[i].revents) {
				read_job(&S, &S.jobs[map[i]]);
				if (S.jobs[map[i]].fd < 0)
					live--;
			}
	}
	for (uint32_t j = 0; j < J->njobs; j++)
		if (S.jobs[j].fd >= 0)
			close(S.jobs[j].fd);
	reap_jobs(&S);
	/* Runs that arrived but were never delivered (after a stop). */
	for (size_t p = 0; p < J->nplan; p++)
		if (S.pending[p]) {
			if (J->discard && S.pending[p]->run)
				J->discard(J->ctx, S.pending[p]->run);
			scctl__reply__free_unpacked(S.pending[p], NULL);
		}
out:
	free(S.jobs);
	free(S.pending);
	munmap((void *)run_limit, sizeof(*run_limit));
	run_limit = NULL;
	return S.failed ? -1 : 0;
}
