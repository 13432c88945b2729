/*
 * cmd_launch.c - schedctl launch [OPTIONS] -- PROGRAM [ARGS...]
 *
 * Checks the options and the program here (fast errors without a
 * daemon), then sends one LaunchRequest and prints the streamed replies.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "strategy/strategy.h"
#include "tracer.h"

static const char launch_usage[] =
"Usage: schedctl launch [OPTIONS] [--] PROGRAM [ARGS...]\n"
"Run PROGRAM many times, one thread at a time, under schedules chosen by a\n"
"strategy, and report the runs that fail (crash, assert, non-zero exit,\n"
"deadlock, hang).\n"
"\n"
"  -s, --strategy NAME     random, pct, pos, pos-rw, noise, speed, urw,\n"
"                          surw, portfolio, mix, chess or native\n"
"                          (default: " SC_DEFAULT_STRATEGY ")\n"
"      --depth D           pct: the bug depth to aim at, 1 to 64 (default 3)\n"
"      --noise KIND        noise: white (fixed --p), random (p drawn per\n"
"                          run) or best (p = 1/(1 + C n), n locations\n"
"                          seen; noise at half of them) (default white)\n"
"      --p P               noise white: yield probability (default 0.1)\n"
"      --c C               noise best: C of p = 1/(1 + C n) (default 1/3)\n"
"      --preemptions C     chess: explore every schedule with at most C\n"
"                          preemptions, 0 to 16 (default 2)\n"
"      --no-cache          chess: no happens-before state caching (states\n"
"                          reached again are explored again)\n"
"  -n, --runs N            number of runs (default 100; -s chess: 10000,\n"
"                          and it stops sooner when exhausted)\n"
"      --seed S            base seed, decimal or 0x hex (default: random)\n"
"      --max-steps N       scheduling steps per run before a hang\n"
"                          (default 1000000; 0: no limit); memory\n"
"                          events of mem granularity have 100 x N\n"
"      --timeout SECONDS   wall-clock limit per run, fractions allowed\n"
"                          (default 60; 0: no limit)\n"
"      --keep-going        do not stop at the first failing run\n"
"      --out DIR           put traces and outputs in DIR\n"
"                          (default: STATE/sessions/ID)\n"
"      --keep-traces WHICH failing (default: failing runs and run 1),\n"
"                          all, or none\n"
"      --json              print one JSON object instead of the report\n"
"      --timeouts MODE     lazy (default: timed waits expire only when no\n"
"                          other thread can run) or eager\n"
"      --granularity G     scheduling points: race (default: sync plus\n"
"                          the instructions seen racing in the first\n"
"                          runs, which run at mem over the program's own\n"
"                          code; -s chess and native: sync), sync\n"
"                          (thread, futex and libc synchronisation\n"
"                          calls) or mem (also every shared-memory\n"
"                          access of the instrumented code)\n"
"      --follow-forks      schedule the threads of forked child processes\n"
"                          too (default: children run uncontrolled;\n"
"                          implied when PROGRAM is a #! script, which is\n"
"                          run by its interpreter; a text file without\n"
"                          #! runs with /bin/sh, as execvp(3) does)\n"
"      --stdin FILE        the program's standard input (default: ours,\n"
"                          unless a terminal: then /dev/null); read once\n"
"                          into the session (at most 256 MiB), and every\n"
"                          run and replay reads it all from the start\n"
"      --instrument MODULE with mem: also instrument the shared object\n"
"                          whose file name starts with MODULE (repeatable)\n"
"      --instrument-source FILE  with mem: only instructions from source\n"
"                          FILE (DWARF line tables; repeatable)\n"
"      --slice-us N        advanced: microseconds of CPU time a thread may\n"
"                          run without a scheduling point, while another\n"
"                          could run, before it is looked at: preempted\n"
"                          if it spins, after 250 slices if it computes\n"
"                          (default 2000)\n"
"      --socket PATH       daemon control socket\n"
"  -h, --help              show this help and exit\n"
"\n"
"  -j, --jobs J            run J runs at once, each job pinned with its\n"
"                          program to its own CPU (default: $SCHEDCTL_JOBS,\n"
"                          else the number of CPUs); same results as\n"
"                          --jobs 1; -s chess always runs in one job;\n"
"                          1 with --follow-forks (and for a script)\n"
"      --shard I/N         run only shard I of N: the runs r with\n"
"                          (r - 1) % N == I - 1 (same seeds as unsharded);\n"
"                          not with -s chess\n"
"      --detach            print the session id and return at once; the\n"
"                          session goes on (schedctl status, results, stop)\n"
"Exit status: 0 no bug, 1 bug found, 2 usage error, 3 the tool or the\n"
"program could not run.\n";

enum {
	OPT_SEED = 2000, OPT_MAX_STEPS, OPT_TIMEOUT, OPT_KEEP_GOING, OPT_OUT,
	OPT_JSON, OPT_SLICE, OPT_TIMEOUTS, OPT_GRAN, OPT_SHARD,
	OPT_DETACH, OPT_KEEP_TRACES, OPT_DEPTH, OPT_INSTRUMENT, OPT_INSTRUMENT_SRC,
	OPT_FOLLOW_FORKS, OPT_NOISE, OPT_NOISE_P, OPT_NOISE_C, OPT_PREEMPTIONS,
	OPT_NO_CACHE, OPT_STDIN,
};

static const struct option launch_opts[] = {
	{ "strategy", required_argument, NULL, 's' },
	{ "runs", required_argument, NULL, 'n' },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "keep-traces", required_argument, NULL, OPT_KEEP_TRACES },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "slice-us", required_argument, NULL, OPT_SLICE },
	{ "timeouts", required_argument, NULL, OPT_TIMEOUTS },
	{ "granularity", required_argument, NULL, OPT_GRAN },
	{ "jobs", required_argument, NULL, 'j' },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "detach", no_argument, NULL, OPT_DETACH },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "instrument", required_argument, NULL, OPT_INSTRUMENT },
	{ "instrument-source", required_argument, NULL, OPT_INSTRUMENT_SRC },
	{ "follow-forks", no_argument, NULL, OPT_FOLLOW_FORKS },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "p", required_argument, NULL, OPT_NOISE_P },
	{ "c", required_argument, NULL, OPT_NOISE_C },
	{ "preemptions", required_argument, NULL, OPT_PREEMPTIONS },
	{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "stdin", required_argument, NULL, OPT_STDIN },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define MAX_INSTRUMENT 64
/* What runs a script without #! (execvp(3)'s _PATH_BSHELL). */
#define SHELL_FOR_SCRIPTS "/bin/sh"

struct launch_opts {
	Scctl__LaunchRequest req;
	char *modules[MAX_INSTRUMENT];      /* --instrument */
	char *sources[MAX_INSTRUMENT];      /* --instrument-source */
	bool json;
	uint32_t depth;             /* --depth, 0 when not given */
	const char *noise, *noise_p, *noise_c;  /* --noise, --p, --c */
	bool preemptions_given;     /* --preemptions */
	uint32_t preemptions;
	bool no_cache;              /* --no-cache */
	const char *stdin_file;     /* --stdin */
	char params[128];           /* strategy_params built from them */
};

static int check_strategy(const char *name)
{
	if (sc_strategy_find(name))
		return 0;
	if (sc_strategy_planned(name))
		return cli_usage_error("strategy '%s' is not implemented yet "
				       "(known: %s)", name, sc_strategy_list());
	return cli_usage_error("unknown strategy '%s' (known: %s)", name,
			       sc_strategy_list());
}

/* One option; returns 0, or the exit status. */
static int parse_one(int c, struct launch_opts *o)
{
	Scctl__LaunchRequest *req = &o->req;

	switch (c) {
	case 's':
		req->strategy = optarg;
		return check_strategy(optarg);
	case 'n':
		if (cli_parse_u32("--runs", optarg, &req->runs) < 0)
			return EXIT_USAGE;
		if (req->runs == 0)
			return cli_usage_error("--runs: must be at least 1");
		req->has_runs = 1;
		return 0;
	case OPT_SEED:
		if (cli_parse_seed("--seed", optarg, &req->seed) < 0)
			return EXIT_USAGE;
		req->has_seed = 1;
		return 0;
	case OPT_MAX_STEPS:
		if (cli_parse_u64("--max-steps", optarg, &req->max_steps) < 0)
			return EXIT_USAGE;
		req->has_max_steps = 1;
		return 0;
	case OPT_TIMEOUT:
		if (cli_parse_seconds("--timeout", optarg, &req->timeout_ms) < 0)
			return EXIT_USAGE;
		req->has_timeout_ms = 1;
		return 0;
	case OPT_KEEP_GOING:
		req->has_keep_going = req->keep_going = 1;
		return 0;
	case OPT_OUT:
		if (!*optarg)
			return cli_usage_error("--out: empty directory name");
		req->out_dir = optarg;
		return 0;
	case OPT_KEEP_TRACES:
		if (strcmp(optarg, "failing") && strcmp(optarg, "all") &&
		    strcmp(optarg, "none"))
			return cli_usage_error("--keep-traces: unknown value '%s' "
					       "(known: failing, all, none)", optarg);
		req->keep_traces = optarg;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_SLICE:
		if (cli_parse_u32("--slice-us", optarg, &req->slice_us) < 0)
			return EXIT_USAGE;
		/* 0 quietly meant the default (QA). */
		if (req->slice_us == 0)
			return cli_usage_error("--slice-us: must be at least 1");
		req->has_slice_us = 1;
		return 0;
	case OPT_TIMEOUTS:
		if (strcmp(optarg, "lazy") && strcmp(optarg, "eager"))
			return cli_usage_error("--timeouts: unknown mode '%s' "
					       "(known: lazy, eager)", optarg);
		req->has_eager_timeouts = 1;
		req->eager_timeouts = strcmp(optarg, "eager") == 0;
		return 0;
	case OPT_GRAN:
		if (strcmp(optarg, "sync") && strcmp(optarg, "mem") &&
		    strcmp(optarg, "race"))
			return cli_usage_error("--granularity: unknown value '%s' "
					       "(known: sync, race, mem)", optarg);
		req->granularity = optarg;
		return 0;
	case OPT_INSTRUMENT:
		if (req->n_instrument_modules >= MAX_INSTRUMENT)
			return cli_usage_error("--instrument: at most %d modules",
					       MAX_INSTRUMENT);
		if (!*optarg)
			return cli_usage_error("--instrument: an empty module "
					       "name matches every module");
		o->modules[req->n_instrument_modules++] = optarg;
		req->instrument_modules = o->modules;
		return 0;
	case OPT_FOLLOW_FORKS:
		req->has_follow_forks = 1;
		req->follow_forks = 1;
		return 0;
	case OPT_INSTRUMENT_SRC:
		if (req->n_instrument_sources >= MAX_INSTRUMENT)
			return cli_usage_error("--instrument-source: at most %d "
					       "files", MAX_INSTRUMENT);
		if (!*optarg)
			return cli_usage_error("--instrument-source: no file "
					       "given");
		o->sources[req->n_instrument_sources++] = optarg;
		req->instrument_sources = o->sources;
		return 0;
	case 'j':
		if (cli_parse_u32("--jobs", optarg, &req->jobs) < 0)
			return EXIT_USAGE;
		if (req->jobs < 1 || req->jobs > 256)
			return cli_usage_error("--jobs: must be from 1 to 256");
		req->has_jobs = 1;
		return 0;
	case OPT_SHARD:
		if (cli_parse_shard(optarg, &req->shard_index,
				    &req->shard_count) < 0)
			return EXIT_USAGE;
		req->has_shard_index = req->has_shard_count = 1;
		return 0;
	case OPT_DETACH:
		req->has_detach = req->detach = 1;
		return 0;
	case OPT_DEPTH:
		if (cli_parse_u32("--depth", optarg, &o->depth) < 0)
			return EXIT_USAGE;
		if (o->depth < 1 || o->depth > SC_PCT_MAX_DEPTH)
			return cli_usage_error("--depth: must be from 1 to %d",
					       SC_PCT_MAX_DEPTH);
		return 0;
	case OPT_NOISE:
		o->noise = optarg;
		return 0;
	case OPT_NOISE_P:
		o->noise_p = optarg;
		return 0;
	case OPT_NOISE_C:
		o->noise_c = optarg;
		return 0;
	case OPT_PREEMPTIONS:
		if (cli_parse_u32("--preemptions", optarg, &o->preemptions) < 0)
			return EXIT_USAGE;
		if (o->preemptions > SC_CHESS_MAX_PREEMPTIONS)
			return cli_usage_error("--preemptions: must be from 0 to %d",
					       SC_CHESS_MAX_PREEMPTIONS);
		o->preemptions_given = true;
		return 0;
	case OPT_NO_CACHE:
		o->no_cache = true;
		return 0;
	case OPT_STDIN:
		if (!*optarg)
			return cli_usage_error("--stdin: empty file name");
		o->stdin_file = optarg;
		return 0;
	case OPT_SOCKET:
		cli_socket = optarg;
		return 0;
	}
	return EXIT_USAGE;
}

/* --noise, --p, --c: "noise=KIND,p=P,c=C" for -s noise, checked by the
 * strategy itself so that the CLI and the daemon agree. */
static int noise_params(struct launch_opts *o)
{
	const struct sc_strategy *s = sc_strategy_find("noise");
	struct sc_policy p;
	char err[256];
	int n;

	if (!o->req.strategy || strcmp(o->req.strategy, "noise") != 0 || !s)
		return cli_usage_error("--noise, --p and --c: only for -s noise");
	n = snprintf(o->params, sizeof(o->params), "noise=%s%s%s%s%s",
		     o->noise ? o->noise : "white",
		     o->noise_p ? ",p=" : "", o->noise_p ? o->noise_p : "",
		     o->noise_c ? ",c=" : "", o->noise_c ? o->noise_c : "");
	if (n < 0 || (size_t)n >= sizeof(o->params))
		return cli_usage_error("--noise, --p, --c: values too long");
	if (s->create(o->params, 0, 1, NULL, &p, err, sizeof(err)) < 0)
		return cli_usage_error("%s", err);
	s->destroy(&p);
	o->req.strategy_params = o->params;
	return 0;
}

/* --preemptions, --no-cache: "preemptions=C,cache=0" for -s chess. */
static int chess_params(struct launch_opts *o)
{
	const char *s = o->req.strategy;

	if (!s || strcmp(s, "chess") != 0)
		return cli_usage_error("%s: only for -s chess",
				       o->preemptions_given ? "--preemptions"
				       : "--no-cache");
	if (o->preemptions_given)
		snprintf(o->params, sizeof(o->params), "preemptions=%u%s",
			 o->preemptions, o->no_cache ? ",cache=0" : "");
	else
		snprintf(o->params, sizeof(o->params), "cache=0");
	o->req.strategy_params = o->params;
	return 0;
}

/* A --stdin FILE we opened; our own stdin stays. */
static void close_input(int fd)
{
	if (fd > STDIN_FILENO)
		close(fd);
}

static uint64_t fresh_seed(void)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), 0) != sizeof(s))
		s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	return s;
}

/* How long the daemon may read a pipe given as the program's input
 * before we say why nothing happens: it reads it to its end first. */
#define STDIN_NOTICE_MS 2000

/* Wait for the daemon's first reply; when infd is a pipe or a socket
 * still open after STDIN_NOTICE_MS (`sleep 60 | schedctl launch ...`),
 * say that its end is awaited, once. */
static void await_first_reply(int fd, int infd)
{
	struct stat st;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (infd < 0 || fstat(infd, &st) < 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return;
	if (poll(&p, 1, STDIN_NOTICE_MS) == 0)
		cli_error("waiting for the end of standard input: the "
			  "program's input is read whole before the first run "
			  "(give --stdin FILE, or </dev/null when it reads "
			  "none)");
}

/* LeakSanitizer (on by default in AddressSanitizer builds) stops the
 * program's threads with ptrace at exit, which it cannot do under ours:
 * every run ended with its fatal error and exit status 1.  Turn the leak
 * check off, unless the user's options already say, and tell. */
static void leak_check_off(const char *program, const char *elf)
{
	int kind = sc_leak_sanitizer(elf);
	const char *var = kind == SC_SANITIZER_ASAN ? "ASAN_OPTIONS"
			  : kind == SC_SANITIZER_LSAN ? "LSAN_OPTIONS" : NULL;
	const char *old = var ? getenv(var) : NULL;
	char value[4096];

	if (!var || (old && strstr(old, "detect_leaks")))
		return;
	snprintf(value, sizeof(value), "%s%sdetect_leaks=0", old ? old : "",
		 old && *old ? ":" : "");
	if (setenv(var, value, 1) < 0)
		return;
	cli_error("%s is built with LeakSanitizer, which cannot run under "
		  "ptrace: leak checks off (%s=%s)", program, var, value);
}

/* UndefinedBehaviorSanitizer, as gcc builds it by default, prints its
 * report and goes on: the run exited 0 and passed, its report unread.
 * Make the first report end the run (it is then reported by it), unless
 * the user's options already say, and tell. */
static void ubsan_halts(const char *program, const char *elf)
{
	const char *old = getenv("UBSAN_OPTIONS");
	char value[4096];

	if ((old && strstr(old, "halt_on_error")) || !sc_ubsan_runtime(elf))
		return;
	snprintf(value, sizeof(value), "%s%shalt_on_error=1", old ? old : "",
		 old && *old ? ":" : "");
	if (setenv("UBSAN_OPTIONS", value, 1) < 0)
		return;
	cli_error("%s is built with UndefinedBehaviorSanitizer: its first "
		  "report ends the run (UBSAN_OPTIONS=%s)", program, value);
}

int cmd_launch(int argc, char **argv)
{
	struct launch_opts o = { .req = SCCTL__LAUNCH_REQUEST__INIT };
	Scctl__Request req = SCCTL__REQUEST__INIT;
	struct launch_report rep = { 0 };
	char resolved[PATH_MAX], why[PATH_MAX + 256], cwd[PATH_MAX];
	char **args, script[PATH_MAX];
	const struct sc_strategy *s;
	struct sc_program_info info;
	int c, fd, code, infd = -1;

	opterr = 0;
	/* 0, not 1: glibc then re-reads the optstring's ordering flag. */
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:s:n:j:h", launch_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(launch_usage, stdout);
			return 0;
		}
		if (c == '?' || c == ':')
			return cli_bad_option(c, argv);
		code = parse_one(c, &o);
		if (code)
			return code;
	}
	if (o.depth) {
		if (!o.req.strategy || strcmp(o.req.strategy, "pct") != 0)
			return cli_usage_error("--depth: only for -s pct");
		snprintf(o.params, sizeof(o.params), "depth=%u", o.depth);
		o.req.strategy_params = o.params;
	}
	if (o.noise || o.noise_p || o.noise_c) {
		code = noise_params(&o);
		if (code)
			return code;
	}
	if (o.preemptions_given || o.no_cache) {
		code = chess_params(&o);
		if (code)
			return code;
	}
	/* The daemon says so too; here without starting one. */
	if (o.req.has_shard_count && o.req.strategy &&
	    (s = sc_strategy_find(o.req.strategy)) && s->done)
		return cli_usage_error("--shard: -s %s is a systematic search "
				       "and cannot be split into shards",
				       o.req.strategy);
	if (!o.req.has_jobs && getenv("SCHEDCTL_JOBS") && *getenv("SCHEDCTL_JOBS")) {
		if (cli_parse_u32("SCHEDCTL_JOBS", getenv("SCHEDCTL_JOBS"),
				  &o.req.jobs) < 0)
			return EXIT_USAGE;
		if (o.req.jobs < 1 || o.req.jobs > 256)
			return cli_usage_error("SCHEDCTL_JOBS: must be from 1 to 256");
		o.req.has_jobs = 1;
	}
	if (optind >= argc || argv[optind][0] == '\0')
		return cli_usage_error("launch: no program given (schedctl launch "
				       "[OPTIONS] -- PROGRAM [ARGS...])");
	/* What runs: the program and its arguments; for a script without
	 * #!, /bin/sh with the script and its arguments, as execvp(3) and
	 * the shells run it (the trace records that command).  args[0]
	 * becomes the resolved path: the daemon does not search our PATH,
	 * and replay needs the same file. */
	size_t nprog = (size_t)(argc - optind);
	bool shebangless = sc_shell_script_without_shebang(
		argv[optind], getenv("PATH"), script, sizeof(script)) == 1;
	args = calloc(nprog + 2, sizeof(*args));
	if (!args) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	if (shebangless) {
		args[0] = (char *)SHELL_FOR_SCRIPTS;
		args[1] = script;
		memcpy(args + 2, argv + optind + 1, (nprog - 1) * sizeof(*args));
		nprog++;
	} else {
		memcpy(args, argv + optind, nprog * sizeof(*args));
	}
	code = EXIT_FAIL;
	if (sc_check_program_info(args[0], getenv("PATH"), resolved,
				  sizeof(resolved), &info, why,
				  sizeof(why)) < 0) {
		cli_error("%s", why);
		goto out;
	}
	leak_check_off(args[0], info.script ? info.elf : resolved);
	ubsan_halts(args[0], info.script ? info.elf : resolved);
	args[0] = resolved;
	/* The kernel runs a script by its interpreter, which starts the
	 * real work in child processes (or execs it): follow them, or
	 * nothing of interest would be scheduled. */
	if ((info.script || shebangless) && !o.req.follow_forks) {
		cli_error("%s is a script run by %s%s; following its child "
			  "processes (--follow-forks)", argv[optind],
			  shebangless ? SHELL_FOR_SCRIPTS : info.interpreter,
			  shebangless ? " (it has no #! line: as the shells "
					"and execvp(3) run it)" : "");
		o.req.has_follow_forks = o.req.follow_forks = 1;
	}
	/* A script and the programs it starts share files in their working
	 * directory (make's objects, a test's output file): two runs at once
	 * clobbered each other's and made a false bug.  One at a time unless
	 * the user asks for more. */
	if (o.req.follow_forks && !o.req.has_jobs &&
	    !(o.req.strategy && (s = sc_strategy_find(o.req.strategy)) &&
	      s->done)) {
		cli_error("following child processes: one run at a time, as "
			  "they may share files in the working directory "
			  "(--jobs N to run N at once)");
		o.req.has_jobs = 1;
		o.req.jobs = 1;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		cli_error("getcwd: %s", strerror(errno));
		goto out;
	}
	code = cli_launch_stdin(o.stdin_file, &infd);
	if (code)
		goto out;
	if (infd >= 0)
		o.req.has_stdin_fd = o.req.stdin_fd = 1;
	o.req.argv = args;
	o.req.n_argv = nprog;
	o.req.cwd = cwd;
	o.req.env = cli_environment(&o.req.n_env);
	if (!o.req.env) {
		cli_error("out of memory");
		code = EXIT_FAIL;
		goto out;
	}
	if (!o.req.has_seed) {
		o.req.has_seed = 1;
		o.req.seed = fresh_seed();
	}
	req.launch = &o.req;

	rep.program = argv[optind];
	rep.strategy = o.req.strategy ? o.req.strategy : SC_DEFAULT_STRATEGY;
	rep.granularity = o.req.granularity;
	rep.seed = o.req.seed;
	rep.json = o.json;
	rep.progress = !o.json && isatty(STDERR_FILENO);

	fd = cli_connect(true, NULL);
	if (fd < 0) {
		code = EXIT_FAIL;
		goto out;
	}
	if (!o.req.detach)
		cli_stop_on_interrupt(fd);
	if (cli_send(fd, &req, infd >= 0 ? &infd : NULL,
		     infd >= 0 ? 1 : 0) < 0) {
		code = EXIT_FAIL;
	} else {
		await_first_reply(fd, infd);
		code = cli_stream_launch(fd, &rep, o.req.detach, "launch");
	}
	close(fd);
	report_launch_free(&rep);
out:
	close_input(infd);
	free(o.req.env);
	free(args);
	return code;
}
