/*
 * test_trace_rw.c - trace files: writer -> reader round trip, truncation
 * at every byte, rejected inputs, abandoned runs, JSON export, and the
 * on-disk size per event of a realistic sync trace.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "tracer.h"

#include "tap.h"
#include "trace_util.h"

#define PREAMBLE 9

/* An event with room for its woken list. */
struct xev {
	struct sc_event ev;
	uint32_t woken[4];
	uint64_t regs[SC_PREEMPT_REGS];
};

static char *test_argv[] = {"./racey", "--iterations", "a b\tc", NULL};

static const uint64_t test_race_pcs[] = { 0x555555555189ULL,
					   0x5555555551a3ULL };

static const struct sc_trace_header test_hdr = {
	.tool_version = "schedctl 0.1.0-test",
	.argv = test_argv,
	.cwd = "/home/user/src",
	.env_digest = 0xfedcba9876543210ULL,
	.strategy = "pos",
	.strategy_params = "reset=1000",
	.seed = 0xffffffffffffff01ULL,
	.base_seed = 12345,
	.run_index = 7,
	.granularity = "sync",
	.max_steps = 100000,
	.timeout_ms = 10000,
	.eager_timeouts = true,
	.slice_us = 750,
	.atomics = true,
	.seeded_random = true,
	.mem_event_cap = 100000,
	.mem_site_cap = 64,
	.spin_model = true,
	.skip_glibc_sync = true,
	.all_cpus = true,
	.mem_sites = 1,
	.clock_realtime_ns = 1795674470415791000ull,
	.clock_monotonic_ns = 26609028615499ull,
	.race_pcs = test_race_pcs,
	.nrace_pcs = 2,
};

static const uint8_t bid1[] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02};
static const struct sc_module mods1[] = {
	{"/usr/local/bin/racey", bid1, sizeof(bid1), 0x555555554000ULL, 0x5000},
	{"/lib/x86_64-linux-gnu/libc.so.6", NULL, 0, 0x7ffff7dd5000ULL,
	 0x1c8000},
};
static const struct sc_module mods2[] = {
	{"/bin/true", bid1, 3, 0x400000, 0x1000},
};

static bool is_mem_kind(unsigned k)
{
	return k == SC_EV_MEM_READ || k == SC_EV_MEM_WRITE ||
	       k == SC_EV_MEM_RMW;
}

/* Varied events: all kinds, addresses that jump up and down by any amount
 * (0, small, near 2^64), wake lists, and sizes everywhere except in the
 * second batch (so that one batch has no size column). */
static void gen_events(struct xev *x, size_t n)
{
	static const uint64_t objs[] = {
		0, 0x404040, 0x404080, 0x7ffff7ffe000ULL,
		0xffffffffffffffffULL, 1, 0x8000000000000000ULL,
	};
	tu_seed(42);
	for (size_t i = 0; i < n; i++) {
		struct sc_event *e = &x[i].ev;
		memset(&x[i], 0, sizeof(x[i]));
		e->step = i;
		e->thread = tu_below(4) + (i % 50 == 0 ? 1000000 : 0);
		e->kind = (uint16_t)(1 + tu_below(SC_EV__COUNT - 1));
		e->access = (uint8_t)tu_below(4);
		e->object = tu_below(3) ? objs[tu_below(7)] : tu_rand();
		e->pc = tu_below(4) ? 0x401000 + 16 * tu_below(20) : tu_rand();
		e->enabled = tu_below(5);
		if (is_mem_kind(e->kind) && (i < 256 || i >= 512))
			e->size = (uint8_t)(1u << tu_below(4));
		/* Preemptions with their state: spins, and computations
		 * with their registers. */
		if (e->kind == SC_EV_PREEMPT && i % 3) {
			e->state = tu_rand() | 1;
			e->cpu_ns = tu_rand() >> tu_below(64);
			e->preempt_flags = i % 3 == 1 ? SC_PREEMPT_SPIN
						      : SC_PREEMPT_BUDGET;
			if (e->preempt_flags == SC_PREEMPT_BUDGET) {
				for (int k = 0; k < SC_PREEMPT_REGS; k++)
					x[i].regs[k] = tu_rand();
				e->regs = x[i].regs;
			}
		}
		if (i % 7 == 3) {
			e->nwoken = 1 + tu_below(3);
			for (uint32_t k = 0; k < e->nwoken; k++)
				x[i].woken[k] = tu_below(8);
			e->woken = x[i].woken;
		}
	}
}

static struct sc_run_result test_result(void)
{
	struct sc_run_result r;
	memset(&r, 0, sizeof(r));
	r.verdict = SC_VERDICT_CRASH;
	r.exit_status = 0;
	r.signal = 11;
	r.steps = 600;
	r.threads = 4;
	r.wall_us = 123456;
	r.fault_thread = 2;
	r.fault_pc = 0x401234;
	snprintf(r.message, sizeof(r.message),
		 "T2 received SIGSEGV at \"racey.c:42\"\n\x01\xff");
	snprintf(r.location, sizeof(r.location), "worker+0x24");
	return r;
}

/* Compare the events read back with what was written; returns the index
 * of the first mismatch or n when all match. */
static size_t first_mismatch(const struct sc_trace *t, const struct xev *x,
			     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct sc_trace_event *g = &t->events[i];
		const struct sc_event *e = &x[i].ev;
		if (g->step != e->step || g->thread != e->thread ||
		    g->kind != e->kind || g->access != e->access ||
		    g->size != e->size || g->object != e->object ||
		    g->pc != e->pc || g->enabled != e->enabled ||
		    g->nwoken != e->nwoken || g->state != e->state ||
		    g->cpu_ns != (e->state ? e->cpu_ns : 0) ||
		    g->preempt_flags != (e->state ? e->preempt_flags : 0) ||
		    g->has_regs != (e->regs != NULL))
			return i;
		if (g->has_regs &&
		    (g->regs_offset > t->nregs_pool ||
		     t->nregs_pool - g->regs_offset < SC_PREEMPT_REGS ||
		     memcmp(t->regs_pool + g->regs_offset, e->regs,
			    SC_PREEMPT_REGS * sizeof(uint64_t))))
			return i;
		if (g->nwoken && (g->woken_offset > t->nwake_pool ||
				  g->nwoken > t->nwake_pool - g->woken_offset ||
				  memcmp(t->wake_pool + g->woken_offset, e->woken,
					 g->nwoken * sizeof(uint32_t))))
			return i;
	}
	return n;
}

/* Write header, module map, n events (a second module map in the middle)
 * and, unless abandon, the footer. */
static int write_trace(const char *path, const struct xev *x, size_t n,
		       bool abandon)
{
	struct sc_trace_writer *w = sc_trace_create(path, &test_hdr);
	if (!w)
		return -1;
	if (sc_trace_modules(w, mods1, 2, 0) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		if (i == n / 2 && sc_trace_modules(w, mods2, 1, i) < 0)
			goto fail;
		if (sc_trace_event(w, &x[i].ev) < 0)
			goto fail;
	}
	if (abandon) {
		sc_trace_abandon(w);
		return 0;
	}
	struct sc_run_result r = test_result();
	return sc_trace_finish(w, &r);
fail:
	sc_trace_abandon(w);
	return -1;
}

static void test_round_trip(void)
{
	enum { N = 600 };
	static struct xev x[N];
	gen_events(x, N);
	const char *path = tu_path("rt.sctrace");
	ok(write_trace(path, x, N, false) == 0, "write a %d-event trace", N);

	struct sc_trace t;
	char err[512] = "";
	int r = sc_trace_load(path, &t, err, sizeof(err));
	if (!ok(r == 0, "read it back")) {
		diag("%s", err);
		return;
	}
	is_str(t.tool_version, test_hdr.tool_version, "tool_version");
	ok(t.argc == 3 && t.argv[3] == NULL, "argc 3, argv NULL-terminated");
	ok(t.argc == 3 && !strcmp(t.argv[0], "./racey") &&
	   !strcmp(t.argv[2], "a b\tc"), "argv strings");
	is_str(t.cwd, test_hdr.cwd, "cwd");
	ok(t.env_digest == test_hdr.env_digest, "env_digest");
	is_str(t.strategy, "pos", "strategy");
	is_str(t.strategy_params, "reset=1000", "strategy_params");
	ok(t.seed == test_hdr.seed && t.base_seed == 12345 &&
	   t.run_index == 7, "seed, base_seed, run_index");
	is_str(t.granularity, "sync", "granularity");
	ok(t.max_steps == 100000 && t.timeout_ms == 10000 && t.eager_timeouts,
	   "max_steps, timeout_ms, eager_timeouts");
	is_int(t.slice_us, 750, "slice_us");
	ok(t.atomics, "atomics (sync granularity's atomic RMW points)");
	ok(t.seeded_random, "seeded_random (getrandom drawn from the seed)");
	ok(t.mem_event_cap == 100000, "mem_event_cap (a pilot run's limit)");
	ok(t.mem_site_cap == 64, "mem_site_cap (a pilot run's limit per instruction)");
	ok(t.spin_model, "spin_model (held spinlocks block their waiters)");
	ok(t.skip_glibc_sync, "skip_glibc_sync (glibc's own locks are no events)");
	ok(t.all_cpus, "all_cpus (sched_getaffinity showed every CPU)");
	ok(t.mem_sites == 1, "mem_sites (rbp-based operands by function)");
	ok(t.clock_realtime_ns == 1795674470415791000ull &&
	   t.clock_monotonic_ns == 26609028615499ull,
	   "the virtual clock's bases");
	ok(t.nrace_pcs == 2 && t.race_pcs[0] == test_race_pcs[0] &&
	   t.race_pcs[1] == test_race_pcs[1] && !t.own_libraries,
	   "race_pcs and own_libraries");
	ok(t.nmodules == 1 && !strcmp(t.modules[0].path, "/bin/true") &&
	   t.modules[0].build_id_len == 3 &&
	   !memcmp(t.modules[0].build_id, bid1, 3) &&
	   t.modules[0].load_address == 0x400000 && t.modules[0].size == 0x1000,
	   "the last module map replaces the first");
	is_int((long long)t.nevents, N, "event count");
	size_t bad = first_mismatch(&t, x, t.nevents < N ? t.nevents : N);
	if (!ok(bad == (t.nevents < N ? t.nevents : N),
		"every event field survives (wake lists, preemption states "
		"and registers, deltas both ways, batches)"))
		diag("first mismatch at event %zu", bad);
	ok(t.has_footer && t.verdict == SC_VERDICT_CRASH && t.steps == 600 &&
	   t.threads == 4 && t.wall_us == 123456 && t.signal == 11 &&
	   t.exit_status == 0 && t.fault_thread == 2 &&
	   t.fault_pc == 0x401234, "footer numbers");
	ok(!strcmp(t.message, test_result().message) &&
	   !strcmp(t.location, "worker+0x24"), "footer strings, bytes kept");
	ok(!t.truncated, "not truncated");
	sc_trace_free(&t);
}

/* The first module map replaced by an exec must not leak, and a header
 * alone is a readable trace: create() flushed it. */
static void test_header_flushed(void)
{
	const char *path = tu_path("live.sctrace");
	struct sc_trace_writer *w = sc_trace_create(path, &test_hdr);
	if (!ok(w != NULL, "create"))
		return;
	struct sc_trace t;
	char err[512] = "";
	ok(sc_trace_load(path, &t, err, sizeof(err)) == 0 && t.nevents == 0 &&
	   !t.has_footer && !t.truncated,
	   "right after create the file holds a complete header");
	sc_trace_free(&t);

	enum { N = 300 };
	static struct xev x[N];
	gen_events(x, N);
	for (size_t i = 0; i < N; i++)
		sc_trace_event(w, &x[i].ev);
	int r = sc_trace_load(path, &t, err, sizeof(err));
	size_t got = r == 0 ? t.nevents : 0;
	ok(r == 0 && got == 256,
	   "a full batch of 256 events is on disk before finish (got %zu)",
	   got);
	sc_trace_free(&t);

	struct sc_event gap = x[0].ev;
	gap.step = N + 5;
	errno = 0;
	ok(sc_trace_event(w, &gap) == -1 && errno == EINVAL,
	   "a step gap is refused with EINVAL");
	struct sc_run_result res = test_result();
	ok(sc_trace_finish(w, &res) == 0, "finish after a refused event");
	ok(sc_trace_load(path, &t, err, sizeof(err)) == 0 && t.nevents == N &&
	   t.has_footer, "all %d events and the footer", N);
	sc_trace_free(&t);
}

static void test_abandon(void)
{
	enum { N = 300 };
	static struct xev x[N];
	gen_events(x, N);
	const char *path = tu_path("abandoned.sctrace");
	ok(write_trace(path, x, N, true) == 0, "write and abandon");
	struct sc_trace t;
	char err[512] = "";
	if (!ok(sc_trace_load(path, &t, err, sizeof(err)) == 0,
		"abandoned trace reads")) {
		diag("%s", err);
		return;
	}
	ok(!t.has_footer && t.verdict == SC_VERDICT_UNKNOWN,
	   "no footer: verdict unknown");
	ok(t.message && !strcmp(t.message, "") && t.location &&
	   !strcmp(t.location, ""), "message and location are empty strings");
	ok(t.nevents == N && first_mismatch(&t, x, N) == N,
	   "pending events were flushed");
	ok(!t.truncated, "not truncated");

	char *json = NULL;
	size_t jlen = 0;
	FILE *f = open_memstream(&json, &jlen);
	ok(f && sc_trace_export_json(&t, f) == 0, "export");
	if (f)
		fclose(f);
	ok(json && strstr(json, "\"footer\":null"), "JSON footer is null");
	free(json);
	sc_trace_free(&t);
}

/* Offsets where whole records end, walking the framing independently of
 * the reader. */
static size_t record_ends(const uint8_t *buf, size_t len, size_t *ends,
			  size_t max)
{
	size_t n = 0, off = PREAMBLE;
	while (off < len && n < max) {
		uint64_t v = 0;
		int shift = 0;
		while (buf[off] & 0x80) {
			v |= (uint64_t)(buf[off++] & 0x7f) << shift;
			shift += 7;
		}
		v |= (uint64_t)buf[off++] << shift;
		off += v;
		ends[n++] = off;
	}
	return n;
}

static void test_truncation(void)
{
	enum { N = 300 };
	static struct xev x[N];
	gen_events(x, N);
	const char *path = tu_path("cut.sctrace");
	if (!ok(write_trace(path, x, N, false) == 0, "write"))
		return;
	size_t len;
	uint8_t *buf = tu_slurp(path, &len);
	if (!ok(buf != NULL, "read %zu bytes", buf ? len : 0))
		return;
	size_t ends[64];
	size_t nends = record_ends(buf, len, ends, 64);
	ok(nends == 6 && ends[nends - 1] == len,
	   "header, 2 module maps, 2 batches, footer: %zu records", nends);

	size_t failures = 0, prev_events = 0;
	char first[600] = "";
	for (size_t cut = 0; cut <= len; cut++) {
		struct sc_trace t;
		char err[512] = "";
		int r = sc_trace_load_buffer(buf, cut, &t, err, sizeof(err));
		size_t valid = PREAMBLE;
		for (size_t k = 0; k < nends && ends[k] <= cut; k++)
			valid = ends[k];
		bool good;
		if (cut < ends[0])
			good = r == -1 && strstr(err, "no header (");
		else
			good = r == 0 && t.valid_bytes == valid &&
			       t.truncated == (cut != valid) &&
			       t.has_footer == (cut == len) &&
			       t.nevents >= prev_events &&
			       first_mismatch(&t, x, t.nevents) == t.nevents &&
			       (cut != len || t.nevents == N);
		if (r == 0)
			prev_events = t.nevents;
		if (!good && !failures++)
			snprintf(first, sizeof(first), "cut at %zu: r=%d %s",
				 cut, r, err);
		sc_trace_free(&t);
	}
	if (!ok(failures == 0, "truncation at each of %zu offsets: clean "
		"prefix, or 'no header' before the header ends", len + 1))
		diag("%zu failures, first: %s", failures, first);
	free(buf);
}

static void test_rejects(void)
{
	enum { N = 40 };
	static struct xev x[N];
	gen_events(x, N);
	const char *path = tu_path("good.sctrace");
	size_t len;
	uint8_t *buf;
	if (write_trace(path, x, N, false) < 0 ||
	    !(buf = tu_slurp(path, &len))) {
		ok(0, "write a trace");
		return;
	}
	struct sc_trace t;
	char err[1024], want[1024];

	const char *bad = tu_path("bad.sctrace");
	buf[0] ^= 0xff;
	tu_spit(bad, buf, len);
	buf[0] ^= 0xff;
	snprintf(want, sizeof(want), "%s: not a schedctl trace (bad magic)",
		 bad);
	ok(sc_trace_load(bad, &t, err, sizeof(err)) == -1, "flipped magic");
	is_str(err, want, "bad magic message");

	buf[8] = 2;
	tu_spit(bad, buf, len);
	buf[8] = 1;
	snprintf(want, sizeof(want), "%s: trace format version 2, this "
		 "schedctl reads version 1", bad);
	ok(sc_trace_load(bad, &t, err, sizeof(err)) == -1, "version byte 2");
	is_str(err, want, "version message");

	/* A record of 5 bytes that is not a protobuf message. */
	static const uint8_t garbage[] = {'S', 'C', 'T', 'R', 'A', 'C', 'E', 0,
		1, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0x42};
	tu_spit(bad, garbage, sizeof(garbage));
	snprintf(want, sizeof(want), "%s: corrupt trace: record does not "
		 "unpack at byte 9", bad);
	ok(sc_trace_load(bad, &t, err, sizeof(err)) == -1, "garbage after the "
	   "magic");
	is_str(err, want, "garbage message names the offset");

	/* Random garbage after the magic: rejected or truncated, never a
	 * header, never a crash (the fuzzer does this at scale). */
	size_t wrong = 0;
	uint8_t junk[256];
	memcpy(junk, garbage, PREAMBLE);
	tu_seed(7);
	for (int round = 0; round < 2000; round++) {
		size_t n = PREAMBLE + tu_below(sizeof(junk) - PREAMBLE);
		for (size_t i = PREAMBLE; i < n; i++)
			junk[i] = (uint8_t)tu_rand();
		err[0] = 0;
		if (sc_trace_load_buffer(junk, n, &t, err, sizeof(err)) == 0)
			sc_trace_free(&t);
		else if (!err[0])
			wrong++;
	}
	ok(wrong == 0, "2000 random bodies: every rejection has a message");

	ok(sc_trace_load(tu_path("missing"), &t, err, sizeof(err)) == -1 &&
	   strstr(err, "missing: No such file or directory"),
	   "missing file: %s", err);
	ok(sc_trace_load(tu_dir_, &t, err, sizeof(err)) == -1 &&
	   strstr(err, "Is a directory"), "directory: %s", err);
	ok(sc_trace_load_buffer(NULL, 0, &t, err, sizeof(err)) == -1 &&
	   strstr(err, "no header"), "empty buffer: %s", err);
	free(buf);
}

static void test_writer_errors(void)
{
	errno = 0;
	ok(sc_trace_create(tu_path("no/such/dir/t.sctrace"), &test_hdr) ==
	   NULL && errno == ENOENT, "create in a missing directory: ENOENT");
	errno = 0;
	struct sc_trace_writer *w = sc_trace_create("/dev/full", &test_hdr);
	ok(w == NULL && errno == ENOSPC, "create on /dev/full: ENOSPC");
	if (w)
		sc_trace_abandon(w);
}

static void test_json(void)
{
	enum { N = 20 };
	static struct xev x[N];
	gen_events(x, N);
	x[3].ev.kind = SC_EV_FUTEX_WAKE;
	x[3].ev.nwoken = 2;
	x[3].woken[0] = 1;
	x[3].woken[1] = 2;
	x[3].ev.woken = x[3].woken;
	x[4].ev.kind = SC_EV_MUTEX_LOCK;
	x[4].ev.access = SC_ACC_RMW;
	x[4].ev.object = 0x404040;
	x[4].ev.pc = 0x401136;
	x[5].ev.kind = SC_EV_MEM_WRITE;
	x[5].ev.size = 8;

	char *argv[] = {"./t", "tab\there\x01", "bad\xff utf8 \xc3\xa9", NULL};
	struct sc_trace_header h = test_hdr;
	h.argv = argv;
	const char *path = tu_path("json.sctrace");
	struct sc_trace_writer *w = sc_trace_create(path, &h);
	sc_trace_modules(w, mods1, 2, 0);
	for (size_t i = 0; i < N; i++)
		sc_trace_event(w, &x[i].ev);
	struct sc_run_result r = test_result();
	sc_trace_finish(w, &r);

	struct sc_trace t;
	char err[512] = "";
	if (!ok(sc_trace_load(path, &t, err, sizeof(err)) == 0, "load")) {
		diag("%s", err);
		return;
	}
	char *json = NULL;
	size_t jlen = 0;
	FILE *f = open_memstream(&json, &jlen);
	ok(f && sc_trace_export_json(&t, f) == 0, "export succeeds");
	if (f)
		fclose(f);
	if (!json) {
		sc_trace_free(&t);
		return;
	}
	static const char *const want[] = {
		"{\"header\":{\"tool_version\":\"schedctl 0.1.0-test\"",
		"\"argv\":[\"./t\",\"tab\\u0009here\\u0001\","
		"\"bad\\ufffd utf8 \xc3\xa9\"]",
		"\"cwd\":\"/home/user/src\"",
		"\"env_digest\":\"fedcba9876543210\"",
		"\"strategy\":\"pos\",\"strategy_params\":\"reset=1000\"",
		"\"seed\":\"18446744073709551361\",\"base_seed\":\"12345\","
		"\"run_index\":7,\"granularity\":\"sync\"",
		"\"max_steps\":100000,\"timeout_ms\":10000,"
		"\"eager_timeouts\":true,\"slice_us\":750,\"atomics\":true,"
		"\"seeded_random\":true,\"mem_event_cap\":100000,"
		"\"mem_site_cap\":64,"
		"\"spin_model\":true,\"skip_glibc_sync\":true,\"all_cpus\":true,\"mem_sites\":1,"
		"\"clock_realtime_ns\":\"1795674470415791000\","
		"\"clock_monotonic_ns\":\"26609028615499\","
		"\"own_libraries\":false,\"free_events\":false,"
		"\"virtual_timeouts\":false,\"clock_wait_reads\":0,"
		"\"attached\":false,"
		"\"race_pcs\":[\"0x555555555189\",\"0x5555555551a3\"]}",
		"{\"path\":\"/usr/local/bin/racey\",\"build_id\":\"deadbeef0102\","
		"\"load_address\":\"0x555555554000\",\"size\":20480}",
		"\"build_id\":\"\",\"load_address\":\"0x7ffff7dd5000\"",
		"\"events\":[\n{\"step\":0,",
		"\"kind\":\"futex_wake\"",
		"\"woken\":[1,2]",
		"{\"step\":4,",
		"\"kind\":\"mutex_lock\",\"access\":\"rmw\","
		"\"object\":\"0x404040\",\"pc\":\"0x401136\",\"enabled\":",
		"\"kind\":\"write\"",
		"\"size\":8}",
		"\"footer\":{\"verdict\":\"crash\",\"steps\":600,\"threads\":4,"
		"\"wall_us\":123456,\"message\":\"T2 received SIGSEGV at "
		"\\\"racey.c:42\\\"\\u000a\\u0001\\ufffd\",\"location\":"
		"\"worker+0x24\",\"exit_status\":0,\"signal\":11,"
		"\"fault_thread\":2,\"fault_pc\":\"0x401234\"}",
		"\"truncated\":false}\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		/* TAP descriptions are one line */
		char label[41];
		snprintf(label, sizeof(label), "%s", want[i]);
		for (char *c = label; *c; c++)
			if (*c == '\n' || *c == '#')
				*c = ' ';
		if (!ok(strstr(json, want[i]) != NULL, "JSON has %s", label))
			diag("in: %.600s", json);
	}
	size_t woken = 0, sizes = 0;
	for (const char *p = json; (p = strstr(p, "\"woken\"")); p++)
		woken++;
	for (const char *p = json; (p = strstr(p, "\"size\":")); p++)
		sizes++;
	size_t want_woken = 0, want_sizes = 2; /* 2 modules */
	for (size_t i = 0; i < N; i++) {
		want_woken += x[i].ev.nwoken != 0;
		want_sizes += x[i].ev.size != 0;
	}
	ok(woken == want_woken && sizes == want_sizes,
	   "woken and size appear only when non-zero");
	free(json);
	sc_trace_free(&t);
}

/* A sync-granularity run as the engine would record it: 3 threads taking
 * and releasing a few locks from ~20 call sites, contended locks going
 * through futex wait/wake, the scheduler switching threads often. */
static double synthetic_bytes_per_event(const char *name, size_t n,
					uint64_t pc_base, uint32_t pc_span)
{
	enum { THREADS = 3, SITES = 20 };
	static const uint64_t locks[] = {0x4040a0, 0x4040c8, 0x4040f0,
					 0x404140};
	uint64_t sites[SITES];
	tu_seed(1234);
	for (int s = 0; s < SITES; s++)
		sites[s] = pc_base + tu_below(pc_span);

	const char *path = tu_path(name);
	struct sc_trace_writer *w = sc_trace_create(path, &test_hdr);
	if (!w)
		return 1e9;
	int phase[THREADS] = {0};
	uint32_t woken[1];
	for (size_t i = 0; i < n; i++) {
		uint32_t th = tu_below(100) < 70 && i ? (uint32_t)((i - 1) %
			THREADS) : tu_below(THREADS);
		/* thread th alternates lock/unlock over its own sites */
		int p = phase[th]++;
		int lock = (int)((th + (uint32_t)p / 2) % 4);
		struct sc_event e = {
			.step = i, .thread = th,
			.object = locks[lock],
			.pc = sites[(th * 7 + (uint32_t)p % 6) % SITES],
			.enabled = 1 + tu_below(THREADS),
		};
		uint32_t r = tu_below(100);
		if (p % 2 == 0) {
			e.kind = r < 10 ? SC_EV_FUTEX_WAIT : SC_EV_MUTEX_LOCK;
			e.access = r < 10 ? SC_ACC_READ : SC_ACC_RMW;
		} else {
			e.kind = r < 10 ? SC_EV_FUTEX_WAKE : SC_EV_MUTEX_UNLOCK;
			e.access = r < 10 ? SC_ACC_RMW : SC_ACC_WRITE;
			if (r < 10) {
				woken[0] = (th + 1) % THREADS;
				e.nwoken = 1;
				e.woken = woken;
			}
		}
		if (sc_trace_event(w, &e) < 0) {
			sc_trace_abandon(w);
			return 1e9;
		}
	}
	struct sc_run_result r = test_result();
	if (sc_trace_finish(w, &r) < 0)
		return 1e9;
	size_t len;
	uint8_t *buf = tu_slurp(path, &len);
	free(buf);
	return buf ? (double)len / (double)n : 1e9;
}

static void test_size(void)
{
	enum { N = 100000 };
	/* Call sites within the program's text (a few KiB). */
	double b = synthetic_bytes_per_event("sync.sctrace", N, 0x401000,
					     0x3000);
	diag("bytes/event: %.2f (%d sync events, 3 threads, 4 locks, 20 call "
	     "sites in 12 KiB)", b, N);
	ok(b < 8.0, "under 8 bytes per event on disk (%.2f)", b);
	/* Informative only: call sites spread over 1 MiB of libc. */
	b = synthetic_bytes_per_event("sync-wide.sctrace", N, 0x7ffff7dd5000ULL,
				      1u << 20);
	diag("bytes/event with call sites over 1 MiB: %.2f", b);
}

/* --follow-forks: a forked process's thread and module map.  Its events
 * are named by its own map, the first process's by theirs; a thread no
 * record names is of process 0. */
static void test_processes(void)
{
	const char *path = tu_path("forks.sctrace");
	struct sc_trace_writer *w = sc_trace_create(path, &test_hdr);
	struct sc_event ev = { .kind = SC_EV_MUTEX_LOCK, .access = SC_ACC_RMW,
			       .object = 0x404040, .pc = 0x401136 };
	sc_trace_modules(w, mods1, 2, 0);
	for (uint64_t i = 0; i < 4; i++) {
		ev.step = i;
		ev.thread = (uint32_t)(i % 2);
		sc_trace_event(w, &ev);
	}
	sc_trace_thread_process(w, 2, 2);
	sc_trace_thread_process(w, 3, 2);
	sc_trace_process_modules(w, 2, mods2, 1, 4);
	for (uint64_t i = 4; i < 8; i++) {
		ev.step = i;
		ev.thread = (uint32_t)(i % 4);
		sc_trace_event(w, &ev);
	}
	struct sc_run_result r = test_result();
	sc_trace_finish(w, &r);

	struct sc_trace t;
	char err[512] = "";
	if (!ok(sc_trace_load(path, &t, err, sizeof(err)) == 0,
		"a trace with a child process loads")) {
		diag("%s", err);
		return;
	}
	ok(t.nevents == 8 && t.nmaps == 2 && t.maps[1].process == 2 &&
	   t.maps[1].at_step == 4 && t.maps[0].process == 0,
	   "both module maps kept, with their process and step");
	ok(sc_trace_process_of(&t, 0) == 0 && sc_trace_process_of(&t, 1) == 0 &&
	   sc_trace_process_of(&t, 2) == 2 && sc_trace_process_of(&t, 3) == 2 &&
	   sc_trace_process_of(&t, 9) == 0,
	   "threads 2 and 3 are of process 2, the others of process 0");
	ok(sc_trace_map_at(&t, 1, 6) == &t.maps[0] &&
	   sc_trace_map_at(&t, 3, 7) == &t.maps[1] &&
	   sc_trace_event_map(&t, &t.events[6]) == &t.maps[1] &&
	   sc_trace_event_map(&t, &t.events[5]) == &t.maps[0],
	   "each event is named by its own process's map");
	ok(t.modules == t.maps[1].modules && t.nmodules == 1,
	   "modules is the last map's");
	ok(t.maps[0].id != t.maps[1].id, "different maps, different ids");
	sc_trace_free(&t);
}

int main(void)
{
	if (!tu_tmpdir())
		bail_out("cannot create a scratch directory");
	test_round_trip();
	test_header_flushed();
	test_abandon();
	test_truncation();
	test_rejects();
	test_writer_errors();
	test_json();
	test_size();
	test_processes();
	tu_cleanup();
	return done_testing();
}
