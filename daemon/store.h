/*
 * store.h - the session index: one SQLite database, STATE/sessions.db.
 *
 * Shared by schedctld (which writes it) and schedctl (which reads it for
 * list, status and results, so that queries work without a daemon).
 * WAL mode, one transaction per finished run: a kill -9 of the daemon
 * loses nothing that was committed, and a reader never blocks the writer.
 * Traces stay protobuf files in the session directory; the index only
 * names them.
 *
 * Tables (plain SQL, see store.c for the exact schema):
 *   sessions(id, created, argv, cwd, strategy, params, base_seed,
 *            runs_planned, runs_done, failing, first_bug_run, events,
 *            state, out_dir, pid, ...)   state: running|done|stopped|interrupted
 *   runs(session, run, seed, verdict, steps, wall_us, trace)
 *   bugs(session, run, seed, kind, message, location, trace, replay)
 *   searches(session, bound, schedules, exhausted, complete_bound, cache,
 *            cache_hits, beyond_bound, truncated, nondeterministic,
 *            nondet_first_run, nondet_first, bug_preemptions)
 *            what a systematic search (chess) covered, written when its
 *            session ends; -1 in complete_bound, bug_preemptions: none
 * Tables are only ever added (CREATE TABLE IF NOT EXISTS when the daemon
 * opens the index); a reader must expect an older index to lack them.
 * Seeds are stored as 64-bit integers (two's complement in SQLite).
 */
#ifndef SCHEDCTL_STORE_H
#define SCHEDCTL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control.pb-c.h"

struct sc_store;

/* Open STATE/sessions.db.  create: make the state directory and the
 * schema when missing (the daemon); otherwise a missing database returns
 * 1 (no session yet) and *out stays NULL.  Returns 0, 1, or -1 with a
 * one-line reason in err. */
int sc_store_open(const char *state_dir, bool create, struct sc_store **out,
		  char *err, size_t errlen);
void sc_store_close(struct sc_store *s);

/* ---- writing (schedctld) ---- */

struct sc_store_session {
	const char *id;
	const char *kind;           /* "launch" or "attach" */
	const char *argv;           /* the command line, shell-quoted */
	const char *cwd;
	const char *strategy;
	const char *params;
	const char *out_dir;
	const char *shard;          /* "I/N", or "" */
	uint64_t base_seed;
	uint32_t runs_planned;
	uint32_t jobs;
	int pid;                    /* the worker process running it */
};

int sc_store_session_begin(struct sc_store *s, const struct sc_store_session *ss,
			   char *err, size_t errlen);

/* One finished run (bug NULL when it passed).  Runs are committed in
 * batches: a failing run's at once, the others within about 10 ms of
 * arriving or at sc_store_flush (call it when nothing else is to do),
 * and before the store's other writes and its close. */
int sc_store_add_run(struct sc_store *s, const char *session, uint32_t run,
		     uint64_t seed, const char *verdict, uint64_t steps,
		     uint64_t wall_us, const char *trace, const Scctl__Bug *bug,
		     char *err, size_t errlen);

/* The age at which a batch is committed when a run arrives (default
 * 10000 us; the unit test sets its own). */
void sc_store_set_batch_us(struct sc_store *s, int64_t us);
/* Commit the runs added since the last commit.  0, or -1 (err set). */
int sc_store_flush(struct sc_store *s, char *err, size_t errlen);

/* The session is over: state "done", "stopped" or "interrupted". */
int sc_store_session_end(struct sc_store *s, const char *session,
			 const char *state, int exit_code, const char *error,
			 char *err, size_t errlen);

/* What the session's systematic search covered (INSERT OR REPLACE).
 * complete_bound and bug_preemptions not set are stored as -1. */
int sc_store_set_search(struct sc_store *s, const char *session,
			const Scctl__SearchStats *st, char *err, size_t errlen);

/* Mark "interrupted" the sessions still "running" whose worker is not a
 * live process of this program (a daemon or worker killed with -9).
 * only_pid > 0: only the session of that (dead) worker; only_pid < 0:
 * only sessions whose worker pid does not exist at all (what the CLI
 * can tell without knowing the daemon's binary).  Returns how many were
 * marked, or -1. */
int sc_store_mark_interrupted(struct sc_store *s, int only_pid, char *err,
			      size_t errlen);

/* ---- reading ---- */

struct sc_session_row {
	char *id, *kind, *created, *argv, *cwd, *strategy, *params, *out_dir;
	char *state, *shard, *error;
	uint64_t base_seed, events;
	uint32_t runs_planned, runs_done, failing, jobs;
	int32_t first_bug_run;      /* -1: none */
	int64_t started_us, updated_us, ended_us; /* CLOCK_REALTIME; ended 0 */
	int pid, exit_code;
};

/* Sessions, oldest first.  id NULL: all; else the session with that id or
 * the only one whose id starts with it (error when ambiguous or unknown,
 * *n is then 0 and the function returns -1). */
int sc_store_sessions(struct sc_store *s, const char *id,
		      struct sc_session_row **rows, size_t *n,
		      char *err, size_t errlen);
void sc_store_rows_free(struct sc_session_row *rows, size_t n);

/* The bugs of a session in run order (free each with sc_store_bug_free
 * and the array with free()). */
int sc_store_bugs(struct sc_store *s, const char *session, Scctl__Bug ***bugs,
		  size_t *n, char *err, size_t errlen);
void sc_store_bug_free(Scctl__Bug *b);

/* The session's search stats, every has_* set (free with
 * sc_store_search_free); *out NULL when it has none (not a search, still
 * running, or an index older than the table).  Returns 0 or -1. */
int sc_store_search(struct sc_store *s, const char *session,
		    Scctl__SearchStats **out, char *err, size_t errlen);
void sc_store_search_free(Scctl__SearchStats *st);

/* Microseconds since the epoch (the timestamps of the index). */
int64_t sc_store_now_us(void);

#endif /* SCHEDCTL_STORE_H */
