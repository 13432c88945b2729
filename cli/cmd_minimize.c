/*
 * cmd_minimize.c - schedctl minimize [OPTIONS] TRACE
 *
 * Shrinks a failing schedule to the fewest preemptions that still fail:
 * the trace's context switches become a guided schedule (guide.h) that
 * the daemon runs like a replay; delta debugging (Zeller's ddmin) drops
 * the switches that preempted a thread that could have gone on, keeping
 * a set from which no single one can be dropped; each switch alone is
 * tried too, as that set need not be the smallest.  Then the last
 * preemption left is moved later, one event of the preempted thread at a
 * time: the event whose move makes the run pass, and the first event of
 * another thread it was reordered with, are the racing pair.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "json_out.h"
#include "minimize.h"
#include "strategy/guide.h"

static const char minimize_usage[] =
"Usage: schedctl minimize [OPTIONS] TRACE\n"
"Shrink the schedule of a failing run to fewer preemptions that still fail\n"
"(a local minimum: none of those left can be dropped), by running the\n"
"program under candidate schedules (delta debugging\n"
"over the trace's context switches), write the result as a trace that\n"
"replays, and name the racing pair: the two events whose order decides\n"
"the failure.\n"
"\n"
"  -o, --output FILE       the minimised trace (default: TRACE with\n"
"                          .min.sctrace in place of .sctrace)\n"
"      --max-runs N        run the program at most N times (default 300;\n"
"                          the search stops at four fifths of them and\n"
"                          keeps the rest for naming the racing pair)\n"
"      --timeout SECONDS   wall-clock limit of each run (default: ten\n"
"                          times the recorded run, at least 2 s, at most\n"
"                          the recorded limit; a recorded hang: the\n"
"                          recorded limit)\n"
"      --json              print one JSON object instead of the text\n"
"      --verbose           say on stderr what each run tried and got\n"
"      --socket PATH       daemon control socket\n"
"  -h, --help              show this help and exit\n"
"\n"
"Exit status: 0 a failing schedule was written, 2 usage error or TRACE\n"
"did not fail, 3 the failure did not show again under a guided schedule,\n"
"or the program could not run.\n";

enum { OPT_JSON = 2000, OPT_TIMEOUT, OPT_MAX_RUNS, OPT_VERBOSE };

/* Preemptions find_pair tries to move, the last ones first. */
#define SC_MAX_PAIR_TRIES 8

static const struct option minimize_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "max-runs", required_argument, NULL, OPT_MAX_RUNS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What minimize works on: the schedule as switches, which of them are
 * left out, and the best failing run so far. */
/* The shortest default time limit of a candidate run (ms). */
#define MIN_CANDIDATE_MS 2000u

struct minimize {
	Scctl__ReplayRequest rr;        /* trace, cwd, env, timeout */
	int devnull;
	char dir[PATH_MAX];             /* candidate traces */
	char **sw;                      /* every switch "T.n>U" */
	size_t nsw;
	bool *dropped;                  /* sw[i] left out for good */
	char *wakes;                    /* the wake choices, kept */
	uint32_t runs, max_runs;
	/* The runs the search may use: the rest of max_runs is for naming
	 * the racing pair.  budget_hit: the search stopped at it. */
	uint32_t search_runs;
	bool budget_hit;
	bool verbose;                   /* --verbose */
	char verdict[32];               /* of the recorded failure */
	/* The best failing run: fewest preemptions. */
	bool have_best;
	uint32_t best_preemptions;
	char *best_points;              /* its preemptions, as switches */
	char *best_text;                /* its schedule */
	char best_trace[PATH_MAX + 32];
	uint32_t first_preemptions;     /* of the whole schedule */
};

struct guided_result {
	bool ran, failed;
	uint32_t preemptions;
	char *points;                   /* malloc'ed */
	char verdict[32];
};

static void guided_result_free(struct guided_result *g)
{
	free(g->points);
	g->points = NULL;
}

/* Run the program under schedule text; record its trace to path (may be
 * NULL).  -1 when the daemon could not run it (said on stderr). */
static int guided_run(struct minimize *m, const char *text, const char *path,
		      struct guided_result *out)
{
	Scctl__Request req = SCCTL__REQUEST__INIT;
	int fds[2] = { m->devnull, m->devnull }, rc = -1;

	memset(out, 0, sizeof(*out));
	m->rr.guide = (char *)text;
	m->rr.record_path = (char *)path;
	req.replay = &m->rr;
	m->runs++;
	int fd = cli_connect(true, NULL);
	if (fd < 0)
		return -1;
	if (cli_send(fd, &req, fds, 2) < 0)
		goto out;
	for (;;) {
		Scctl__Reply *r = cli_recv(fd);
		if (!r)
			goto out;
		if (r->replay) {
			out->ran = true;
			out->failed = r->replay->reproduced;
			out->preemptions = r->replay->preemptions;
			out->points = strdup(r->replay->preemption_points
					     ? r->replay->preemption_points : "");
			snprintf(out->verdict, sizeof(out->verdict), "%s",
				 r->replay->verdict ? r->replay->verdict : "?");
			scctl__reply__free_unpacked(r, NULL);
			rc = out->points ? 0 : -1;
			goto out;
		}
		if (r->has_ok && !r->ok) {
			cli_error("minimize: %s", r->error ? r->error
				  : "the run failed to start");
			scctl__reply__free_unpacked(r, NULL);
			goto out;
		}
		scctl__reply__free_unpacked(r, NULL);
	}
out:
	close(fd);
	return rc;
}

/* The schedule with the wakes, the switches not dropped and, of the
 * candidates cand[0..ncand), those with keep[i]. */
static char *schedule_text(const struct minimize *m, const size_t *cand,
			   size_t ncand, const bool *keep)
{
	size_t len = strlen(m->wakes) + 1;

	for (size_t i = 0; i < m->nsw; i++)
		len += strlen(m->sw[i]) + 1;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	p += sprintf(p, "%s", m->wakes);
	for (size_t i = 0; i < m->nsw; i++) {
		bool in = !m->dropped[i];
		for (size_t j = 0; j < ncand && in; j++)
			if (cand[j] == i)
				in = keep[j];
		if (in)
			p += sprintf(p, "%s%s", p == s ? "" : " ", m->sw[i]);
	}
	return s;
}

/* Run a schedule; a failing run with fewer preemptions than the best
 * becomes the best.  1 fails, 0 passes, -1 could not run. */
static int try_schedule(struct minimize *m, char *text)
{
	char path[PATH_MAX + 32];
	struct guided_result g;

	snprintf(path, sizeof(path), "%s/run-%u.sctrace", m->dir, m->runs + 1);
	if (guided_run(m, text, path, &g) < 0) {
		free(text);
		return -1;
	}
	if (m->verbose)
		fprintf(stderr, "minimize: run %u: %u preemption%s (%s): %s\n",
			m->runs, g.preemptions, cli_s(g.preemptions), g.points,
			g.verdict);
	if (!g.failed || (m->have_best && g.preemptions > m->best_preemptions)) {
		unlink(path);
		guided_result_free(&g);
		free(text);
		return g.failed;
	}
	if (m->have_best)
		unlink(m->best_trace);
	free(m->best_points);
	free(m->best_text);
	m->have_best = true;
	m->best_preemptions = g.preemptions;
	m->best_points = g.points;
	m->best_text = text;
	snprintf(m->best_trace, sizeof(m->best_trace), "%s", path);
	return 1;
}

static size_t sw_index(const struct minimize *m, const char *tok)
{
	for (size_t i = 0; i < m->nsw; i++)
		if (strcmp(m->sw[i], tok) == 0)
			return i;
	return SIZE_MAX;
}

/* The switches of the best run's preemptions not dropped yet. */
static size_t candidates(const struct minimize *m, size_t *cand)
{
	size_t n = 0;
	char *copy = strdup(m->best_points), *save = NULL;

	if (!copy)
		return 0;
	for (char *tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		size_t i = sw_index(m, tok);
		if (i != SIZE_MAX && !m->dropped[i])
			cand[n++] = i;
	}
	free(copy);
	return n;
}

/* Run the schedule keeping the candidates c[lo..hi) of the set c[0..nc)
 * (complement: the others of the set). */
static int test_subset(struct minimize *m, const size_t *cand, size_t n,
		       size_t lo, size_t hi, bool complement,
		       const size_t *c, size_t nc)
{
	bool keep[n];

	for (size_t i = 0; i < n; i++)
		keep[i] = false;
	for (size_t j = 0; j < nc; j++) {
		bool in_chunk = j >= lo && j < hi;
		if (in_chunk != complement)
			keep[c[j]] = true;
	}
	char *text = schedule_text(m, cand, n, keep);
	return text ? try_schedule(m, text) : -1;
}

/* ddmin over cand[0..n): on return the candidates outside the 1-minimal
 * failing set are dropped.  -1 when a run could not be made. */
static int ddmin(struct minimize *m, const size_t *cand, size_t n)
{
	size_t c[n ? n : 1], nc = n, parts = 2;
	int rc;

	for (size_t i = 0; i < n; i++)
		c[i] = i;
	/* No preemption at all may do. */
	rc = test_subset(m, cand, n, 0, 0, false, c, nc);
	if (rc < 0)
		return -1;
	if (rc)
		nc = 0;
	while (nc >= 2 && m->runs < m->search_runs) {
		size_t size = (nc + parts - 1) / parts;
		bool reduced = false;

		for (int pass = 0; pass < 2 && !reduced; pass++)
			for (size_t lo = 0; lo < nc && !reduced &&
			     m->runs < m->search_runs; lo += size) {
				size_t hi = lo + size < nc ? lo + size : nc;
				rc = test_subset(m, cand, n, lo, hi,
						 pass == 1, c, nc);
				if (rc < 0)
					return -1;
				if (!rc)
					continue;
				if (pass == 0) {
					memmove(c, c + lo, (hi - lo) * sizeof(*c));
					nc = hi - lo;
					parts = 2;
				} else {
					memmove(c + lo, c + hi, (nc - hi) * sizeof(*c));
					nc -= hi - lo;
					parts = parts > 2 ? parts - 1 : 2;
				}
				reduced = true;
			}
		if (!reduced) {
			if (parts >= nc)
				break;
			parts = parts * 2 < nc ? parts * 2 : nc;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool kept = false;
		for (size_t j = 0; j < nc; j++)
			kept |= c[j] == i;
		if (!kept)
			m->dropped[cand[i]] = true;
	}
	return 0;
}

/* Split the schedule of trace t into wakes and switches. */
static int split_schedule(struct minimize *m, const struct sc_trace *t)
{
	char *all = sc_guide_from_trace(t), *save = NULL;
	size_t len = 0;

	if (!all)
		return -1;
	m->sw = calloc(strlen(all) / 4 + 1, sizeof(*m->sw));
	m->wakes = calloc(strlen(all) + 1, 1);
	if (!m->sw || !m->wakes) {
		free(all);
		return -1;
	}
	for (char *tok = strtok_r(all, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (tok[0] == 'w') {
			len += (size_t)sprintf(m->wakes + len, "%s%s",
					       len ? " " : "", tok);
			continue;
		}
		m->sw[m->nsw] = strdup(tok);
		if (!m->sw[m->nsw]) {
			free(all);
			return -1;
		}
		m->nsw++;
	}
	free(all);
	m->dropped = calloc(m->nsw + 1, sizeof(*m->dropped));
	return m->dropped ? 0 : -1;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), rc = 0;
	int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				     0644);
	ssize_t n;

	if (out < 0) {
		if (in >= 0)
			close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = -1;
			break;
		}
	if (n < 0 || close(out) < 0)
		rc = -1;
	close(in);
	return rc;
}

/* Run the best schedule with switch `from` replaced by `instead`: 1 the
 * run still fails, 0 it passes, -1 it could not run. */
static int try_moved(struct minimize *m, const char *from, const char *instead,
		     const char *record)
{
	if (m->runs >= m->max_runs)
		return -1;      /* --max-runs: the pair stays unnamed */
	size_t len = strlen(m->best_text) + strlen(instead) + 2;
	char *text = malloc(len), *p = text, *save = NULL;
	char *copy = strdup(m->best_text);
	struct guided_result g;

	if (!text || !copy) {
		free(text);
		free(copy);
		return -1;
	}
	*p = '\0';
	for (char *tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		p += sprintf(p, "%s%s", p == text ? "" : " ",
			     strcmp(tok, from) == 0 ? instead : tok);
	free(copy);
	int rc = guided_run(m, text, record, &g);
	if (m->verbose)
		fprintf(stderr, "minimize: run %u, %s moved to %s: %s\n",
			m->runs, from, instead, rc < 0 ? "could not run"
			: g.verdict);
	free(text);
	guided_result_free(&g);
	return rc < 0 ? -1 : g.failed;
}

/* How many events later preemption t.n>to must come for the run to
 * pass: doubling, then halving the gap; 0 when even MOVE_MAX do not. */
#define MOVE_MAX 64u
static unsigned passing_move(struct minimize *m, unsigned t, unsigned n,
			     unsigned to)
{
	char from[48], instead[48];
	unsigned fails = 0, passes = 0;

	snprintf(from, sizeof(from), "%u.%u>%u", t, n, to);
	for (unsigned later = 1; later <= MOVE_MAX; later *= 2) {
		snprintf(instead, sizeof(instead), "%u.%u>%u", t, n + later, to);
		int rc = try_moved(m, from, instead, NULL);
		if (rc < 0)
			return 0;
		if (!rc) {
			passes = later;
			break;
		}
		fails = later;
	}
	while (passes && passes - fails > 1) {
		unsigned mid = fails + (passes - fails) / 2;
		snprintf(instead, sizeof(instead), "%u.%u>%u", t, n + mid, to);
		int rc = try_moved(m, from, instead, NULL);
		if (rc < 0)
			return 0;
		if (rc)
			fails = mid;
		else
			passes = mid;
	}
	return passes;
}

/* How good a name a pair is: a data conflict at a line of the program's
 * own source (2) beats one inside a library or the language's runtime
 * (1: a reference count of Rust's Arc, of a shared_ptr, that the
 * schedule also reordered), which beats no conflict (0: the preemption
 * only decided when a thread started). */
static int pair_rank(const struct minimize_pair *p)
{
	if (!p->conflict)
		return 0;
	return p->earlier.in_program || p->later.in_program ? 2 : 1;
}

/* The racing pair: move a preemption of the best run later, one event
 * of the preempted thread at a time, until the run passes; the last
 * preemption first (the nearest to the failure).  The first pair of rank
 * 2 is the answer; else the best ranked one met (a deadlock's lock order
 * often sits in an earlier preemption than the last). */
static bool find_pair(struct minimize *m, struct minimize_pair *pair,
		      char *moved, size_t movedlen)
{
	char *copy = strdup(m->best_points), *save = NULL;
	char *tok[SC_MAX_PAIR_TRIES];
	size_t ntok = 0;
	struct minimize_pair best, named;
	char best_moved[48] = "";
	int best_rank = -1;

	if (!copy)
		return false;
	for (char *p = strtok_r(copy, " ", &save); p && ntok < SC_MAX_PAIR_TRIES;
	     p = strtok_r(NULL, " ", &save))
		tok[ntok++] = p;
	while (ntok-- > 0 && best_rank < 2) {
		unsigned t, n, to;
		if (sscanf(tok[ntok], "%u.%u>%u", &t, &n, &to) != 3)
			continue;
		unsigned later = passing_move(m, t, n, to);
		if (!later)
			continue;
		char from[48], path[PATH_MAX + 32], here[48];
		snprintf(from, sizeof(from), "%u.%u>%u", t, n, to);
		snprintf(here, sizeof(here), "%u.%u>%u", t, n + later, to);
		snprintf(path, sizeof(path), "%s/moved.sctrace", m->dir);
		/* The passing run itself, for an event the failure cut off. */
		int rc = try_moved(m, from, here, path);
		struct sc_trace tr, tm;
		char why[256];
		bool have_moved = rc == 0 &&
				  sc_trace_load(path, &tm, why, sizeof(why)) == 0;
		bool have_pair = false;
		if (sc_trace_load(m->best_trace, &tr, why, sizeof(why)) == 0) {
			have_pair = minimize_name_pair(&tr, have_moved ? &tm
						       : NULL, t, n,
						       n + later - 1,
						       &named) == 0;
			sc_trace_free(&tr);
		}
		if (have_pair && pair_rank(&named) > best_rank) {
			best = named;
			best_rank = pair_rank(&named);
			snprintf(best_moved, sizeof(best_moved), "%s", here);
		}
		if (have_moved)
			sc_trace_free(&tm);
		unlink(path);
	}
	free(copy);
	if (best_rank < 0)
		return false;
	*pair = best;
	snprintf(moved, movedlen, "%s", best_moved);
	return true;
}

static void side_text(const struct minimize_side *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", s->location,
		 s->function[0] ? " in " : "", s->function);
}

static void print_text(const struct minimize *m, const char *output,
		       const struct minimize_pair *pair, bool have_pair)
{
	/* ddmin's result is 1-minimal: no single preemption of it can go.
	 * A schedule with fewer preemptions elsewhere may fail too (moving
	 * them is not tried): say "still fails with", not "needs". */
	/* Stopped by --max-runs, the search did not try to drop each one
	 * (QA: "none of which can be dropped; ... fewer may do"). */
	printf("minimize: %u run%s; the failure (%s) still shows with %u "
	       "preemption%s (the recorded schedule had %u), %s\n", m->runs,
	       cli_s(m->runs), m->verdict, m->best_preemptions,
	       cli_s(m->best_preemptions), m->first_preemptions,
	       m->budget_hit ? "but the search stopped at --max-runs before "
			       "trying to drop each: fewer may do"
			     : "none of which can be dropped");
	printf("minimised trace: %s (schedctl replay %s)\n", output, output);
	if (m->best_points[0])
		printf("preemptions (thread.events>next thread): %s\n",
		       m->best_points);
	if (!have_pair && !m->best_preemptions) {
		printf("racing pair: none (the run fails without preemptions: "
		       "each thread runs until it blocks, then the lowest "
		       "enabled one)\n");
		return;
	}
	if (!have_pair && m->runs >= m->max_runs) {
		printf("racing pair: not found within --max-runs %u (moving "
		       "preemptions later takes more runs)\n", m->max_runs);
		return;
	}
	if (!have_pair) {
		printf("racing pair: not found (moving a preemption up to "
		       "%u events later did not make the run pass)\n", MOVE_MAX);
		return;
	}
	char a[800], b[800];
	side_text(&pair->later, a, sizeof(a));
	side_text(&pair->earlier, b, sizeof(b));
	if (!pair->conflict) {
		/* Moving the preemption past a made the run pass, but no
		 * event of the others in between touched what a touches (a
		 * free() inside the C library is no event): say so rather
		 * than call them a racing pair. */
		printf("racing pair: not identified (no event of another "
		       "thread on the same object around the preemption); "
		       "the run passes when T%u %s %s at %s before T%u %s %s "
		       "at %s\n", pair->later.thread, pair->later.verb,
		       pair->later.object_name, a, pair->earlier.thread,
		       pair->earlier.verb, pair->earlier.object_name, b);
		return;
	}
	if (pair->same_object)
		printf("racing pair: T%u %s %s at %s after T%u %s it at %s; "
		       "swapping them passes\n", pair->later.thread,
		       pair->later.verb, pair->later.object_name, a,
		       pair->earlier.thread, pair->earlier.verb, b);
	else
		printf("racing pair: T%u %s %s at %s after T%u %s %s at %s; "
		       "swapping them passes\n", pair->later.thread,
		       pair->later.verb, pair->later.object_name, a,
		       pair->earlier.thread, pair->earlier.verb,
		       pair->earlier.object_name, b);
}

static void side_json(struct json_out *j, const char *key,
		      const struct minimize_side *s)
{
	char obj[32];

	json_begin_object(j, key);
	json_uint(j, "thread", s->thread);
	json_uint(j, "step", s->step);
	json_string(j, "kind", s->kind);
	snprintf(obj, sizeof(obj), "0x%" PRIx64, s->object);
	json_string(j, "object", obj);
	json_string(j, "object_name", s->object_name);
	json_string(j, "location", s->location);
	json_string(j, "function", s->function);
	json_end(j);
}

static void print_json(const struct minimize *m, const char *trace,
		       const char *output, const struct minimize_pair *pair,
		       bool have_pair, const char *moved)
{
	struct json_out j;

	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "trace", trace);
	json_string(&j, "output", output);
	json_string(&j, "verdict", m->verdict);
	json_uint(&j, "runs", m->runs);
	json_uint(&j, "preemptions_before", m->first_preemptions);
	json_uint(&j, "preemptions", m->best_preemptions);
	json_bool(&j, "max_runs_reached", m->budget_hit);
	json_string(&j, "preemption_points", m->best_points);
	if (have_pair) {
		json_begin_object(&j, "racing_pair");
		side_json(&j, "first", &pair->earlier);
		side_json(&j, "second", &pair->later);
		json_bool(&j, "same_object", pair->same_object);
		json_bool(&j, "conflict", pair->conflict);
		json_string(&j, "passing_switch", moved);
		json_end(&j);
	} else {
		json_null(&j, "racing_pair");
	}
	json_end(&j);
	json_finish(&j);
	cli_json_printed = true;
}

static void minimize_free(struct minimize *m)
{
	for (size_t i = 0; i < m->nsw; i++)
		free(m->sw[i]);
	free(m->sw);
	free(m->dropped);
	free(m->wakes);
	free(m->best_points);
	free(m->best_text);
	free(m->rr.env);
	if (m->devnull >= 0)
		close(m->devnull);
	if (m->dir[0]) {
		if (m->have_best)
			unlink(m->best_trace);
		rmdir(m->dir);
	}
}

/* The whole schedule must fail again, guided: the starting point. */
static int start(struct minimize *m)
{
	char *text = schedule_text(m, NULL, 0, NULL);
	int rc = text ? try_schedule(m, text) : -1;

	if (rc < 0)
		return EXIT_FAIL;
	if (rc == 0) {
		cli_error("minimize: the failure did not show again when the "
			  "program ran under the trace's own context switches "
			  "(it depends on timing or on input the schedule does "
			  "not fix); nothing to minimize");
		return EXIT_FAIL;
	}
	m->first_preemptions = m->best_preemptions;
	return 0;
}

/* The switches that did not preempt (who runs after a thread blocked)
 * mostly only repeat the default choice: try without all of them. */
static int drop_free_switches(struct minimize *m)
{
	size_t cand[m->nsw + 1];
	size_t n = candidates(m, cand);
	bool keep[n + 1];
	bool saved[m->nsw + 1];

	memcpy(saved, m->dropped, m->nsw * sizeof(*saved));
	for (size_t i = 0; i < m->nsw; i++)
		m->dropped[i] = true;
	for (size_t j = 0; j < n; j++) {
		m->dropped[cand[j]] = false;
		keep[j] = true;
	}
	char *text = schedule_text(m, cand, n, keep);
	int rc = text ? try_schedule(m, text) : -1;
	if (rc <= 0)
		memcpy(m->dropped, saved, m->nsw * sizeof(*saved));
	return rc < 0 ? -1 : 0;
}

/* ddmin keeps a set none of whose members can be dropped, but another
 * set may be smaller: a lost update needs one preemption between a read
 * and its write, and ddmin may keep four that each feed the next.  Try
 * each of the trace's switches alone (one run each). */
static int try_single_switches(struct minimize *m)
{
	for (size_t i = 0; i < m->nsw && m->best_preemptions > 1 &&
	     m->runs < m->search_runs; i++) {
		size_t len = strlen(m->wakes) + strlen(m->sw[i]) + 2;
		char *text = malloc(len);
		if (!text)
			return -1;
		snprintf(text, len, "%s%s%s", m->wakes, *m->wakes ? " " : "",
			 m->sw[i]);
		if (try_schedule(m, text) < 0)
			return -1;
	}
	return 0;
}

static int minimize_run(struct minimize *m)
{
	int code = start(m);

	if (!code && drop_free_switches(m) < 0)
		code = EXIT_FAIL;
	/* Dropping preemptions can turn kept switches into preemptions:
	 * go on from the best run's own until that stops helping. */
	for (int round = 0; !code && round < 4 && m->runs < m->search_runs;
	     round++) {
		size_t cand[m->nsw + 1];
		size_t n = candidates(m, cand);
		uint32_t before = m->best_preemptions;
		if (n == 0 || ddmin(m, cand, n) < 0)
			break;
		if (m->best_preemptions >= before)
			break;
	}
	if (!code && try_single_switches(m) < 0)
		code = EXIT_FAIL;
	m->budget_hit = m->runs >= m->search_runs;
	return code;
}

int cmd_minimize(int argc, char **argv)
{
	struct minimize m = { .rr = SCCTL__REPLAY_REQUEST__INIT, .devnull = -1,
			      .max_runs = 300 };
	char path[PATH_MAX], cwd[PATH_MAX], output[PATH_MAX + 32], why[512];
	const char *out_opt = NULL;
	bool json = false;
	int c, code;
	struct sc_trace t;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":ho:", minimize_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(minimize_usage, stdout);
			return 0;
		case 'o':
			out_opt = optarg;
			break;
		case OPT_MAX_RUNS:
			if (cli_parse_u32("--max-runs", optarg, &m.max_runs) < 0)
				return EXIT_USAGE;
			if (m.max_runs < 2)
				return cli_usage_error("--max-runs: give 2 or more");
			break;
		case OPT_TIMEOUT:
			if (cli_parse_seconds("--timeout", optarg, &m.rr.timeout_ms) < 0)
				return EXIT_USAGE;
			m.rr.has_timeout_ms = 1;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_VERBOSE:
			m.verbose = true;
			break;
		case OPT_SOCKET:
			cli_socket = optarg;
			break;
		default:
			return cli_bad_option(c, argv);
		}
	}
	m.search_runs = m.max_runs - m.max_runs / 5;
	if (optind >= argc)
		return cli_usage_error("minimize: no trace given (schedctl minimize TRACE)");
	if (optind + 1 < argc)
		return cli_usage_error("minimize: unexpected argument '%s'",
				       argv[optind + 1]);
	if (!realpath(argv[optind], path)) {
		cli_error("%s: %s", argv[optind], strerror(errno));
		return EXIT_FAIL;
	}
	if (cli_same_file(path, out_opt))
		return cli_usage_error("minimize: -o %s is the trace itself",
				       out_opt);
	if (sc_trace_load(path, &t, why, sizeof(why)) < 0) {
		cli_error("%s", why);   /* it names the file */
		return EXIT_FAIL;
	}
	if (!t.has_footer) {
		cli_error("%s: the trace has no verdict (%s: its run never "
			  "ended, or its supervisor was killed): nothing to "
			  "minimize", argv[optind], t.truncated
			  ? "truncated" : "no footer");
		sc_trace_free(&t);
		return EXIT_USAGE;
	}
	if (t.verdict == SC_VERDICT_PASS || t.verdict == SC_VERDICT_UNKNOWN ||
	    t.verdict == SC_VERDICT_DIVERGED || t.verdict == SC_VERDICT_ERROR) {
		cli_error("%s: the recorded run did not fail (%s): nothing to "
			  "minimize", argv[optind], sc_verdict_name(t.verdict));
		sc_trace_free(&t);
		return EXIT_USAGE;
	}
	snprintf(m.verdict, sizeof(m.verdict), "%s", sc_verdict_name(t.verdict));
	/* A candidate schedule may leave a spinning thread running with
	 * nobody to release it: it ends only at its time limit, and the
	 * recorded one (a minute) for each such candidate made minimize
	 * take minutes on a 20-event trace.  Ten times the recorded run,
	 * at least 2 s, is plenty for a schedule that fails the same way;
	 * a recorded hang needs its whole limit to show again. */
	if (!m.rr.has_timeout_ms && t.verdict != SC_VERDICT_HANG) {
		uint64_t ms = t.wall_us / 100u;
		uint64_t cap = t.timeout_ms ? t.timeout_ms : 60000u;
		if (ms < MIN_CANDIDATE_MS)
			ms = MIN_CANDIDATE_MS;
		m.rr.timeout_ms = (uint32_t)(ms < cap ? ms : cap);
		m.rr.has_timeout_ms = 1;
	}
	int split = split_schedule(&m, &t);
	sc_trace_free(&t);
	if (out_opt)
		snprintf(output, sizeof(output), "%s", out_opt);
	else {
		size_t len = strlen(path);
		const char *sfx = ".sctrace";
		if (len > strlen(sfx) && strcmp(path + len - strlen(sfx), sfx) == 0)
			len -= strlen(sfx);
		snprintf(output, sizeof(output), "%.*s.min.sctrace", (int)len, path);
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(m.dir, sizeof(m.dir), "%s/schedctl-minimize.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	m.devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	m.rr.env = cli_environment(&m.rr.n_env);
	if (split < 0 || m.devnull < 0 || !m.rr.env || !getcwd(cwd, sizeof(cwd)) ||
	    !mkdtemp(m.dir)) {
		cli_error("minimize: %s", split < 0 ? "out of memory"
			  : strerror(errno));
		m.dir[0] = '\0';
		minimize_free(&m);
		return EXIT_FAIL;
	}
	m.rr.trace_path = path;
	m.rr.cwd = cwd;
	/* Ctrl-C or SIGTERM ends a minimize and the run it waits for (the
	 * worker kills that run's program when our connection closes), also
	 * when the shell started us with SIGINT ignored, as it ends a launch
	 * or a replay (QA: `minimize &` in a script could not be interrupted
	 * with SIGINT). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	code = minimize_run(&m);
	if (!code && copy_file(m.best_trace, output) < 0) {
		cli_error("%s: %s", output, strerror(errno));
		code = EXIT_FAIL;
	}
	if (!code) {
		struct minimize_pair pair;
		char moved[48] = "";
		bool have_pair = find_pair(&m, &pair, moved, sizeof(moved));
		if (json)
			print_json(&m, path, output, &pair, have_pair, moved);
		else
			print_text(&m, output, &pair, have_pair);
	}
	minimize_free(&m);
	return code;
}
