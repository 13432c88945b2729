/* report_search.c - what a systematic search (chess) covered, as launch,
 * status and results print it (report.h). */
#include "config.h"

#include <stdio.h>

#include "cli.h"
#include "json_out.h"
#include "report.h"

void report_search_json(struct json_out *j, const Scctl__SearchStats *c)
{
	json_begin_object(j, "search");
	json_uint(j, "bound", c->bound);
	json_uint(j, "schedules", c->schedules);
	json_bool(j, "exhausted", c->exhausted);
	json_int(j, "complete_bound", c->complete_bound);
	json_bool(j, "cache", c->cache);
	json_uint(j, "cache_hits", c->cache_hits);
	json_uint(j, "beyond_bound", c->beyond_bound);
	json_bool(j, "truncated", c->truncated);
	json_uint(j, "nondeterministic", c->nondeterministic);
	if (c->nondet_first_run > 0)
		json_uint(j, "nondet_first_run", c->nondet_first_run);
	else
		json_null(j, "nondet_first_run");
	json_string(j, "nondet_first", c->nondeterministic &&
		    c->nondet_first && *c->nondet_first
		    ? c->nondet_first : NULL);
	if (c->has_bug_preemptions && c->bug_preemptions >= 0)
		json_int(j, "bug_preemptions", c->bug_preemptions);
	else
		json_null(j, "bug_preemptions");
	json_begin_array(j, "bug_preemption_points");
	for (size_t i = 0; i < c->n_bug_points; i++)
		json_string(j, NULL, c->bug_points[i]);
	json_end(j);
	json_begin_array(j, "schedules_per_preemptions");
	for (size_t l = 0; l < c->n_per_level; l++)
		json_uint(j, NULL, c->per_level[l]);
	json_end(j);
	json_end(j);
}

/* " (3 with 0, 34 with 1 preemption)": how the schedules run split by
 * preemptions, up to the highest count that has any. */
static void print_levels(const Scctl__SearchStats *c)
{
	size_t top = c->n_per_level;

	while (top > 0 && c->per_level[top - 1] == 0)
		top--;
	if (top < 2)
		return;
	printf(" (");
	for (size_t l = 0; l < top; l++)
		printf("%s%u with %zu", l ? ", " : "", c->per_level[l], l);
	printf(" preemption%s)", top - 1 == 1 ? "" : "s");
}

/* e.g. "chess: exhausted: all 42 schedules with <= 2 preemptions, no bug". */
void report_search_text(const char *strategy, const Scctl__SearchStats *c,
			uint32_t failing_runs, int32_t first_bug_run,
			bool capped_by_runs)
{
	const char *name = strategy ? strategy : "chess";
	bool bug = failing_runs > 0 && c->has_bug_preemptions &&
		   c->bug_preemptions >= 0;

	if (bug) {
		/* Iterative bounding: all schedules with fewer preemptions
		 * ran before the failing one, which is run first_bug_run. */
		if (c->bug_preemptions == 0)
			printf("%s: the failing schedule has 0 preemptions "
			       "(%d schedules)", name, first_bug_run);
		else
			printf("%s: the failing schedule has %d preemption%s; "
			       "every schedule with fewer was explored first "
			       "(%d schedules)", name, c->bug_preemptions,
			       c->bug_preemptions == 1 ? "" : "s",
			       first_bug_run);
		if (c->truncated)
			printf("; search memory full: the search is not "
			       "exhaustive");
		putchar('\n');
		/* Where the schedule preempts: what a fix must survive. */
		for (size_t i = 0; i < c->n_bug_points; i++)
			printf("  preemption %zu: %s\n", i + 1,
			       c->bug_points[i]);
		/* --keep-going: the search may also have finished. */
		if (c->exhausted)
			printf("%s: exhausted: all %u schedule%s with <= %u "
			       "preemption%s\n", name, c->schedules,
			       cli_s(c->schedules), c->bound, cli_s(c->bound));
	} else if (failing_runs == 0 && c->exhausted) {
		printf("%s: exhausted: all %u schedule%s with <= %u "
		       "preemption%s", name, c->schedules, cli_s(c->schedules),
		       c->bound, cli_s(c->bound));
		print_levels(c);
		printf(", no bug");
		if (c->cache_hits)
			printf("; %u state%s reached again %s not re-explored",
			       c->cache_hits, cli_s(c->cache_hits),
			       c->cache_hits == 1 ? "was" : "were");
		putchar('\n');
	} else if (failing_runs == 0) {
		/* Fewer runs than planned: stopped (error, Ctrl-C, stop). */
		printf("%s: not exhausted: %u schedule%s run", name,
		       c->schedules, cli_s(c->schedules));
		print_levels(c);
		printf(" (%s), ", capped_by_runs ? "--runs" : "stopped early");
		if (c->complete_bound < 0)
			printf("not even every schedule with 0 preemptions "
			       "explored");
		else
			printf("every schedule with <= %d preemption%s "
			       "explored", c->complete_bound,
			       cli_s((uint64_t)c->complete_bound));
		if (c->truncated)
			printf("; search memory full: the search is not "
			       "exhaustive");
		putchar('\n');
	}
	if (c->nondeterministic > 0)
		printf("%s: %u run%s did not follow %s recorded prefix (the "
		       "program is not deterministic under a fixed schedule); "
		       "first: run %u: %s\n", name, c->nondeterministic,
		       c->nondeterministic == 1 ? "" : "s",
		       c->nondeterministic == 1 ? "its" : "their",
		       c->nondet_first_run,
		       c->nondet_first ? c->nondet_first : "");
}
