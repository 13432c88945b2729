/*
 * analyze_report.c - `schedctl analyze` output: the JSON object of the
 * CLI contract (docs/schedctl.1) and the human-readable report.
 */
#include <inttypes.h>

#include "analysis.h"
#include "json_escape.h"

int sc_analysis_write_json(const struct sc_analysis_result *r, FILE *out)
{
	fprintf(out, "{\"runs\":%" PRIu64 ",\"events\":%" PRIu64
		",\"truncated_runs\":%" PRIu64
		",\"distinct_partial_orders\":%" PRIu64
		",\"estimated_unseen_partial_orders\":%.3f"
		",\"probability_next_run_new\":%.6f"
		",\"partial_orders_seen_once\":%" PRIu64
		",\"partial_orders_seen_twice\":%" PRIu64 ",\"verdicts\":{",
		r->runs, r->events, r->truncated_runs,
		r->distinct_partial_orders, r->estimated_unseen_partial_orders,
		r->probability_next_new, r->seen_once, r->seen_twice);
	int n = 0;
	for (int v = 0; v <= SC_VERDICT_DIVERGED; v++)
		if (r->verdicts[v])
			fprintf(out, "%s\"%s\":%" PRIu64, n++ ? "," : "",
				sc_verdict_name((enum sc_verdict)v),
				r->verdicts[v]);
	fprintf(out, "},\"runs_with_memory_events\":%" PRIu64 ",\"races\":[",
		r->mem_runs);
	for (size_t i = 0; i < r->nraces; i++) {
		const struct sc_race_pair *p = &r->races[i];
		fputs(i ? ",\n{\"first\":" : "\n{\"first\":", out);
		sc_json_string(out, p->first);
		fputs(",\"second\":", out);
		sc_json_string(out, p->second);
		fputs(",\"first_function\":", out);
		sc_json_string(out, p->first_function);
		fputs(",\"second_function\":", out);
		sc_json_string(out, p->second_function);
		fprintf(out, ",\"count\":%" PRIu64 ",\"runs\":%" PRIu32
			",\"first_run\":%" PRIu32 "}", p->count, p->runs,
			p->first_run);
	}
	fprintf(out, "%s],\"distinct_race_pairs\":%zu}\n",
		r->nraces ? "\n" : "", r->nraces);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* Longer C++ names (templates) are shortened on a line of text; --json
 * gives them whole. */
#define TEXT_NAME_MAX 160

static void put_where(FILE *out, const char *loc, const char *fn)
{
	char shown[2 * TEXT_NAME_MAX];

	fputs(loc, out);
	if (fn && *fn) {
		sc_short_name(fn, TEXT_NAME_MAX, shown, sizeof(shown));
		fprintf(out, " (%s)", shown);
	}
}

int sc_analysis_write_text(const struct sc_analysis_result *r, FILE *out)
{
	fprintf(out, "%" PRIu64 " run%s, %" PRIu64 " event%s", r->runs,
		r->runs == 1 ? "" : "s", r->events, r->events == 1 ? "" : "s");
	if (r->truncated_runs)
		fprintf(out, " (%" PRIu64 " truncated trace%s)",
			r->truncated_runs, r->truncated_runs == 1 ? "" : "s");
	fputs("\nverdicts:", out);
	int n = 0;
	for (int v = 0; v <= SC_VERDICT_DIVERGED; v++)
		if (r->verdicts[v])
			fprintf(out, "%s %s %" PRIu64, n++ ? "," : "",
				sc_verdict_name((enum sc_verdict)v),
				r->verdicts[v]);
	fprintf(out, "%s\npartial orders: %" PRIu64 " distinct (%" PRIu64
		" seen once, %" PRIu64 " seen twice)\n", n ? "" : " none",
		r->distinct_partial_orders, r->seen_once, r->seen_twice);
	fprintf(out, "  estimated unseen: %.1f (Chao1); probability that the "
		"next run is new: %.3f (Good-Turing)\n",
		r->estimated_unseen_partial_orders, r->probability_next_new);
	if (!r->mem_runs) {
		fputs("data races: not analysed (no memory events: launch with "
		      "--granularity mem)\n", out);
	} else {
		fprintf(out, "data races: %zu statement pair%s (over %" PRIu64
			" run%s with memory events)\n", r->nraces,
			r->nraces == 1 ? "" : "s", r->mem_runs,
			r->mem_runs == 1 ? "" : "s");
		/* The most frequent ones; --json lists them all. */
		size_t shown = r->nraces > 20 ? 20 : r->nraces;
		for (size_t i = 0; i < shown; i++) {
			const struct sc_race_pair *p = &r->races[i];
			fputs("  ", out);
			put_where(out, p->first, p->first_function);
			fputs(" <-> ", out);
			put_where(out, p->second, p->second_function);
			fprintf(out, ": %" PRIu64 " time%s in %" PRIu32
				" run%s (first in run %" PRIu32 ")\n", p->count,
				p->count == 1 ? "" : "s", p->runs,
				p->runs == 1 ? "" : "s", p->first_run);
		}
		if (shown < r->nraces)
			fprintf(out, "  ... and %zu more (--json lists them "
				"all)\n", r->nraces - shown);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
