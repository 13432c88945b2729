/*
 * test_analyze.c - the analyzer on synthetic traces with exact answers:
 * partial-order fingerprints (2 orders of two writes to one variable, 1
 * for two variables, 6 for three writers), the Good-Turing / Chao1
 * figures, data races with the right file:line on both sides (the
 * statements marked in tests/targets/race_sites.c, at their addresses
 * in the built binary), no race across unlock -> lock, wake, create and
 * join edges, merging shards, a truncated trace, and the exports.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "tracer.h"

#include "tap.h"
#include "trace_util.h"

/* A synthetic event. */
struct tev {
	uint32_t thread;
	uint16_t kind;
	uint64_t object;
	uint64_t pc;
	uint32_t nwoken;
	uint32_t woken[3];
};

static uint8_t access_of(uint16_t kind)
{
	switch (kind) {
	case SC_EV_MEM_READ:
		return SC_ACC_READ;
	case SC_EV_MEM_WRITE:
		return SC_ACC_WRITE;
	case SC_EV_MEM_RMW:
	case SC_EV_MUTEX_LOCK:
	case SC_EV_MUTEX_UNLOCK:
		return SC_ACC_RMW;
	case SC_EV_FUTEX_WAIT:
		return SC_ACC_READ;
	case SC_EV_FUTEX_WAKE:
		return SC_ACC_WRITE;
	default:
		return SC_ACC_NONE;
	}
}

/* The sizes of the memory accesses of the events being converted, by
 * index (test_shared_word's; NULL, or 0 in it: 8 bytes). */
static const uint32_t *access_sizes;
/* The accesses of the events being converted, by index (0, or NULL:
 * access_of(kind)): a syscall's, which its kind does not say. */
static const uint8_t *accesses;
/* The trace header's mem_site_cap (analyse_file). */
static uint32_t analyse_site_cap;

static struct sc_event to_event(const struct tev *e, uint64_t step)
{
	uint32_t mem_size = access_sizes && access_sizes[step] ?
		access_sizes[step] : 8;
	bool mem = e->kind >= SC_EV_MEM_READ && e->kind <= SC_EV_MEM_RMW;
	return (struct sc_event){
		.step = step, .thread = e->thread, .kind = e->kind,
		.access = accesses && accesses[step] ? accesses[step]
						     : access_of(e->kind),
		.size = mem ? mem_size : e->kind == SC_EV_FREE ? 4096 : 0,
		.object = e->object, .pc = e->pc, .enabled = 1,
		.nwoken = e->nwoken, .woken = e->nwoken ? e->woken : NULL,
	};
}

/* An in-memory trace (what sc_trace_load would give) of evs. */
static void make_trace(struct sc_trace *t, const struct tev *evs, size_t n,
		       uint32_t run_index)
{
	memset(t, 0, sizeof(*t));
	t->events = calloc(n + 1, sizeof(*t->events));
	t->wake_pool = calloc(3 * n + 1, sizeof(*t->wake_pool));
	for (size_t i = 0; i < n; i++) {
		struct sc_event e = to_event(&evs[i], i);
		struct sc_trace_event *o = &t->events[i];
		o->step = i;
		o->thread = e.thread;
		o->kind = e.kind;
		o->access = e.access;
		o->size = e.size;
		o->object = e.object;
		o->pc = e.pc;
		o->enabled = 1;
		o->nwoken = e.nwoken;
		o->woken_offset = (uint32_t)t->nwake_pool;
		for (uint32_t k = 0; k < e.nwoken; k++)
			t->wake_pool[t->nwake_pool++] = e.woken[k];
	}
	t->nevents = n;
	t->run_index = run_index;
	t->has_footer = true;
	t->verdict = SC_VERDICT_PASS;
}

static void free_trace(struct sc_trace *t)
{
	free(t->events);
	free(t->wake_pool);
	memset(t, 0, sizeof(*t));
}

/* ---- interleavings ---------------------------------------------------- */

#define VAR_X 0x601000
#define VAR_Y 0x601040
#define MAXT 4
#define MAXLEN 4

/* Threads 1..k each run prog[th]; T0 first creates them all. */
struct progs {
	int k;
	struct tev prog[MAXT][MAXLEN];
	int len[MAXT];
};

struct enum_state {
	const struct progs *p;
	struct tev evs[64];
	int n;
	int pos[MAXT];
	struct sc_analysis *a;
	uint32_t runs;
	int failed;
};

static void interleave(struct enum_state *s)
{
	bool done = true;
	for (int th = 1; th <= s->p->k; th++) {
		if (s->pos[th] == s->p->len[th])
			continue;
		done = false;
		s->evs[s->n++] = s->p->prog[th][s->pos[th]++];
		interleave(s);
		s->pos[th]--;
		s->n--;
	}
	if (!done)
		return;
	struct sc_trace t;
	char err[256];
	make_trace(&t, s->evs, (size_t)s->n, s->runs++);
	if (sc_analysis_add(s->a, &t, "synthetic", err, sizeof(err)) < 0) {
		diag("add: %s", err);
		s->failed = 1;
	}
	free_trace(&t);
}

/* Distinct partial orders over every interleaving of k threads, thread
 * th writing vars[th - 1]. */
static long orders_of(int k, const uint64_t *vars, uint32_t *runs)
{
	struct progs p = { .k = k };
	struct enum_state s = { .p = &p };
	for (int th = 1; th <= k; th++) {
		p.prog[th][0] = (struct tev){ .thread = (uint32_t)th,
					      .kind = SC_EV_THREAD_START };
		p.prog[th][1] = (struct tev){ .thread = (uint32_t)th,
					      .kind = SC_EV_MEM_WRITE,
					      .object = vars[th - 1],
					      .pc = 0x1000 + (uint64_t)th };
		p.prog[th][2] = (struct tev){ .thread = (uint32_t)th,
					      .kind = SC_EV_THREAD_EXIT };
		p.len[th] = 3;
		s.evs[s.n++] = (struct tev){ .thread = 0,
					     .kind = SC_EV_THREAD_CREATE };
	}
	s.a = sc_analysis_new();
	interleave(&s);
	const struct sc_analysis_result *r = sc_analysis_result(s.a);
	long d = r && !s.failed ? (long)r->distinct_partial_orders : -1;
	*runs = s.runs;
	sc_analysis_free(s.a);
	return d;
}

static void test_partial_orders(void)
{
	uint64_t same[3] = { VAR_X, VAR_X, VAR_X };
	uint64_t diff[2] = { VAR_X, VAR_Y };
	uint32_t runs;
	long d;

	d = orders_of(2, same, &runs);
	is_int(d, 2, "two threads writing one variable: 2 partial orders "
	       "(over all %u interleavings)", runs);
	d = orders_of(2, diff, &runs);
	is_int(d, 1, "two threads writing different variables: 1 partial "
	       "order (over %u interleavings)", runs);
	d = orders_of(3, same, &runs);
	is_int(d, 6, "three threads writing one variable: 6 partial orders "
	       "(over %u interleavings)", runs);
}

/* Reads do not conflict with each other: two readers and one writer of
 * x give 4 orders of the 6 interleavings (the write first, last, or
 * between the reads in either order). */
static void test_readers(void)
{
	struct tev base[] = {
		{ 1, SC_EV_MEM_READ, VAR_X, 1, 0, {0} },
		{ 2, SC_EV_MEM_READ, VAR_X, 2, 0, {0} },
		{ 3, SC_EV_MEM_WRITE, VAR_X, 3, 0, {0} },
	};
	static const int perms[6][3] = { {0,1,2}, {0,2,1}, {1,0,2}, {1,2,0},
					 {2,0,1}, {2,1,0} };
	struct sc_analysis *a = sc_analysis_new();
	char err[256];
	for (int p = 0; p < 6; p++) {
		struct tev evs[3];
		struct sc_trace t;
		for (int i = 0; i < 3; i++)
			evs[i] = base[perms[p][i]];
		make_trace(&t, evs, 3, (uint32_t)p);
		sc_analysis_add(a, &t, "r", err, sizeof(err));
		free_trace(&t);
	}
	const struct sc_analysis_result *r = sc_analysis_result(a);
	is_int((long)r->distinct_partial_orders, 4,
	       "two reads and a write of one variable: 4 partial orders");
	sc_analysis_free(a);
}

/* f1 = 2, f2 = 1 over 4 runs: Chao1 f1^2/(2 f2) = 2, f1/N = 0.5; and
 * with f2 = 0, f1 (f1 - 1) / 2. */
static void test_estimates(void)
{
	struct tev w1[] = { { 1, SC_EV_MEM_WRITE, VAR_X, 1, 0, {0} },
			    { 2, SC_EV_MEM_WRITE, VAR_X, 2, 0, {0} } };
	struct tev w2[] = { { 2, SC_EV_MEM_WRITE, VAR_X, 2, 0, {0} },
			    { 1, SC_EV_MEM_WRITE, VAR_X, 1, 0, {0} } };
	struct tev w3[] = { { 1, SC_EV_MEM_WRITE, VAR_Y, 1, 0, {0} } };
	const struct tev *runs[4] = { w1, w1, w2, w3 };
	size_t lens[4] = { 2, 2, 2, 1 };
	struct sc_analysis *a = sc_analysis_new();
	char err[256];
	for (int i = 0; i < 4; i++) {
		struct sc_trace t;
		make_trace(&t, runs[i], lens[i], (uint32_t)i);
		sc_analysis_add(a, &t, "e", err, sizeof(err));
		free_trace(&t);
	}
	const struct sc_analysis_result *r = sc_analysis_result(a);
	is_int((long)r->distinct_partial_orders, 3, "3 distinct orders");
	is_int((long)r->seen_once, 2, "f1 = 2");
	is_int((long)r->seen_twice, 1, "f2 = 1");
	ok(r->estimated_unseen_partial_orders == 2.0,
	   "Chao1 estimate f1^2/(2 f2) = 2 (got %g)",
	   r->estimated_unseen_partial_orders);
	ok(r->probability_next_new == 0.5, "Good-Turing f1/N = 0.5 (got %g)",
	   r->probability_next_new);
	is_int((long)r->coverage[3].distinct_partial_orders, 3,
	       "coverage after run 4: 3");
	is_int((long)r->coverage[1].distinct_partial_orders, 1,
	       "coverage after run 2: 1 (same order twice)");
	sc_analysis_free(a);

	a = sc_analysis_new();
	for (int i = 2; i < 4; i++) {
		struct sc_trace t;
		make_trace(&t, runs[i], lens[i], (uint32_t)i);
		sc_analysis_add(a, &t, "e", err, sizeof(err));
		free_trace(&t);
	}
	r = sc_analysis_result(a);
	ok(r->estimated_unseen_partial_orders == 1.0,
	   "without f2: f1 (f1 - 1) / 2 = 1 (got %g)",
	   r->estimated_unseen_partial_orders);
	sc_analysis_free(a);
}

/* ---- races ------------------------------------------------------------ */

#define LOAD 0x555555554000ULL
#define LOCK 0x555555558080ULL
#define COUNTER 0x555555558060ULL
#define TOTAL 0x555555558068ULL

static char racy_path[4096], racy_src[4096];
static uint64_t site[4];                /* race a, race b, locked a, b */
static int site_line[4];
static const char *site_names[4] = { "race_site_a", "race_site_b",
				     "locked_site_a", "locked_site_b" };
static const char *site_marks[4] = { "RACE-A", "RACE-B", "LOCKED-A",
				     "LOCKED-B" };

/* Addresses of the marker labels in the built target (libelf), and the
 * lines of the marker comments in its source. */
static int find_sites(void)
{
	const char *b = getenv("top_builddir"), *s = getenv("top_srcdir");
	snprintf(racy_path, sizeof(racy_path), "%s/tests/targets/race_sites",
		 b && *b ? b : ".");
	snprintf(racy_src, sizeof(racy_src), "%s/tests/targets/race_sites.c",
		 s && *s ? s : "..");
	if (access(racy_path, R_OK) != 0) {
		/* Relative to the source tree when run by hand from it. */
		diag("no %s", racy_path);
		return -1;
	}
	char real[4096];
	if (!realpath(racy_path, real))
		return -1;
	snprintf(racy_path, sizeof(racy_path), "%s", real);

	int found = 0;
	elf_version(EV_CURRENT);
	int fd = open(racy_path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			gelf_getsym(d, (int)i, &sym);
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (int k = 0; name && k < 4; k++)
				if (strcmp(name, site_names[k]) == 0) {
					site[k] = LOAD + sym.st_value;
					found++;
				}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);

	FILE *f = fopen(racy_src, "r");
	char line[512];
	int no = 0;
	while (f && fgets(line, sizeof(line), f)) {
		no++;
		for (int k = 0; k < 4; k++) {
			char mark[32];
			snprintf(mark, sizeof(mark), "/* %s */", site_marks[k]);
			if (strstr(line, mark))
				site_line[k] = no;
		}
	}
	if (f)
		fclose(f);
	return found == 4 && site_line[0] && site_line[3] ? 0 : -1;
}

/* Write evs as a trace file of the racy binary (module map included) and
 * analyse it. */
static const struct sc_analysis_result *
analyse_file(struct sc_analysis *a, const char *name, const struct tev *evs,
	     size_t n)
{
	static char *argv[] = { "race_sites", NULL };
	struct sc_trace_header h = {
		.tool_version = "test", .argv = argv, .cwd = "/",
		.strategy = "random", .strategy_params = "",
		.granularity = "mem", .mem_site_cap = analyse_site_cap,
	};
	struct sc_module mod = { racy_path, NULL, 0, LOAD, 0x5000 };
	struct sc_run_result res = { .verdict = SC_VERDICT_PASS };
	char *path = tu_path(name), err[512];
	struct sc_trace_writer *w = sc_trace_create(path, &h);
	if (!w)
		return NULL;
	sc_trace_modules(w, &mod, 1, 0);
	for (size_t i = 0; i < n; i++) {
		struct sc_event e = to_event(&evs[i], i);
		sc_trace_event(w, &e);
	}
	res.steps = n;
	sc_trace_finish(w, &res);

	struct sc_trace t;
	if (sc_trace_load(path, &t, err, sizeof(err)) < 0) {
		diag("%s", err);
		return NULL;
	}
	int rc = sc_analysis_add(a, &t, name, err, sizeof(err));
	sc_trace_free(&t);
	if (rc < 0) {
		diag("%s", err);
		return NULL;
	}
	return sc_analysis_result(a);
}

static void test_racy(void)
{
	/* T1 increments counter (read, write) at RACE-A, T2 at RACE-B, with
	 * no synchronisation between them. */
	struct tev evs[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_READ, COUNTER, site[0], 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_MEM_READ, COUNTER, site[1], 0, {0} },
		{ 1, SC_EV_MEM_WRITE, COUNTER, site[0], 0, {0} },
		{ 2, SC_EV_MEM_WRITE, COUNTER, site[1], 0, {0} },
	};
	struct sc_analysis *a = sc_analysis_new();
	const struct sc_analysis_result *r =
		analyse_file(a, "racy.sctrace", evs, sizeof(evs) / sizeof(*evs));
	char want_a[64], want_b[64];
	snprintf(want_a, sizeof(want_a), "race_sites.c:%d", site_line[0]);
	snprintf(want_b, sizeof(want_b), "race_sites.c:%d", site_line[1]);
	if (!ok(r && r->nraces == 1, "racy target: one racing statement pair")) {
		sc_analysis_free(a);
		skip(5, "no race");
		return;
	}
	is_str(r->races[0].first, want_a, "first side is RACE-A's line");
	is_str(r->races[0].second, want_b, "second side is RACE-B's line");
	is_str(r->races[0].first_function, "adder_a", "first function");
	is_str(r->races[0].second_function, "adder_b", "second function");
	/* T2's read races T1's write... no: T1 read, T2 read (no race),
	 * T1 write (races T2's read), T2 write (races T1's read and write). */
	is_int((long)r->races[0].count, 3, "three racing event pairs");
	sc_analysis_free(a);
}

static void test_locked(void)
{
	/* The same increments of total, each inside lock/unlock. */
	struct tev evs[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MUTEX_LOCK, LOCK, 0x7ffff7e5f370, 0, {0} },
		{ 1, SC_EV_MEM_READ, TOTAL, site[2], 0, {0} },
		{ 2, SC_EV_MUTEX_LOCK, LOCK, 0x7ffff7e5f370, 0, {0} },
		{ 2, SC_EV_FUTEX_WAIT, LOCK, 0x7ffff7e5f380, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, TOTAL, site[2], 0, {0} },
		{ 1, SC_EV_MUTEX_UNLOCK, LOCK, 0x7ffff7e60d50, 0, {0} },
		{ 1, SC_EV_FUTEX_WAKE, LOCK, 0x7ffff7e60d60, 1, {2} },
		{ 2, SC_EV_WAIT_RETURN, LOCK, 0x7ffff7e5f380, 0, {0} },
		{ 2, SC_EV_MEM_READ, TOTAL, site[3], 0, {0} },
		{ 2, SC_EV_MEM_WRITE, TOTAL, site[3], 0, {0} },
		{ 2, SC_EV_MUTEX_UNLOCK, LOCK, 0x7ffff7e60d50, 0, {0} },
		/* And a later, uncontended round: unlock -> lock alone. */
		{ 1, SC_EV_MUTEX_LOCK, LOCK, 0x7ffff7e5f370, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, TOTAL, site[2], 0, {0} },
	};
	struct sc_analysis *a = sc_analysis_new();
	const struct sc_analysis_result *r =
		analyse_file(a, "locked.sctrace", evs, sizeof(evs) / sizeof(*evs));
	ok(r && r->nraces == 0 && r->mem_runs == 1,
	   "correctly locked target: no race");
	sc_analysis_free(a);
}

/* A block freed by one thread and written by another after (malloc gave
 * it back as a new object, ordered by the allocator's lock): no race.
 * Without the free event the same writes race. */
static void test_freed_block(void)
{
	const uint64_t block = 0x55555556a000ULL;
	struct tev freed[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, block + 4000, site[0], 0, {0} },
		{ 1, SC_EV_FREE, block, 0x7ffff7ab6ef0, 0, {0} },
		{ 0, SC_EV_MEM_WRITE, block + 4000, site[1], 0, {0} },
	};
	struct tev kept[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, block + 4000, site[0], 0, {0} },
		{ 0, SC_EV_MEM_WRITE, block + 4000, site[1], 0, {0} },
	};
	struct sc_analysis *a = sc_analysis_new();
	const struct sc_analysis_result *r =
		analyse_file(a, "freed.sctrace", freed, sizeof(freed) / sizeof(*freed));
	ok(r && r->nraces == 0 && r->mem_runs == 1,
	   "a write after another thread freed the block (4096 bytes): no race");
	sc_analysis_free(a);
	a = sc_analysis_new();
	r = analyse_file(a, "kept.sctrace", kept, sizeof(kept) / sizeof(*kept));
	ok(r && r->nraces == 1, "the same writes without the free race");
	sc_analysis_free(a);
}

/* A flag and the data it publishes in one 8-byte word (an int, then a
 * bool): T1 writes the flag, then the data; T2 reads the flag.  The data's
 * write must not hide the flag's from T2's read (double-checked locking's
 * racing pair).  And the same with the reads: T1 reads the flag, then the
 * data; T2 writes the flag. */
static void test_shared_word(void)
{
	const uint64_t data = COUNTER, flag = COUNTER + 4;
	static const uint32_t sizes[] = { 0, 0, 0, 1, 4, 0, 1 };
	struct tev writes[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, flag, site[0], 0, {0} },
		{ 1, SC_EV_MEM_WRITE, data, site[2], 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_MEM_READ, flag, site[1], 0, {0} },
	};
	struct tev reads[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_READ, flag, site[0], 0, {0} },
		{ 1, SC_EV_MEM_READ, data, site[2], 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_MEM_WRITE, flag, site[1], 0, {0} },
	};
	char want_a[64], want_b[64];
	snprintf(want_a, sizeof(want_a), "race_sites.c:%d", site_line[0]);
	snprintf(want_b, sizeof(want_b), "race_sites.c:%d", site_line[1]);
	access_sizes = sizes;
	for (int k = 0; k < 2; k++) {
		const char *what = k ? "flag read, data read; flag written"
				     : "flag written, data written; flag read";
		struct sc_analysis *a = sc_analysis_new();
		const struct sc_analysis_result *r = k ?
			analyse_file(a, "word_r.sctrace", reads,
				     sizeof(reads) / sizeof(*reads)) :
			analyse_file(a, "word_w.sctrace", writes,
				     sizeof(writes) / sizeof(*writes));
		if (ok(r && r->nraces == 1, "one word, %s: one race", what)) {
			is_str(r->races[0].first, want_a,
			       "%s: the flag's access in T1", what);
			is_str(r->races[0].second, want_b,
			       "%s: the flag's access in T2", what);
		} else {
			skip(2, "no race");
		}
		sc_analysis_free(a);
	}
	access_sizes = NULL;
}

/* A spin loop on an atomic flag whose load was recorded up to the
 * trace's mem_site_cap (3) times: the turn that saw T1's release was not
 * recorded, so T2's read of the data after the loop is ordered by the
 * lifted site's word, not racing.  The same trace with the site's last
 * read before the cap (2 reads) races: nothing was lifted there. */
static void test_lifted_spin(void)
{
	const uint64_t flag = TOTAL;
	struct tev lifted[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_MEM_RMW, flag, site[2], 0, {0} },
		{ 2, SC_EV_MEM_READ, flag, site[3], 0, {0} },
		{ 2, SC_EV_MEM_READ, flag, site[3], 0, {0} },
		{ 2, SC_EV_MEM_READ, flag, site[3], 0, {0} },
		{ 1, SC_EV_MEM_WRITE, COUNTER, site[0], 0, {0} },
		{ 1, SC_EV_MEM_RMW, flag, site[2], 0, {0} },
		{ 2, SC_EV_MEM_READ, COUNTER, site[1], 0, {0} },
	};
	size_t n = sizeof(lifted) / sizeof(*lifted);
	/* Without the third read the site is not lifted. */
	struct tev kept[sizeof(lifted) / sizeof(*lifted) - 1];
	memcpy(kept, lifted, 7 * sizeof(*kept));
	memcpy(kept + 7, lifted + 8, (n - 8) * sizeof(*kept));

	analyse_site_cap = 3;
	struct sc_analysis *a = sc_analysis_new();
	const struct sc_analysis_result *r =
		analyse_file(a, "lifted.sctrace", lifted, n);
	ok(r && r->nraces == 0 && r->mem_runs == 1,
	   "data read after a spin whose load was lifted at the cap: no race");
	sc_analysis_free(a);
	a = sc_analysis_new();
	r = analyse_file(a, "unlifted.sctrace", kept, n - 1);
	ok(r && r->nraces == 1,
	   "the same read when the spin's load was recorded below the cap races");
	sc_analysis_free(a);
	analyse_site_cap = 0;
}

/* One race-free run per edge kind: create -> start, wake -> woken,
 * exit -> join; and the same runs without the edge do race. */
static void test_edges(void)
{
	struct tev create[] = {
		{ 0, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
	};
	struct tev wake[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_FUTEX_WAIT, VAR_Y, 0x30, 0, {0} },
		{ 0, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },
		{ 0, SC_EV_FUTEX_WAKE, VAR_Y + 8, 0x40, 1, {1} },
		{ 1, SC_EV_WAIT_RETURN, VAR_Y, 0x30, 0, {0} },
		{ 1, SC_EV_MEM_READ, VAR_X, 0x20, 0, {0} },
	};
	struct tev join[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
		{ 1, SC_EV_THREAD_EXIT, 0, 0, 0, {0} },
		{ 0, SC_EV_LIB_JOIN, 0x7ffff7dcf6c0, 0x50, 0, {0} },
		{ 0, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },
	};
	struct tev racy[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
		{ 0, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },
		{ 1, SC_EV_THREAD_EXIT, 0, 0, 0, {0} },
	};
	/* pthread_cond_wait releases and re-takes its mutex inside libc:
	 * T1 reads X under M, waits; T2 takes M, writes X, signals before
	 * T1 sleeps (no wake), unlocks; T1's wait returns, it reads X. */
	struct tev cond[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MUTEX_LOCK, LOCK, 0x60, 0, {0} },
		{ 1, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },
		{ 1, SC_EV_COND_WAIT, VAR_Y, 0x70, 0, {0} },
		{ 2, SC_EV_MUTEX_LOCK, LOCK, 0x60, 0, {0} },
		{ 2, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
		{ 2, SC_EV_COND_SIGNAL, VAR_Y, 0x80, 0, {0} },
		{ 2, SC_EV_MUTEX_UNLOCK, LOCK, 0x90, 0, {0} },
		{ 1, SC_EV_FUTEX_WAIT, VAR_Y + 8, 0x78, 0, {0} },
		{ 1, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },
		{ 1, SC_EV_MUTEX_UNLOCK, LOCK, 0x90, 0, {0} },
	};
	/* A flag set by an atomic exchange and read by plain loads (x86
	 * atomic loads are plain moves) publishes the data written before. */
	struct tev atomic[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
		{ 1, SC_EV_MEM_RMW, VAR_Y, 0x24, 0, {0} },
		{ 0, SC_EV_MEM_READ, VAR_Y, 0x10, 0, {0} },
		{ 0, SC_EV_MEM_READ, VAR_X, 0x14, 0, {0} },
	};
	const struct { const char *name; const struct tev *e; size_t n;
		       long races; } cases[] = {
		{ "create -> start", create, 4, 0 },
		{ "futex wake -> woken thread", wake, 7, 0 },
		{ "exit -> pthread_join", join, 6, 0 },
		{ "cond_wait releases and re-takes its mutex", cond, 14, 0 },
		{ "atomic flag publishes data", atomic, 6, 0 },
		{ "no edge", racy, 5, 1 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sc_analysis *a = sc_analysis_new();
		struct sc_trace t;
		char err[256];
		make_trace(&t, cases[c].e, cases[c].n, 0);
		sc_analysis_add(a, &t, "edge", err, sizeof(err));
		free_trace(&t);
		const struct sc_analysis_result *r = sc_analysis_result(a);
		is_int((long)r->nraces, cases[c].races, "%s: %ld race pair%s",
		       cases[c].name, cases[c].races,
		       cases[c].races == 1 ? "" : "s");
		sc_analysis_free(a);
	}
}

/* The racing pcs of evs as "0x.. 0x.." into got (size 256); one TAP line
 * (named what) for the computation. */
static void racing_pcs_of(const struct tev *evs, size_t nevs, char *got,
			  const char *what)
{
	struct sc_trace t;
	uint64_t *pcs = NULL;
	size_t n = 0;
	char err[256];

	got[0] = '\0';
	make_trace(&t, evs, nevs, 0);
	ok(sc_trace_racing_pcs(&t, &pcs, &n, err, sizeof(err)) == 0,
	   "%s: computed", what);
	for (size_t i = 0; i < n; i++)
		snprintf(got + strlen(got), 256 - strlen(got), "%s%#llx",
			 i ? " " : "", (unsigned long long)pcs[i]);
	free(pcs);
	free_trace(&t);
}

/* Race granularity's scheduling points (sc_trace_racing_pcs): both sides
 * of a race, and the plain accesses to a word another thread changed
 * with an atomic read-modify-write (a reference count read again after
 * lock xadd, the load of an atomic flag), which the detector takes for
 * synchronisation; not those of the thread that alone made the rmws. */
static void test_racing_pcs(void)
{
	struct tev evs[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },     /* race */
		{ 2, SC_EV_MEM_WRITE, VAR_X, 0x14, 0, {0} },     /* race */
		{ 1, SC_EV_MEM_RMW, VAR_Y, 0x20, 0, {0} },       /* refcount-- */
		{ 2, SC_EV_MEM_RMW, VAR_Y, 0x20, 0, {0} },
		{ 1, SC_EV_MEM_READ, VAR_Y, 0x24, 0, {0} },      /* read again */
		{ 2, SC_EV_MEM_READ, VAR_Y, 0x24, 0, {0} },
		{ 1, SC_EV_MEM_RMW, VAR_Y + 64, 0x30, 0, {0} },  /* T1's own */
		{ 1, SC_EV_MEM_READ, VAR_Y + 64, 0x34, 0, {0} },
	};
	char got[256];

	racing_pcs_of(evs, sizeof(evs) / sizeof(evs[0]), got, "racing pcs");
	is_str(got, "0x10 0x14 0x24",
	       "racing pcs: the race, the count read after another thread's rmw, not T1's own word");
}

/* And the access a thread makes right after a racing write of its own
 * (a flag set before the data it publishes): a point there lets the
 * others see the flag without the data.  Not after a racing read, and not
 * when the next event is a synchronisation point (one anyway). */
static void test_after_racing_write(void)
{
	struct tev evs[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },      /* flag = 1 */
		{ 1, SC_EV_MEM_WRITE, VAR_Y, 0x14, 0, {0} },      /* data: next */
		{ 1, SC_EV_MEM_READ, VAR_Y + 64, 0x18, 0, {0} },  /* not next */
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_MEM_READ, VAR_X, 0x20, 0, {0} },       /* sees flag */
		{ 2, SC_EV_MEM_READ, VAR_Y + 128, 0x24, 0, {0} }, /* after a read */
		{ 2, SC_EV_MEM_WRITE, VAR_X, 0x28, 0, {0} },      /* flag = 0 */
		{ 2, SC_EV_MUTEX_LOCK, LOCK, 0x7ffff7e5f370, 0, {0} },
		{ 2, SC_EV_MEM_WRITE, VAR_Y + 192, 0x2c, 0, {0} },
	};
	char got[256];

	racing_pcs_of(evs, sizeof(evs) / sizeof(evs[0]), got,
		      "racing pcs after a racing write");
	is_str(got, "0x10 0x14 0x20 0x28",
	       "racing pcs: both sides, and the access after T1's racing write only");
}

/* Data passed through a descriptor: a write to one (not 1 or 2) orders
 * a later read's return after it; a write to standard output does not. */
static void test_fd_edges(void)
{
	/* A pipe: T0 blocks reading its end (fd 3), T1 writes X and then
	 * the other end (fd 4), T0's read returns and it reads X. */
	struct tev pipe[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 0, SC_EV_SYSCALL_BLOCKING, 3, 0x40, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
		{ 1, SC_EV_SYSCALL_BLOCKING, 4, 0x44, 0, {0} },
		{ 0, SC_EV_SYSCALL_RETURN, 0, 0x40, 0, {0} },
		{ 0, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },
	};
	/* The same with T1 writing to standard output instead: no edge. */
	struct tev terminal[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 0, SC_EV_SYSCALL_BLOCKING, 3, 0x40, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
		{ 1, SC_EV_SYSCALL_BLOCKING, 1, 0x44, 0, {0} },
		{ 0, SC_EV_SYSCALL_RETURN, 0, 0x40, 0, {0} },
		{ 0, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },
	};
	static const uint8_t acc[7] = { 0, 0, SC_ACC_READ, 0, SC_ACC_WRITE };
	const struct tev *runs[] = { pipe, terminal };
	const char *what[] = { "pipe write -> the read that returns after it: no race",
			       "the same with the write to standard output: a race" };

	accesses = acc;
	for (int k = 0; k < 2; k++) {
		struct sc_analysis *a = sc_analysis_new();
		struct sc_trace t;
		char err[256];
		make_trace(&t, runs[k], 7, 0);
		sc_analysis_add(a, &t, "fd", err, sizeof(err));
		const struct sc_analysis_result *r = sc_analysis_result(a);
		is_int((long)(r ? r->nraces : 99), k, "%s", what[k]);
		free_trace(&t);
		sc_analysis_free(a);
	}
	accesses = NULL;
}

/* And a thread's reads of a word before its own racing write of it, back
 * to its last synchronisation event (check, re-read, write): the bank
 * withdrawal whose pilot ran the threads one after the other, so only
 * the first read raced.  Not a read before the thread's lock, nor a read
 * of another word. */
static void test_reads_before_racing_write(void)
{
	struct tev evs[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_READ, VAR_X, 0x08, 0, {0} },       /* before lock */
		{ 1, SC_EV_MUTEX_LOCK, LOCK, 0x7ffff7e5f370, 0, {0} },
		{ 1, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },       /* check */
		{ 1, SC_EV_MEM_READ, VAR_Y + 64, 0x14, 0, {0} },  /* other word */
		{ 1, SC_EV_MEM_READ, VAR_X, 0x18, 0, {0} },       /* re-read */
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x1c, 0, {0} },      /* act */
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_MEM_READ, VAR_X, 0x20, 0, {0} },       /* its check */
	};
	char got[256];

	racing_pcs_of(evs, sizeof(evs) / sizeof(evs[0]), got,
		      "racing pcs before a racing write");
	is_str(got, "0x10 0x18 0x1c 0x20",
	       "racing pcs: both sides, and T1's reads of the word since its lock");
}

/* Read-write locks (hb_rules.h): a write unlock orders every later lock,
 * read unlocks order a later write lock, two readers are not ordered; and
 * the lock is taken when its call returns, not at its entry. */
#define RW 0x555555558100ULL
static void test_rwlock(void)
{
	/* T2's wrlock call starts while T1 holds the lock; glibc hands the
	 * lock over with no futex wake on the rwlock's address (T2's futex
	 * wait on a word inside it finds the word changed). */
	struct tev contended[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_RWLOCK_WRLOCK, RW, 0x60, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },
		{ 2, SC_EV_RWLOCK_WRLOCK, RW, 0x60, 0, {0} },
		{ 1, SC_EV_RWLOCK_UNLOCK, RW, 0x70, 0, {0} },
		{ 2, SC_EV_FUTEX_WAIT, RW + 12, 0x64, 0, {0} },
		{ 2, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
	};
	/* A spin in libc ended by a preemption, then the lock. */
	struct tev preempted[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_RWLOCK_RDLOCK, RW, 0x60, 0, {0} },
		{ 1, SC_EV_MEM_READ, VAR_X, 0x10, 0, {0} },
		{ 2, SC_EV_RWLOCK_WRLOCK, RW, 0x60, 0, {0} },
		{ 2, SC_EV_PREEMPT, 0, 0x64, 0, {0} },
		{ 1, SC_EV_RWLOCK_UNLOCK, RW, 0x70, 0, {0} },
		{ 2, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
	};
	struct tev write_then_read[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_RWLOCK_WRLOCK, RW, 0x60, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },
		{ 1, SC_EV_RWLOCK_UNLOCK, RW, 0x70, 0, {0} },
		{ 2, SC_EV_RWLOCK_RDLOCK, RW, 0x68, 0, {0} },
		{ 2, SC_EV_MEM_READ, VAR_X, 0x20, 0, {0} },
	};
	/* Two readers that both write (a bug: a read lock does not
	 * exclude another reader). */
	struct tev readers_write[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 2, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_RWLOCK_RDLOCK, RW, 0x68, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },
		{ 1, SC_EV_RWLOCK_UNLOCK, RW, 0x70, 0, {0} },
		{ 2, SC_EV_RWLOCK_RDLOCK, RW, 0x68, 0, {0} },
		{ 2, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
	};
	const struct { const char *name; const struct tev *e; size_t n;
		       long races; } cases[] = {
		{ "rwlock: contended write lock handed over without a wake",
		  contended, 10, 0 },
		{ "rwlock: read unlock -> write lock taken after a preemption",
		  preempted, 10, 0 },
		{ "rwlock: write unlock -> read lock", write_then_read, 9, 0 },
		{ "rwlock: two readers are not ordered", readers_write, 9, 1 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sc_analysis *a = sc_analysis_new();
		struct sc_trace t;
		char err[256];
		make_trace(&t, cases[c].e, cases[c].n, 0);
		sc_analysis_add(a, &t, "rw", err, sizeof(err));
		free_trace(&t);
		const struct sc_analysis_result *r = sc_analysis_result(a);
		is_int((long)r->nraces, cases[c].races, "%s: %ld race pair%s",
		       cases[c].name, cases[c].races,
		       cases[c].races == 1 ? "" : "s");
		sc_analysis_free(a);
	}
}

/* Runs added in any order, or split across analyses of shards that are
 * then merged, give the same curve: runs are sorted by (seed, index). */
static void test_order_independent(void)
{
	struct tev w1[] = { { 1, SC_EV_MEM_WRITE, VAR_X, 1, 0, {0} },
			    { 2, SC_EV_MEM_WRITE, VAR_X, 2, 0, {0} } };
	struct tev w2[] = { { 2, SC_EV_MEM_WRITE, VAR_X, 2, 0, {0} },
			    { 1, SC_EV_MEM_WRITE, VAR_X, 1, 0, {0} } };
	uint64_t curve[2][6];
	for (int pass = 0; pass < 2; pass++) {
		struct sc_analysis *a = sc_analysis_new();
		char err[256];
		for (int i = 0; i < 6; i++) {
			int idx = pass ? 5 - i : i;
			struct sc_trace t;
			make_trace(&t, idx % 3 ? w1 : w2, 2, (uint32_t)idx);
			sc_analysis_add(a, &t, "o", err, sizeof(err));
			free_trace(&t);
		}
		const struct sc_analysis_result *r = sc_analysis_result(a);
		for (int i = 0; i < 6; i++)
			curve[pass][i] = r->coverage[i].distinct_partial_orders;
		sc_analysis_free(a);
	}
	ok(memcmp(curve[0], curve[1], sizeof(curve[0])) == 0 &&
	   curve[0][0] == 1 && curve[0][1] == 2,
	   "coverage curve independent of the order runs are added in");
}

static void test_truncated(void)
{
	struct tev evs[300];
	for (int i = 0; i < 300; i++)
		evs[i] = (struct tev){ (uint32_t)(i % 2), SC_EV_MEM_WRITE,
				       VAR_X + 8 * (uint64_t)(i % 5), 0x10, 0,
				       {0} };
	struct sc_analysis *a = sc_analysis_new();
	if (!analyse_file(a, "full.sctrace", evs, 300)) {
		skip(2, "cannot write");
		sc_analysis_free(a);
		return;
	}
	sc_analysis_free(a);
	size_t len = 0;
	uint8_t *buf = tu_slurp(tu_path("full.sctrace"), &len);
	struct sc_trace t;
	char err[256];
	/* The longest prefix that cuts an event batch (not just the footer). */
	int rc = -1;
	for (size_t cut = len; buf && cut-- > 9;) {
		rc = sc_trace_load_buffer(buf, cut, &t, err, sizeof(err));
		if (rc == 0 && t.truncated && t.nevents < 300)
			break;
		if (rc == 0)
			sc_trace_free(&t);
		rc = -1;
	}
	ok(rc == 0 && t.truncated && t.nevents > 0 && t.nevents < 300,
	   "truncated trace: %zu whole events kept", rc == 0 ? t.nevents : 0);
	a = sc_analysis_new();
	rc = rc == 0 ? sc_analysis_add(a, &t, "cut", err, sizeof(err)) : -1;
	const struct sc_analysis_result *r = sc_analysis_result(a);
	ok(rc == 0 && r->runs == 1 && r->truncated_runs == 1 &&
	   r->events == t.nevents, "truncated trace analysed up to its last "
	   "whole record");
	sc_trace_free(&t);
	sc_analysis_free(a);
	free(buf);
}

/* The exports run on a small trace and produce their headline parts. */
static void test_exports(void)
{
	struct tev evs[] = {
		{ 0, SC_EV_THREAD_CREATE, 0, 0, 0, {0} },
		{ 1, SC_EV_THREAD_START, 0, 0, 0, {0} },
		{ 1, SC_EV_MEM_WRITE, VAR_X, 0x20, 0, {0} },
		{ 0, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },
		{ 0, SC_EV_MEM_WRITE, VAR_X, 0x10, 0, {0} },
	};
	struct sc_trace t;
	make_trace(&t, evs, 5, 0);
	t.verdict = SC_VERDICT_CRASH;
	t.fault_thread = 1;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = sc_trace_export_chrome(&t, NULL, f);
	fclose(f);
	ok(rc == 0 && strstr(buf, "\"traceEvents\":[") &&
	   strstr(buf, "\"name\":\"BUG: write\",\"cat\":\"bug\"") &&
	   strstr(buf, "\"tid\":1,\"args\":{\"name\":\"T1\"}"),
	   "chrome export: tracks, failing event marked");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	rc = sc_trace_export_dot(&t, NULL, 0, f, err, sizeof(err));
	fclose(f);
	/* Edges: T0 program order e0->e3->e4, create e0->e1, T1 e1->e2,
	 * conflict e2->e3; e2->e4 is implied by e2->e3->e4. */
	ok(rc == 0 && strstr(buf, "e0 -> e1 [color=blue]") &&
	   strstr(buf, "e2 -> e3 [color=red, style=dashed]") &&
	   !strstr(buf, "e2 -> e4") && strstr(buf, "e3 -> e4;"),
	   "dot export: program order, create and conflict edges, reduced");
	if (rc == 0 && !strstr(buf, "e2 -> e3"))
		diag("%s", buf);
	free(buf);
	free_trace(&t);
}

int main(void)
{
	if (!tu_tmpdir())
		return 1;
	test_partial_orders();
	test_readers();
	test_estimates();
	test_edges();
	test_fd_edges();
	test_racing_pcs();
	test_after_racing_write();
	test_reads_before_racing_write();
	test_rwlock();
	test_order_independent();
	test_truncated();
	test_exports();
	if (find_sites() == 0) {
		test_racy();
		test_locked();
		test_freed_block();
		test_shared_word();
		test_lifted_spin();
	} else {
		skip(17, "tests/targets/race_sites not built or unreadable");
	}
	tu_cleanup();
	return done_testing();
}
