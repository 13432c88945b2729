/*
 * fuzz_trace_reader.c - libFuzzer target for the trace reader, the JSON
 * export and the analyses run on what it returns (fingerprint, races,
 * report, Chrome and DOT exports) (tests/fuzz/run.sh builds and runs it).
 *
 * Beyond "no crash, no leak, no undefined behaviour" it checks what users
 * of struct sc_trace rely on, and aborts (a finding) when the reader
 * returns a trace that breaks it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct sc_trace *t, size_t size)
{
	if (!t->tool_version || !t->cwd || !t->strategy ||
	    !t->strategy_params || !t->granularity || !t->message ||
	    !t->location || !t->argv || t->argv[t->argc])
		abort();
	for (size_t i = 0; i < t->argc; i++)
		if (!t->argv[i])
			abort();
	if (t->valid_bytes > size || (!t->truncated && t->valid_bytes != size))
		abort();
	if (!t->has_footer && t->verdict != SC_VERDICT_UNKNOWN)
		abort();
	for (size_t i = 0; i < t->nmodules; i++)
		if (!t->modules[i].path ||
		    (t->modules[i].build_id_len && !t->modules[i].build_id))
			abort();
	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (i && e->step != t->events[i - 1].step + 1)
			abort();
		if (e->nwoken && (e->woken_offset > t->nwake_pool ||
				  e->nwoken > t->nwake_pool - e->woken_offset))
			abort();
	}
}

/* The analyses trust what the reader returns: run them all.  Without
 * the module map, so that symbolisation opens no file the input names. */
static void analyse(struct sc_trace *t, FILE *devnull)
{
	char err[512];
	uint64_t fp;
	size_t nmodules = t->nmodules;

	t->nmodules = 0;
	if (sc_trace_fingerprint(t, &fp, err, sizeof(err)) != 0 && !err[0])
		abort();
	struct sc_analysis *a = sc_analysis_new();
	if (!a)
		abort();
	if (sc_analysis_add(a, t, "fuzz", err, sizeof(err)) == 0) {
		const struct sc_analysis_result *r = sc_analysis_result(a);
		if (!r || r->runs != 1 || r->events != t->nevents)
			abort();
		sc_analysis_write_json(r, devnull);
		sc_coverage_write_svg(r, devnull);
	}
	sc_analysis_free(a);
	sc_trace_export_chrome(t, NULL, devnull);
	sc_trace_export_dot(t, NULL, 2000, devnull, err, sizeof(err));
	t->nmodules = nmodules;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();

	struct sc_trace t;
	char err[512];
	err[0] = '\0';
	if (sc_trace_load_buffer(data, size, &t, err, sizeof(err)) == 0) {
		check(&t, size);
		if (sc_trace_export_json(&t, devnull) != 0)
			abort();
		analyse(&t, devnull);
		sc_trace_free(&t);
	} else if (!err[0]) {
		abort();        /* every rejection says why */
	}
	return 0;
}
