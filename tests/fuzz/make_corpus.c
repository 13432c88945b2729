/*
 * make_corpus.c - writes a few valid traces with the real writer, as the
 * fuzzer's seed corpus: usage make_corpus DIR.
 */
#include <stdio.h>
#include <string.h>

#include "tracer.h"

static char *argv_[] = {"./target", "-n", "3", NULL};

static int write_one(const char *dir, const char *name, size_t nevents,
		     bool mem, bool footer)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct sc_trace_header h = {
		.tool_version = "schedctl corpus", .argv = argv_,
		.cwd = "/tmp", .env_digest = 0x1234, .strategy = "pct",
		.strategy_params = "depth=3", .seed = 99, .base_seed = 1,
		.run_index = 2, .granularity = mem ? "mem" : "sync",
		.max_steps = 1000, .timeout_ms = 500,
	};
	struct sc_trace_writer *w = sc_trace_create(path, &h);
	if (!w) {
		perror(path);
		return -1;
	}
	static const uint8_t bid[] = {1, 2, 3, 4};
	struct sc_module mods[] = {
		{"/tmp/target", bid, sizeof(bid), 0x400000, 0x2000},
		{"/lib/libc.so.6", NULL, 0, 0x7ffff7dd5000ULL, 0x1c0000},
	};
	if (nevents)
		sc_trace_modules(w, mods, 2, 0);
	uint64_t objs[] = {0x404040, 0x404080, 0x7fffffffe000ULL};
	for (size_t i = 0; i < nevents; i++) {
		uint32_t woken[2] = {(uint32_t)(i + 1) % 3, (uint32_t)(i + 2) % 3};
		struct sc_event e = {
			.step = i, .thread = (uint32_t)(i % 3),
			.kind = mem && i % 3 == 0 ? SC_EV_MEM_WRITE
			      : i % 5 == 4 ? SC_EV_FUTEX_WAKE : SC_EV_MUTEX_LOCK,
			.access = SC_ACC_RMW, .object = objs[i % 3],
			.pc = 0x401000 + 16 * (i % 7), .enabled = 1 + i % 3,
		};
		if (e.kind == SC_EV_MEM_WRITE)
			e.size = 8;
		if (e.kind == SC_EV_FUTEX_WAKE) {
			e.nwoken = 1 + i % 2;
			e.woken = woken;
		}
		sc_trace_event(w, &e);
		/* A forked child's thread and its own module map
		 * (--follow-forks), half way. */
		if (mem && i == nevents / 2) {
			sc_trace_thread_process(w, 2, 2);
			sc_trace_process_modules(w, 2, mods, 1, i + 1);
		}
	}
	if (!footer) {
		sc_trace_abandon(w);
		return 0;
	}
	struct sc_run_result r;
	memset(&r, 0, sizeof(r));
	r.verdict = SC_VERDICT_DEADLOCK;
	r.steps = nevents;
	r.threads = 3;
	snprintf(r.message, sizeof(r.message), "T1 waits for 0x404040");
	snprintf(r.location, sizeof(r.location), "main+0x10");
	return sc_trace_finish(w, &r);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_corpus DIR\n");
		return 2;
	}
	int r = 0;
	r |= write_one(argv[1], "header-only.sctrace", 0, false, true);
	r |= write_one(argv[1], "sync.sctrace", 20, false, true);
	r |= write_one(argv[1], "mem-2-batches.sctrace", 300, true, true);
	r |= write_one(argv[1], "abandoned.sctrace", 12, false, false);
	r |= write_one(argv[1], "one-event.sctrace", 1, true, true);
	r |= write_one(argv[1], "mem-5.sctrace", 5, true, false);
	return r ? 1 : 0;
}
