/*
 * export_json.c - `schedctl export TRACE --format json`: the whole trace as
 * one JSON object, the documented decoder of the binary format
 * (docs/schedctl-trace.5).
 *
 * Addresses and the environment digest are hex strings (they are 64-bit
 * identities, not quantities, and JSON numbers lose precision above 2^53).
 * One event per line keeps the output usable with grep and diff.
 */
#include <inttypes.h>

#include "analysis.h"
#include "json_escape.h"

static void put_header(const struct sc_trace *t, FILE *out)
{
	fputs("\"header\":{\"tool_version\":", out);
	sc_json_string(out, t->tool_version);
	fputs(",\"argv\":[", out);
	for (size_t i = 0; t->argv && i < t->argc; i++) {
		if (i)
			putc(',', out);
		sc_json_string(out, t->argv[i]);
	}
	fputs("],\"cwd\":", out);
	sc_json_string(out, t->cwd);
	fprintf(out, ",\"env_digest\":\"%016" PRIx64 "\",\"strategy\":",
		t->env_digest);
	sc_json_string(out, t->strategy);
	fputs(",\"strategy_params\":", out);
	sc_json_string(out, t->strategy_params);
	/* Seeds are 64-bit: as strings of decimal digits, since JSON
	 * readers that use doubles (jq, JavaScript) round numbers above
	 * 2^53. */
	fprintf(out, ",\"seed\":\"%" PRIu64 "\",\"base_seed\":\"%" PRIu64
		"\",\"run_index\":%" PRIu32 ",\"granularity\":",
		t->seed, t->base_seed, t->run_index);
	sc_json_string(out, t->granularity);
	fprintf(out, ",\"max_steps\":%" PRIu64 ",\"timeout_ms\":%" PRIu32
		",\"eager_timeouts\":%s,\"slice_us\":%" PRIu32
		",\"atomics\":%s,\"seeded_random\":%s,\"mem_event_cap\":%" PRIu32
		",\"mem_site_cap\":%" PRIu32
		",\"spin_model\":%s,\"skip_glibc_sync\":%s,\"all_cpus\":%s"
		",\"mem_sites\":%" PRIu32 ",\"clock_realtime_ns\":\"%" PRIu64
		"\",\"clock_monotonic_ns\":\"%" PRIu64 "\""
		",\"own_libraries\":%s,\"free_events\":%s"
		",\"virtual_timeouts\":%s,\"clock_wait_reads\":%" PRIu32
		",\"attached\":%s,\"race_pcs\":[",
		t->max_steps, t->timeout_ms,
		t->eager_timeouts ? "true" : "false", t->slice_us,
		t->atomics ? "true" : "false",
		t->seeded_random ? "true" : "false", t->mem_event_cap,
		t->mem_site_cap,
		t->spin_model ? "true" : "false",
		t->skip_glibc_sync ? "true" : "false",
		t->all_cpus ? "true" : "false", t->mem_sites,
		t->clock_realtime_ns, t->clock_monotonic_ns,
		t->own_libraries ? "true" : "false",
		t->free_events ? "true" : "false",
		t->virtual_timeouts ? "true" : "false", t->clock_wait_reads,
		t->attached ? "true" : "false");
	/* Hexadecimal strings, as addresses are read in a disassembly. */
	for (size_t i = 0; i < t->nrace_pcs; i++)
		fprintf(out, "%s\"0x%" PRIx64 "\"", i ? "," : "",
			t->race_pcs[i]);
	fputs("]}", out);
}

static void put_modules(const struct sc_trace *t, FILE *out)
{
	fputs("\"modules\":[", out);
	for (size_t i = 0; t->modules && i < t->nmodules; i++) {
		const struct sc_trace_module *m = &t->modules[i];
		fputs(i ? ",\n{\"path\":" : "\n{\"path\":", out);
		sc_json_string(out, m->path);
		fputs(",\"build_id\":", out);
		sc_json_hex_bytes(out, m->build_id,
				  m->build_id ? m->build_id_len : 0);
		fprintf(out, ",\"load_address\":\"0x%" PRIx64 "\",\"size\":%"
			PRIu64 "}", m->load_address, m->size);
	}
	fputs(t->nmodules ? "\n]" : "]", out);
	/* Every map by process and step (several after an exec or with
	 * --follow-forks); "modules" above is the last one's. */
	fputs(",\n\"maps\":[", out);
	for (size_t i = 0; i < t->nmaps; i++) {
		const struct sc_trace_map *m = &t->maps[i];
		fprintf(out, "%s{\"process\":%" PRIu32 ",\"at_step\":%" PRIu64
			",\"executable\":", i ? ",\n" : "\n", m->process,
			m->at_step);
		sc_json_string(out, m->nmodules ? m->modules[0].path : "");
		putc('}', out);
	}
	fputs(t->nmaps ? "\n]" : "]", out);
}

static void put_event(const struct sc_trace *t, const struct sc_trace_event *e,
		      FILE *out)
{
	fprintf(out, "{\"step\":%" PRIu64 ",\"thread\":%" PRIu32
		",\"kind\":\"%s\",\"access\":\"%s\",\"object\":\"0x%" PRIx64
		"\",\"pc\":\"0x%" PRIx64 "\",\"enabled\":%" PRIu32,
		e->step, e->thread,
		sc_event_kind_name((enum sc_event_kind)e->kind),
		sc_access_name((enum sc_access)e->access), e->object, e->pc,
		e->enabled);
	uint32_t process = sc_trace_process_of(t, e->thread);
	if (process)
		fprintf(out, ",\"process\":%" PRIu32, process);
	/* The reader guarantees the range; a hand-built struct may not. */
	if (e->nwoken && t->wake_pool && e->woken_offset <= t->nwake_pool &&
	    e->nwoken <= t->nwake_pool - e->woken_offset) {
		fputs(",\"woken\":[", out);
		for (uint32_t k = 0; k < e->nwoken; k++)
			fprintf(out, k ? ",%" PRIu32 : "%" PRIu32,
				t->wake_pool[e->woken_offset + k]);
		putc(']', out);
	}
	if (e->size)
		fprintf(out, ",\"size\":%u", (unsigned)e->size);
	if (e->call_site)
		fprintf(out, ",\"call_site\":\"0x%" PRIx64 "\"", e->call_site);
	if (e->state)
		fprintf(out, ",\"state\":\"%016" PRIx64 "\",\"cpu_ns\":%"
			PRIu64 ",\"preempted_in\":\"%s\"", e->state, e->cpu_ns,
			e->preempt_flags & SC_PREEMPT_SPIN ? "spin"
			: e->preempt_flags & SC_PREEMPT_BUDGET ? "computation"
			: "unknown");
	putc('}', out);
}

static void put_footer(const struct sc_trace *t, FILE *out)
{
	if (!t->has_footer) {
		fputs("\"footer\":null", out);
		return;
	}
	fprintf(out, "\"footer\":{\"verdict\":\"%s\",\"steps\":%" PRIu64
		",\"threads\":%" PRIu32 ",\"wall_us\":%" PRIu64 ",\"message\":",
		sc_verdict_name(t->verdict), t->steps, t->threads, t->wall_us);
	sc_json_string(out, t->message);
	fputs(",\"location\":", out);
	sc_json_string(out, t->location);
	fprintf(out, ",\"exit_status\":%" PRId32 ",\"signal\":%" PRId32
		",\"fault_thread\":%" PRIu32 ",\"fault_pc\":\"0x%" PRIx64 "\"}",
		t->exit_status, t->signal, t->fault_thread, t->fault_pc);
}

int sc_trace_export_json(const struct sc_trace *t, FILE *out)
{
	putc('{', out);
	put_header(t, out);
	fputs(",\n", out);
	put_modules(t, out);
	fputs(",\n\"events\":[", out);
	for (size_t i = 0; t->events && i < t->nevents; i++) {
		fputs(i ? ",\n" : "\n", out);
		put_event(t, &t->events[i], out);
	}
	fputs(t->nevents ? "\n],\n" : "],\n", out);
	put_footer(t, out);
	fprintf(out, ",\n\"truncated\":%s}\n", t->truncated ? "true" : "false");
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
