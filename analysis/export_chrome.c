/*
 * export_chrome.c - `schedctl export --format chrome`: the schedule as a
 * Chrome trace-event file (JSON object format), which Perfetto and
 * chrome://tracing open.
 *
 * Time is the step number: each event is a complete ("X") event of one
 * step (ts = step, dur = 1, in the viewer's microseconds), on the track of
 * its logical thread (tid = logical id, named "T0", "T1"... by
 * thread_name metadata events) in its process (pid 1 for the program's
 * first process; with --follow-forks a child process's pid is 1 + the
 * logical id of its first thread, named after the program it runs).
 * The failing event of a buggy run (the last event, or the faulting
 * thread's last event for a crash) is named
 * "BUG: <kind>" in category "bug", and an instant event ("i", global
 * scope) after it carries the verdict and message.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "analysis.h"
#include "json_escape.h"

static bool is_bug(enum sc_verdict v)
{
	return v != SC_VERDICT_PASS && v != SC_VERDICT_UNKNOWN;
}

/* Index of the failing event, or SIZE_MAX. */
static size_t failing_event(const struct sc_trace *t)
{
	if (!t->has_footer || !is_bug(t->verdict) || !t->nevents)
		return SIZE_MAX;
	if (t->verdict == SC_VERDICT_CRASH)
		for (size_t i = t->nevents; i-- > 0;)
			if (t->events[i].thread == t->fault_thread)
				return i;
	return t->nevents - 1;
}

static const char *category(uint16_t kind)
{
	if (kind >= SC_EV_MEM_READ && kind <= SC_EV_MEM_RMW)
		return "mem";
	if (kind == SC_EV_SYSCALL_BLOCKING || kind == SC_EV_SYSCALL_RETURN)
		return "syscall";
	if (kind <= SC_EV_EXEC)
		return "thread";
	return "sync";
}

/* The viewer's pid of a thread's process: 1 for the first. */
static uint64_t viewer_pid(const struct sc_trace *t, uint32_t thread)
{
	return (uint64_t)sc_trace_process_of(t, thread) + 1;
}

/* A process's name: the program given for the first one, else the
 * executable of its last module map. */
static const char *process_name(const struct sc_trace *t, uint32_t process)
{
	if (process == 0)
		return t->argc && t->argv[0] ? t->argv[0] : "target";
	for (size_t i = t->nmaps; i-- > 0;)
		if (t->maps[i].process == process && t->maps[i].nmodules &&
		    t->maps[i].modules[0].path[0])
			return t->maps[i].modules[0].path;
	return "child process";
}

static void put_event(const struct sc_trace *t, size_t i, bool bug,
		      struct sc_symbolizer *sym, FILE *out)
{
	const struct sc_trace_event *e = &t->events[i];
	const char *kind = sc_event_kind_name((enum sc_event_kind)e->kind);
	fprintf(out, ",\n{\"name\":\"%s%s\",\"cat\":\"%s\",\"ph\":\"X\","
		"\"ts\":%" PRIu64 ",\"dur\":1,\"pid\":%" PRIu64 ",\"tid\":%"
		PRIu32 ",\"args\":{\"step\":%" PRIu64 ",\"kind\":\"%s\","
		"\"access\":\"%s\",\"object\":\"0x%" PRIx64 "\",\"pc\":\"0x%"
		PRIx64 "\"",
		bug ? "BUG: " : "", kind, bug ? "bug" : category(e->kind),
		e->step, viewer_pid(t, e->thread), e->thread, e->step, kind,
		sc_access_name((enum sc_access)e->access), e->object, e->pc);
	if (sym) {
		struct sc_symbol s;
		sc_symbolizer_event_pc(sym, t, e, e->pc, &s);
		fputs(",\"source\":", out);
		sc_json_string(out, s.location);
		if (*s.function) {
			fputs(",\"function\":", out);
			sc_json_string(out, s.function);
		}
		if (e->object) {
			sc_symbolizer_event_data(sym, t, e, e->object, &s);
			fputs(",\"object_name\":", out);
			sc_json_string(out, s.location);
		}
	}
	if (e->size)
		fprintf(out, ",\"size\":%u", (unsigned)e->size);
	if (e->nwoken && t->wake_pool && e->woken_offset <= t->nwake_pool &&
	    e->nwoken <= t->nwake_pool - e->woken_offset) {
		fputs(",\"woken\":[", out);
		for (uint32_t k = 0; k < e->nwoken; k++)
			fprintf(out, k ? ",%" PRIu32 : "%" PRIu32,
				t->wake_pool[e->woken_offset + k]);
		putc(']', out);
	}
	fputs("}}", out);
}

int sc_trace_export_chrome(const struct sc_trace *t, struct sc_symbolizer *sym,
			   FILE *out)
{
	uint32_t max_thread = 0;
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].thread > max_thread)
			max_thread = t->events[i].thread;
	/* One track per thread that has events; a bitmap avoids naming
	 * thousands of empty tracks for a sparse id. */
	uint8_t *present = calloc((size_t)max_thread / 8 + 1, 1);
	if (!present)
		return -1;
	for (size_t i = 0; i < t->nevents; i++)
		present[t->events[i].thread / 8] |=
			(uint8_t)(1u << (t->events[i].thread % 8));

	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"strategy\":", out);
	sc_json_string(out, t->strategy);
	fprintf(out, ",\"seed\":\"%" PRIu64 "\",\"verdict\":\"%s\"},\n"
		"\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\","
		"\"ts\":0,\"pid\":1,\"tid\":0,\"args\":{\"name\":", t->seed,
		sc_verdict_name(t->verdict));
	sc_json_string(out, process_name(t, 0));
	fputs("}}", out);
	for (uint32_t th = 0; th <= max_thread && t->nevents; th++) {
		if (!(present[th / 8] & (1u << (th % 8))))
			continue;
		uint64_t pid = viewer_pid(t, th);
		/* A child process is named at its first thread. */
		if (pid == (uint64_t)th + 1 && th) {
			fprintf(out, ",\n{\"name\":\"process_name\",\"ph\":"
				"\"M\",\"ts\":0,\"pid\":%" PRIu64 ",\"tid\":%"
				PRIu32 ",\"args\":{\"name\":", pid, th);
			sc_json_string(out, process_name(t, th));
			fputs("}}", out);
		}
		fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,"
			"\"pid\":%" PRIu64 ",\"tid\":%" PRIu32 ",\"args\":{\"name\":"
			"\"T%" PRIu32 "\"}},\n{\"name\":\"thread_sort_index\",\"ph\":"
			"\"M\",\"ts\":0,\"pid\":%" PRIu64 ",\"tid\":%" PRIu32
			",\"args\":{\"sort_index\":%" PRIu32 "}}", pid, th, th, pid,
			th, th);
	}
	free(present);

	size_t bug = failing_event(t);
	for (size_t i = 0; i < t->nevents; i++)
		put_event(t, i, i == bug, sym, out);
	if (bug != SIZE_MAX) {
		const struct sc_trace_event *e = &t->events[bug];
		fprintf(out, ",\n{\"name\":\"verdict: %s\",\"cat\":\"bug\","
			"\"ph\":\"i\",\"s\":\"g\",\"ts\":%" PRIu64 ",\"pid\":%"
			PRIu64 ",\"tid\":%" PRIu32 ",\"args\":{\"message\":",
			sc_verdict_name(t->verdict), t->events[t->nevents - 1].step + 1,
			viewer_pid(t, e->thread), e->thread);
		sc_json_string(out, t->message);
		fputs(",\"location\":", out);
		sc_json_string(out, t->location);
		fputs("}}", out);
	}
	fputs("\n]}\n", out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
