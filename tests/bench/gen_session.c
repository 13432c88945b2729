/*
 * gen_session.c - write a large synthetic session for the analyzer
 * benchmark (tests/bench/analyze_speed.sh): RUNS trace files of EVENTS
 * events each, as `launch --keep-traces all --out DIR` would leave them.
 *
 *   gen_session DIR RUNS EVENTS
 *
 * Each run has 4 worker threads that take turns (picked by a seeded
 * xorshift, a different seed per run) doing what a mem-granularity trace
 * of a small lock-based program holds: loads and stores to a handful of
 * shared and private variables from a few instruction addresses, with a
 * lock/unlock pair around one in eight accesses.  The trace writer is the
 * engine's own, so file sizes are those of real traces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tracer.h"

#define THREADS 4
#define LOCK 0x555555558040ULL
#define SHARED 0x555555558060ULL
#define PRIVATE 0x555555558100ULL
#define CODE 0x555555555200ULL

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int emit(struct sc_trace_writer *w, uint64_t *step, uint32_t th,
		uint16_t kind, uint8_t acc, uint8_t size, uint64_t obj,
		uint64_t pc)
{
	struct sc_event e = {
		.step = (*step)++, .thread = th, .kind = kind, .access = acc,
		.size = size, .object = obj, .pc = pc, .enabled = THREADS,
	};
	return sc_trace_event(w, &e);
}

static int one_run(const char *dir, unsigned run, uint64_t events)
{
	static char *argv[] = { "bench_target", NULL };
	struct sc_trace_header h = {
		.tool_version = "bench", .argv = argv, .cwd = "/",
		.strategy = "random", .strategy_params = "", .seed = run,
		.base_seed = 1, .run_index = run, .granularity = "mem",
	};
	struct sc_module mod = { "/nonexistent/bench_target", NULL, 0,
				 0x555555554000ULL, 0x5000 };
	char path[4096];
	uint64_t step = 0;
	int bad = 0;

	snprintf(path, sizeof(path), "%s/run-%06u.sctrace", dir, run);
	struct sc_trace_writer *w = sc_trace_create(path, &h);
	if (!w) {
		fprintf(stderr, "gen_session: %s: %s\n", path, strerror(errno));
		return -1;
	}
	sc_trace_modules(w, &mod, 1, 0);
	rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)run << 32 | run);
	for (uint32_t t = 1; t <= THREADS; t++)
		bad |= emit(w, &step, 0, SC_EV_THREAD_CREATE, 0, 0, 0, CODE);
	for (uint32_t t = 1; t <= THREADS; t++)
		bad |= emit(w, &step, t, SC_EV_THREAD_START, 0, 0, 0, CODE + 8);
	while (step + 4 <= events && !bad) {
		uint64_t r = next();
		uint32_t th = 1 + (uint32_t)(r % THREADS);
		unsigned what = (unsigned)(r >> 8) % 8;
		uint64_t var = (r >> 16) % 2 ? SHARED + 8 * ((r >> 20) % 4)
					     : PRIVATE + 64 * th;
		uint64_t pc = CODE + 0x40 + 4 * ((r >> 24) % 16);
		if (what == 0) {
			bad |= emit(w, &step, th, SC_EV_MUTEX_LOCK, SC_ACC_RMW,
				    0, LOCK, CODE + 0x20);
			bad |= emit(w, &step, th, SC_EV_MEM_WRITE, SC_ACC_WRITE,
				    8, SHARED, pc);
			bad |= emit(w, &step, th, SC_EV_MUTEX_UNLOCK,
				    SC_ACC_RMW, 0, LOCK, CODE + 0x30);
		} else {
			bool wr = what < 3;
			bad |= emit(w, &step, th,
				    wr ? SC_EV_MEM_WRITE : SC_EV_MEM_READ,
				    wr ? SC_ACC_WRITE : SC_ACC_READ, 8, var, pc);
		}
	}
	struct sc_run_result res = { .verdict = SC_VERDICT_PASS,
				     .steps = step, .threads = THREADS + 1 };
	if (sc_trace_finish(w, &res) < 0 || bad) {
		fprintf(stderr, "gen_session: %s: write error\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gen_session DIR RUNS EVENTS\n");
		return 2;
	}
	unsigned runs = (unsigned)strtoul(argv[2], NULL, 10);
	uint64_t events = strtoull(argv[3], NULL, 10);
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "gen_session: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (unsigned r = 1; r <= runs; r++)
		if (one_run(argv[1], r, events) < 0)
			return 1;
	return 0;
}
