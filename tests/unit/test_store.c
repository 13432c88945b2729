/*
 * test_store.c - the SQLite session index (daemon/store.c): a session's
 * life (begin, runs with and without bugs, end), what readers get back
 * (counters, first bug, bugs in run order, 64-bit seeds intact), id
 * prefixes, unknown ids, marking sessions of dead workers interrupted, a
 * reader that finds no index, and a search's stats (round trip; none for
 * another session or in an index made before the searches table).
 */
#include "config.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "tap.h"

static char dir[] = "/tmp/schedctl-test-store.XXXXXX";

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static void search_round_trip(struct sc_store *st, struct sc_store *rd)
{
	Scctl__SearchStats in = SCCTL__SEARCH_STATS__INIT, *out = NULL;
	uint32_t levels[3] = { 3, 32, 145 };
	char *points[2] = { "step 16: T2 was about to mutex_lock lock_a",
			    "step 20: T1 was about to mutex_lock lock_b" };
	struct sc_store *w = NULL;
	char err[512], path[sizeof(dir) + 16];
	sqlite3 *db;

	in.bound = 2;
	in.schedules = 180;
	in.exhausted = 1;
	in.has_complete_bound = 1;
	in.complete_bound = 2;
	in.cache = 1;
	in.cache_hits = 110;
	in.beyond_bound = 5000000000ULL;
	in.nondeterministic = 1;
	in.nondet_first_run = 7;
	in.nondet_first = "at choice point 3";
	in.n_per_level = 3;
	in.per_level = levels;
	in.n_bug_points = 2;
	in.bug_points = points;
	/* bug_preemptions not set: stored as -1 (none). */
	is_int(sc_store_set_search(st, "20261122-031500-ab12", &in, err,
				   sizeof(err)), 0, "search stats stored");
	in.schedules = 181;
	is_int(sc_store_set_search(st, "20261122-031500-ab12", &in, err,
				   sizeof(err)), 0, "search stats replaced");
	ok(sc_store_search(rd, "20261122-031500-ab12", &out, err,
			   sizeof(err)) == 0 && out, "search stats read back");
	if (out) {
		ok(out->bound == 2 && out->schedules == 181 && out->exhausted &&
		   out->complete_bound == 2 && out->cache &&
		   out->cache_hits == 110 &&
		   out->beyond_bound == 5000000000ULL && !out->truncated &&
		   out->nondeterministic == 1 && out->nondet_first_run == 7,
		   "every counter intact (the last write)");
		is_str(out->nondet_first, "at choice point 3", "nondet_first");
		ok(out->n_per_level == 3 && out->per_level[0] == 3 &&
		   out->per_level[1] == 32 && out->per_level[2] == 145,
		   "schedules per preemption count intact");
		ok(out->n_bug_points == 2 &&
		   strcmp(out->bug_points[0], points[0]) == 0 &&
		   strcmp(out->bug_points[1], points[1]) == 0,
		   "the failing run's preemption points intact");
		ok(out->has_bug_preemptions && out->bug_preemptions == -1 &&
		   out->has_exhausted, "has_* set, bug_preemptions -1 when unset");
		sc_store_search_free(out);
	}
	out = &in;
	ok(sc_store_search(rd, "20261122-031500-ab13", &out, err,
			   sizeof(err)) == 0 && !out, "no search: NULL");

	/* An index made before the table: none, then the daemon adds it. */
	snprintf(path, sizeof(path), "%s/sessions.db", dir);
	ok(sqlite3_open(path, &db) == SQLITE_OK &&
	   sqlite3_exec(db, "DROP TABLE searches", NULL, NULL, NULL) ==
	   SQLITE_OK, "the searches table dropped");
	sqlite3_close(db);
	out = &in;
	ok(sc_store_search(rd, "20261122-031500-ab12", &out, err,
			   sizeof(err)) == 0 && !out,
	   "an index without the table: no search, no error");
	ok(sc_store_open(dir, true, &w, err, sizeof(err)) == 0 &&
	   sc_store_set_search(w, "20261122-031500-ab12", &in, err,
			       sizeof(err)) == 0,
	   "reopened by the daemon, the index gains the table");
	sc_store_close(w);
	ok(sc_store_search(rd, "20261122-031500-ab12", &out, err,
			   sizeof(err)) == 0 && out && out->schedules == 181,
	   "and the reader finds the stats");
	sc_store_search_free(out);
}

static int runs_done(struct sc_store *rd, const char *id)
{
	struct sc_session_row *rows = NULL;
	size_t n = 0;
	char err[512];
	int done = -1;

	if (sc_store_sessions(rd, id, &rows, &n, err, sizeof(err)) == 0 &&
	    n == 1)
		done = (int)rows[0].runs_done;
	sc_store_rows_free(rows, n);
	return done;
}

/* Passing runs are committed in batches, a failing one at once (with
 * those before it), the rest at a flush; another connection (the CLI's
 * status) sees only what is committed. */
static void batches(struct sc_store *st, struct sc_store *rd)
{
	const char *id = "20261122-031500-ab14";
	struct sc_store_session ss = {
		.id = id, .kind = "launch", .argv = "/bin/prog", .cwd = "/tmp",
		.strategy = "pos", .params = "", .out_dir = "/tmp/out",
		.shard = "", .base_seed = 1, .runs_planned = 9, .jobs = 2,
		.pid = (int)getpid(),
	};
	Scctl__Bug bug = SCCTL__BUG__INIT;
	char err[512];

	bug.kind = "crash";
	bug.message = "SIGSEGV";
	bug.trace = "/tmp/out/run-000003.sctrace";
	bug.replay = "schedctl replay /tmp/out/run-000003.sctrace";
	is_int(sc_store_session_begin(st, &ss, err, sizeof(err)), 0,
	       "batches: a session begins");
	/* No batch gets old while the test looks, however slow the machine. */
	sc_store_set_batch_us(st, 3600 * 1000000LL);
	ok(sc_store_add_run(st, id, 1, 2, "pass", 10, 100, NULL, NULL, err,
			    sizeof(err)) == 0 &&
	   sc_store_add_run(st, id, 2, 3, "pass", 10, 100, NULL, NULL, err,
			    sizeof(err)) == 0, "batches: two passing runs added");
	is_int(runs_done(rd, id), 0, "batches: not yet visible to a reader");
	is_int(sc_store_add_run(st, id, 3, 4, "crash", 10, 100, bug.trace,
				&bug, err, sizeof(err)), 0,
	       "batches: a failing run added");
	is_int(runs_done(rd, id), 3,
	       "batches: a failing run commits itself and those before it");
	is_int(sc_store_add_run(st, id, 4, 5, "pass", 10, 100, NULL, NULL, err,
				sizeof(err)), 0, "batches: one more passing run");
	sc_store_set_batch_us(st, 10000);
	usleep(20000);
	is_int(sc_store_add_run(st, id, 5, 6, "pass", 10, 100, NULL, NULL, err,
				sizeof(err)), 0,
	       "batches: and another, over 10 ms after the batch began");
	is_int(runs_done(rd, id), 5, "batches: an old batch is committed");
	sc_store_set_batch_us(st, 3600 * 1000000LL);
	is_int(sc_store_add_run(st, id, 6, 7, "pass", 10, 100, NULL, NULL, err,
				sizeof(err)), 0, "batches: a last passing run");
	is_int(sc_store_flush(st, err, sizeof(err)), 0, "batches: a flush");
	is_int(runs_done(rd, id), 6, "batches: commits it");
	is_int(sc_store_flush(st, err, sizeof(err)), 0,
	       "batches: a flush with nothing batched does nothing");
}

int main(void)
{
	struct sc_store *st = NULL, *rd = NULL;
	struct sc_session_row *rows = NULL;
	Scctl__Bug bug = SCCTL__BUG__INIT, **bugs = NULL;
	char err[512];
	size_t n = 0, nb = 0;
	const uint64_t seed = 0xfedcba9876543210ULL;
	struct sc_store_session ss = {
		.id = "20261122-031500-ab12", .kind = "launch",
		.argv = "/bin/prog 'a b'", .cwd = "/tmp", .strategy = "random",
		.params = "", .out_dir = "/tmp/out", .shard = "2/4",
		.base_seed = seed, .runs_planned = 5, .jobs = 2,
		.pid = 999999999,
	};

	if (!mkdtemp(dir))
		return 99;
	atexit(cleanup);

	is_int(sc_store_open(dir, false, &rd, err, sizeof(err)), 1,
	       "a reader without an index gets 1 (no session yet)");
	is_int(sc_store_open(dir, true, &st, err, sizeof(err)), 0,
	       "the daemon creates the index");
	is_int(sc_store_session_begin(st, &ss, err, sizeof(err)), 0,
	       "a session begins");
	ss.id = "20261122-031500-ab13";
	ss.pid = (int)getpid();
	is_int(sc_store_session_begin(st, &ss, err, sizeof(err)), 0,
	       "a second session begins");

	bug.kind = "assert";
	bug.message = "prog: x.c:3: main: Assertion `0' failed.";
	bug.location = "x.c:3 (main)";
	bug.trace = "/tmp/out/run-000003.sctrace";
	bug.replay = "schedctl replay /tmp/out/run-000003.sctrace";
	is_int(sc_store_add_run(st, "20261122-031500-ab12", 3, seed + 3, "assert",
				40, 1000, bug.trace, &bug, err, sizeof(err)), 0,
	       "a failing run is committed");
	is_int(sc_store_add_run(st, "20261122-031500-ab12", 1, seed + 1, "pass",
				30, 900, NULL, NULL, err, sizeof(err)), 0,
	       "a passing run is committed (no trace)");
	is_int(sc_store_session_end(st, "20261122-031500-ab12", "done", 1, "",
				    err, sizeof(err)), 0, "the session ends");

	is_int(sc_store_open(dir, false, &rd, err, sizeof(err)), 0,
	       "a reader opens the index");
	ok(sc_store_sessions(rd, NULL, &rows, &n, err, sizeof(err)) == 0 && n == 2,
	   "two sessions listed");
	sc_store_rows_free(rows, n);
	ok(sc_store_sessions(rd, "20261122-031500-ab12", &rows, &n, err,
			     sizeof(err)) == 0 && n == 1,
	   "an exact id wins over the ids it prefixes");
	if (n == 1) {
		is_str(rows[0].state, "done", "state done");
		is_int((int)rows[0].runs_done, 2, "runs done");
		is_int((int)rows[0].failing, 1, "failing runs");
		is_int(rows[0].first_bug_run, 3, "first bug run");
		ok(rows[0].base_seed == seed, "the 64-bit seed comes back intact");
		is_str(rows[0].argv, "/bin/prog 'a b'", "argv");
		is_str(rows[0].shard, "2/4", "shard");
		is_int((int)rows[0].events, 70, "events summed");
	}
	sc_store_rows_free(rows, n);
	ok(sc_store_sessions(rd, "20261122", &rows, &n, err, sizeof(err)) < 0 &&
	   strstr(err, "ambiguous"), "an ambiguous prefix is an error: %s", err);
	ok(sc_store_sessions(rd, "nosuch", &rows, &n, err, sizeof(err)) < 0 &&
	   strstr(err, "no session 'nosuch'"), "an unknown id is an error: %s", err);

	ok(sc_store_bugs(rd, "20261122-031500-ab12", &bugs, &nb, err,
			 sizeof(err)) == 0 && nb == 1, "one bug");
	if (nb == 1) {
		is_int((int)bugs[0]->run, 3, "its run");
		ok(bugs[0]->seed == seed + 3, "its seed");
		is_str(bugs[0]->replay, bug.replay, "its replay command");
		sc_store_bug_free(bugs[0]);
	}
	free(bugs);

	search_round_trip(st, rd);

	/* Session ...ab13 names a live pid (ours): the CLI's check (-1)
	 * leaves it; the daemon's reaping of that pid marks it. */
	is_int(sc_store_mark_interrupted(rd, -1, err, sizeof(err)), 0,
	       "pid check: a live worker pid is left running");
	is_int(sc_store_mark_interrupted(st, (int)getpid(), err, sizeof(err)), 1,
	       "the session of a dead worker is marked interrupted");
	ok(sc_store_sessions(rd, "20261122-031500-ab13", &rows, &n, err,
			     sizeof(err)) == 0 && n == 1 &&
	   strcmp(rows[0].state, "interrupted") == 0, "state interrupted");
	sc_store_rows_free(rows, n);

	batches(st, rd);

	sc_store_close(rd);
	sc_store_close(st);
	return done_testing();
}
