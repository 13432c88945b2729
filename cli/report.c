/* report.c - human and JSON output of launch and replay (report.h). */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "json_out.h"
#include "report.h"

/* Bug blocks printed in full; --json lists them all. */
#define MAX_BUG_BLOCKS 10

static bool progress_shown;

void report_clear_progress(struct launch_report *rep)
{
	if (rep->progress && progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		progress_shown = false;
	}
}

void report_launch_start(struct launch_report *rep, const char *session,
			 uint32_t planned)
{
	rep->planned = planned;
	rep->session = session ? strdup(session) : NULL;
	if (rep->json)
		return;
	printf("schedctl: session %s: %u run%s of %s, strategy %s, seed 0x%"
	       PRIx64 "\n", session, planned, cli_s(planned), rep->program,
	       rep->strategy, rep->seed);
	fflush(stdout);
}

static void remember_failure(struct launch_report *rep, uint32_t run,
			     uint64_t steps)
{
	uint32_t *r = realloc(rep->fail_run, (rep->nfail + 1) * sizeof(*r));
	uint64_t *s;

	if (!r)
		return;
	rep->fail_run = r;
	s = realloc(rep->fail_steps, (rep->nfail + 1) * sizeof(*s));
	if (!s)
		return;
	rep->fail_steps = s;
	rep->fail_run[rep->nfail] = run;
	rep->fail_steps[rep->nfail] = steps;
	rep->nfail++;
}

static uint64_t steps_of(const struct launch_report *rep, uint32_t run)
{
	for (size_t i = 0; i < rep->nfail; i++)
		if (rep->fail_run[i] == run)
			return rep->fail_steps[i];
	return 0;
}

void report_launch_run(struct launch_report *rep, const Scctl__RunResult *run)
{
	if (run->bug)
		remember_failure(rep, run->run, run->steps);
	if (rep->json)
		return;
	if (run->bug) {
		report_clear_progress(rep);
		printf("run %u: %s after %" PRIu64 " event%s\n", run->run,
		       run->verdict ? run->verdict : "?", run->steps,
		       cli_s(run->steps));
		fflush(stdout);
	}
	/* The daemon folds passing runs' replies into the next one. */
	rep->done = run->has_delivered ? run->delivered : rep->done + 1;
	if (rep->progress) {
		struct timespec ts;
		double now, rate;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
		if (rep->done == 1)
			rep->t0 = now;
		rate = now > rep->t0 && rep->done > 1
		       ? (rep->done - 1) / (now - rep->t0) : 0;
		/* At most 10 redraws a second (runs may finish by thousands),
		 * but always the last one and a line just cleared. */
		if (progress_shown && now - rep->last_draw < 0.1 &&
		    rep->done < rep->planned)
			return;
		rep->last_draw = now;
		fprintf(stderr, "\r\033[K%u/%u run%s, %zu bug%s", rep->done,
			rep->planned, cli_s(rep->planned), rep->nfail,
			cli_s(rep->nfail));
		if (rate > 0) {
			fputs(", ", stderr);
			cli_print_rate(stderr, rate);
		}
		fflush(stderr);
		progress_shown = true;
	}
}

/* Is there a location to print below msg: one that msg does not already
 * end with ("SIGSEGV ... in T1 at LOC")? */
static bool location_to_print(const char *msg, const char *loc)
{
	return loc && *loc && !(msg && strstr(msg, loc));
}

void report_bug_text(const Scctl__Bug *b, bool with_steps, uint64_t steps)
{
	const char *kind = b->kind ? b->kind : "bug";
	const char *msg = b->message ? b->message : "";
	size_t klen = strlen(kind);

	/* "hang: hang: ..." reads badly: the kind is said once. */
	if (strncmp(msg, kind, klen) == 0 && msg[klen] == ':' &&
	    msg[klen + 1] == ' ')
		msg += klen + 2;
	printf("\nrun %u: %s: %s\n", b->run, kind, msg);
	if (location_to_print(msg, b->location))
		printf("  at %s\n", b->location);
	/* Why a program exited non-zero or aborted is in what it said last;
	 * a deadlock or a hang stops it mid-sentence, and an assert's message
	 * already quotes the assertion, unless the abort came from elsewhere
	 * (std::terminate, abort()): its message is then the signal's. */
	if (strcmp(kind, "exit") == 0 || strcmp(kind, "crash") == 0 ||
	    (strcmp(kind, "assert") == 0 && (strncmp(msg, "SIG", 3) == 0 ||
					     strncmp(msg, "killed", 6) == 0)))
		report_stderr_tail(b);
	report_stacks_text(stdout, b->stacks);
	if (with_steps)
		printf("  seed 0x%" PRIx64 ", %" PRIu64 " event%s\n", b->seed,
		       steps, cli_s(steps));
	else
		printf("  seed 0x%" PRIx64 "\n", b->seed);
	if (b->trace && *b->trace)
		printf("  trace  %s\n", b->trace);
	printf("  replay %s\n", b->replay ? b->replay : "?");
}

static void print_bug(const struct launch_report *rep, const Scctl__Bug *b)
{
	report_bug_text(b, true, steps_of(rep, b->run));
}

void report_bug_json(struct json_out *j, const Scctl__Bug *b)
{
	char seed[24];

	json_begin_object(j, NULL);
	json_string(j, "kind", b->kind);
	json_uint(j, "run", b->run);
	snprintf(seed, sizeof(seed), "0x%" PRIx64, b->seed);
	json_string(j, "seed", seed);
	json_string(j, "message", b->message);
	json_string(j, "location", b->location && *b->location
		    ? b->location : NULL);
	json_string(j, "trace", b->trace && *b->trace ? b->trace : NULL);
	json_string(j, "replay", b->replay);
	json_string(j, "stderr_tail", b->stderr_tail && *b->stderr_tail
		    ? b->stderr_tail : NULL);
	json_string(j, "stderr_path", b->stderr_path && *b->stderr_path
		    ? b->stderr_path : NULL);
	report_stacks_json(j, b->stacks);
	json_end(j);
}

static void launch_json(const Scctl__Summary *s)
{
	struct json_out j;
	char seed[24];

	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "session", s->session);
	json_string(&j, "strategy", s->strategy);
	/* Seeds are 64-bit: as hex strings no JSON reader rounds them. */
	snprintf(seed, sizeof(seed), "0x%" PRIx64, s->seed);
	json_string(&j, "seed", seed);
	json_uint(&j, "runs", s->runs);
	json_uint(&j, "failing_runs", s->failing_runs);
	if (s->first_bug_run > 0)
		json_int(&j, "first_bug_run", s->first_bug_run);
	else
		json_null(&j, "first_bug_run");
	json_double(&j, "wall_seconds", s->wall_seconds, 3);
	json_uint(&j, "events", s->events);
	json_string(&j, "out_dir", s->out_dir);
	if (s->pct_bound) {
		const Scctl__PctBound *b = s->pct_bound;

		json_begin_object(&j, "pct_bound");
		json_uint(&j, "depth", b->depth);
		json_uint(&j, "threads", b->threads);
		json_uint(&j, "points", b->points);
		json_double_g(&j, "per_run", b->per_run);
		json_uint(&j, "bug_free_runs", b->bug_free_runs);
		json_double_g(&j, "miss", b->miss);
		json_end(&j);
	}
	if (s->search)
		report_search_json(&j, s->search);
	json_begin_array(&j, "bugs");
	for (size_t i = 0; i < s->n_bugs; i++)
		report_bug_json(&j, s->bugs[i]);
	json_end(&j);
	json_end(&j);
	json_finish(&j);
}

/* PCT's guarantee, e.g.
 * "pct: depth 3, n=3 threads, k=12 points: a run hits a given depth-3 bug
 *  with probability >= 0.00231 (1/(n k^2)); 100 bug-free runs miss it with
 *  probability <= 0.794" */
static void print_pct_bound(const Scctl__PctBound *b)
{
	char formula[32];

	if (b->depth <= 1)
		snprintf(formula, sizeof(formula), "1/n");
	else if (b->depth == 2)
		snprintf(formula, sizeof(formula), "1/(n k)");
	else
		snprintf(formula, sizeof(formula), "1/(n k^%u)", b->depth - 1);
	printf("pct: depth %u, n=%u threads, k=%" PRIu64 " points: a run hits a "
	       "given depth-%u bug with probability >= %.3g (%s)",
	       b->depth, b->threads, b->points, b->depth, b->per_run, formula);
	/* %.4g: a miss probability close to 1 must not print as 1. */
	if (b->bug_free_runs)
		printf("; %u bug-free runs miss it with probability <= %.4g",
		       b->bug_free_runs, b->miss);
	putchar('\n');
}

void report_launch_summary(struct launch_report *rep, const Scctl__Summary *s)
{
	report_clear_progress(rep);
	if (rep->json) {
		launch_json(s);
		return;
	}
	for (size_t i = 0; i < s->n_bugs && i < MAX_BUG_BLOCKS; i++)
		print_bug(rep, s->bugs[i]);
	if (s->n_bugs > MAX_BUG_BLOCKS)
		printf("\n... and %zu more failing run%s (see --json or %s)\n",
		       s->n_bugs - MAX_BUG_BLOCKS,
		       cli_s(s->n_bugs - MAX_BUG_BLOCKS),
		       s->out_dir ? s->out_dir : "");
	if (s->n_bugs)
		putchar('\n');
	printf("%u run%s, %u failing", s->runs, cli_s(s->runs),
	       s->failing_runs);
	if (s->first_bug_run > 0)
		printf(" (first at run %d)", s->first_bug_run);
	printf(", %" PRIu64 " event%s, %.2f s\n", s->events, cli_s(s->events),
	       s->wall_seconds);
	if (s->pct_bound)
		print_pct_bound(s->pct_bound);
	if (s->search)
		report_search_text(s->strategy, s->search, s->failing_runs,
				   s->first_bug_run, s->runs >= rep->planned);
	/* "Exhausted, no bug" covers the points that were scheduled: at
	 * sync granularity (the systematic search's default), plain
	 * memory accesses were never interleaved. */
	if (s->search && s->search->exhausted && s->failing_runs == 0 &&
	    (!rep->granularity || strcmp(rep->granularity, "sync") == 0))
		printf("  only synchronisation was interleaved (--granularity "
		       "sync): data races on plain memory were not explored; "
		       "--granularity mem explores them too\n");
	fflush(stdout);
}

void report_launch_free(struct launch_report *rep)
{
	free(rep->fail_run);
	free(rep->fail_steps);
	free(rep->session);
	rep->session = NULL;
	rep->fail_run = NULL;
	rep->fail_steps = NULL;
	rep->nfail = 0;
}

/* The policy's messages start with "step N: "; the line says it already. */
static const char *skip_step_prefix(const char *m)
{
	const char *p = m;

	if (strncmp(p, "step ", 5) != 0)
		return m;
	p += 5;
	if (!isdigit((unsigned char)*p))
		return m;
	while (isdigit((unsigned char)*p))
		p++;
	return p[0] == ':' && p[1] == ' ' ? p + 2 : m;
}

static void replay_json(const Scctl__ReplayResult *r)
{
	struct json_out j;

	json_init(&j, stdout, true);
	json_begin_object(&j, NULL);
	json_string(&j, "trace", r->trace);
	json_string(&j, "verdict", r->verdict);
	json_string(&j, "recorded_verdict", r->recorded_verdict);
	json_bool(&j, "reproduced", r->reproduced);
	/* "reproduced" is about a recorded bug, false for a passing trace
	 * that replayed exactly (QA read it as a failure): this one says
	 * whether the replay ended as the recording did, pass included. */
	bool diverged = r->has_diverged_at && r->diverged_at >= 0;
	json_bool(&j, "matches_recording",
		  r->verdict && r->recorded_verdict && !diverged &&
		  strcmp(r->verdict, r->recorded_verdict) == 0);
	json_uint(&j, "steps", r->steps);
	json_string(&j, "message", r->message && *r->message ? r->message : NULL);
	json_string(&j, "location", r->location && *r->location ? r->location
		    : NULL);
	if (r->has_diverged_at && r->diverged_at >= 0)
		json_int(&j, "diverged_at", r->diverged_at);
	else
		json_null(&j, "diverged_at");
	if (r->has_stopped_pid)
		json_int(&j, "stopped_pid", r->stopped_pid);
	if (r->has_stopped_tid)
		json_int(&j, "stopped_tid", r->stopped_tid);
	report_stacks_json(&j, r->stacks);
	json_end(&j);
	json_finish(&j);
}

void report_replay(const Scctl__ReplayResult *r, bool json)
{
	const char *v = r->verdict ? r->verdict : "unknown";
	const char *rec = r->recorded_verdict ? r->recorded_verdict : "unknown";

	if (json) {
		replay_json(r);
		return;
	}
	/* The result goes to stderr: stdout is the program's own output, so
	 * that `schedctl replay T > out` captures exactly what it printed. */
	if (r->has_stopped_pid && strcmp(v, "unknown") == 0)
		fprintf(stderr, "replay: %s (recorded: %s)\n",
			r->message ? r->message : "stopped", rec);
	else if (r->has_diverged_at && r->diverged_at >= 0)
		fprintf(stderr, "replay diverged at step %" PRId64 ": %s\n",
			r->diverged_at,
			skip_step_prefix(r->message ? r->message : ""));
	else if (r->reproduced)
		fprintf(stderr, "replay: %s reproduced at step %" PRIu64
			" (recorded: %s)%s%s\n", v, r->steps, rec,
			r->message && *r->message ? ": " : "",
			r->message ? r->message : "");
	else if (strcmp(v, "pass") == 0)
		fprintf(stderr, "replay: pass (recorded: %s)%s\n", rec,
			strcmp(rec, "pass") == 0 ? "" : ": bug NOT reproduced");
	else
		fprintf(stderr, "replay: %s at step %" PRIu64
			" (recorded: %s)%s%s\n", v, r->steps, rec,
			r->message && *r->message ? ": " : "",
			r->message ? r->message : "");
	if (!(r->has_diverged_at && r->diverged_at >= 0) && strcmp(v, "pass") &&
	    location_to_print(r->message, r->location))
		fprintf(stderr, "  at %s\n", r->location);
	if (!(r->has_diverged_at && r->diverged_at >= 0) && strcmp(v, "pass"))
		report_stacks_text(stderr, r->stacks);
	fflush(stderr);
}
