/*
 * report.h - what launch and replay print: the human report on stdout
 * (progress on stderr when both are terminals) or one JSON object.
 */
#ifndef SCHEDCTL_REPORT_H
#define SCHEDCTL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "control.pb-c.h"
#include "json_out.h"

struct launch_report {
	const char *program;        /* as the user typed it */
	const char *strategy;
	const char *granularity;    /* --granularity, NULL: the default */
	uint64_t seed;
	bool json;
	bool progress;              /* live "i/N runs, bugs, rate" on stderr */
	uint32_t planned;
	uint32_t done;              /* runs reported so far */
	double t0;                  /* when the first run was reported */
	double last_draw;           /* when the progress line was drawn */
	char *session;              /* id from the first reply */
	/* steps of the failing runs, for the bug blocks */
	uint32_t *fail_run;
	uint64_t *fail_steps;
	size_t nfail;
};

/* Reply{session}: the first line. */
void report_launch_start(struct launch_report *rep, const char *session,
			 uint32_t planned);
/* Reply{run}: progress, and a line for a failing run. */
void report_launch_run(struct launch_report *rep, const Scctl__RunResult *run);
/* Reply{summary}: bug blocks and the final line, or the JSON object. */
void report_launch_summary(struct launch_report *rep, const Scctl__Summary *s);
void report_launch_free(struct launch_report *rep);
/* Read the replies of a launch or attach (what) on fd until the summary,
 * reporting them; returns the exit status.  detach: until the session
 * id, which is printed. */
int cli_stream_launch(int fd, struct launch_report *rep, bool detach,
		      const char *what);

/* A failing run's last stderr lines, indented under its bug block
 * (nothing when it printed nothing). */
void report_stderr_tail(const Scctl__Bug *b);

/* The stacks of a bug (Bug.stacks): "  stack of T2:" then one
 * "    #1  0x... in FRAME" line per frame; the JSON "stacks" array of
 * {thread, frames: [{pc, function, file, line, module, text}]}. */
void report_stacks_text(FILE *out, const char *stacks);
void report_stacks_json(struct json_out *j, const char *stacks);

/* One bug as launch --json and results --json print it. */
void report_bug_json(struct json_out *j, const Scctl__Bug *b);
/* One failing run's block of a text report: verdict, location, the
 * stderr tail of an exit or crash, stacks, seed (and its events when
 * with_steps), trace and replay command. */
void report_bug_text(const Scctl__Bug *b, bool with_steps, uint64_t steps);

/* What a systematic search covered (launch, status, results): the
 * "search" object, and the human lines.  capped_by_runs: the session did
 * all its planned runs (else a search not exhausted was stopped early). */
void report_search_json(struct json_out *j, const Scctl__SearchStats *c);
void report_search_text(const char *strategy, const Scctl__SearchStats *c,
			uint32_t failing_runs, int32_t first_bug_run,
			bool capped_by_runs);

/* Reply{replay}: the result line, or the JSON object. */
void report_replay(const Scctl__ReplayResult *r, bool json);

/* Clear the progress line (before printing anything else). */
void report_clear_progress(struct launch_report *rep);

#endif /* SCHEDCTL_REPORT_H */
