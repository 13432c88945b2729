/*
 * cmd_stop.c - schedctl stop SESSION.
 *
 * The daemon signals the session's worker, which stops its runs (killing
 * their targets) and marks the session "stopped".  We return once the
 * index says the session is no longer running, so that nothing of it is
 * left when the command returns.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "json_out.h"
#include "paths.h"
#include "store.h"

/* How long to wait for the worker to wind down (a run being killed). */
#define STOP_WAIT_MS 60000

static const char stop_usage[] =
"Usage: schedctl stop SESSION [--json]\n"
"Stop a running session cleanly: its runs end, no program it started is\n"
"left running, and what it found so far stays (schedctl results).  Returns\n"
"once the session has stopped.\n"
"\n"
"      --json              print {\"session\", \"state\", \"runs\", \"failing_runs\"}\n"
"      --socket PATH       daemon control socket\n"
"  -h, --help              show this help and exit\n";

enum { OPT_JSON = 3100 };

static const struct option stop_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Wait until the session is not running; prints the outcome. */
static int wait_stopped(const char *id, bool json)
{
	char dir[PATH_MAX], err[PATH_MAX + 256];
	struct sc_store *st = NULL;
	struct sc_session_row *row = NULL;
	size_t n = 0;

	if (sc_state_dir(NULL, dir, sizeof(dir), err, sizeof(err)) < 0 ||
	    sc_store_open(dir, false, &st, err, sizeof(err)) != 0) {
		cli_error("%s", err);
		return EXIT_FAIL;
	}
	for (int waited = 0;; waited += 100) {
		if (sc_store_sessions(st, id, &row, &n, err, sizeof(err)) < 0) {
			cli_error("%s", err);
			sc_store_close(st);
			return EXIT_FAIL;
		}
		if (strcmp(row->state, "running") != 0 || waited >= STOP_WAIT_MS)
			break;
		sc_store_rows_free(row, n);
		row = NULL;
		sleep_ms(100);
	}
	if (strcmp(row->state, "running") == 0) {
		cli_error("session %s: still running %d s after the stop request",
			  id, STOP_WAIT_MS / 1000);
		sc_store_rows_free(row, n);
		sc_store_close(st);
		return EXIT_FAIL;
	}
	if (json) {
		struct json_out j;

		json_init(&j, stdout, true);
		json_begin_object(&j, NULL);
		json_string(&j, "session", row->id);
		json_string(&j, "state", row->state);
		json_uint(&j, "runs", row->runs_done);
		json_uint(&j, "failing_runs", row->failing);
		json_end(&j);
		json_finish(&j);
	} else {
		printf("session %s %s after %u of %u run%s, %u failing\n",
		       row->id, row->state, row->runs_done, row->runs_planned,
		       cli_s(row->runs_planned), row->failing);
	}
	sc_store_rows_free(row, n);
	sc_store_close(st);
	return 0;
}

int cmd_stop(int argc, char **argv)
{
	Scctl__StopRequest sr = SCCTL__STOP_REQUEST__INIT;
	Scctl__Request req = SCCTL__REQUEST__INIT;
	Scctl__Reply *r;
	bool json = false;
	char id[64];
	int c, fd, code;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", stop_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(stop_usage, stdout);
			return 0;
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
		return cli_usage_error("stop: no session given (see schedctl list)");
	if (optind + 1 < argc)
		return cli_usage_error("stop: unexpected argument '%s'",
				       argv[optind + 1]);
	sr.session = argv[optind];
	req.stop = &sr;
	/* A daemon started now marks the sessions of a dead one
	 * interrupted, and then says this one is not running. */
	fd = cli_connect(true, NULL);
	if (fd < 0)
		return EXIT_FAIL;
	if (cli_send(fd, &req, NULL, 0) < 0) {
		close(fd);
		return EXIT_FAIL;
	}
	/* The reply comes once the session's targets are gone: a minute is
	 * plenty even on a loaded machine. */
	cli_reply_wait_ms = 4 * CLI_QUICK_REPLY_MS;
	r = cli_recv(fd);
	close(fd);
	if (!r)
		return EXIT_FAIL;
	if (r->has_ok && !r->ok) {
		cli_error("%s", r->error ? r->error : "stop refused");
		code = r->has_exit_code ? r->exit_code : EXIT_FAIL;
		scctl__reply__free_unpacked(r, NULL);
		return code;
	}
	snprintf(id, sizeof(id), "%s", r->session ? r->session : sr.session);
	scctl__reply__free_unpacked(r, NULL);
	return wait_stopped(id, json);
}
