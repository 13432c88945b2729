/*
 * worker_launch.c - one launch session: check the request, create the
 * session directory, run the runs one after another (each with its own
 * seed, trace and output files), stream a Reply{run} per run and finish
 * with a Reply{summary}.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "file_tail.h"
#include "log.h"
#include "mono_clock.h"
#include "reply.h"
#include "run_describe.h"
#include "run_notice.h"
#include "search_points.h"
#include "seeds.h"
#include "server_stdio.h"
#include "jobs.h"
#include "session_dir.h"
#include "stdin_file.h"
#include "store.h"
#include "strf.h"
#include "strategy/exit_defer.h"
#include "strategy/pilot.h"
#include "strategy/race_pilot.h"
#include "strategy/strategy.h"
#include "worker.h"

#define DEFAULT_RUNS 100
/* A systematic search stops by itself when exhausted: the default cap
 * only guards against a space far too large for it. */
#define DEFAULT_SEARCH_RUNS 10000
#define DEFAULT_MAX_STEPS 1000000
#define DEFAULT_TIMEOUT_MS 60000
/* Bugs carried in the summary; failing_runs still counts all of them. */
#define MAX_REPORTED_BUGS 1000

enum keep_traces { KEEP_FAILING, KEEP_ALL, KEEP_NONE };

struct launch {
	int conn;
	const Scctl__LaunchRequest *req;
	const struct sc_strategy *strategy;
	const char *strategy_name;
	const char *params;
	struct sc_session session;
	/* The session's index row and its runs (jobs.h). */
	struct sc_store *store;
	uint32_t *plan;                 /* run numbers of this launch/shard */
	size_t nplan;
	uint32_t njobs;
	/* What the strategy learnt over the runs so far (PCT's k). */
	struct sc_strategy_session learnt;
	/* In a job: learnt only from the pilot (pilot.h). */
	struct sc_pilot pilot;
	/* In the session: the jobs' learnt points and threads after each
	 * pilot run 1..pilot_known (LearntStats), and the highest run
	 * delivered, for a bound that does not depend on --jobs. */
	uint64_t pilot_points[SC_PILOT_RUNS];
	uint32_t pilot_threads[SC_PILOT_RUNS];
	uint32_t pilot_known;
	uint32_t last_run;
	/* Run replies to the client: how many delivered, when last sent
	 * (send_run). */
	uint32_t delivered;
	int64_t last_reply_us;
	char program[4096];             /* resolved argv[0] */
	/* The program's input, the session's copy (stdin_file.h); every
	 * run opens it afresh.  Empty: /dev/null. */
	char stdin_path[PATH_MAX + 16];
	uint64_t stdin_size;
	char **argv, **envp;
	uint64_t env_digest;
	uint64_t base_seed;
	/* The virtual clock's bases (vclock.c): the session's start, the
	 * same in every run and job. */
	uint64_t clock_realtime_ns, clock_monotonic_ns;
	uint32_t runs;
	uint64_t max_steps;
	uint32_t timeout_ms;
	enum keep_traces keep;
	int cpu;
	bool follow_forks;              /* asked for, or PROGRAM is a script */
	enum sc_granularity granularity;
	/* --granularity race: the pilot runs at mem, the others at the
	 * racing instructions it found (race_pilot.h).  In a job. */
	bool race;
	struct sc_race_pilot race_pilot;
	bool atomics;                   /* sc_run_config.atomics */
	char **modules, **sources;      /* NULL-terminated copies */
	/* results */
	uint32_t completed, failing;
	int32_t first_bug_run;
	uint64_t events;
	Scctl__Bug **bugs;
	size_t nbugs;
	char fatal[2048];               /* why the session stopped early */
	/* In a job: the fork server its controlled runs start from, tried
	 * at its first one (tracer/fork_server.c), and the standard streams
	 * those runs share (server_stdio.h). */
	struct sc_fork_server *server;
	bool server_tried, server_stdio_open;
	struct sc_server_stdio server_stdio;
};

static bool is_bug(enum sc_verdict v)
{
	return v == SC_VERDICT_CRASH || v == SC_VERDICT_ASSERT ||
	       v == SC_VERDICT_EXIT || v == SC_VERDICT_DEADLOCK ||
	       v == SC_VERDICT_HANG;
}

/* The tool failed, or the run was cancelled: not a verdict on the
 * program. */
static bool tool_failed(enum sc_verdict v)
{
	return v == SC_VERDICT_ERROR || v == SC_VERDICT_UNKNOWN ||
	       v == SC_VERDICT_DIVERGED;
}

/* ---- request checks (exit 2: usage, 3: cannot run) ---- */

/* The PATH of the program's environment (for "#!/usr/bin/env NAME"). */
static const char *request_path(const Scctl__LaunchRequest *req)
{
	for (size_t i = 0; i < req->n_env; i++)
		if (strncmp(req->env[i], "PATH=", 5) == 0)
			return req->env[i] + 5;
	return NULL;
}

static int check_request(struct launch *L, char *err, size_t errlen)
{
	const Scctl__LaunchRequest *req = L->req;
	const char *gran = req->granularity ? req->granularity : "";
	const char *keep = req->keep_traces ? req->keep_traces : "";
	char resolved[4096], why[1024];
	struct sc_program_info info;

	if (req->n_argv == 0 || !*req->argv[0]) {
		sc_strf(err, errlen, "launch: no program given");
		return 2;
	}
	L->strategy_name = req->strategy && *req->strategy ? req->strategy
			   : SC_DEFAULT_STRATEGY;
	L->strategy = sc_strategy_find(L->strategy_name);
	if (!L->strategy) {
		sc_strf(err, errlen, "%s strategy '%s' (known: %s)",
			 sc_strategy_planned(L->strategy_name)
			 ? "not implemented yet:" : "unknown",
			 L->strategy_name, sc_strategy_list());
		return 2;
	}
	L->params = req->strategy_params ? req->strategy_params : "";
	if (*gran && strcmp(gran, "sync") != 0 && strcmp(gran, "mem") != 0 &&
	    strcmp(gran, "race") != 0) {
		sc_strf(err, errlen, "unknown granularity '%s' (known: sync, "
			 "race, mem)", gran);
		return 2;
	}
	L->granularity = strcmp(gran, "mem") == 0 ? SC_GRAN_MEM
			 : strcmp(gran, "race") == 0 ? SC_GRAN_RACE
			 : SC_GRAN_SYNC;
	/* The default: race-directed points (SCTBench with surw, the
	 * default strategy then: 24 of 32 cases hit in 100 runs, against 16
	 * at sync), except for what cannot use
	 * them: a systematic search (its runs need the same points) and a
	 * native run (no points at all). */
	if (!*gran && L->strategy->create && !L->strategy->done)
		L->granularity = SC_GRAN_RACE;
	/* A systematic search replays a prefix of earlier runs in each: its
	 * scheduling points must be the same in every run. */
	if (L->granularity == SC_GRAN_RACE && L->strategy->done) {
		sc_strf(err, errlen, "--granularity race: -s %s is a systematic "
			 "search, whose runs need the same scheduling points "
			 "(use sync or mem)", L->strategy_name);
		return 2;
	}
	/* A native run has no scheduling points at all. */
	L->race = L->granularity == SC_GRAN_RACE && L->strategy->create;
	/* At mem granularity the atomics are points anyway. */
	L->atomics = L->granularity != SC_GRAN_MEM;
	if ((req->n_instrument_modules || req->n_instrument_sources) &&
	    L->granularity != SC_GRAN_MEM) {
		sc_strf(err, errlen, "--instrument and --instrument-source need "
			 "--granularity mem");
		return 2;
	}
	L->modules = sc_strv(req->instrument_modules,
				 req->n_instrument_modules);
	L->sources = sc_strv(req->instrument_sources,
				 req->n_instrument_sources);
	if (!L->modules || !L->sources) {
		sc_strf(err, errlen, "out of memory");
		return 3;
	}
	if (req->has_shard_count && req->shard_count > 0 &&
	    (!req->has_shard_index || req->shard_index < 1 ||
	     req->shard_index > req->shard_count)) {
		sc_strf(err, errlen, "--shard %u/%u: I must be between 1 and N",
			 req->shard_index, req->shard_count);
		return 2;
	}
	/* A systematic search is one sequence of runs, each depending on
	 * those before: it cannot be split. */
	if (L->strategy->done && req->has_shard_count && req->shard_count > 0) {
		sc_strf(err, errlen, "--shard: -s %s is a systematic search and "
			 "cannot be split into shards", L->strategy_name);
		return 2;
	}
	if (!*keep || strcmp(keep, "failing") == 0)
		L->keep = req->keep_all_traces ? KEEP_ALL : KEEP_FAILING;
	else if (strcmp(keep, "all") == 0)
		L->keep = KEEP_ALL;
	else if (strcmp(keep, "none") == 0)
		L->keep = KEEP_NONE;
	else {
		sc_strf(err, errlen, "unknown --keep-traces '%s' (known: "
			 "failing, all, none)", keep);
		return 2;
	}
	L->runs = req->has_runs ? req->runs
		  : L->strategy->done ? DEFAULT_SEARCH_RUNS : DEFAULT_RUNS;
	if (L->runs == 0) {
		sc_strf(err, errlen, "--runs: must be at least 1");
		return 2;
	}
	L->max_steps = req->has_max_steps ? req->max_steps : DEFAULT_MAX_STEPS;
	L->timeout_ms = req->has_timeout_ms ? req->timeout_ms
			: DEFAULT_TIMEOUT_MS;
	if (L->strategy->create) {
		struct sc_policy p;

		if (L->strategy->create(L->params, 0, 1, NULL, &p, why,
					sizeof(why)) < 0) {
			sc_strf(err, errlen, "%s", why);
			return 2;
		}
		L->strategy->destroy(&p);
	}
	/* Relative paths are the client's: we run in its directory. */
	if (req->cwd && *req->cwd && chdir(req->cwd) < 0) {
		sc_strf(err, errlen, "%s: %s", req->cwd, strerror(errno));
		return 3;
	}
	if (sc_check_program_info(req->argv[0], request_path(req), resolved,
				  sizeof(resolved), &info, why,
				  sizeof(why)) < 0) {
		sc_strf(err, errlen, "%s", why);
		return 3;
	}
	sc_strf(L->program, sizeof(L->program), "%s", resolved);
	/* A script's work is done by the processes its interpreter starts:
	 * schedule them too (the CLI says so; an older client may not). */
	L->follow_forks = req->follow_forks || info.script;
	return 0;
}

/* The session's clocks start at whole seconds: their fraction was the
 * moment the session started, and a program that truncates the time to
 * milliseconds (libuv's uv_now, GLib's timeouts) counted a different
 * number of reads until its next millisecond in each session of one
 * seed (QA).  A whole second is the same phase in every session. */
static void clock_bases(struct launch *L)
{
	struct timespec real, mono;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	L->clock_realtime_ns = (uint64_t)real.tv_sec * 1000000000u;
	L->clock_monotonic_ns = (uint64_t)mono.tv_sec * 1000000000u;
}

/* Run r's wall clock starts r - 1 seconds after the session's: a
 * program that seeds rand() with time(NULL) draws other numbers in each
 * run, the same ones in its replay and whatever the jobs. */
static uint64_t run_realtime_ns(const struct launch *L, uint32_t r)
{
	return L->clock_realtime_ns + (uint64_t)(r ? r - 1 : 0) * 1000000000u;
}

static uint64_t random_seed(void)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), 0) != sizeof(s))
		s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	return s;
}

static int write_params(struct launch *L, char *err, size_t errlen)
{
	char seed[32], runs[16], steps[24], tmo[16], slice[16], created[32];
	const Scctl__LaunchRequest *req = L->req;
	char (*argv_key)[16] = calloc(req->n_argv + 1, sizeof(*argv_key));
	struct sc_session_param *p = calloc(32 + req->n_argv, sizeof(*p));
	time_t now = time(NULL);
	struct tm tm;
	size_t n = 0;
	int rc;

	if (!argv_key || !p) {
		free(argv_key);
		free(p);
		sc_strf(err, errlen, "out of memory");
		return -1;
	}

	gmtime_r(&now, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sc_strf(seed, sizeof(seed), "0x%016" PRIx64, L->base_seed);
	sc_strf(runs, sizeof(runs), "%u", L->runs);
	sc_strf(steps, sizeof(steps), "%" PRIu64, L->max_steps);
	sc_strf(tmo, sizeof(tmo), "%u", L->timeout_ms);
	sc_strf(slice, sizeof(slice), "%u", req->has_slice_us ? req->slice_us : 0);
#define P(k, v) (p[n++] = (struct sc_session_param){ (k), (v) })
	P("id", L->session.id);
	P("created", created);
	P("tool_version", PACKAGE_VERSION);
	P("program", L->program);
	for (size_t i = 0; i < req->n_argv; i++) {
		sc_strf(argv_key[i], sizeof(argv_key[i]), "argv.%zu", i);
		P(argv_key[i], req->argv[i]);
	}
	P("cwd", req->cwd ? req->cwd : "");
	P("strategy", L->strategy_name);
	P("strategy_params", L->params);
	P("base_seed", seed);
	P("runs", runs);
	P("max_steps", steps);
	P("timeout_ms", tmo);
	P("slice_us", slice);
	P("granularity", L->granularity == SC_GRAN_MEM ? "mem"
	  : L->granularity == SC_GRAN_RACE ? "race" : "sync");
	P("atomics", L->atomics ? "1" : "0");
	P("timeouts", req->eager_timeouts ? "eager" : "lazy");
	P("keep_going", req->keep_going ? "1" : "0");
	P("keep_traces", L->keep == KEEP_ALL ? "all"
	  : L->keep == KEEP_NONE ? "none" : "failing");
	P("follow_forks", L->follow_forks ? "1" : "0");
	P("stdin", L->stdin_path[0] ? SC_STDIN_NAME : "");
#undef P
	rc = sc_session_write_params(&L->session, p, n, err, errlen);
	free(argv_key);
	free(p);
	return rc;
}

/* ---- one run ---- */

struct run_files {
	char trace[PATH_MAX + 32], out[PATH_MAX + 32], err[PATH_MAX + 32];
};

/* Run r is the session's sample (its first run), whose files are kept
 * like a failing run's. */
static bool sample_run(const struct launch *L, uint32_t r)
{
	return r == (L->nplan ? L->plan[0] : 1);
}

/* Are run r's stdout and stderr kept: --keep-traces all, the sample, a
 * failure? */
static bool output_kept(const struct launch *L, uint32_t r, bool failing)
{
	return L->keep == KEEP_ALL || failing || sample_run(L, r);
}

/* Should run r start from the job's fork server?  Not a native run (no
 * control to start under), nor one that follows forks (a script's
 * processes exec other programs; the run's process group would not hold
 * them), nor when SCHEDCTL_FORK_SERVER=0 (the daemon's environment). */
static bool wants_server(const struct launch *L)
{
	const char *env = getenv("SCHEDCTL_FORK_SERVER");

	return L->strategy->create && !L->follow_forks &&
	       !(env && strcmp(env, "0") == 0) &&
	       (!L->server_tried || L->server);
}

/* The job's fork server for runs like cfg: started at the first call;
 * NULL when it cannot serve (said once in the log). */
static struct sc_fork_server *job_server(struct launch *L,
					 const struct sc_run_config *cfg)
{
	char why[512];

	if (L->server_tried)
		return L->server;
	L->server_tried = true;
	L->server = sc_fork_server_start(cfg, why, sizeof(why));
	if (!L->server)
		sc_log("session %s: no fork server (%s): runs start by exec",
		       L->session.id, why);
	else
		sc_log("session %s: job %d: fork server ready",
		       L->session.id, (int)getpid());
	return L->server;
}

/* A run from the server failed to start from it: say why, once, and
 * start the job's later runs by exec. */
static void check_server(struct launch *L)
{
	const char *why = sc_fork_server_broken(L->server);

	if (!why)
		return;
	sc_log("session %s: %s", L->session.id, why);
	sc_fork_server_stop(L->server);
	L->server = NULL;
}

static int open_output(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		sc_strf(err, errlen, "%s: %s", path, strerror(errno));
	return fd;
}

/* How run r is controlled: the session's granularity, or at race
 * granularity mem for a pilot run and the racing instructions after. */
struct run_points {
	enum sc_granularity granularity;
	const char *name;               /* as the trace header says it */
	bool atomics, own_libraries, pilot;
	uint32_t mem_event_cap, mem_site_cap;
	const uint64_t *pcs;
	size_t npcs;
};

static void run_points(const struct launch *L, uint32_t r,
		       struct run_points *pt)
{
	memset(pt, 0, sizeof(*pt));
	pt->granularity = L->granularity;
	pt->atomics = L->atomics;
	pt->name = L->granularity == SC_GRAN_MEM ? "mem"
		   : L->granularity == SC_GRAN_RACE ? "race" : "sync";
	if (!L->race)
		return;
	if (sc_race_pilot_is_pilot(&L->race_pilot, r)) {
		/* Every access of the program's own code: its libraries'
		 * races are its races too.  Not the system's libraries:
		 * their synchronisation is seen at the sync points. */
		pt->granularity = SC_GRAN_MEM;
		pt->name = "mem";
		pt->atomics = false;
		pt->own_libraries = true;
		pt->pilot = true;
		pt->mem_event_cap = SC_RACE_PILOT_MEM_EVENTS;
		pt->mem_site_cap = SC_RACE_PILOT_SITE_EVENTS;
		return;
	}
	/* No race found: the pcs are none, a plain sync run. */
	pt->pcs = L->race_pilot.pcs;
	pt->npcs = L->race_pilot.n;
	pt->mem_site_cap = pt->npcs ? SC_RACE_SITE_EVENTS : 0;
}

/* Pilot run r's trace: add its racing instructions to the set.  A trace
 * that cannot be read teaches nothing (the run still counts as learnt
 * from, or the job would run it again and again). */
static void learn_races(struct launch *L, uint32_t r, const char *trace)
{
	struct sc_trace t;
	uint64_t *pcs = NULL;
	size_t n = 0;
	char err[512];

	if (sc_trace_load(trace, &t, err, sizeof(err)) < 0) {
		sc_log("session %s: pilot run %u: %s", L->session.id, r, err);
	} else {
		if (sc_trace_racing_pcs(&t, &pcs, &n, err, sizeof(err)) < 0)
			sc_log("session %s: pilot run %u: race detection: %s",
			       L->session.id, r, err);
		sc_trace_free(&t);
	}
	if (sc_race_pilot_learn(&L->race_pilot, r, pcs, n) < 0) {
		sc_log("session %s: pilot run %u: out of memory", L->session.id,
		       r);
		sc_race_pilot_learn(&L->race_pilot, r, NULL, 0);
	}
	free(pcs);
}

/* Run r.  f: its files, NULL for a silent pilot run (no trace, output to
 * /dev/null; at race granularity a trace of its own, read for its races
 * and removed).  Returns 0 when the run happened (whatever its verdict)
 * and -1 when it could not (L->fatal says why). */
static int do_run(struct launch *L, uint32_t r, uint64_t seed,
		  const struct run_files *f, struct sc_run_result *res)
{
	struct sc_policy policy;
	struct sc_exit_defer defer;
	struct sc_trace_writer *w = NULL;
	bool controlled = L->strategy->create != NULL;
	int infd = -1, outfd = -1, errfd = -1, rc = -1;
	char why[1024], silent_trace[PATH_MAX + 64];
	const char *trace = NULL;
	struct run_points pt;
	bool served = wants_server(L);

	memset(res, 0, sizeof(*res));
	run_points(L, r, &pt);
	/* --keep-traces none: a trace only for a pilot run, which learns
	 * from it; the others would be written only to be deleted. */
	if (f && (L->keep != KEEP_NONE || pt.pilot))
		trace = f->trace;
	if (!f && pt.pilot) {
		/* Jobs may run the same pilot run silently at once: the
		 * name is the job's own. */
		sc_strf(silent_trace, sizeof(silent_trace),
			"%s/.pilot-%u-%d.sctrace", L->session.dir, r,
			(int)getpid());
		trace = silent_trace;
	}
	/* A race pilot run is there to see the program's races: a
	 * strategy whose schedules would hide them has it run by another
	 * (race_pilot_by; pct's by pos).  The strategy's own pilot follows
	 * the race pilot (sc_pilot_skip), so it learns nothing here. */
	const struct sc_strategy *strategy = L->strategy;
	const char *strategy_name = L->strategy_name, *params = L->params;
	if (pt.pilot && L->strategy->race_pilot_by) {
		strategy_name = L->strategy->race_pilot_by;
		strategy = sc_strategy_find(strategy_name);
		params = "";
	}
	if (controlled &&
	    strategy->create(params, seed, r, strategy == L->strategy
			     ? sc_pilot_session(&L->pilot, r) : NULL,
			     &policy, why, sizeof(why)) < 0) {
		sc_strf(L->fatal, sizeof(L->fatal), "run %u: %s", r, why);
		return -1;
	}
	/* Not in a systematic search: its runs must each take the
	 * alternatives it chose, exits included. */
	bool wrap_exit = controlled && !L->strategy->done;
	bool free_events = controlled && pt.granularity == SC_GRAN_MEM;
	if (wrap_exit)
		sc_exit_defer_wrap(&defer, &policy,
				   pt.pilot || sc_exit_defer_chosen(seed), seed);
	if (controlled && trace) {
		struct sc_trace_header h = {
			.tool_version = PACKAGE_VERSION,
			.argv = L->argv,
			.cwd = L->req->cwd,
			.env_digest = L->env_digest,
			.strategy = strategy_name,
			.strategy_params = params,
			.seed = seed,
			.base_seed = L->base_seed,
			.run_index = r,
			.granularity = pt.name,
			.instrument_modules = L->modules,
			.instrument_sources = L->sources,
			.follow_forks = L->follow_forks,
			.env = L->envp,
			.max_steps = L->max_steps,
			.timeout_ms = L->timeout_ms,
			.eager_timeouts = L->req->eager_timeouts,
			.slice_us = L->req->has_slice_us ? L->req->slice_us : 0,
			.stdin_file = L->stdin_path[0] ? SC_STDIN_NAME : NULL,
			.stdin_size = L->stdin_size,
			.atomics = pt.atomics,
			.seeded_random = controlled,
			.spin_model = controlled,
			.skip_glibc_sync = controlled,
			.all_cpus = controlled,
			.mem_sites = controlled ? 6 : 0,
			.clock_realtime_ns = controlled ? run_realtime_ns(L, r) : 0,
			.clock_monotonic_ns = controlled ? L->clock_monotonic_ns : 0,
			.mem_event_cap = pt.mem_event_cap,
			.mem_site_cap = pt.mem_site_cap,
			.free_events = free_events,
			.virtual_timeouts = controlled,
			.clock_wait_reads = controlled ? SC_CLOCK_WAIT_READS : 0,
			.own_libraries = pt.own_libraries,
			.race_pcs = pt.pcs,
			.nrace_pcs = pt.npcs,
		};

		w = sc_trace_create(trace, &h);
		if (!w) {
			sc_strf(L->fatal, sizeof(L->fatal), "%s: %s", trace,
				 strerror(errno));
			goto out;
		}
	}
	if (served && !L->server_stdio_open) {
		if (sc_server_stdio_open(&L->server_stdio, L->session.dir,
					 L->stdin_path, L->fatal,
					 sizeof(L->fatal)) < 0)
			goto out;
		L->server_stdio_open = true;
	}
	if (served) {
		/* The job's streams, emptied and rewound: the server's
		 * copies have them, and an exec'd run gets them too. */
		if (sc_server_stdio_reset(&L->server_stdio) < 0) {
			sc_strf(L->fatal, sizeof(L->fatal), "%s: %s",
				L->server_stdio.out_path, strerror(errno));
			goto out;
		}
		infd = L->server_stdio.in;
		outfd = L->server_stdio.out;
		errfd = L->server_stdio.err;
	}
	/* Its own descriptor at offset 0, pilot runs included: they must
	 * behave as the runs they stand for. */
	if (!served && L->stdin_path[0]) {
		infd = open(L->stdin_path, O_RDONLY | O_CLOEXEC);
		if (infd < 0) {
			sc_strf(L->fatal, sizeof(L->fatal), "%s: %s",
				L->stdin_path, strerror(errno));
			goto out;
		}
	}
	if (f && !served) {
		outfd = open_output(f->out, L->fatal, sizeof(L->fatal));
		if (outfd < 0)
			goto out;
		errfd = open_output(f->err, L->fatal, sizeof(L->fatal));
		if (errfd < 0)
			goto out;
	}
	{
		struct sc_run_config cfg = {
			.argv = L->argv,
			.envp = L->envp,
			.cwd = L->req->cwd,
			.cpu = L->cpu,
			.max_steps = L->max_steps,
			.timeout_ms = L->timeout_ms,
			.slice_us = L->req->has_slice_us ? L->req->slice_us : 0,
			.eager_timeouts = L->req->eager_timeouts,
			.granularity = pt.granularity,
			.atomics = pt.atomics,
			.own_libraries = pt.own_libraries,
			.mem_event_cap = pt.mem_event_cap,
			.mem_site_cap = pt.mem_site_cap,
			.free_events = free_events,
			.virtual_timeouts = controlled,
			.clock_wait_reads = controlled ? SC_CLOCK_WAIT_READS : 0,
			.race_pcs = pt.pcs,
			.nrace_pcs = pt.npcs,
			.instrument_modules = (const char *const *)L->modules,
			.instrument_sources = (const char *const *)L->sources,
			.follow_forks = L->follow_forks,
			.seeded_random = controlled,
			.spin_model = controlled,
			.skip_glibc_sync = controlled,
			.all_cpus = controlled,
			.mem_sites = controlled ? 6 : 0,
			.vclock = controlled,
			.clock_realtime_ns = run_realtime_ns(L, r),
			.clock_monotonic_ns = L->clock_monotonic_ns,
			.random_seed = seed,
			.stdin_fd = infd,
			.stdout_fd = outfd,
			.stderr_fd = errfd,
			.policy = controlled ? &policy : NULL,
			.trace = w,
			.cancel = &sc_worker_cancel,
		};

		if (served)
			cfg.fork_server = job_server(L, &cfg);
		rc = sc_run(&cfg, res);
		if (cfg.fork_server)
			check_server(L);
	}
	if (served && f &&
	    output_kept(L, r, is_bug(res->verdict) || tool_failed(res->verdict)) &&
	    sc_server_stdio_save(&L->server_stdio, f->out, f->err) < 0)
		sc_log("session %s: run %u: cannot save its output: %s",
		       L->session.id, r, strerror(errno));
	if (w) {
		sc_trace_finish(w, res);
		w = NULL;
	}
	if (rc < 0)
		sc_strf(L->fatal, sizeof(L->fatal), "run %u: %s", r,
			 res->message[0] ? res->message : "could not start the program");
out:
	if (w)
		sc_trace_abandon(w);
	if (!served) {
		if (infd >= 0)
			close(infd);
		if (outfd >= 0)
			close(outfd);
		if (errfd >= 0)
			close(errfd);
	}
	if (controlled) {
		if (wrap_exit)
			sc_exit_defer_unwrap(&defer, &policy);
		strategy->destroy(&policy);
		/* A run the tool could not finish taught nothing reliable;
		 * the job stops after it anyway. */
		if (rc == 0 && !tool_failed(res->verdict)) {
			sc_pilot_ran(&L->pilot, r);
			if (pt.pilot)
				learn_races(L, r, trace);
		}
	}
	if (trace == silent_trace)
		unlink(silent_trace);
	return rc;
}

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static Scctl__Bug *make_bug(const struct launch *L, uint32_t r, uint64_t seed,
			    const struct sc_run_result *res,
			    const struct run_files *f, bool trace_kept)
{
	Scctl__Bug *b = malloc(sizeof(*b));
	char tail[1024], msg[2048 + 64], loc[512], quoted[PATH_MAX * 2 + 64];
	char replay[sizeof(quoted) + 32];

	if (!b)
		return NULL;
	scctl__bug__init(b);
	sc_file_tail(f->err, 5, tail, sizeof(tail));
	sc_describe_run(res, tail, f->err, f->out, msg, sizeof(msg), loc,
			sizeof(loc));
	if (!L->strategy->create)
		sc_strf(replay, sizeof(replay), "not replayable (native run)");
	else if (!trace_kept)
		sc_strf(replay, sizeof(replay),
			 "not replayable (trace not kept: --keep-traces none)");
	else {
		sc_shell_quote(f->trace, quoted, sizeof(quoted));
		sc_strf(replay, sizeof(replay), "schedctl replay %s", quoted);
	}
	b->kind = xstrdup(sc_verdict_name(res->verdict));
	b->has_run = 1;
	b->run = r;
	b->has_seed = 1;
	b->seed = seed;
	b->message = xstrdup(msg);
	b->location = xstrdup(loc);
	b->trace = xstrdup(trace_kept && L->strategy->create ? f->trace : "");
	b->replay = xstrdup(replay);
	b->stderr_tail = xstrdup(tail);
	b->stdout_path = xstrdup(f->out);
	b->stderr_path = xstrdup(f->err);
	b->stacks = xstrdup(res->stacks);
	return b;
}

static void free_bug(Scctl__Bug *b)
{
	if (!b)
		return;
	free(b->kind);
	free(b->message);
	free(b->location);
	free(b->trace);
	free(b->replay);
	free(b->stderr_tail);
	free(b->stdout_path);
	free(b->stderr_path);
	free(b->stacks);
	free(b);
}

/* Delete what --keep-traces says not to keep; tell whether the trace
 * stays. */
static bool prune_files(const struct launch *L, uint32_t r, bool failing,
			const struct run_files *f)
{
	bool sample = sample_run(L, r) || failing;
	bool keep_trace = L->strategy->create &&
			  (L->keep == KEEP_ALL ||
			   (L->keep == KEEP_FAILING && sample));
	bool keep_output = output_kept(L, r, failing);

	if (!keep_trace)
		unlink(f->trace);       /* none: written by a pilot run only */
	if (!keep_output) {
		unlink(f->out);
		unlink(f->err);
	}
	return keep_trace;
}

/* Run r, report it; returns false when the session must stop. */
/* The notices about run res, one line each, joined with newlines into
 * buf ("" when none).  They travel with the run's reply, which --jobs
 * delivers in run order like any other. */
static void run_notices(const struct sc_run_result *res, char *buf, size_t len)
{
	char lines[2][SC_NOTICE_LEN];
	size_t n = sc_run_notices(res, lines, 2), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? "\n" : "", lines[i]);
}

static bool one_run(struct launch *L, uint32_t r)
{
	Scctl__Reply reply = SCCTL__REPLY__INIT;
	Scctl__RunResult rr = SCCTL__RUN_RESULT__INIT;
	struct sc_run_result res;
	struct run_files f;
	uint64_t seed = sc_run_seed(L->base_seed, r);
	Scctl__Bug *bug = NULL;
	bool failing, kept, go_on = true;
	char notices[2 * SC_NOTICE_LEN] = "";

	sc_session_run_path(&L->session, r, "sctrace", f.trace, sizeof(f.trace));
	sc_session_run_path(&L->session, r, "out", f.out, sizeof(f.out));
	sc_session_run_path(&L->session, r, "err", f.err, sizeof(f.err));
	if (do_run(L, r, seed, &f, &res) < 0)
		return false;
	/* Once per session: run 1 is reported by exactly one job. */
	if (r == 1 && L->strategy->create)
		run_notices(&res, notices, sizeof(notices));
	if (tool_failed(res.verdict)) {
		/* The tool failed, or the run was cancelled: not a bug of
		 * the program.  Keep its files for a look. */
		sc_strf(L->fatal, sizeof(L->fatal), "run %u: %s%s", r,
			 res.message[0] ? res.message : sc_verdict_name(res.verdict),
			 sc_worker_cancel && !sc_worker_client_gone
			 ? sc_worker_cancel_reason() : "");
		go_on = false;
	}
	failing = is_bug(res.verdict);
	kept = go_on ? prune_files(L, r, failing, &f)
		     : L->strategy->create != NULL;
	/* A run the tool could not finish is not a completed run. */
	if (go_on || failing)
		L->completed++;
	L->events += res.steps;
	if (failing) {
		L->failing++;
		if (L->first_bug_run < 0) {
			L->first_bug_run = (int32_t)r;
			/* The strategy does not see verdicts: the launch tells
			 * the search which run failed first. */
			if (L->learnt.search.active) {
				L->learnt.search.bug_preemptions = (int32_t)
					L->learnt.search.last_preemptions;
				sc_search_describe_points(&L->learnt.search,
							  kept ? f.trace : NULL);
			}
		}
		bug = make_bug(L, r, seed, &res, &f, kept);
		if (!L->req->keep_going)
			go_on = false;
	}
	rr.has_run = 1;
	rr.run = r;
	rr.verdict = (char *)sc_verdict_name(res.verdict);
	rr.has_steps = 1;
	rr.steps = res.steps;
	rr.has_wall_us = 1;
	rr.wall_us = res.wall_us;
	rr.trace = kept ? f.trace : (char *)"";
	rr.bug = bug;
	reply.has_ok = 1;
	reply.ok = 1;
	reply.run = &rr;
	if (notices[0])
		reply.notice = notices;
	sc_worker_send(L->conn, &reply);
	if (bug && L->nbugs < MAX_REPORTED_BUGS) {
		Scctl__Bug **nb = realloc(L->bugs, (L->nbugs + 1) * sizeof(*nb));

		if (nb) {
			L->bugs = nb;
			L->bugs[L->nbugs++] = bug;
			bug = NULL;
		}
	}
	free_bug(bug);
	return go_on;
}

/* Pilot run q, which another job or shard owns and reports: run it only
 * for what the strategy learns from it (pilot.h).  Not reported, not
 * counted, no files.  Its verdict does not matter here: if it fails, its
 * owner says so and the session stops as it would with one job.  Returns
 * false when the job must stop. */
static bool silent_run(struct launch *L, uint32_t q)
{
	struct sc_run_result res;

	if (do_run(L, q, sc_run_seed(L->base_seed, q), NULL, &res) < 0)
		return false;
	if (tool_failed(res.verdict)) {
		sc_strf(L->fatal, sizeof(L->fatal), "run %u (pilot): %s%s", q,
			res.message[0] ? res.message
			: sc_verdict_name(res.verdict),
			sc_worker_cancel && !sc_worker_client_gone
			? sc_worker_cancel_reason() : "");
		return false;
	}
	return true;
}

/* The first pilot run below r that the strategy or the race set has not
 * learnt from yet, or 0.  Both learn in run order from the same runs. */
static uint32_t next_silent(const struct launch *L, uint32_t r)
{
	uint32_t a = sc_pilot_next_silent(&L->pilot, r);
	uint32_t b = L->race ? sc_race_pilot_next_silent(&L->race_pilot, r)
		     : 0;

	return !a ? b : !b ? a : a < b ? a : b;
}

/* Before run r: the pilot runs below it that this job has not run.  False
 * when the job must stop. */
static bool catch_up(struct launch *L, uint32_t r)
{
	uint32_t q;

	while ((q = next_silent(L, r)) != 0) {
		if (sc_worker_cancel || !sc_jobs_may_start(q))
			return false;
		if (!silent_run(L, q))
			return false;
	}
	return true;
}

/* The search's stats as sent; out points into in (nondet_first). */
static void search_to_proto(const struct sc_search_stats *in,
			    Scctl__SearchStats *out, char **points)
{
	out->has_bound = out->has_schedules = out->has_exhausted = 1;
	out->has_complete_bound = out->has_cache_hits = out->has_cache = 1;
	out->has_beyond_bound = out->has_truncated = 1;
	out->has_nondeterministic = out->has_nondet_first_run = 1;
	out->has_bug_preemptions = 1;
	out->bound = in->bound;
	out->schedules = in->schedules;
	out->exhausted = in->exhausted;
	out->complete_bound = in->complete_bound;
	out->cache_hits = in->cache_hits;
	out->cache = in->cache;
	out->beyond_bound = in->beyond_bound;
	out->truncated = in->truncated;
	out->nondeterministic = in->nondeterministic;
	out->nondet_first_run = in->nondet_first_run;
	out->nondet_first = (char *)in->nondet_first;
	out->bug_preemptions = in->bug_preemptions;
	/* Levels 0..C; per_level is an array of in's, as long as needed. */
	out->n_per_level = in->bound < SC_SEARCH_LEVELS ? in->bound + 1
			   : SC_SEARCH_LEVELS;
	out->per_level = (uint32_t *)in->per_level;
	/* points: room for SC_SEARCH_LEVELS pointers into in. */
	for (uint32_t i = 0; i < in->nbug_points && i < SC_SEARCH_LEVELS; i++)
		points[i] = (char *)in->bug_points[i];
	out->n_bug_points = in->nbug_points < SC_SEARCH_LEVELS
			    ? in->nbug_points : SC_SEARCH_LEVELS;
	out->bug_points = points;
}

static void search_from_proto(const Scctl__SearchStats *in,
			      struct sc_search_stats *out)
{
	out->active = true;
	out->bound = in->bound;
	out->schedules = in->schedules;
	out->exhausted = in->exhausted;
	out->complete_bound = in->has_complete_bound ? in->complete_bound : -1;
	out->cache_hits = in->cache_hits;
	out->cache = in->cache;
	out->beyond_bound = in->beyond_bound;
	out->truncated = in->truncated;
	out->nondeterministic = in->nondeterministic;
	out->nondet_first_run = in->nondet_first_run;
	sc_strf(out->nondet_first, sizeof(out->nondet_first), "%s",
		in->nondet_first ? in->nondet_first : "");
	out->bug_preemptions = in->has_bug_preemptions ? in->bug_preemptions
			       : -1;
	memset(out->per_level, 0, sizeof(out->per_level));
	for (size_t l = 0; l < in->n_per_level && l < SC_SEARCH_LEVELS; l++)
		out->per_level[l] = in->per_level[l];
	out->nbug_points = 0;
	for (size_t i = 0; i < in->n_bug_points && i < SC_SEARCH_LEVELS; i++)
		sc_strf(out->bug_points[out->nbug_points++],
			sizeof(out->bug_points[0]), "%s", in->bug_points[i]);
}

/* What the session learnt is the state after the pilot runs up to its
 * last run, as with one job, whatever the jobs ran beyond it before they
 * stopped.  A search learns in its one job: its stats are the session's. */
static void learnt_from_pilot(struct launch *L)
{
	/* At race granularity the strategy's pilot follows the mem runs
	 * (sc_pilot_skip). */
	uint32_t skip = L->race ? (L->runs < SC_RACE_PILOT_RUNS ? L->runs
				   : SC_RACE_PILOT_RUNS) : 0;
	uint32_t last = L->last_run > skip ? L->last_run - skip : 0;
	uint32_t m = last < L->pilot_known ? last : L->pilot_known;

	if (L->strategy->done)
		return;
	if (m == 0) {
		/* The session stopped before the strategy's pilot (a bug in
		 * a race pilot run): nothing learnt, as with one job, even
		 * if another job had run a pilot run meanwhile. */
		L->learnt.runs = 0;
		L->learnt.max_points = 0;
		L->learnt.max_threads = 0;
		return;
	}
	L->learnt.runs = m;
	L->learnt.max_points = L->pilot_points[m - 1];
	L->learnt.max_threads = L->pilot_threads[m - 1];
}

static void send_summary(struct launch *L, double wall)
{
	Scctl__Reply reply = SCCTL__REPLY__INIT;
	Scctl__Summary s = SCCTL__SUMMARY__INIT;
	Scctl__PctBound pb = SCCTL__PCT_BOUND__INIT;
	Scctl__SearchStats ss = SCCTL__SEARCH_STATS__INIT;
	char *points[SC_SEARCH_LEVELS];
	struct sc_bound b;

	s.session = L->session.id;
	s.strategy = (char *)L->strategy_name;
	s.has_seed = 1;
	s.seed = L->base_seed;
	s.has_runs = 1;
	s.runs = L->completed;
	s.has_failing_runs = 1;
	s.failing_runs = L->failing;
	s.has_first_bug_run = 1;
	s.first_bug_run = L->first_bug_run;
	s.has_wall_seconds = 1;
	s.wall_seconds = wall;
	s.has_events = 1;
	s.events = L->events;
	s.n_bugs = L->nbugs;
	s.bugs = L->bugs;
	s.out_dir = L->session.dir;
	s.has_exit_code = 1;
	/* Bugs found come first: a session stopped (schedctl stop, a
	 * shutdown) or broken after finding some still tells a CI script
	 * that the program has a bug; the error is printed beside. */
	s.exit_code = L->failing ? 1 : L->fatal[0] ? 3 : 0;
	learnt_from_pilot(L);
	if (L->strategy->bound && L->strategy->bound(L->params, &L->learnt, &b)) {
		pb.has_depth = pb.has_threads = pb.has_points = 1;
		pb.has_per_run = pb.has_bug_free_runs = pb.has_miss = 1;
		pb.depth = b.depth;
		pb.threads = b.threads;
		pb.points = b.points;
		pb.per_run = b.per_run;
		pb.bug_free_runs = L->completed - L->failing;
		pb.miss = sc_miss_probability(b.per_run, pb.bug_free_runs);
		s.pct_bound = &pb;
	}
	/* Absent when the job's stats never came (it was killed). */
	if (L->strategy->done && L->learnt.search.active) {
		search_to_proto(&L->learnt.search, &ss, points);
		s.search = &ss;
	}
	reply.has_ok = 1;
	reply.ok = !L->fatal[0];
	if (L->fatal[0]) {
		reply.error = L->fatal;
		reply.has_exit_code = 1;
		reply.exit_code = 3;
	}
	reply.summary = &s;
	sc_worker_send(L->conn, &reply);
}

static void free_launch(struct launch *L)
{
	sc_strategy_session_free(&L->learnt);
	sc_store_close(L->store);
	free(L->plan);
	for (size_t i = 0; i < L->nbugs; i++)
		free_bug(L->bugs[i]);
	free(L->bugs);
	free(L->argv);
	free(L->envp);
	free(L->modules);
	free(L->sources);
}

/* ---- the session: its plan, its jobs, its index row (jobs.h, store.h) ---- */

/* The run numbers of this launch: 1..runs, or those of --shard I/N
 * (runs r with (r - 1) % N == I - 1: every N-th run, so that shards get
 * the same mix of early and late runs and their union is the session). */
static int make_plan(struct launch *L, char *err, size_t errlen)
{
	const Scctl__LaunchRequest *req = L->req;
	uint32_t n = req->has_shard_count && req->shard_count > 1
		     ? req->shard_count : 1;
	uint32_t first = n > 1 ? req->shard_index : 1;

	L->plan = malloc(((size_t)L->runs / n + 1) * sizeof(*L->plan));
	if (!L->plan) {
		sc_strf(err, errlen, "out of memory");
		return -1;
	}
	for (uint64_t r = first; r <= L->runs; r += n)
		L->plan[L->nplan++] = (uint32_t)r;
	if (L->nplan == 0) {
		sc_strf(err, errlen, "--shard %u/%u: no run of the %u run%s "
			 "falls in this shard", first, n, L->runs,
			 L->runs == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* --jobs J, default the number of CPUs we may use; never more than runs.
 * A systematic search runs in one job whatever --jobs says: each run
 * replays a prefix of the runs before it. */
static uint32_t jobs_wanted(const struct launch *L)
{
	int cpus[256];
	uint32_t j;

	if (L->strategy->done)
		return 1;
	j = L->req->has_jobs && L->req->jobs > 0 ? L->req->jobs
	    : (uint32_t)sc_jobs_cpus(cpus, 256);
	if (j > 256)
		j = 256;
	return j > L->nplan ? (uint32_t)L->nplan : j;
}

static void join_argv(const Scctl__LaunchRequest *req, const char *program,
		      char *buf, size_t len)
{
	char q[PATH_MAX * 2 + 64];
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < req->n_argv && o + 1 < len; i++) {
		sc_shell_quote(i == 0 ? program : req->argv[i], q, sizeof(q));
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", q);
	}
}

static int session_begin(struct launch *L, const struct sc_daemon *d,
			 char *err, size_t errlen)
{
	const Scctl__LaunchRequest *req = L->req;
	char argv[8192], shard[32] = "";
	struct sc_store_session ss = { 0 };

	if (make_plan(L, err, errlen) < 0)
		return -1;
	L->njobs = jobs_wanted(L);
	if (req->has_shard_count && req->shard_count > 1)
		sc_strf(shard, sizeof(shard), "%u/%u", req->shard_index,
			req->shard_count);
	join_argv(req, L->program, argv, sizeof(argv));
	ss.id = L->session.id;
	ss.kind = "launch";
	ss.argv = argv;
	ss.cwd = req->cwd;
	ss.strategy = L->strategy_name;
	ss.params = L->params;
	ss.out_dir = L->session.dir;
	ss.shard = shard;
	ss.base_seed = L->base_seed;
	ss.runs_planned = (uint32_t)L->nplan;
	ss.jobs = L->njobs;
	ss.pid = (int)getpid();
	if (sc_store_open(d->state_dir, true, &L->store, err, errlen) < 0)
		return -1;
	return sc_store_session_begin(L->store, &ss, err, errlen);
}

static bool tool_verdict(const char *v)
{
	return !v || strcmp(v, "error") == 0 || strcmp(v, "unknown") == 0 ||
	       strcmp(v, "diverged") == 0;
}

static Scctl__Bug *dup_bug(const Scctl__Bug *b)
{
	Scctl__Bug *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	scctl__bug__init(c);
	c->kind = xstrdup(b->kind);
	c->has_run = c->has_seed = 1;
	c->run = b->run;
	c->seed = b->seed;
	c->message = xstrdup(b->message);
	c->location = xstrdup(b->location);
	c->trace = xstrdup(b->trace);
	c->replay = xstrdup(b->replay);
	c->stderr_tail = xstrdup(b->stderr_tail);
	c->stdout_path = xstrdup(b->stdout_path);
	c->stderr_path = xstrdup(b->stderr_path);
	c->stacks = xstrdup(b->stacks);
	return c;
}

/* A passing run's reply within this long of the last one sent is
 * folded into the next (RunResult.delivered): at hundreds of runs a
 * second, a message and a wake-up of the client per run were a tenth of
 * the session worker's time, for a progress line drawn 10 times a
 * second. */
#define RUN_REPLY_FOLD_US 50000

/* Forward run reply r to the client, or fold it (RUN_REPLY_FOLD_US):
 * a failing run's, a tool failure's and one with a notice go at once. */
static void send_run(struct launch *L, const Scctl__Reply *r)
{
	const Scctl__RunResult *rr = r->run;
	int64_t now = sc_store_now_us();

	L->delivered++;
	if (!rr->bug && !r->notice && !tool_verdict(rr->verdict) &&
	    now - L->last_reply_us < RUN_REPLY_FOLD_US)
		return;
	Scctl__RunResult counted = *rr;
	Scctl__Reply reply = *r;

	counted.has_delivered = 1;
	counted.delivered = L->delivered;
	reply.run = &counted;
	sc_worker_send(L->conn, &reply);
	L->last_reply_us = now;
}

/* In the session, in run order (jobs.h): count, index, forward. */
static bool deliver_run(void *ctx, const Scctl__Reply *r)
{
	struct launch *L = ctx;
	const Scctl__RunResult *rr = r->run;
	char err[512];

	if (!rr)
		return true;
	if (rr->run > L->last_run)
		L->last_run = rr->run;
	send_run(L, r);
	if (tool_verdict(rr->verdict))
		return true;    /* not a completed run; the job says why */
	L->completed++;
	L->events += rr->steps;
	if (rr->bug) {
		L->failing++;
		if (L->first_bug_run < 0)
			L->first_bug_run = (int32_t)rr->run;
		if (L->nbugs < MAX_REPORTED_BUGS) {
			Scctl__Bug **nb = realloc(L->bugs, (L->nbugs + 1) *
						  sizeof(*nb));
			Scctl__Bug *b = dup_bug(rr->bug);

			if (nb)
				L->bugs = nb;
			if (nb && b)
				L->bugs[L->nbugs++] = b;
			else
				free_bug(b);
		}
	}
	if (sc_store_add_run(L->store, L->session.id, rr->run,
			     sc_run_seed(L->base_seed, rr->run), rr->verdict,
			     rr->steps, rr->wall_us, rr->trace, rr->bug, err,
			     sizeof(err)) < 0)
		sc_log("session %s: run %u: %s", L->session.id, rr->run, err);
	return !(rr->bug && !L->req->keep_going);
}

/* A run above the first bug: as if it had not run. */
static void discard_run(void *ctx, const Scctl__RunResult *rr)
{
	struct launch *L = ctx;
	struct run_files f;

	sc_session_run_path(&L->session, rr->run, "sctrace", f.trace,
			    sizeof(f.trace));
	sc_session_run_path(&L->session, rr->run, "out", f.out, sizeof(f.out));
	sc_session_run_path(&L->session, rr->run, "err", f.err, sizeof(f.err));
	unlink(f.trace);
	unlink(f.out);
	unlink(f.err);
}

/* A job's learnt state after each pilot run it ran: every job that ran
 * pilot run q learnt the same from runs 1..q (unless the engine's timing
 * made a run differ, which the log says). */
static void merge_pilot(struct launch *L, const Scctl__LearntStats *s)
{
	size_t n = s->n_pilot_points < s->n_pilot_threads ? s->n_pilot_points
		   : s->n_pilot_threads;

	if (n > SC_PILOT_RUNS)
		n = SC_PILOT_RUNS;
	for (size_t i = 0; i < n; i++) {
		if (i < L->pilot_known &&
		    (L->pilot_points[i] != s->pilot_points[i] ||
		     L->pilot_threads[i] != s->pilot_threads[i]))
			sc_log("session %s: pilot run %zu: jobs learnt different "
			       "points/threads (%" PRIu64 "/%u, %" PRIu64 "/%u)",
			       L->session.id, i + 1, L->pilot_points[i],
			       L->pilot_threads[i], s->pilot_points[i],
			       s->pilot_threads[i]);
		L->pilot_points[i] = s->pilot_points[i];
		L->pilot_threads[i] = s->pilot_threads[i];
	}
	if (n > L->pilot_known)
		L->pilot_known = (uint32_t)n;
}

static void merge_learnt(void *ctx, const Scctl__LearntStats *s)
{
	struct launch *L = ctx;

	merge_pilot(L, s);
	L->learnt.runs += s->runs;
	if (s->max_points > L->learnt.max_points)
		L->learnt.max_points = s->max_points;
	if (s->max_threads > L->learnt.max_threads)
		L->learnt.max_threads = s->max_threads;
	/* A search runs in one job: its stats are the session's. */
	if (s->search)
		search_from_proto(s->search, &L->learnt.search);
}

/* One job's process: its share of the plan, replies to fd. */
static int job_child(void *ctx, int fd, uint32_t job, int cpu)
{
	struct launch *L = ctx;
	Scctl__Reply reply = SCCTL__REPLY__INIT;
	Scctl__LearntStats ls = SCCTL__LEARNT_STATS__INIT;
	Scctl__SearchStats ss = SCCTL__SEARCH_STATS__INIT;
	char *points[SC_SEARCH_LEVELS];
	int code = 0;

	sc_worker_forget_client();
	close(L->conn);
	sc_store_close(L->store);
	L->store = NULL;
	L->conn = fd;
	L->cpu = cpu;
	if (sc_pilot_init(&L->pilot, &L->learnt, L->runs,
			  !L->strategy->create || L->strategy->done ||
			  L->strategy->stateless) < 0)
		sc_strf(L->fatal, sizeof(L->fatal), "out of memory");
	sc_race_pilot_init(&L->race_pilot, L->runs);
	if (L->race)
		sc_pilot_skip(&L->pilot, L->runs, L->race_pilot.first);
	for (size_t p = job; p < L->nplan && !L->fatal[0]; p += L->njobs) {
		if (!catch_up(L, L->plan[p]))
			break;
		if (sc_worker_cancel || !sc_jobs_may_start(L->plan[p]))
			break;
		if (!one_run(L, L->plan[p]))
			break;
		/* A systematic search that explored everything stops
		 * before --runs. */
		if (L->strategy->done && L->strategy->done(&L->learnt))
			break;
	}
	sc_fork_server_stop(L->server);
	L->server = NULL;
	if (L->server_stdio_open)
		sc_server_stdio_close(&L->server_stdio);
	L->server_stdio_open = false;
	reply.has_ok = 1;
	reply.ok = !L->fatal[0];
	if (L->fatal[0])
		reply.error = L->fatal;
	ls.has_runs = ls.has_max_points = ls.has_max_threads = 1;
	ls.runs = L->learnt.runs;
	ls.max_points = L->learnt.max_points;
	ls.max_threads = L->learnt.max_threads;
	ls.n_pilot_points = ls.n_pilot_threads = L->pilot.done;
	ls.pilot_points = L->pilot.points;
	ls.pilot_threads = L->pilot.threads;
	if (L->learnt.search.active) {
		search_to_proto(&L->learnt.search, &ss, points);
		ls.search = &ss;
	}
	reply.learnt = &ls;
	sc_worker_send(fd, &reply);
	code = L->fatal[0] ? 3 : 0;
	/* The job ends here (jobs.c _exits): release the search. */
	sc_strategy_session_free(&L->learnt);
	sc_pilot_free(&L->pilot);
	sc_race_pilot_free(&L->race_pilot);
	return code;
}

/* Nothing from the jobs for a moment: commit the runs batched so far. */
static void flush_runs(void *ctx)
{
	struct launch *L = ctx;
	char err[512];

	if (sc_store_flush(L->store, err, sizeof(err)) < 0)
		sc_log("session %s: %s", L->session.id, err);
}

static void run_jobs(struct launch *L)
{
	struct sc_jobs J = {
		.njobs = L->njobs,
		.plan = L->plan,
		.nplan = L->nplan,
		.stop_at_first_bug = !L->req->keep_going,
		.child = job_child,
		.deliver = deliver_run,
		.discard = discard_run,
		.learnt = merge_learnt,
		.idle = flush_runs,
		.ctx = L,
	};

	if (sc_jobs_run(&J, L->fatal, sizeof(L->fatal)) < 0 && !L->fatal[0])
		sc_strf(L->fatal, sizeof(L->fatal), "the jobs failed");
	if (sc_worker_cancel && !L->fatal[0])
		sc_strf(L->fatal, sizeof(L->fatal), "interrupted after %u run%s%s",
			L->completed, L->completed == 1 ? "" : "s", sc_worker_stop_requested
			? " (schedctl stop)" : sc_worker_terminated
			? sc_worker_cancel_reason() : "");
}

static void session_end(struct launch *L)
{
	const char *state = "done";
	char err[512];

	if (sc_worker_stop_requested ||
	    (sc_worker_client_gone && !sc_worker_terminated))
		state = "stopped";
	else if (sc_worker_terminated)
		state = "interrupted";
	/* Before the state: whoever waits for the session to end (status,
	 * results) then finds what the search covered. */
	if (L->strategy->done && L->learnt.search.active) {
		Scctl__SearchStats ss = SCCTL__SEARCH_STATS__INIT;
		char *points[SC_SEARCH_LEVELS];

		search_to_proto(&L->learnt.search, &ss, points);
		if (sc_store_set_search(L->store, L->session.id, &ss, err,
					sizeof(err)) < 0)
			sc_log("session %s: %s", L->session.id, err);
	}
	if (sc_store_session_end(L->store, L->session.id, state,
				 L->fatal[0] ? 3 : L->failing ? 1 : 0, L->fatal,
				 err, sizeof(err)) < 0)
		sc_log("session %s: %s", L->session.id, err);
}

/* The CLI passed the program's input: copy it into the session. */
static int take_stdin(struct launch *L, const int *fds, size_t nfds,
		      char *err, size_t errlen)
{
	if (!L->req->stdin_fd)
		return 0;
	if (nfds < 1) {
		sc_strf(err, errlen, "launch: the request says it passes the "
			"program's standard input, but no descriptor came");
		return -1;
	}
	sc_strf(L->stdin_path, sizeof(L->stdin_path), "%s/%s",
		L->session.dir, SC_STDIN_NAME);
	if (sc_stdin_copy(fds[0], L->conn, L->stdin_path, &L->stdin_size, err,
			  errlen) < 0) {
		L->stdin_path[0] = '\0';
		return -1;
	}
	return 0;
}

int sc_worker_launch(int conn, const Scctl__LaunchRequest *req,
		     const int *fds, size_t nfds, const struct sc_daemon *d)
{
	struct launch L = { .conn = conn, .req = req, .first_bug_run = -1,
			    .learnt.search.bug_preemptions = -1 };
	Scctl__Reply first = SCCTL__REPLY__INIT;
	char err[2048];
	double t0 = sc_mono_seconds();
	int code;

	code = check_request(&L, err, sizeof(err));
	if (code) {
		sc_reply_error(conn, code, "%s", err);
		return code;
	}
	L.argv = sc_strv(req->argv, req->n_argv);
	L.envp = sc_strv(req->env, req->n_env);
	if (!L.argv || !L.envp) {
		sc_reply_error(conn, 3, "out of memory");
		free_launch(&L);
		return 3;
	}
	L.argv[0] = L.program;
	L.env_digest = sc_env_digest(L.envp);
	L.base_seed = req->has_seed ? req->seed : random_seed();
	clock_bases(&L);
	L.cpu = sched_getcpu();
	if (sc_session_create(d->state_dir, req->out_dir, &L.session, err,
			      sizeof(err)) < 0 ||
	    take_stdin(&L, fds, nfds, err, sizeof(err)) < 0 ||
	    write_params(&L, err, sizeof(err)) < 0) {
		sc_reply_error(conn, 3, "%s", err);
		free_launch(&L);
		return 3;
	}
	sc_log("session %s: %u runs of %s, strategy %s, seed 0x%" PRIx64,
	       L.session.id, L.runs, L.program, L.strategy_name, L.base_seed);
	first.has_ok = 1;
	first.ok = 1;
	first.session = L.session.id;
	first.has_planned_runs = 1;
	if (session_begin(&L, d, err, sizeof(err)) < 0) {
		sc_reply_error(conn, 3, "%s", err);
		free_launch(&L);
		return 3;
	}
	first.planned_runs = (uint32_t)L.nplan;
	sc_worker_send(conn, &first);
	if (req->detach)
		sc_worker_detach(conn);
	run_jobs(&L);
	/* The index first: whoever reads the summary may query it. */
	session_end(&L);
	send_summary(&L, sc_mono_seconds() - t0);
	sc_log("session %s: %u runs, %u failing%s%s", L.session.id, L.completed,
	       L.failing, L.fatal[0] ? ", stopped: " : "", L.fatal);
	code = L.fatal[0] ? 3 : L.failing ? 1 : 0;
	free_launch(&L);
	return code;
}
