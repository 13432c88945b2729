/*
 * worker_replay.c - reproduce one run from its trace file alone: same
 * argv, working directory and environment (the recorded one; the client's
 * when the trace has none), and the
 * replay policy following the recorded schedule.
 *
 * The program's stdout and stderr go to unlinked temporary files, as they
 * went to regular files when the run was recorded (a terminal or a pipe
 * instead could change which system calls block, and so the schedule),
 * and are copied to the client's descriptors (SCM_RIGHTS) after the run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis.h"
#include "file_tail.h"
#include "log.h"
#include "paths.h"
#include "reply.h"
#include "run_describe.h"
#include "stdin_file.h"
#include "strf.h"
#include "strategy/guide.h"
#include "strategy/replay.h"
#include "worker.h"

#define DEFAULT_TIMEOUT_MS 60000

/* An unlinked file in dir for the program's output, open write-only as
 * launch's run-N.out and run-N.err are: glibc's perror() dups stderr and
 * fdopen()s it "w+", which fails on a write-only descriptor and not on a
 * read-write one, so the program made other system calls than the run
 * it replays (QA: every program calling perror() diverged). */
static int temp_output(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int fd, wfd;

	if (sc_mkdir_p(dir, 0700) < 0) {
		sc_strf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	sc_strf(path, sizeof(path), "%s/replay-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		sc_strf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	wfd = open(path, O_WRONLY | O_CLOEXEC);
	if (wfd < 0)
		sc_strf(err, errlen, "%s: %s", path, strerror(errno));
	close(fd);
	unlink(path);
	return wfd;
}

/* Copy the whole output file behind write-only descriptor out (from
 * offset 0) to to.  Returns 0, or the errno of a failed write to `to`
 * (a full disk, a reader gone): the client says so, or dies of SIGPIPE
 * as a tool writing there itself would.  What cannot be read is lost
 * quietly (the output is the program's, not ours). */
static int copy_out(int out, int to)
{
	char buf[65536], path[64];
	off_t off = 0;
	ssize_t n;

	if (to < 0)
		return 0;
	sc_strf(path, sizeof(path), "/proc/self/fd/%d", out);
	int from = open(path, O_RDONLY | O_CLOEXEC);
	if (from < 0)
		return 0;
	while ((n = pread(from, buf, sizeof(buf), off)) > 0) {
		ssize_t done = 0;

		off += n;
		while (done < n) {
			ssize_t w = write(to, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				int e = w < 0 ? errno : EIO;
				close(from);
				return e;
			}
			done += w;
		}
	}
	close(from);
	return 0;
}

static bool is_bug(enum sc_verdict v)
{
	return v == SC_VERDICT_CRASH || v == SC_VERDICT_ASSERT ||
	       v == SC_VERDICT_EXIT || v == SC_VERDICT_DEADLOCK ||
	       v == SC_VERDICT_HANG;
}

/* Checks before the run; returns 0 or the exit code with err set. */
static int check_trace(const struct sc_trace *t, const char *path,
		       char *err, size_t errlen)
{
	char resolved[4096], why[1024];

	if (t->strategy && strcmp(t->strategy, "native") == 0) {
		sc_strf(err, errlen, "%s: a native run was not controlled and "
			 "cannot be replayed", path);
		return 3;
	}
	if (t->attached) {
		sc_strf(err, errlen, "%s: recorded by schedctl attach, the run "
			 "began in the middle of a running process and cannot "
			 "be replayed (export or analyze it)", path);
		return 3;
	}
	if (t->argc == 0 || !t->argv[0] || !*t->argv[0]) {
		sc_strf(err, errlen, "%s: the trace records no program", path);
		return 3;
	}
	if (t->cwd && *t->cwd && chdir(t->cwd) < 0) {
		sc_strf(err, errlen, "%s: %s (the recorded working directory)",
			 t->cwd, strerror(errno));
		return 3;
	}
	if (sc_check_program_info(t->argv[0], sc_env_path(t->env), resolved,
				  sizeof(resolved), NULL, why,
				  sizeof(why)) < 0) {
		sc_strf(err, errlen, "%s", why);
		return 3;
	}
	return 0;
}

struct replay_outcome {
	struct sc_run_result res;
	int64_t diverged_at;
	char message[2048 + 64];
	char location[512];
	uint32_t preemptions;           /* guided runs */
	char *preemption_points;        /* malloc'ed, or NULL */
	/* Out of time where the recorded run was not: the replay's own
	 * slowness, not the program's hang (exit 3, not a bug). */
	bool too_slow;
};

/* The recorded scheduling points: a race run plants exactly its race_pcs
 * (none: it was a sync run), a pilot run of race granularity recorded mem
 * with own_libraries. */
static enum sc_granularity replay_granularity(const struct sc_trace *t)
{
	if (!t->granularity)
		return SC_GRAN_SYNC;
	if (strcmp(t->granularity, "mem") == 0)
		return SC_GRAN_MEM;
	if (strcmp(t->granularity, "race") == 0)
		return SC_GRAN_RACE;
	return SC_GRAN_SYNC;
}

static void end_policy(struct sc_policy *p, bool guided)
{
	if (guided)
		sc_guide_destroy(p);
	else
		sc_replay_destroy(p);
}

/* A JVM at start reads /tmp/hsperfdata_USER, where each JVM keeps a file
 * and one that did not end cleanly (a diverged replay) leaves it: a
 * replay then finds other files than the recording did and diverges,
 * every other time (QA).  -XX:-UsePerfData turns the files off. */
static void note_jvm(const struct sc_trace *t, char *msg, size_t len)
{
	bool jvm = false;

	for (size_t k = 0; k < t->nmaps && !jvm; k++)
		for (size_t i = 0; i < t->maps[k].nmodules && !jvm; i++) {
			/* libjvm.so is loaded later than the map is taken:
			 * the launcher's libjli.so says it. */
			const char *path = t->maps[k].modules[i].path;
			const char *base = path ? strrchr(path, '/') : NULL;
			jvm = base && (strcmp(base, "/libjvm.so") == 0 ||
				       strcmp(base, "/libjli.so") == 0);
		}
	for (size_t i = 0; jvm && i < t->argc; i++)
		if (strcmp(t->argv[i], "-XX:-UsePerfData") == 0)
			return;
	if (jvm) {
		size_t used = strlen(msg);
		snprintf(msg + used, len - used, " (a JVM: the files other "
			 "JVMs left in /tmp/hsperfdata_* change its start; "
			 "record and replay with java -XX:-UsePerfData)");
	}
}

/* A divergence after the program was rebuilt says so: the recorded
 * schedule is of other code (the first module whose build-id changed,
 * in any process of the run).  A JVM's is the other usual cause. */
static void note_rebuilt(const struct sc_trace *t, char *msg, size_t len)
{
	for (size_t k = 0; k < t->nmaps; k++)
	for (size_t i = 0; i < t->maps[k].nmodules; i++) {
		const struct sc_trace_module *m = &t->maps[k].modules[i];
		uint8_t now[64];
		if (!m->build_id_len || !m->path)
			continue;
		size_t n = sc_elf_build_id(m->path, now, sizeof(now));
		if (n == m->build_id_len && memcmp(now, m->build_id, n) == 0)
			continue;
		size_t used = strlen(msg);
		snprintf(msg + used, len - used, " (%s %s since the recording: "
			 "its build-id differs)", m->path,
			 n ? "was rebuilt" : "is gone or unreadable");
		return;
	}
	note_jvm(t, msg, len);
}

/* Did the recorded run die of a signal that comes from outside a program
 * (kill, Ctrl-C, a timeout's), not of a fault or its own abort? */
static bool killed_from_outside(const struct sc_trace *t)
{
	if (t->verdict != SC_VERDICT_CRASH)
		return false;
	switch (t->signal) {
	case SIGKILL: case SIGTERM: case SIGINT: case SIGHUP: case SIGQUIT:
		return true;
	default:
		return false;
	}
}

/* Are the recorded events from index `from` on all preemptions of
 * computations that ran out of their CPU budget?  Then the recorded run
 * spent its end computing without a scheduling point (a thread counting
 * in a loop for ever), and a replay that reached `from` in step is
 * computing there too: finding each such preemption again means running
 * the loop to the same count, which for a counter kept in memory no
 * register tells (QA: a recorded hang of `for (;;) sink++` replayed 265
 * of its 268 events, then ended "too slow" at every --timeout).  Asked
 * only of a replay given at least the recorded run's time. */
static bool only_computation_left(const struct sc_trace *t, uint64_t from)
{
	if (!t->has_footer || from >= t->nevents)
		return false;
	for (size_t i = (size_t)from; i < t->nevents; i++)
		if (t->events[i].kind != SC_EV_PREEMPT ||
		    !(t->events[i].preempt_flags & SC_PREEMPT_BUDGET))
			return false;
	return true;
}

/* The replay ran to its end but does not stand for the recorded run: a
 * divergence at its last step, with no location (the caller says why). */
static void end_as_divergence(struct replay_outcome *o)
{
	o->res.verdict = SC_VERDICT_DIVERGED;
	o->diverged_at = (int64_t)o->res.steps;
	o->location[0] = '\0';
}

/* A guided run (minimize's candidate schedule) that takes far more
 * events than the recorded run took is stuck in another way (a thread
 * that sleeps in a loop for ever, as ThreadSanitizer's background
 * thread does, while the others wait for good): a step budget ends it in
 * a fraction of a second, where its time budget took seconds per
 * candidate, and minimize ran for minutes (QA).  Generous: 20 times the
 * recorded events and 10000 more. */
#define GUIDED_STEPS_PER_EVENT 20u
#define GUIDED_STEPS_EXTRA 10000u

static uint64_t guided_max_steps(const struct sc_trace *t)
{
	uint64_t cap;

	if (!t->has_footer || t->steps > (UINT64_MAX - GUIDED_STEPS_EXTRA) /
					  GUIDED_STEPS_PER_EVENT)
		return t->max_steps;
	cap = t->steps * GUIDED_STEPS_PER_EVENT + GUIDED_STEPS_EXTRA;
	return t->max_steps && t->max_steps < cap ? t->max_steps : cap;
}

static int run_replay(const struct sc_trace *t, const Scctl__ReplayRequest *req,
		      char **envp, const char *input, int outfd, int errfd,
		      struct replay_outcome *o, char *err, size_t errlen)
{
	struct sc_policy policy;
	char tail[1024], errpath[64], outpath[64];
	int rc;
	uint32_t timeout_ms = req->has_timeout_ms ? req->timeout_ms
			      : t->timeout_ms ? t->timeout_ms
			      : DEFAULT_TIMEOUT_MS;

	/* A replay runs up to about twice as long as its recording (it
	 * finds the recorded preemptions again): a run recorded near its
	 * budget, 15.5 s of 20, could not be replayed without --timeout.
	 * Unless given, the budget is at least four times the recorded
	 * run's time and 5 s more.  A recorded hang still ends at its
	 * recorded step. */
	if (!req->has_timeout_ms && t->wall_us) {
		uint64_t need_ms = t->wall_us / 1000u * 4u + 5000u;
		if (need_ms > timeout_ms)
			timeout_ms = need_ms > UINT32_MAX ? UINT32_MAX
							  : (uint32_t)need_ms;
	}

	/* The same bytes as the recorded run, from the start. */
	int infd = input ? sc_stdin_open(input, t->stdin_size, err, errlen)
		   : -1;
	if (input && infd < 0)
		return 3;
	bool guided = req->guide != NULL;
	if ((guided ? sc_guide_create(req->guide, &policy, err, errlen)
		    : sc_replay_create(t, &policy, err, errlen)) < 0) {
		if (infd >= 0)
			close(infd);
		return 3;
	}
	struct sc_trace_writer *w = NULL;
	if (req->record_path && *req->record_path) {
		/* The replayed run's own trace: same header, so that analyze
		 * can compare the two runs' partial orders. */
		struct sc_trace_header h = {
			.tool_version = PACKAGE_VERSION,
			.argv = t->argv,
			.cwd = t->cwd,
			.env_digest = sc_env_digest(envp),
			.strategy = guided ? "guide" : "replay",
			.strategy_params = t->strategy,
			.seed = t->seed,
			.base_seed = t->base_seed,
			.run_index = t->run_index,
			.granularity = t->granularity,
			.instrument_modules = t->instrument_modules,
			.instrument_sources = t->instrument_sources,
			.follow_forks = t->follow_forks,
			.env = envp,
			.max_steps = t->max_steps,
			.timeout_ms = t->timeout_ms,
			.eager_timeouts = t->eager_timeouts,
			.slice_us = t->slice_us,
			.stdin_file = input,
			.stdin_size = t->stdin_size,
			.atomics = t->atomics,
			.seeded_random = t->seeded_random,
			.spin_model = t->spin_model,
			.skip_glibc_sync = t->skip_glibc_sync,
			.all_cpus = t->all_cpus,
			.mem_sites = t->mem_sites,
			.clock_realtime_ns = t->clock_realtime_ns,
			.clock_monotonic_ns = t->clock_monotonic_ns,
			.mem_event_cap = t->mem_event_cap,
			.mem_site_cap = t->mem_site_cap,
			.free_events = t->free_events,
			.virtual_timeouts = t->virtual_timeouts,
			.clock_wait_reads = t->clock_wait_reads,
			.own_libraries = t->own_libraries,
			.race_pcs = t->race_pcs,
			.nrace_pcs = t->nrace_pcs,
		};
		w = sc_trace_create(req->record_path, &h);
		if (!w) {
			sc_strf(err, errlen, "%s: %s", req->record_path,
				 strerror(errno));
			end_policy(&policy, guided);
			if (infd >= 0)
				close(infd);
			return 3;
		}
	}
	{
		struct sc_run_config cfg = {
			.argv = t->argv,
			.envp = envp,
			.cwd = t->cwd && *t->cwd ? t->cwd : NULL,
			.cpu = sched_getcpu(),
			.max_steps = guided ? guided_max_steps(t) : t->max_steps,
			.timeout_ms = timeout_ms,
			.eager_timeouts = t->eager_timeouts,
			.slice_us = t->slice_us,
			.granularity = replay_granularity(t),
			.atomics = t->atomics,
			.own_libraries = t->own_libraries,
			.mem_event_cap = t->mem_event_cap,
			.mem_site_cap = t->mem_site_cap,
			.free_events = t->free_events,
			.virtual_timeouts = t->virtual_timeouts,
			.clock_wait_reads = t->clock_wait_reads,
			.race_pcs = t->race_pcs,
			.nrace_pcs = t->nrace_pcs,
			.instrument_modules = (const char *const *)t->instrument_modules,
			.instrument_sources = (const char *const *)t->instrument_sources,
			.follow_forks = t->follow_forks,
			.seeded_random = t->seeded_random,
			.spin_model = t->spin_model,
			.skip_glibc_sync = t->skip_glibc_sync,
			.all_cpus = t->all_cpus,
			.mem_sites = t->mem_sites,
			.vclock = t->clock_realtime_ns || t->clock_monotonic_ns,
			.clock_realtime_ns = t->clock_realtime_ns,
			.clock_monotonic_ns = t->clock_monotonic_ns,
			.random_seed = t->seed,
			.stdin_fd = infd,
			.stdout_fd = outfd,
			.stderr_fd = errfd,
			.policy = &policy,
			.trace = w,
			.cancel = &sc_worker_cancel,
			.hand_over = req->has_hand_over && req->hand_over,
			.stop_at_step = req->has_stop_at ? req->stop_at : 0,
			.recorded_hang_steps = t->has_footer &&
				t->verdict == SC_VERDICT_HANG ? t->steps : 0,
		};

		memset(&o->res, 0, sizeof(o->res));
		rc = sc_run(&cfg, &o->res);
	}
	if (w)
		sc_trace_finish(w, &o->res);
	if (infd >= 0)
		close(infd);
	o->diverged_at = guided ? -1 : sc_replay_diverged_at(&policy);
	if (guided) {
		char points[4096];
		o->preemptions = sc_guide_preemptions(&policy, points,
						      sizeof(points));
		o->preemption_points = strdup(points);
	}
	if (o->diverged_at >= 0) {
		o->res.verdict = SC_VERDICT_DIVERGED;
		sc_strf(o->message, sizeof(o->message), "%s",
			 policy.error(policy.ctx));
		note_rebuilt(t, o->message, sizeof(o->message));
		o->location[0] = '\0';
	} else {
		/* As launch describes the run. */
		sc_strf(errpath, sizeof(errpath), "/proc/self/fd/%d", errfd);
		sc_strf(outpath, sizeof(outpath), "/proc/self/fd/%d", outfd);
		sc_file_tail(errpath, 5, tail, sizeof(tail));
		sc_describe_run(&o->res, tail, errpath, outpath, o->message,
				sizeof(o->message), o->location,
				sizeof(o->location));
		if (killed_from_outside(t) && o->res.verdict != t->verdict) {
			/* Not the replay's slowness, nor a divergence: the
			 * recorded run ended by a signal no thread of it
			 * sent, which the schedule cannot bring back. */
			const char *ended = sc_verdict_name(o->res.verdict);
			end_as_divergence(o);
			sc_strf(o->message, sizeof(o->message),
				"the recorded run was killed by SIG%s, which "
				"no thread of the program sent (a user, a "
				"timeout, the OOM killer): a replay cannot "
				"reproduce that; this replay ended with %s",
				sigabbrev_np(t->signal), ended);
		} else if (o->res.verdict == SC_VERDICT_HANG &&
			   t->verdict == SC_VERDICT_HANG &&
			   o->res.wall_us >= (uint64_t)timeout_ms * 1000u &&
			   o->res.steps < t->steps &&
			   (uint64_t)timeout_ms * 1000u >= t->wall_us &&
			   only_computation_left(t, o->res.steps)) {
			/* The hang, reproduced as far as a schedule can
			 * tell it, given at least the recorded run's time
			 * (with less, it may just not have got there yet):
			 * said so. */
			size_t len = strlen(o->message);
			sc_strf(o->message + len, sizeof(o->message) - len,
				" (the replay followed the recorded schedule "
				"through event %llu of %llu; the recorded run "
				"spent the rest computing without a scheduling "
				"point, and so did the replay)",
				(unsigned long long)o->res.steps,
				(unsigned long long)t->steps);
		} else if (o->res.verdict == SC_VERDICT_HANG &&
		    o->res.wall_us >= (uint64_t)timeout_ms * 1000u &&
		    (t->verdict != SC_VERDICT_HANG ||
		     (t->has_footer && o->res.steps < t->steps))) {
			/* Out of time, also short of a recorded hang's
			 * end: that hang is not reproduced (it said so). */
			o->too_slow = true;
			end_as_divergence(o);
			/* How far it got tells slow (near the end: a
			 * preemption in a tight loop takes long to find
			 * again) from stuck (far from it). */
			char progress[96] = "";
			bool short_of_end = t->has_footer &&
					    o->res.steps + 1 < t->steps;

			if (t->has_footer)
				sc_strf(progress, sizeof(progress),
					" and got through %llu of its %llu "
					"events", (unsigned long long)o->res.steps,
					(unsigned long long)t->steps);
			sc_strf(o->message, sizeof(o->message),
				"the replay did not finish within %.3g s "
				"(the recorded run took %.3g s)%s: not the "
				"program's bug but the replay's slowness, "
				"usually finding a preemption inside a tight "
				"loop again; give it more time with --timeout%s",
				timeout_ms / 1000.0, t->wall_us / 1e6, progress,
				short_of_end ? " (if a longer one stops at the "
				"same event, the replay is stuck there: please "
				"report it)" : "");
		}
	}
	end_policy(&policy, guided);
	if (rc < 0) {
		sc_strf(err, errlen, "%s", o->res.message[0] ? o->res.message
			 : "could not start the program");
		return 3;
	}
	return 0;
}

static int exit_code_of(const struct replay_outcome *o)
{
	if (o->res.verdict == SC_VERDICT_PASS)
		return 0;
	if (o->res.stopped_pid > 0 && o->res.verdict == SC_VERDICT_UNKNOWN)
		return 0;       /* stopped at the step asked for */
	if (o->too_slow)
		return 3;
	if (is_bug(o->res.verdict))
		return 1;
	return 3;       /* diverged, tool error, interrupted */
}

/* The process was left stopped for the client's debugger: wait until
 * the client is done (it closes the connection) or the session is
 * stopped, then kill it, so that it never outlives the session. */
static void end_handed_over(int conn, int pid)
{
	char buf[256];

	sc_log("replay: process %d stopped for a debugger", pid);
	while (!sc_worker_cancel) {
		struct pollfd p = { .fd = conn, .events = POLLIN };
		int n = poll(&p, 1, 200);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			ssize_t r = read(conn, buf, sizeof(buf));
			if (r == 0 || (r < 0 && errno != EINTR))
				break;
		}
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

/* out_fd, out_errno: the client's stream whose write failed (1 or 2)
 * and why; 0 and 0 when none did. */
static void send_result(int conn, const struct sc_trace *t, const char *path,
			const struct replay_outcome *o, int code, int out_fd,
			int out_errno)
{
	Scctl__Reply reply = SCCTL__REPLY__INIT;
	Scctl__ReplayResult rr = SCCTL__REPLAY_RESULT__INIT;

	rr.verdict = (char *)sc_verdict_name(o->res.verdict);
	rr.recorded_verdict = (char *)sc_verdict_name(t->verdict);
	rr.has_reproduced = 1;
	rr.reproduced = is_bug(t->verdict) && o->res.verdict == t->verdict;
	rr.has_steps = 1;
	rr.steps = o->res.steps;
	rr.message = (char *)o->message;
	rr.location = (char *)o->location;
	rr.stacks = (char *)o->res.stacks;
	rr.has_diverged_at = 1;
	rr.diverged_at = o->diverged_at;
	rr.has_exit_code = 1;
	rr.exit_code = code;
	rr.trace = (char *)path;
	if (o->preemption_points) {
		rr.has_preemptions = 1;
		rr.preemptions = o->preemptions;
		rr.preemption_points = o->preemption_points;
	}
	if (o->res.stopped_pid > 0) {
		rr.has_stopped_pid = 1;
		rr.stopped_pid = o->res.stopped_pid;
		rr.has_stopped_tid = o->res.stopped_tid > 0;
		rr.stopped_tid = o->res.stopped_tid;
	}
	if (out_errno) {
		rr.has_output_fd = rr.has_output_errno = 1;
		rr.output_fd = out_fd;
		rr.output_errno = out_errno;
	}
	reply.has_ok = 1;
	reply.ok = 1;
	reply.replay = &rr;
	sc_worker_send(conn, &reply);
}

static void load_error(char *err, size_t errlen, const char *path,
		       const char *why)
{
	/* Name the file once, whether or not the reader already did. */
	if (strncmp(why, path, strlen(path)) == 0)
		sc_strf(err, errlen, "%s", why);
	else
		sc_strf(err, errlen, "%s: %s", path, why);
}

int sc_worker_replay(int conn, const Scctl__ReplayRequest *req,
		     const int *fds, size_t nfds, const struct sc_daemon *d)
{
	const char *path = req->trace_path;
	struct sc_trace t;
	struct replay_outcome o;
	char err[2048], why[1024], tmpdir[PATH_MAX], input[PATH_MAX + 16];
	char **envp = NULL;
	int outfd = -1, errfd = -1, code;

	memset(&t, 0, sizeof(t));
	memset(&o, 0, sizeof(o));
	if (!path || !*path) {
		sc_reply_error(conn, 2, "replay: no trace given");
		return 2;
	}
	if (req->cwd && *req->cwd && chdir(req->cwd) < 0) {
		sc_reply_error(conn, 3, "%s: %s", req->cwd, strerror(errno));
		return 3;
	}
	if (sc_trace_load(path, &t, why, sizeof(why)) < 0) {
		load_error(err, sizeof(err), path, why);
		sc_reply_error(conn, 3, "%s", err);
		return 3;
	}
	/* Before check_trace goes to the recorded working directory: a
	 * relative input is found beside the trace, as the client named it. */
	if (t.stdin_file && *t.stdin_file)
		sc_stdin_resolve(t.stdin_file, path, input, sizeof(input));
	code = check_trace(&t, path, err, sizeof(err));
	if (code)
		goto fail;
	/* A stop past the last recorded step is never reached: the replay
	 * ran to its end and said "pass" as if stopped (QA). */
	uint64_t last_step = t.nevents ? t.events[t.nevents - 1].step : 0;
	if (req->has_stop_at && req->stop_at > last_step) {
		sc_strf(err, sizeof(err), "replay: --stop-at %" PRIu64 ": the "
			"trace's steps go from 1 to %" PRIu64, req->stop_at,
			last_step);
		code = 2;
		goto fail;
	}
	if (t.truncated)
		sc_reply_notice(conn, "warning: %s is truncated (%" PRIu64
				" valid bytes); replaying the %zu event%s it holds",
				path, t.valid_bytes, t.nevents,
				t.nevents == 1 ? "" : "s");
	/* The recorded environment, when the trace has one: it shapes the
	 * initial stack, so stack objects keep their addresses. */
	size_t nenv = 0;
	while (t.env && t.env[nenv])
		nenv++;
	envp = nenv ? sc_strv(t.env, nenv) : sc_strv(req->env, req->n_env);
	if (!envp) {
		sc_strf(err, sizeof(err), "out of memory");
		code = 3;
		goto fail;
	}
	if (!nenv && sc_env_digest(envp) != t.env_digest)
		sc_reply_notice(conn, "warning: the environment differs from the "
				"recorded run's; the replay may diverge");
	sc_strf(tmpdir, sizeof(tmpdir), "%s/tmp", d->state_dir);
	outfd = temp_output(tmpdir, err, sizeof(err));
	errfd = outfd < 0 ? -1 : temp_output(tmpdir, err, sizeof(err));
	if (errfd < 0) {
		code = 3;
		goto fail;
	}
	code = run_replay(&t, req, envp,
			  t.stdin_file && *t.stdin_file ? input : NULL, outfd,
			  errfd, &o, err, sizeof(err));
	int out_errno = copy_out(outfd, nfds > 0 ? fds[0] : -1), out_fd = 1;
	if (!out_errno) {
		out_errno = copy_out(errfd, nfds > 1 ? fds[1] : -1);
		out_fd = 2;
	}
	if (code)
		goto fail;
	code = exit_code_of(&o);
	sc_log("replay of %s: %s (recorded %s)%s%s", path,
	       sc_verdict_name(o.res.verdict), sc_verdict_name(t.verdict),
	       o.diverged_at >= 0 ? ": " : "", o.diverged_at >= 0 ? o.message : "");
	send_result(conn, &t, path, &o, code, out_errno ? out_fd : 0, out_errno);
	if (o.res.stopped_pid > 0)
		end_handed_over(conn, o.res.stopped_pid);
	goto out;
fail:
	sc_reply_error(conn, code, "%s", err);
out:
	if (outfd >= 0)
		close(outfd);
	if (errfd >= 0)
		close(errfd);
	free(envp);
	free(o.preemption_points);
	sc_trace_free(&t);
	return code;
}
