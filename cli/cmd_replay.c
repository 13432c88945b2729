/*
 * cmd_replay.c - schedctl replay [OPTIONS] TRACE
 *
 * Sends the trace's path with our working directory and environment; our
 * stdout and stderr travel along (SCM_RIGHTS) so that the daemon copies the
 * replayed program's output to them once the run is over.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"

static const char replay_usage[] =
"Usage: schedctl replay [OPTIONS] TRACE [-- GDB-ARGS...]\n"
"Run the program recorded in TRACE again under the recorded schedule, with\n"
"the recorded arguments, working directory and environment.\n"
"The program's output is shown when the run is over.\n"
"\n"
"      --timeout SECONDS   wall-clock limit (default: the recorded one, at\n"
"                          least 4 x the recorded run's time + 5 s)\n"
"      --record FILE       also write the replayed run's own trace to FILE\n"
"                          (analyze can then compare it with the original)\n"
"      --json              print one JSON object instead of the result line\n"
"                          (the program's stdout then goes to stderr)\n"
"      --gdb               at the failure (the fatal signal before it is\n"
"                          delivered, or the deadlock), leave the process\n"
"                          stopped and run gdb -p PID GDB-ARGS on it; the\n"
"                          process is killed when gdb exits\n"
"      --stop-at STEP      stop before scheduling step STEP instead (with\n"
"                          --gdb: debug it there; without: print the gdb\n"
"                          command and wait for Enter)\n"
"      --socket PATH       daemon control socket\n"
"  -h, --help              show this help and exit\n"
"\n"
"Exit status: 0 the run passed, 1 the recorded bug was reproduced (or\n"
"another bug happened), 2 usage error, 3 divergence from the recorded\n"
"schedule, a replay out of time where the run was not, unreadable trace,\n"
"or the program could not run.\n";

enum { OPT_JSON = 2000, OPT_TIMEOUT, OPT_RECORD, OPT_GDB, OPT_STOP_AT };

static const struct option replay_opts[] = {
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "gdb", no_argument, NULL, OPT_GDB },
	{ "stop-at", required_argument, NULL, OPT_STOP_AT },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The daemon could not write the program's output to our standard
 * output or error: a reader that went away ends us by SIGPIPE, as it
 * ends a tool that writes there itself; any other failure (a full disk)
 * is said in one line, exit 3 (docs/schedctl.1, OUTPUT). */
static int output_failed(const Scctl__ReplayResult *rr)
{
	const char *stream = rr->output_fd == 2 ? "stderr" : "stdout";

	if (rr->output_errno == EPIPE) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	cli_error("%s: the program's output: %s", stream,
		  strerror(rr->output_errno));
	return EXIT_FAIL;
}

static int stream_replies(int fd, bool json, int *stopped_pid,
			  int *stopped_tid)
{
	for (;;) {
		Scctl__Reply *r = cli_recv(fd);
		int code;

		if (!r && cli_interrupted)
			return cli_report_interrupted(NULL);
		if (!r)
			return EXIT_FAIL;
		if (r->notice)
			cli_error("%s", r->notice);
		if (r->replay) {
			report_replay(r->replay, json);
			code = r->replay->exit_code;
			if (r->replay->has_output_errno)
				code = output_failed(r->replay);
			if (r->replay->has_stopped_pid)
				*stopped_pid = r->replay->stopped_pid;
			if (r->replay->has_stopped_tid)
				*stopped_tid = r->replay->stopped_tid;
			scctl__reply__free_unpacked(r, NULL);
			return code;
		}
		if (r->has_ok && !r->ok) {
			cli_error("%s", r->error ? r->error : "replay failed");
			code = r->has_exit_code ? r->exit_code : EXIT_FAIL;
			scctl__reply__free_unpacked(r, NULL);
			return code;
		}
		scctl__reply__free_unpacked(r, NULL);
	}
}

int cmd_replay(int argc, char **argv)
{
	Scctl__ReplayRequest rr = SCCTL__REPLAY_REQUEST__INIT;
	Scctl__Request req = SCCTL__REQUEST__INIT;
	char path[PATH_MAX], cwd[PATH_MAX], record_abs[PATH_MAX + 256];
	const char *record = NULL;
	bool json = false, gdb = false;
	int c, fd, code, fds[2], stopped_pid = 0, stopped_tid = 0;

	opterr = 0;
	/* 0, not 1: glibc then re-reads the optstring's ordering flag. */
	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", replay_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(replay_usage, stdout);
			return 0;
		case OPT_JSON:
			json = true;
			break;
		case OPT_TIMEOUT:
			if (cli_parse_seconds("--timeout", optarg, &rr.timeout_ms) < 0)
				return EXIT_USAGE;
			rr.has_timeout_ms = 1;
			break;
		case OPT_SOCKET:
			cli_socket = optarg;
			break;
		case OPT_RECORD:
			record = optarg;
			break;
		case OPT_GDB:
			gdb = true;
			break;
		case OPT_STOP_AT:
			if (cli_parse_u64("--stop-at", optarg, &rr.stop_at) < 0)
				return EXIT_USAGE;
			if (rr.stop_at == 0)
				return cli_usage_error("--stop-at: give a step of 1 or more");
			rr.has_stop_at = 1;
			break;
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("replay: no trace given (schedctl replay TRACE)");
	/* TRACE [--] GDB-ARGS: getopt has moved "--" away or left it. */
	int gdb_argc = argc - optind - 1;
	char **gdb_argv = argv + optind + 1;
	if (gdb_argc > 0 && strcmp(gdb_argv[0], "--") == 0) {
		gdb_argc--;
		gdb_argv++;
	}
	if (gdb_argc > 0 && !gdb)
		return cli_usage_error("replay: unexpected argument '%s' "
				       "(arguments for gdb need --gdb)",
				       gdb_argv[0]);
	rr.has_hand_over = 1;
	rr.hand_over = gdb || rr.has_stop_at;
	/* The daemon has another working directory: send an absolute path,
	 * and say now when there is no such file. */
	if (!realpath(argv[optind], path)) {
		cli_error("%s: %s", argv[optind], strerror(errno));
		return EXIT_FAIL;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		cli_error("getcwd: %s", strerror(errno));
		return EXIT_FAIL;
	}
	rr.trace_path = path;
	rr.cwd = cwd;
	/* The daemon has another working directory: make it absolute. */
	if (record && record[0] != '/') {
		if (snprintf(record_abs, sizeof(record_abs), "%s/%s", cwd,
			     record) >= (int)sizeof(record_abs)) {
			cli_error("--record: path too long");
			return EXIT_USAGE;
		}
		record = record_abs;
	}
	if (cli_same_file(path, record))
		return cli_usage_error("replay: --record %s is the trace itself",
				       record);
	rr.record_path = (char *)record;
	rr.env = cli_environment(&rr.n_env);
	if (!rr.env) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	req.replay = &rr;
	/* With --json our stdout carries the JSON only. */
	fds[0] = json ? STDERR_FILENO : STDOUT_FILENO;
	fds[1] = STDERR_FILENO;

	fd = cli_connect(true, NULL);
	if (fd < 0) {
		free(rr.env);
		return EXIT_FAIL;
	}
	fflush(stdout);
	/* Ctrl-C (or a SIGTERM) ends the replay, and the program with it,
	 * as it ends a launch: also when the shell started us with SIGINT
	 * ignored (QA: `replay &` in a script ran to its end).  Not while
	 * a debugger has the stopped program. */
	cli_stop_on_interrupt(fd);
	code = cli_send(fd, &req, fds, 2) < 0 ? EXIT_FAIL
	       : stream_replies(fd, json, &stopped_pid, &stopped_tid);
	cli_interrupt_restore();
	if (stopped_pid > 0 && cli_debug_stopped(stopped_pid, stopped_tid, gdb,
						 json, gdb_argc, gdb_argv) < 0)
		code = EXIT_FAIL;
	else if (gdb && stopped_pid <= 0 && code != EXIT_FAIL)
		cli_error("--gdb: the replayed run ended without reaching a "
			  "failure to stop at: nothing to debug");
	/* Closing the connection ends the session: the worker kills a
	 * process it kept for the debugger. */
	close(fd);
	free(rr.env);
	return code;
}
