/* store.c - the SQLite session index (see store.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "file_tail.h"
#include "paths.h"
#include "store.h"

/* Bump with every schema change that older readers cannot use (PRAGMA
 * user_version). */
#define SCHEMA_VERSION 1
/* How long a writer waits for another one (runs of parallel sessions
 * commit at the same time). */
#define BUSY_TIMEOUT_MS 10000

/* The statements of sc_store_add_run, prepared once: it runs for every
 * run of every session, and parsing its SQL each time cost more than
 * executing it. */
enum { RUN_INSERT, BUG_INSERT, SESSION_COUNTERS, NCACHED };

/* Runs are written in batches: one transaction per run was two thirds
 * of a session worker's system calls (the WAL's writes and locks), the
 * CPU a second job could have used.  A batch is committed when it is
 * BATCH_US old at a run's arrival, when a run failed (a bug is never left
 * uncommitted), when the worker has nothing to read (sc_store_flush) and
 * before any other write. */
#define BATCH_US 10000

struct sc_store {
	sqlite3 *db;
	sqlite3_stmt *cached[NCACHED];
	bool batch_open;                /* a transaction holds runs */
	int64_t batch_since_us;         /* when it began */
	int64_t batch_us;               /* its age limit, BATCH_US */
};

static const char schema[] =
"CREATE TABLE IF NOT EXISTS sessions ("
"  id TEXT PRIMARY KEY,"
"  kind TEXT NOT NULL DEFAULT 'launch',"
"  created TEXT NOT NULL,"
"  argv TEXT NOT NULL,"
"  cwd TEXT NOT NULL DEFAULT '',"
"  strategy TEXT NOT NULL,"
"  params TEXT NOT NULL DEFAULT '',"
"  base_seed INTEGER NOT NULL,"
"  runs_planned INTEGER NOT NULL,"
"  runs_done INTEGER NOT NULL DEFAULT 0,"
"  failing INTEGER NOT NULL DEFAULT 0,"
"  first_bug_run INTEGER NOT NULL DEFAULT -1,"
"  events INTEGER NOT NULL DEFAULT 0,"
"  state TEXT NOT NULL DEFAULT 'running'"
"    CHECK (state IN ('running', 'done', 'stopped', 'interrupted')),"
"  out_dir TEXT NOT NULL,"
"  shard TEXT NOT NULL DEFAULT '',"
"  jobs INTEGER NOT NULL DEFAULT 1,"
"  pid INTEGER NOT NULL DEFAULT 0,"
"  started_us INTEGER NOT NULL,"
"  updated_us INTEGER NOT NULL,"
"  ended_us INTEGER NOT NULL DEFAULT 0,"
"  exit_code INTEGER NOT NULL DEFAULT -1,"
"  error TEXT NOT NULL DEFAULT ''"
");"
"CREATE TABLE IF NOT EXISTS runs ("
"  session TEXT NOT NULL REFERENCES sessions(id),"
"  run INTEGER NOT NULL,"
"  seed INTEGER NOT NULL,"
"  verdict TEXT NOT NULL,"
"  steps INTEGER NOT NULL,"
"  wall_us INTEGER NOT NULL,"
"  trace TEXT,"
"  PRIMARY KEY (session, run)"
");"
"CREATE TABLE IF NOT EXISTS bugs ("
"  session TEXT NOT NULL REFERENCES sessions(id),"
"  run INTEGER NOT NULL,"
"  seed INTEGER NOT NULL,"
"  kind TEXT NOT NULL,"
"  message TEXT NOT NULL,"
"  location TEXT NOT NULL DEFAULT '',"
"  trace TEXT NOT NULL DEFAULT '',"
"  replay TEXT NOT NULL,"
"  PRIMARY KEY (session, run)"
");"
"CREATE TABLE IF NOT EXISTS searches ("
"  session TEXT PRIMARY KEY REFERENCES sessions(id),"
"  bound INTEGER NOT NULL,"
"  schedules INTEGER NOT NULL,"
"  exhausted INTEGER NOT NULL,"
"  complete_bound INTEGER NOT NULL,"
"  cache INTEGER NOT NULL,"
"  cache_hits INTEGER NOT NULL,"
"  beyond_bound INTEGER NOT NULL,"
"  truncated INTEGER NOT NULL,"
"  nondeterministic INTEGER NOT NULL,"
"  nondet_first_run INTEGER NOT NULL,"
"  nondet_first TEXT NOT NULL DEFAULT '',"
"  bug_preemptions INTEGER NOT NULL,"
"  per_level TEXT NOT NULL DEFAULT '',"
"  bug_points TEXT NOT NULL DEFAULT ''"
");"
"CREATE INDEX IF NOT EXISTS sessions_state ON sessions(state);";

int64_t sc_store_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int db_error(struct sc_store *s, const char *what, char *err,
		    size_t errlen)
{
	snprintf(err, errlen, "session index: %s: %s", what,
		 s && s->db ? sqlite3_errmsg(s->db) : "out of memory");
	return -1;
}

static int exec_sql(struct sc_store *s, const char *sql, char *err,
		    size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "session index: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int check_version(struct sc_store *s, bool create, char *err,
			 size_t errlen)
{
	sqlite3_stmt *st;
	int v = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_error(s, "user_version", err, errlen);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v > SCHEMA_VERSION) {
		snprintf(err, errlen, "session index: schema version %d is newer "
			 "than this schedctl's (%d)", v, SCHEMA_VERSION);
		return -1;
	}
	if (!create)
		return 0;
	/* Every statement is IF NOT EXISTS: an index of this version made
	 * before a table was added gains it here.  Added tables need no
	 * version bump, which would make older readers refuse the index. */
	if (exec_sql(s, schema, err, errlen) < 0)
		return -1;
	if (v == SCHEMA_VERSION)
		return 0;
	return exec_sql(s, "PRAGMA user_version = 1", err, errlen);
}

int sc_store_open(const char *state_dir, bool create, struct sc_store **out,
		  char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct sc_store *s;
	struct stat sb;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;

	*out = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/sessions.db", state_dir) >=
	    sizeof(path)) {
		snprintf(err, errlen, "%s: path too long", state_dir);
		return -1;
	}
	if (create) {
		if (sc_mkdir_p(state_dir, 0700) < 0) {
			snprintf(err, errlen, "%s: %s", state_dir, strerror(errno));
			return -1;
		}
		flags |= SQLITE_OPEN_CREATE;
	} else if (stat(path, &sb) < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->batch_us = BATCH_US;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path,
			 s->db ? sqlite3_errmsg(s->db) : "cannot open");
		sc_store_close(s);
		return -1;
	}
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	/* WAL: readers (schedctl status) never block the writers, and a
	 * commit survives a kill -9 of the process (synchronous=NORMAL
	 * only risks the last commits on a power loss). */
	if (exec_sql(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
		     "PRAGMA foreign_keys=ON;", err, errlen) < 0 ||
	    check_version(s, create, err, errlen) < 0) {
		/* Prefix the path: "session index" alone is not enough. */
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		sc_store_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

void sc_store_close(struct sc_store *s)
{
	char err[256];

	if (!s)
		return;
	if (sc_store_flush(s, err, sizeof(err)) < 0)
		fprintf(stderr, "schedctld: the last runs' index: %s\n", err);
	for (int i = 0; i < NCACHED; i++)
		sqlite3_finalize(s->cached[i]);
	sqlite3_close(s->db);
	free(s);
}

static int prepare(struct sc_store *s, const char *sql, sqlite3_stmt **st,
		   char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_error(s, "prepare", err, errlen);
	return 0;
}

/* The cached statement `which` of sql, reset for new bindings. */
static int prepare_cached(struct sc_store *s, int which, const char *sql,
			  sqlite3_stmt **st, char *err, size_t errlen)
{
	if (!s->cached[which] &&
	    sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &s->cached[which], NULL) != SQLITE_OK) {
		s->cached[which] = NULL;
		return db_error(s, "prepare", err, errlen);
	}
	*st = s->cached[which];
	sqlite3_reset(*st);
	sqlite3_clear_bindings(*st);
	return 0;
}

/* Step a cached statement that returns no row, then reset it. */
static int run_cached(struct sc_store *s, sqlite3_stmt *st, const char *what,
		      char *err, size_t errlen)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_error(s, what, err, errlen);
	return 0;
}

/* Step a statement that returns no row, then finalize it. */
static int run_stmt(struct sc_store *s, sqlite3_stmt *st, const char *what,
		    char *err, size_t errlen)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE) {
		db_error(s, what, err, errlen);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

int sc_store_session_begin(struct sc_store *s, const struct sc_store_session *ss,
			   char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int64_t now = sc_store_now_us();
	time_t t = (time_t)(now / 1000000);
	struct tm tm;
	char created[32];

	gmtime_r(&t, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (prepare(s, "INSERT INTO sessions (id, kind, created, argv, cwd, "
		    "strategy, params, base_seed, runs_planned, out_dir, shard, "
		    "jobs, pid, started_us, updated_us) VALUES (?1, ?2, ?3, ?4, "
		    "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14)", &st, err,
		    errlen) < 0)
		return -1;
	bind_text(st, 1, ss->id);
	bind_text(st, 2, ss->kind ? ss->kind : "launch");
	bind_text(st, 3, created);
	bind_text(st, 4, ss->argv);
	bind_text(st, 5, ss->cwd);
	bind_text(st, 6, ss->strategy);
	bind_text(st, 7, ss->params);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)ss->base_seed);
	sqlite3_bind_int64(st, 9, ss->runs_planned);
	bind_text(st, 10, ss->out_dir);
	bind_text(st, 11, ss->shard);
	sqlite3_bind_int64(st, 12, ss->jobs);
	sqlite3_bind_int64(st, 13, ss->pid);
	sqlite3_bind_int64(st, 14, now);
	return run_stmt(s, st, "new session", err, errlen);
}

static int add_bug(struct sc_store *s, const char *session, uint32_t run,
		   uint64_t seed, const Scctl__Bug *b, char *err, size_t errlen)
{
	sqlite3_stmt *st;

	if (prepare_cached(s, BUG_INSERT, "INSERT OR REPLACE INTO bugs "
			   "(session, run, seed, kind, message, location, "
			   "trace, replay) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
			   "?8)", &st, err, errlen) < 0)
		return -1;
	bind_text(st, 1, session);
	sqlite3_bind_int64(st, 2, run);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)seed);
	bind_text(st, 4, b->kind);
	bind_text(st, 5, b->message);
	bind_text(st, 6, b->location);
	bind_text(st, 7, b->trace);
	bind_text(st, 8, b->replay);
	return run_cached(s, st, "bug", err, errlen);
}

int sc_store_add_run(struct sc_store *s, const char *session, uint32_t run,
		     uint64_t seed, const char *verdict, uint64_t steps,
		     uint64_t wall_us, const char *trace, const Scctl__Bug *bug,
		     char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int64_t now = sc_store_now_us();

	if (!s->batch_open) {
		if (exec_sql(s, "BEGIN IMMEDIATE", err, errlen) < 0)
			return -1;
		s->batch_open = true;
		s->batch_since_us = now;
	}
	/* A run that cannot be written leaves the batch's others alone. */
	if (exec_sql(s, "SAVEPOINT one_run", err, errlen) < 0)
		return -1;
	if (prepare_cached(s, RUN_INSERT, "INSERT OR REPLACE INTO runs "
			   "(session, run, seed, verdict, steps, wall_us, "
			   "trace) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st,
			   err, errlen) < 0)
		goto rollback;
	bind_text(st, 1, session);
	sqlite3_bind_int64(st, 2, run);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)seed);
	bind_text(st, 4, verdict);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)steps);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)wall_us);
	if (trace && *trace)
		bind_text(st, 7, trace);
	else
		sqlite3_bind_null(st, 7);
	if (run_cached(s, st, "run", err, errlen) < 0)
		goto rollback;
	if (bug && add_bug(s, session, run, seed, bug, err, errlen) < 0)
		goto rollback;
	if (prepare_cached(s, SESSION_COUNTERS, "UPDATE sessions SET "
			   "runs_done = runs_done + 1, failing = failing + ?2, "
			   "events = events + ?3, first_bug_run = CASE WHEN ?2 "
			   "AND (first_bug_run < 0 OR ?4 < first_bug_run) THEN "
			   "?4 ELSE first_bug_run END, updated_us = ?5 WHERE "
			   "id = ?1", &st, err, errlen) < 0)
		goto rollback;
	bind_text(st, 1, session);
	sqlite3_bind_int(st, 2, bug != NULL);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)steps);
	sqlite3_bind_int64(st, 4, run);
	sqlite3_bind_int64(st, 5, now);
	if (run_cached(s, st, "session counters", err, errlen) < 0)
		goto rollback;
	if (exec_sql(s, "RELEASE one_run", err, errlen) < 0)
		goto rollback;
	if (bug || now - s->batch_since_us >= s->batch_us)
		return sc_store_flush(s, err, errlen);
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK TO one_run; RELEASE one_run", NULL,
		     NULL, NULL);
	return -1;
}

void sc_store_set_batch_us(struct sc_store *s, int64_t us)
{
	s->batch_us = us;
}

int sc_store_flush(struct sc_store *s, char *err, size_t errlen)
{
	if (!s || !s->batch_open)
		return 0;
	s->batch_open = false;
	if (exec_sql(s, "COMMIT", err, errlen) == 0)
		return 0;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int sc_store_session_end(struct sc_store *s, const char *session,
			 const char *state, int exit_code, const char *error,
			 char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int64_t now = sc_store_now_us();

	if (sc_store_flush(s, err, errlen) < 0)
		return -1;
	if (prepare(s, "UPDATE sessions SET state = ?2, exit_code = ?3, "
		    "error = ?4, ended_us = ?5, updated_us = ?5 WHERE id = ?1",
		    &st, err, errlen) < 0)
		return -1;
	bind_text(st, 1, session);
	bind_text(st, 2, state);
	sqlite3_bind_int(st, 3, exit_code);
	bind_text(st, 4, error);
	sqlite3_bind_int64(st, 5, now);
	return run_stmt(s, st, "end of session", err, errlen);
}

/* Schedules per preemption count as text, "3,32,145": one column that
 * plain SQL can still read. */
static void levels_text(const Scctl__SearchStats *c, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t l = 0; l < c->n_per_level && o + 12 < len; l++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u", l ? "," : "",
				      c->per_level[l]);
}

/* The failing run's preemptions, one per line. */
static void points_text(const Scctl__SearchStats *c, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->n_bug_points && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "\n" : "",
				      c->bug_points[i]);
}

/* points_text() back; -1 when out of memory. */
static int points_parse(const char *text, Scctl__SearchStats *c)
{
	size_t n = 1;
	char *copy, *save = NULL;

	c->n_bug_points = 0;
	c->bug_points = NULL;
	if (!text || !*text)
		return 0;
	for (const char *q = text; *q; q++)
		n += *q == '\n';
	c->bug_points = calloc(n, sizeof(*c->bug_points));
	copy = strdup(text);
	if (!c->bug_points || !copy) {
		free(copy);
		return -1;
	}
	for (char *line = strtok_r(copy, "\n", &save); line && c->n_bug_points < n;
	     line = strtok_r(NULL, "\n", &save)) {
		c->bug_points[c->n_bug_points] = strdup(line);
		if (!c->bug_points[c->n_bug_points]) {
			free(copy);
			return -1;
		}
		c->n_bug_points++;
	}
	free(copy);
	return 0;
}

/* levels_text() back; an empty or malformed text gives none. */
static int levels_parse(const char *text, Scctl__SearchStats *c)
{
	size_t n = 0;
	const char *p = text;

	c->n_per_level = 0;
	c->per_level = NULL;
	if (!text || !*text)
		return 0;
	for (const char *q = text; *q; q++)
		n += *q == ',';
	c->per_level = calloc(n + 1, sizeof(*c->per_level));
	if (!c->per_level)
		return -1;
	while (*p && c->n_per_level <= n) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		c->per_level[c->n_per_level++] = (uint32_t)v;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int sc_store_set_search(struct sc_store *s, const char *session,
			const Scctl__SearchStats *c, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char levels[17 * 12], points[17 * 260];

	if (sc_store_flush(s, err, errlen) < 0)
		return -1;
	if (prepare(s, "INSERT OR REPLACE INTO searches (session, bound, "
		    "schedules, exhausted, complete_bound, cache, cache_hits, "
		    "beyond_bound, truncated, nondeterministic, nondet_first_run, "
		    "nondet_first, bug_preemptions, per_level, bug_points) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
		    "?13, ?14, ?15)", &st, err, errlen) < 0)
		return -1;
	bind_text(st, 1, session);
	sqlite3_bind_int64(st, 2, c->bound);
	sqlite3_bind_int64(st, 3, c->schedules);
	sqlite3_bind_int(st, 4, c->exhausted != 0);
	/* Absent means "none", as search_from_proto reads it. */
	sqlite3_bind_int64(st, 5, c->has_complete_bound ? c->complete_bound : -1);
	sqlite3_bind_int(st, 6, c->cache != 0);
	sqlite3_bind_int64(st, 7, c->cache_hits);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)c->beyond_bound);
	sqlite3_bind_int(st, 9, c->truncated != 0);
	sqlite3_bind_int64(st, 10, c->nondeterministic);
	sqlite3_bind_int64(st, 11, c->nondet_first_run);
	bind_text(st, 12, c->nondet_first);
	sqlite3_bind_int64(st, 13, c->has_bug_preemptions ? c->bug_preemptions
			   : -1);
	levels_text(c, levels, sizeof(levels));
	bind_text(st, 14, levels);
	points_text(c, points, sizeof(points));
	bind_text(st, 15, points);
	return run_stmt(s, st, "search", err, errlen);
}

/* Is pid a live process running the same program as we do? */
static bool alive_sibling(int pid)
{
	char link[64], a[PATH_MAX], b[PATH_MAX];
	ssize_t na, nb;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	na = readlink(link, a, sizeof(a) - 1);
	nb = readlink("/proc/self/exe", b, sizeof(b) - 1);
	if (na <= 0 || nb <= 0)
		return false;
	a[na] = b[nb] = '\0';
	return strcmp(a, b) == 0;
}

int sc_store_mark_interrupted(struct sc_store *s, int only_pid, char *err,
			      size_t errlen)
{
	sqlite3_stmt *st, *up;
	int marked = 0;

	if (sc_store_flush(s, err, errlen) < 0)
		return -1;
	if (prepare(s, "SELECT id, pid FROM sessions WHERE state = 'running'",
		    &st, err, errlen) < 0)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int pid = sqlite3_column_int(st, 1);

		if (only_pid > 0 ? pid != only_pid
		    : only_pid < 0 ? !(kill(pid, 0) < 0 && errno == ESRCH)
		    : alive_sibling(pid))
			continue;
		if (prepare(s, "UPDATE sessions SET state = 'interrupted', "
			    "error = 'the worker or the daemon died', "
			    "ended_us = ?2 WHERE id = ?1 AND state = 'running'",
			    &up, err, errlen) < 0)
			break;
		sqlite3_bind_text(up, 1, (const char *)sqlite3_column_text(st, 0),
				  -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(up, 2, sc_store_now_us());
		if (run_stmt(s, up, "mark interrupted", err, errlen) < 0)
			break;
		marked++;
	}
	sqlite3_finalize(st);
	return marked;
}

/* ---- reading ---- */

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

#define SESSION_COLUMNS \
	"id, kind, created, argv, cwd, strategy, params, out_dir, state, " \
	"shard, error, base_seed, events, runs_planned, runs_done, failing, " \
	"jobs, first_bug_run, started_us, updated_us, ended_us, pid, exit_code"

static void read_row(sqlite3_stmt *st, struct sc_session_row *r)
{
	r->id = col_dup(st, 0);
	r->kind = col_dup(st, 1);
	r->created = col_dup(st, 2);
	r->argv = col_dup(st, 3);
	r->cwd = col_dup(st, 4);
	r->strategy = col_dup(st, 5);
	r->params = col_dup(st, 6);
	r->out_dir = col_dup(st, 7);
	r->state = col_dup(st, 8);
	r->shard = col_dup(st, 9);
	r->error = col_dup(st, 10);
	r->base_seed = (uint64_t)sqlite3_column_int64(st, 11);
	r->events = (uint64_t)sqlite3_column_int64(st, 12);
	r->runs_planned = (uint32_t)sqlite3_column_int64(st, 13);
	r->runs_done = (uint32_t)sqlite3_column_int64(st, 14);
	r->failing = (uint32_t)sqlite3_column_int64(st, 15);
	r->jobs = (uint32_t)sqlite3_column_int64(st, 16);
	r->first_bug_run = (int32_t)sqlite3_column_int64(st, 17);
	r->started_us = sqlite3_column_int64(st, 18);
	r->updated_us = sqlite3_column_int64(st, 19);
	r->ended_us = sqlite3_column_int64(st, 20);
	r->pid = sqlite3_column_int(st, 21);
	r->exit_code = sqlite3_column_int(st, 22);
}

static void row_free(struct sc_session_row *r)
{
	free(r->id); free(r->kind); free(r->created); free(r->argv);
	free(r->cwd); free(r->strategy); free(r->params);
	free(r->out_dir); free(r->state); free(r->shard); free(r->error);
}

static bool row_ok(const struct sc_session_row *r)
{
	return r->id && r->kind && r->created && r->argv && r->cwd &&
	       r->strategy && r->params && r->out_dir && r->state && r->shard &&
	       r->error;
}

int sc_store_sessions(struct sc_store *s, const char *id,
		      struct sc_session_row **rows, size_t *n,
		      char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct sc_session_row *out = NULL;
	size_t count = 0, exact = SIZE_MAX;
	int rc;

	*rows = NULL;
	*n = 0;
	if (prepare(s, id ? "SELECT " SESSION_COLUMNS " FROM sessions WHERE "
		    "substr(id, 1, length(?1)) = ?1 ORDER BY started_us, id"
		    : "SELECT " SESSION_COLUMNS " FROM sessions ORDER BY "
		    "started_us, id", &st, err, errlen) < 0)
		return -1;
	if (id)
		bind_text(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sc_session_row *grown = realloc(out, (count + 1) * sizeof(*out));

		if (!grown)
			goto oom;
		out = grown;
		memset(&out[count], 0, sizeof(out[count]));
		read_row(st, &out[count]);
		if (!row_ok(&out[count++]))
			goto oom;
		if (id && strcmp(out[count - 1].id, id) == 0)
			exact = count - 1;
	}
	if (rc != SQLITE_DONE) {
		db_error(s, "sessions", err, errlen);
		sqlite3_finalize(st);
		sc_store_rows_free(out, count);
		return -1;
	}
	sqlite3_finalize(st);
	if (id && exact != SIZE_MAX && count > 1) {
		/* An exact id wins over the longer ids it prefixes. */
		struct sc_session_row keep = out[exact];

		for (size_t i = 0; i < count; i++)
			if (i != exact)
				row_free(&out[i]);
		out[0] = keep;
		count = 1;
	}
	if (id && count == 0) {
		snprintf(err, errlen, "no session '%s' (see schedctl list)", id);
		free(out);
		return -1;
	}
	if (id && count > 1) {
		snprintf(err, errlen, "session '%s' is ambiguous: %zu sessions "
			 "start with it", id, count);
		sc_store_rows_free(out, count);
		return -1;
	}
	*rows = out;
	*n = count;
	return 0;
oom:
	sqlite3_finalize(st);
	sc_store_rows_free(out, count);
	snprintf(err, errlen, "out of memory");
	return -1;
}

void sc_store_rows_free(struct sc_session_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		row_free(&rows[i]);
	free(rows);
}

void sc_store_bug_free(Scctl__Bug *b)
{
	if (!b)
		return;
	free(b->kind);
	free(b->message);
	free(b->location);
	free(b->trace);
	free(b->replay);
	free(b->stdout_path);
	free(b->stderr_path);
	free(b->stderr_tail);
	free(b->stacks);
	free(b);
}

/* The run's output files sit beside its trace (run-N.sctrace, .out,
 * .err): give `results` the same stderr excerpt as the launch report.
 * Without a kept trace there is nothing to point at. */
static int add_run_files(Scctl__Bug *b)
{
	static const char suffix[] = ".sctrace";
	size_t len = strlen(b->trace), base;
	char path[PATH_MAX], tail[1024];

	if (len <= sizeof(suffix) - 1 ||
	    strcmp(b->trace + len - (sizeof(suffix) - 1), suffix) != 0)
		return 0;
	base = len - (sizeof(suffix) - 1);
	if (base + 5 > sizeof(path))
		return 0;
	snprintf(path, sizeof(path), "%.*s.err", (int)base, b->trace);
	if (access(path, R_OK) != 0)
		return 0;
	sc_file_tail(path, 5, tail, sizeof(tail));
	b->stderr_path = strdup(path);
	b->stderr_tail = strdup(tail);
	snprintf(path, sizeof(path), "%.*s.out", (int)base, b->trace);
	b->stdout_path = strdup(path);
	/* The stacks are in the trace's footer. */
	struct sc_trace t;
	char why[256];
	if (sc_trace_load(b->trace, &t, why, sizeof(why)) == 0) {
		b->stacks = strdup(t.stacks ? t.stacks : "");
		sc_trace_free(&t);
		if (!b->stacks)
			return -1;
	}
	return b->stderr_path && b->stderr_tail && b->stdout_path ? 0 : -1;
}

int sc_store_bugs(struct sc_store *s, const char *session, Scctl__Bug ***bugs,
		  size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	Scctl__Bug **out = NULL;
	size_t count = 0;
	int rc;

	*bugs = NULL;
	*n = 0;
	if (prepare(s, "SELECT run, seed, kind, message, location, trace, "
		    "replay FROM bugs WHERE session = ?1 ORDER BY run", &st, err,
		    errlen) < 0)
		return -1;
	bind_text(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		Scctl__Bug **grown = realloc(out, (count + 1) * sizeof(*out));
		Scctl__Bug *b = calloc(1, sizeof(*b));

		if (grown)
			out = grown;
		if (!grown || !b) {
			free(b);
			goto oom;
		}
		scctl__bug__init(b);
		out[count++] = b;
		b->has_run = b->has_seed = 1;
		b->run = (uint32_t)sqlite3_column_int64(st, 0);
		b->seed = (uint64_t)sqlite3_column_int64(st, 1);
		b->kind = col_dup(st, 2);
		b->message = col_dup(st, 3);
		b->location = col_dup(st, 4);
		b->trace = col_dup(st, 5);
		b->replay = col_dup(st, 6);
		if (!b->kind || !b->message || !b->location || !b->trace ||
		    !b->replay || add_run_files(b) < 0)
			goto oom;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < count; i++)
			sc_store_bug_free(out[i]);
		free(out);
		return db_error(s, "bugs", err, errlen);
	}
	*bugs = out;
	*n = count;
	return 0;
oom:
	sqlite3_finalize(st);
	for (size_t i = 0; i < count; i++)
		sc_store_bug_free(out[i]);
	free(out);
	snprintf(err, errlen, "out of memory");
	return -1;
}

void sc_store_search_free(Scctl__SearchStats *c)
{
	if (!c)
		return;
	free(c->nondet_first);
	free(c->per_level);
	for (size_t i = 0; i < c->n_bug_points; i++)
		free(c->bug_points[i]);
	free(c->bug_points);
	free(c);
}

/* Does the index have that table?  (One made by an older daemon that
 * no newer one opened since lacks the tables added later.) */
static int has_table(struct sc_store *s, const char *name, char *err,
		     size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(s, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
		    "name = ?1", &st, err, errlen) < 0)
		return -1;
	bind_text(st, 1, name);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(s, "tables", err, errlen);
	return rc == SQLITE_ROW;
}

int sc_store_search(struct sc_store *s, const char *session,
		    Scctl__SearchStats **out, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	Scctl__SearchStats *c;
	int rc = has_table(s, "searches", err, errlen);

	*out = NULL;
	if (rc <= 0)
		return rc;
	if (prepare(s, "SELECT bound, schedules, exhausted, complete_bound, "
		    "cache, cache_hits, beyond_bound, truncated, "
		    "nondeterministic, nondet_first_run, nondet_first, "
		    "bug_preemptions, per_level, bug_points FROM searches "
		    "WHERE session = ?1",
		    &st, err, errlen) < 0)
		return -1;
	bind_text(st, 1, session);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		db_error(s, "search", err, errlen);
		sqlite3_finalize(st);
		return -1;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		sqlite3_finalize(st);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	scctl__search_stats__init(c);
	c->has_bound = c->has_schedules = c->has_exhausted = 1;
	c->has_complete_bound = c->has_cache = c->has_cache_hits = 1;
	c->has_beyond_bound = c->has_truncated = c->has_nondeterministic = 1;
	c->has_nondet_first_run = c->has_bug_preemptions = 1;
	c->bound = (uint32_t)sqlite3_column_int64(st, 0);
	c->schedules = (uint32_t)sqlite3_column_int64(st, 1);
	c->exhausted = sqlite3_column_int(st, 2) != 0;
	c->complete_bound = (int32_t)sqlite3_column_int64(st, 3);
	c->cache = sqlite3_column_int(st, 4) != 0;
	c->cache_hits = (uint32_t)sqlite3_column_int64(st, 5);
	c->beyond_bound = (uint64_t)sqlite3_column_int64(st, 6);
	c->truncated = sqlite3_column_int(st, 7) != 0;
	c->nondeterministic = (uint32_t)sqlite3_column_int64(st, 8);
	c->nondet_first_run = (uint32_t)sqlite3_column_int64(st, 9);
	c->nondet_first = col_dup(st, 10);
	c->bug_preemptions = (int32_t)sqlite3_column_int64(st, 11);
	rc = levels_parse((const char *)sqlite3_column_text(st, 12), c);
	if (rc == 0)
		rc = points_parse((const char *)sqlite3_column_text(st, 13), c);
	sqlite3_finalize(st);
	if (!c->nondet_first || rc < 0) {
		sc_store_search_free(c);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*out = c;
	return 0;
}
