/*
 * worker_attach.c - schedctl attach PID: control a running process for a
 * while with a strategy, record a trace, detach, and report it like a
 * launch of one run (Reply{session}, Reply{run}, Reply{summary}).  The
 * session is indexed like a launch (kind "attach").
 *
 * The engine's sc_attach() does the work; until it exists the weak
 * fallback (attach_fallback.c) answers "attach is not implemented yet".
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "assert_parse.h"
#include "log.h"
#include "mono_clock.h"
#include "reply.h"
#include "seeds.h"
#include "session_dir.h"
#include "store.h"
#include "strf.h"
#include "strategy/strategy.h"
#include "worker.h"

#define ATTACH_MAX_STEPS 0      /* no step limit: the process is not ours */

struct attach {
	int conn;
	const Scctl__AttachRequest *req;
	const struct sc_strategy *strategy;
	const char *strategy_name, *params;
	struct sc_session session;
	struct sc_store *store;
	char *argv[256];            /* the process's command line */
	char cmdline[8192];
	char cwd[PATH_MAX];
	uint64_t seed;
};

/* /proc/PID/cmdline split into argv (at most 255 words). */
static void read_cmdline(struct attach *A, int pid)
{
	char path[64];
	FILE *f;
	size_t n = 0, k = 0;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(A->cmdline, 1, sizeof(A->cmdline) - 1, f);
		fclose(f);
	}
	A->cmdline[n] = '\0';
	for (size_t i = 0; i < n && k < 255; i += strlen(A->cmdline + i) + 1)
		A->argv[k++] = A->cmdline + i;
	if (k == 0)
		A->argv[k++] = A->cmdline;
	A->argv[k] = NULL;
	snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
	{
		ssize_t m = readlink(path, A->cwd, sizeof(A->cwd) - 1);

		A->cwd[m > 0 ? m : 0] = '\0';
	}
}

static int check(struct attach *A, char *err, size_t errlen)
{
	const Scctl__AttachRequest *req = A->req;

	if (!req->has_pid || req->pid <= 0) {
		sc_strf(err, errlen, "attach: no process id given");
		return 2;
	}
	A->strategy_name = req->strategy && *req->strategy ? req->strategy
			   : SC_DEFAULT_STRATEGY;
	A->strategy = sc_strategy_find(A->strategy_name);
	if (!A->strategy || !A->strategy->create) {
		sc_strf(err, errlen, "attach: strategy '%s' cannot control a "
			"process (attach takes: %s)", A->strategy_name,
			SC_ATTACH_STRATEGIES);
		return 2;
	}
	/* A search explores many runs from the program's start; attach
	 * controls one process from wherever it is. */
	if (A->strategy->done) {
		sc_strf(err, errlen, "attach: -s %s is a systematic search over "
			"many runs of a program; attach controls one running "
			"process (use launch)", A->strategy_name);
		return 2;
	}
	A->params = req->strategy_params ? req->strategy_params : "";
	if (req->cwd && *req->cwd && chdir(req->cwd) < 0) {
		sc_strf(err, errlen, "%s: %s", req->cwd, strerror(errno));
		return 3;
	}
	if (kill(req->pid, 0) < 0 && errno == ESRCH) {
		sc_strf(err, errlen, "attach: no process %d", req->pid);
		return 3;
	}
	return 0;
}

static int begin(struct attach *A, const struct sc_daemon *d, char *err,
		 size_t errlen)
{
	struct sc_store_session ss = { 0 };
	char argv[8192 + 32], q[1024];
	size_t o;

	o = (size_t)snprintf(argv, sizeof(argv), "attach %d:", A->req->pid);
	for (size_t i = 0; A->argv[i] && o + 1 < sizeof(argv); i++) {
		sc_shell_quote(A->argv[i], q, sizeof(q));
		o += (size_t)snprintf(argv + o, sizeof(argv) - o, " %s", q);
	}
	if (sc_session_create(d->state_dir, A->req->out_dir, &A->session, err,
			      errlen) < 0 ||
	    sc_store_open(d->state_dir, true, &A->store, err, errlen) < 0)
		return -1;
	ss.id = A->session.id;
	ss.kind = "attach";
	ss.argv = argv;
	ss.cwd = A->cwd;
	ss.strategy = A->strategy_name;
	ss.params = A->params;
	ss.out_dir = A->session.dir;
	ss.shard = "";
	ss.base_seed = A->seed;
	ss.runs_planned = 1;
	ss.jobs = 1;
	ss.pid = (int)getpid();
	return sc_store_session_begin(A->store, &ss, err, errlen);
}

static bool is_bug(enum sc_verdict v)
{
	return v == SC_VERDICT_CRASH || v == SC_VERDICT_ASSERT ||
	       v == SC_VERDICT_EXIT || v == SC_VERDICT_DEADLOCK ||
	       v == SC_VERDICT_HANG;
}

/* Report the run and the summary; returns the exit status. */
static int report(struct attach *A, const struct sc_run_result *res,
		  const char *trace, double wall)
{
	Scctl__Reply reply = SCCTL__REPLY__INIT;
	Scctl__RunResult rr = SCCTL__RUN_RESULT__INIT;
	Scctl__Summary s = SCCTL__SUMMARY__INIT;
	Scctl__Bug bug = SCCTL__BUG__INIT, *bugs[1] = { &bug };
	char msg[2048 + 64], loc[512], quoted[PATH_MAX * 2 + 64];
	char replay[sizeof(quoted) + 64], err[512];
	bool failing = is_bug(res->verdict);
	uint64_t run_seed = sc_run_seed(A->seed, 1);

	if (failing) {
		sc_bug_describe(res, "", msg, sizeof(msg), loc, sizeof(loc));
		sc_shell_quote(trace, quoted, sizeof(quoted));
		/* The process was not started by us: a replay starts it
		 * afresh with the recorded command line. */
		sc_strf(replay, sizeof(replay), "schedctl replay %s", quoted);
		bug.kind = (char *)sc_verdict_name(res->verdict);
		bug.has_run = bug.has_seed = 1;
		bug.run = 1;
		bug.seed = run_seed;
		bug.message = msg;
		bug.location = loc;
		bug.stacks = (char *)res->stacks;
		bug.trace = (char *)trace;
		bug.replay = replay;
	}
	rr.has_run = rr.has_steps = rr.has_wall_us = 1;
	rr.run = 1;
	rr.verdict = (char *)sc_verdict_name(res->verdict);
	rr.steps = res->steps;
	rr.wall_us = res->wall_us;
	rr.trace = (char *)trace;
	rr.bug = failing ? &bug : NULL;
	reply.has_ok = reply.ok = 1;
	reply.run = &rr;
	sc_worker_send(A->conn, &reply);
	if (sc_store_add_run(A->store, A->session.id, 1, run_seed, rr.verdict,
			     rr.steps, rr.wall_us, trace, rr.bug, err,
			     sizeof(err)) < 0)
		sc_log("session %s: %s", A->session.id, err);

	reply.run = NULL;
	s.session = A->session.id;
	s.strategy = (char *)A->strategy_name;
	s.has_seed = s.has_runs = s.has_failing_runs = s.has_first_bug_run = 1;
	s.seed = A->seed;
	s.runs = 1;
	s.failing_runs = failing;
	s.first_bug_run = failing ? 1 : -1;
	s.has_wall_seconds = s.has_events = s.has_exit_code = 1;
	s.wall_seconds = wall;
	s.events = res->steps;
	s.n_bugs = failing;
	s.bugs = bugs;
	s.out_dir = A->session.dir;
	s.exit_code = failing ? 1 : 0;
	/* Detached because the daemon ended, not at the user's word (stop,
	 * Ctrl-C, --duration, the process's exit): said, and status 3, as
	 * for a launch (QA: the CLI printed a plain summary and exited 0). */
	if (sc_worker_terminated && !sc_worker_stop_requested) {
		sc_strf(err, sizeof(err), "interrupted%s",
			sc_worker_cancel_reason());
		reply.error = err;
		s.exit_code = 3;
	}
	reply.summary = &s;
	sc_worker_send(A->conn, &reply);
	return s.exit_code;
}

int sc_worker_attach(int conn, const Scctl__AttachRequest *req,
		     const struct sc_daemon *d)
{
	struct attach A = { .conn = conn, .req = req };
	Scctl__Reply first = SCCTL__REPLY__INIT;
	struct sc_strategy_session learnt = { 0 };
	struct sc_trace_writer *w = NULL;
	struct sc_policy policy;
	struct sc_run_result res;
	char err[2048], dberr[512], trace[PATH_MAX + 32];
	const char *state = "done";
	double t0 = sc_mono_seconds();
	int code, rc;

	code = check(&A, err, sizeof(err));
	if (code) {
		sc_reply_error(conn, code, "%s", err);
		return code;
	}
	if (req->has_seed)
		A.seed = req->seed;
	else if (getrandom(&A.seed, sizeof(A.seed), 0) != sizeof(A.seed))
		A.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	read_cmdline(&A, req->pid);
	if (begin(&A, d, err, sizeof(err)) < 0) {
		sc_reply_error(conn, 3, "%s", err);
		sc_store_close(A.store);
		return 3;
	}
	if (A.strategy->create(A.params, sc_run_seed(A.seed, 1), 1, &learnt,
			       &policy, err, sizeof(err)) < 0) {
		sc_strategy_session_free(&learnt);
		sc_reply_error(conn, 2, "%s", err);
		sc_store_session_end(A.store, A.session.id, "done", 2, err, dberr,
				     sizeof(dberr));
		sc_store_close(A.store);
		return 2;
	}
	sc_log("session %s: attach to %d (%s), strategy %s, seed 0x%" PRIx64,
	       A.session.id, req->pid, A.argv[0], A.strategy_name, A.seed);
	first.has_ok = first.ok = 1;
	first.session = A.session.id;
	first.has_planned_runs = 1;
	first.planned_runs = 1;
	sc_worker_send(conn, &first);

	sc_session_run_path(&A.session, 1, "sctrace", trace, sizeof(trace));
	{
		struct sc_trace_header h = {
			.tool_version = PACKAGE_VERSION,
			.argv = A.argv,
			.cwd = A.cwd,
			.strategy = A.strategy_name,
			.strategy_params = A.params,
			.seed = sc_run_seed(A.seed, 1),
			.base_seed = A.seed,
			.run_index = 1,
			.granularity = "sync",
			.max_steps = req->has_max_steps ? req->max_steps
				     : ATTACH_MAX_STEPS,
			.timeout_ms = req->duration_ms,
			.attached = true,
		};
		struct sc_run_config cfg = {
			.cpu = -1,
			.max_steps = h.max_steps,
			.granularity = SC_GRAN_SYNC,
			.stdin_fd = -1,
			.stdout_fd = -1,
			.stderr_fd = -1,
			.policy = &policy,
			.cancel = &sc_worker_cancel,
		};

		w = sc_trace_create(trace, &h);
		if (!w) {
			sc_strf(err, sizeof(err), "%s: %s", trace, strerror(errno));
			rc = -1;
			memset(&res, 0, sizeof(res));
		} else {
			cfg.trace = w;
			memset(&res, 0, sizeof(res));
			rc = sc_attach(req->pid, &cfg, req->duration_ms, &res);
			if (rc < 0)
				sc_strf(err, sizeof(err), "attach %d: %s", req->pid,
					res.message[0] ? res.message
					: "could not attach");
		}
	}
	A.strategy->destroy(&policy);
	sc_strategy_session_free(&learnt);
	if (rc < 0) {
		if (w)
			sc_trace_abandon(w);
		unlink(trace);
		sc_reply_error(conn, 3, "%s", err);
		code = 3;
	} else {
		sc_trace_finish(w, &res);
		code = report(&A, &res, trace, sc_mono_seconds() - t0);
	}
	if (sc_worker_stop_requested)
		state = "stopped";
	else if (sc_worker_terminated)
		state = "interrupted";
	if (sc_store_session_end(A.store, A.session.id, state, code,
				 rc < 0 ? err : "", dberr, sizeof(dberr)) < 0)
		sc_log("session %s: %s", A.session.id, dberr);
	sc_store_close(A.store);
	return code;
}
