/*
 * cmd_query.c - schedctl list, status [SESSION], results SESSION.
 *
 * They read the daemon's session index (STATE/sessions.db, store.h)
 * directly: no daemon needed, nothing started.  A session is named by
 * its id or a unique prefix of it.  Sessions left "running" by a daemon
 * that died are shown as such until the next daemon start marks them
 * "interrupted" (any CLI command that needs the daemon starts one).
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"
#include "paths.h"
#include "report.h"
#include "store.h"

static const char list_usage[] =
"Usage: schedctl list [--json]\n"
"List the sessions of the daemon's state directory, oldest first: id,\n"
"state (running, done, stopped, interrupted), runs done/planned, failing\n"
"runs, strategy and program.\n"
"\n"
"      --json              print one JSON object {\"sessions\": [...]}\n"
"  -h, --help              show this help and exit\n";

static const char status_usage[] =
"Usage: schedctl status [SESSION] [--json]\n"
"How a session is going: runs done and planned, failing runs, runs per\n"
"second and the estimated time left.  Without SESSION: the running\n"
"sessions, or the latest one when none runs.  SESSION is an id or a\n"
"unique prefix of one.  For a chess search that has ended, also what it\n"
"covered.\n"
"\n"
"      --json              one JSON object (with SESSION), else\n"
"                          {\"sessions\": [...]}\n"
"  -h, --help              show this help and exit\n";

static const char results_usage[] =
"Usage: schedctl results SESSION [--json]\n"
"The bugs a session found so far, each with the command that replays it,\n"
"and for a chess search that has ended, what it covered.\n"
"\n"
"      --json              one JSON object, with the bug objects of\n"
"                          launch --json\n"
"  -h, --help              show this help and exit\n";

enum { OPT_JSON = 3000 };

static const struct option query_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options and at most one argument; -1 to go on, else the exit code. */
static int parse(int argc, char **argv, const char *usage, bool *json,
		 const char **arg, bool arg_required)
{
	int c;

	opterr = 0;
	optind = 0;
	*arg = NULL;
	while ((c = getopt_long(argc, argv, ":h", query_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			return 0;
		case OPT_JSON:
			*json = true;
			break;
		case OPT_SOCKET:
			cli_socket = optarg;
			break;
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (optind < argc)
		*arg = argv[optind++];
	if (optind < argc)
		return cli_usage_error("%s: unexpected argument '%s'", argv[0],
				       argv[optind]);
	if (arg_required && !*arg)
		return cli_usage_error("%s: no session given (see schedctl list)",
				       argv[0]);
	if (!arg_required && *arg && strcmp(argv[0], "list") == 0)
		return cli_usage_error("list: unexpected argument '%s'", *arg);
	return -1;
}

/* Open the index; 1: there is none yet (no session ever). */
static int open_store(struct sc_store **st)
{
	char dir[PATH_MAX], err[PATH_MAX + 256];
	int rc;

	if (sc_state_dir(NULL, dir, sizeof(dir), err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return -1;
	}
	rc = sc_store_open(dir, false, st, err, sizeof(err));
	if (rc < 0)
		cli_error("%s", err);
	/* A session whose worker vanished (kill -9 of everything) is not
	 * running, whatever the index says. */
	if (rc == 0)
		sc_store_mark_interrupted(*st, -1, err, sizeof(err));
	return rc;
}

static double seconds_between(int64_t a_us, int64_t b_us)
{
	return b_us > a_us ? (double)(b_us - a_us) / 1e6 : 0;
}

/* Runs per second so far (0 when unknown). */
static double rate_of(const struct sc_session_row *r)
{
	int64_t end = r->ended_us ? r->ended_us
		      : strcmp(r->state, "running") == 0 ? sc_store_now_us()
		      : r->updated_us;
	double s = seconds_between(r->started_us, end);

	return s > 0 && r->runs_done ? r->runs_done / s : 0;
}

/* Estimated seconds left; < 0 when unknown or not running. */
static double eta_of(const struct sc_session_row *r)
{
	double rate = rate_of(r);

	if (strcmp(r->state, "running") != 0 || rate <= 0)
		return -1;
	return (r->runs_planned > r->runs_done
		? r->runs_planned - r->runs_done : 0) / rate;
}

static void seed_hex(uint64_t seed, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, seed);
}

/* search: the session's search stats, or NULL (status only). */
static void session_json(struct json_out *j, const struct sc_session_row *r,
			 bool with_rate, const Scctl__SearchStats *search)
{
	char seed[24];
	double eta = eta_of(r);

	json_begin_object(j, NULL);
	json_string(j, "session", r->id);
	json_string(j, "kind", r->kind);
	json_string(j, "state", r->state);
	json_string(j, "created", r->created);
	json_string(j, "command", r->argv);
	json_string(j, "cwd", r->cwd);
	json_string(j, "strategy", r->strategy);
	json_string(j, "strategy_params", r->params);
	seed_hex(r->base_seed, seed, sizeof(seed));
	json_string(j, "seed", seed);
	json_uint(j, "runs_planned", r->runs_planned);
	json_uint(j, "runs", r->runs_done);
	json_uint(j, "failing_runs", r->failing);
	if (r->first_bug_run > 0)
		json_int(j, "first_bug_run", r->first_bug_run);
	else
		json_null(j, "first_bug_run");
	json_uint(j, "events", r->events);
	json_uint(j, "jobs", r->jobs);
	json_string(j, "shard", *r->shard ? r->shard : NULL);
	json_string(j, "out_dir", r->out_dir);
	if (with_rate) {
		json_double(j, "wall_seconds", seconds_between(r->started_us,
			    r->ended_us ? r->ended_us : sc_store_now_us()), 3);
		json_double(j, "runs_per_second", rate_of(r), 2);
		if (eta >= 0)
			json_double(j, "eta_seconds", eta, 1);
		else
			json_null(j, "eta_seconds");
		json_string(j, "error", *r->error ? r->error : NULL);
		if (strcmp(r->state, "running") == 0 && r->pid > 0)
			json_int(j, "worker_pid", r->pid);
		else
			json_null(j, "worker_pid");
	}
	if (search)
		report_search_json(j, search);
	json_end(j);
}

/* searches: one per row (entries may be NULL), or NULL. */
static void print_sessions_json(const struct sc_session_row *rows, size_t n,
				bool with_rate, Scctl__SearchStats **searches)
{
	struct json_out j;

	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_begin_array(&j, "sessions");
	for (size_t i = 0; i < n; i++)
		session_json(&j, &rows[i], with_rate,
			     searches ? searches[i] : NULL);
	json_end(&j);
	json_end(&j);
	json_finish(&j);
}

int cmd_list(int argc, char **argv)
{
	struct sc_session_row *rows = NULL;
	struct sc_store *st = NULL;
	char err[512];
	const char *arg;
	bool json = false;
	size_t n = 0;
	int rc = parse(argc, argv, list_usage, &json, &arg, false);

	if (rc >= 0)
		return rc;
	rc = open_store(&st);
	if (rc < 0)
		return EXIT_FAIL;
	if (rc == 0 && sc_store_sessions(st, NULL, &rows, &n, err,
					 sizeof(err)) < 0) {
		cli_error("%s", err);
		sc_store_close(st);
		return EXIT_FAIL;
	}
	if (json) {
		print_sessions_json(rows, n, false, NULL);
	} else if (n == 0) {
		puts("no sessions");
	} else {
		printf("%-24s %-11s %13s %7s  %-8s %s\n", "SESSION", "STATE",
		       "RUNS", "FAILING", "STRATEGY", "COMMAND");
		for (size_t i = 0; i < n; i++) {
			char runs[32], cmd[256];

			snprintf(runs, sizeof(runs), "%u/%u", rows[i].runs_done,
				 rows[i].runs_planned);
			printf("%-24s %-11s %13s %7u  %-8s %.60s\n", rows[i].id,
			       rows[i].state, runs, rows[i].failing,
			       rows[i].strategy,
			       cli_visible(rows[i].argv, cmd, sizeof(cmd)));
		}
	}
	sc_store_rows_free(rows, n);
	sc_store_close(st);
	return 0;
}

static void print_duration(double s)
{
	long t = (long)(s + 0.5);

	if (t < 60)
		printf("%ld s", t);
	else if (t < 3600)
		printf("%ld min %02ld s", t / 60, t % 60);
	else
		printf("%ld h %02ld min", t / 3600, t % 3600 / 60);
}

static void free_searches(Scctl__SearchStats **searches, size_t n)
{
	for (size_t i = 0; searches && i < n; i++)
		sc_store_search_free(searches[i]);
	free(searches);
}

/* The search lines of launch's report, for a session of the index. */
static void print_search(const struct sc_session_row *r,
			 const Scctl__SearchStats *search)
{
	if (search)
		report_search_text(r->strategy, search, r->failing,
				   r->first_bug_run,
				   r->runs_done >= r->runs_planned);
}

/* The search stats of n sessions (NULL entries: none); NULL on error,
 * said on stderr. */
static Scctl__SearchStats **load_searches(struct sc_store *st,
					  const struct sc_session_row *rows,
					  size_t n)
{
	Scctl__SearchStats **out = calloc(n ? n : 1, sizeof(*out));
	char err[512];

	if (!out) {
		cli_error("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (sc_store_search(st, rows[i].id, &out[i], err,
				    sizeof(err)) < 0) {
			cli_error("%s", err);
			free_searches(out, i);
			return NULL;
		}
	return out;
}

static void print_status(const struct sc_session_row *r,
			 const Scctl__SearchStats *search)
{
	double rate = rate_of(r), eta = eta_of(r);
	double pct = r->runs_planned ? 100.0 * r->runs_done / r->runs_planned : 0;
	char seed[24];

	seed_hex(r->base_seed, seed, sizeof(seed));
	printf("session %s: %s\n", r->id, r->state);
	char cmd[4096];
	printf("  command   %s\n", cli_visible(r->argv, cmd, sizeof(cmd)));
	printf("  strategy  %s%s%s, seed %s, %u job%s%s%s\n", r->strategy,
	       *r->params ? " " : "", r->params, seed, r->jobs,
	       r->jobs == 1 ? "" : "s", *r->shard ? ", shard " : "", r->shard);
	/* An exhausted search ended by itself: its planned runs were only
	 * a cap, and "35/10000 (0%)" would read as unfinished. */
	if (search && search->exhausted)
		printf("  runs      %u, the whole search (cap %u), %u failing",
		       r->runs_done, r->runs_planned, r->failing);
	else
		printf("  runs      %u/%u (%.0f%%), %u failing", r->runs_done,
		       r->runs_planned, pct, r->failing);
	if (r->first_bug_run > 0)
		printf(" (first at run %d)", r->first_bug_run);
	putchar('\n');
	printf("  rate      ");
	cli_print_rate(stdout, rate);
	if (eta >= 0) {
		printf(", about ");
		print_duration(eta);
		printf(" left");
	}
	putchar('\n');
	if (*r->error)
		printf("  note      %s\n", r->error);
	printf("  out       %s\n", r->out_dir);
	print_search(r, search);
}

int cmd_status(int argc, char **argv)
{
	struct sc_session_row *rows = NULL;
	struct sc_store *st = NULL;
	Scctl__SearchStats **searches = NULL;
	char err[512];
	const char *arg;
	bool json = false;
	size_t n = 0, first = 0, shown = 0;
	int rc = parse(argc, argv, status_usage, &json, &arg, false);

	if (rc >= 0)
		return rc;
	rc = open_store(&st);
	if (rc < 0)
		return EXIT_FAIL;
	if (rc == 1) {
		if (arg) {
			cli_error("no session '%s' (there is none yet)", arg);
			return EXIT_USAGE;
		}
		if (json)
			print_sessions_json(NULL, 0, true, NULL);
		else
			puts("no sessions");
		return 0;
	}
	if (sc_store_sessions(st, arg, &rows, &n, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		sc_store_close(st);
		return arg ? EXIT_USAGE : EXIT_FAIL;
	}
	if (!arg) {
		/* The running ones; else the latest. */
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (strcmp(rows[i].state, "running") == 0) {
				struct sc_session_row t = rows[k];

				rows[k++] = rows[i];
				rows[i] = t;
			}
		first = k ? 0 : n ? n - 1 : 0;
		shown = k ? k : n ? 1 : 0;
	} else {
		shown = 1;
	}
	rc = 0;
	searches = load_searches(st, rows + first, shown);
	if (!searches) {
		rc = EXIT_FAIL;
	} else if (json && arg) {
		struct json_out j;

		json_init(&j, stdout, true);
		session_json(&j, &rows[0], true, searches[0]);
		json_finish(&j);
	} else if (json) {
		print_sessions_json(rows + first, shown, true, searches);
	} else if (shown == 0) {
		puts("no sessions");
	} else {
		for (size_t i = first; i < first + shown; i++) {
			if (i > first)
				putchar('\n');
			print_status(&rows[i], searches[i - first]);
		}
	}
	free_searches(searches, shown);
	sc_store_rows_free(rows, n);
	sc_store_close(st);
	return rc;
}

static void results_json(const struct sc_session_row *r, Scctl__Bug **bugs,
			 size_t nbugs, const Scctl__SearchStats *search)
{
	struct json_out j;
	char seed[24];

	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "session", r->id);
	json_string(&j, "state", r->state);
	json_string(&j, "strategy", r->strategy);
	seed_hex(r->base_seed, seed, sizeof(seed));
	json_string(&j, "seed", seed);
	json_uint(&j, "runs", r->runs_done);
	json_uint(&j, "runs_planned", r->runs_planned);
	json_uint(&j, "failing_runs", r->failing);
	if (r->first_bug_run > 0)
		json_int(&j, "first_bug_run", r->first_bug_run);
	else
		json_null(&j, "first_bug_run");
	json_double(&j, "wall_seconds", seconds_between(r->started_us,
		    r->ended_us ? r->ended_us : r->updated_us), 3);
	json_uint(&j, "events", r->events);
	json_string(&j, "out_dir", r->out_dir);
	if (search)
		report_search_json(&j, search);
	json_begin_array(&j, "bugs");
	for (size_t i = 0; i < nbugs; i++)
		report_bug_json(&j, bugs[i]);
	json_end(&j);
	json_end(&j);
	json_finish(&j);
}

static void results_human(const struct sc_session_row *r, Scctl__Bug **bugs,
			  size_t nbugs, const Scctl__SearchStats *search)
{
	if (search && search->exhausted)
		printf("session %s: %s, %u run%s (the whole search), %u failing",
		       r->id, r->state, r->runs_done, cli_s(r->runs_done),
		       r->failing);
	else
		printf("session %s: %s, %u/%u run%s, %u failing", r->id,
		       r->state, r->runs_done, r->runs_planned,
		       cli_s(r->runs_planned), r->failing);
	if (r->first_bug_run > 0)
		printf(" (first at run %d)", r->first_bug_run);
	char cmd[4096];
	printf("\n  command %s\n", cli_visible(r->argv, cmd, sizeof(cmd)));
	print_search(r, search);
	/* The launch report's blocks, stderr tails included. */
	for (size_t i = 0; i < nbugs; i++)
		report_bug_text(bugs[i], false, 0);
	if (nbugs == 0)
		printf("no bug found%s\n", strcmp(r->state, "running") == 0
		       ? " so far" : "");
}

int cmd_results(int argc, char **argv)
{
	struct sc_session_row *rows = NULL;
	struct sc_store *st = NULL;
	Scctl__Bug **bugs = NULL;
	Scctl__SearchStats *search = NULL;
	char err[512];
	const char *arg;
	bool json = false;
	size_t n = 0, nbugs = 0;
	int rc = parse(argc, argv, results_usage, &json, &arg, true);

	if (rc >= 0)
		return rc;
	rc = open_store(&st);
	if (rc < 0)
		return EXIT_FAIL;
	if (rc == 1) {
		cli_error("no session '%s' (there is none yet)", arg);
		return EXIT_USAGE;
	}
	if (sc_store_sessions(st, arg, &rows, &n, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		sc_store_close(st);
		return EXIT_USAGE;
	}
	if (sc_store_bugs(st, rows[0].id, &bugs, &nbugs, err, sizeof(err)) < 0 ||
	    sc_store_search(st, rows[0].id, &search, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		rc = EXIT_FAIL;
	} else {
		if (json)
			results_json(&rows[0], bugs, nbugs, search);
		else
			results_human(&rows[0], bugs, nbugs, search);
		rc = 0;
	}
	sc_store_search_free(search);
	for (size_t i = 0; i < nbugs; i++)
		sc_store_bug_free(bugs[i]);
	free(bugs);
	sc_store_rows_free(rows, n);
	sc_store_close(st);
	return rc;
}
