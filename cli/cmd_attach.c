/*
 * cmd_attach.c - schedctl attach PID [OPTIONS]
 *
 * Control a running process for a while: the daemon seizes its threads,
 * schedules them with a strategy and records a trace, then detaches and
 * leaves the process running.  Reported like a launch of one run.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "strategy/strategy.h"

static const char attach_usage[] =
"Usage: schedctl attach PID [OPTIONS]\n"
"Take control of the running process PID: seize its threads, schedule\n"
"them one at a time with a strategy from their next scheduling points on,\n"
"record a trace, and after --duration (or when it exits, or on Ctrl-C or\n"
"schedctl stop) detach, leaving it running as before.  No seccomp filter\n"
"is left behind.  Reported like a launch of one run.\n"
"\n"
"  -s, --strategy NAME     random, pct, pos, pos-rw, noise, speed, urw,\n"
"                          surw, portfolio or mix (default: "
SC_DEFAULT_STRATEGY ")\n"
"      --seed S            seed, decimal or 0x hex (default: random)\n"
"      --duration SECONDS  how long to keep control (default, or 0: until\n"
"                          the process exits or the session is stopped)\n"
"      --max-steps N       scheduling steps before a hang (default: none)\n"
"      --out DIR           put the trace in DIR (default: STATE/sessions/ID)\n"
"      --json              print one JSON object (launch --json's)\n"
"      --socket PATH       daemon control socket\n"
"  -h, --help              show this help and exit\n"
"\n"
"Exit status: 0 no bug seen, 1 bug seen, 2 usage error, 3 the process\n"
"could not be attached (no such process, not allowed, already traced).\n";

enum { OPT_SEED = 4000, OPT_DURATION, OPT_MAX_STEPS, OPT_OUT, OPT_JSON };

static const struct option attach_opts[] = {
	{ "strategy", required_argument, NULL, 's' },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_attach(int argc, char **argv)
{
	Scctl__AttachRequest ar = SCCTL__ATTACH_REQUEST__INIT;
	Scctl__Request req = SCCTL__REQUEST__INIT;
	struct launch_report rep = { 0 };
	char cwd[PATH_MAX], program[64], *end;
	bool json = false;
	long pid;
	int c, fd, code;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":s:h", attach_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(attach_usage, stdout);
			return 0;
		case 's':
			if (!sc_strategy_find(optarg) ||
			    !sc_strategy_find(optarg)->create)
				return cli_usage_error("attach: strategy '%s' cannot "
						       "control a process (attach takes: %s)",
						       optarg, SC_ATTACH_STRATEGIES);
			ar.strategy = optarg;
			break;
		case OPT_SEED:
			if (cli_parse_seed("--seed", optarg, &ar.seed) < 0)
				return EXIT_USAGE;
			ar.has_seed = 1;
			break;
		case OPT_DURATION:
			if (cli_parse_seconds("--duration", optarg,
					      &ar.duration_ms) < 0)
				return EXIT_USAGE;
			ar.has_duration_ms = 1;
			break;
		case OPT_MAX_STEPS:
			if (cli_parse_u64("--max-steps", optarg, &ar.max_steps) < 0)
				return EXIT_USAGE;
			ar.has_max_steps = 1;
			break;
		case OPT_OUT:
			if (!*optarg)
				return cli_usage_error("--out: empty directory name");
			ar.out_dir = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_SOCKET:
			cli_socket = optarg;
			break;
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("attach: no process id given (schedctl "
				       "attach PID)");
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || end == argv[optind] || *end || pid <= 0 || pid > INT32_MAX)
		return cli_usage_error("attach: invalid process id '%s'",
				       argv[optind]);
	if (optind + 1 < argc)
		return cli_usage_error("attach: unexpected argument '%s'",
				       argv[optind + 1]);
	/* Stopping init stops the machine's every service meanwhile. */
	if (pid == 1)
		return cli_usage_error("attach: refusing to attach to process 1 "
				       "(init)");
	/* Said here, before a session is made of it: the daemon would
	 * record one that never ran. */
	int tracer = sc_tracer_of((pid_t)pid);
	if (tracer < 0) {
		cli_error("attach %ld: no process %ld (it has exited, or never "
			  "existed)", pid, pid);
		return EXIT_FAIL;
	}
	if (tracer > 0) {
		cli_error("attach %ld: process %ld is already traced by process "
			  "%d (a debugger, strace, another schedctl): detach "
			  "it first", pid, pid, tracer);
		return EXIT_FAIL;
	}
	if (!ar.has_seed) {
		ar.has_seed = 1;
		if (getrandom(&ar.seed, sizeof(ar.seed), 0) != sizeof(ar.seed))
			ar.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		cli_error("getcwd: %s", strerror(errno));
		return EXIT_FAIL;
	}
	ar.has_pid = 1;
	ar.pid = (int32_t)pid;
	ar.cwd = cwd;
	req.attach = &ar;
	snprintf(program, sizeof(program), "process %ld", pid);
	rep.program = program;
	rep.strategy = ar.strategy ? ar.strategy : SC_DEFAULT_STRATEGY;
	rep.seed = ar.seed;
	rep.json = json;
	rep.progress = false;
	fd = cli_connect(true, NULL);
	if (fd < 0)
		return EXIT_FAIL;
	cli_stop_on_interrupt(fd);
	code = cli_send(fd, &req, NULL, 0) < 0 ? EXIT_FAIL : cli_stream_launch(fd, &rep, false, "attach");
	close(fd);
	report_launch_free(&rep);
	return code;
}
