/*
 * session.c - figures over many runs: verdict counts, distinct partial
 * orders and the estimate of those not seen yet, racing statement pairs,
 * and the coverage curve.
 *
 * Each run is reduced as it is added (fingerprint, racing statement
 * pairs), so the traces need not stay in memory.  Everything that depends
 * on the order of the runs is computed in sc_analysis_result() after
 * sorting them by (base seed, run index, name): shards of one session
 * analysed together give exactly the figures of the whole session.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "atomic_vars.h"
#include "fnv.h"
#include "race_detect.h"
#include "u64map.h"

struct stmt {
	char *location;         /* owned copies: the symbolizer is per run */
	char *function;
};

struct pair {
	uint32_t a, b;          /* statements, a's location <= b's */
	uint64_t count;
	uint32_t runs;
	uint64_t last_run;      /* serial of the last run that counted it */
};

struct run {
	char *name;
	uint64_t base_seed;
	uint32_t run_index;
	uint64_t fingerprint;
	uint32_t *pairs;        /* distinct pairs that raced in this run */
	size_t npairs;
};

struct sc_analysis {
	enum sc_po_view view;           /* events of the partial orders */
	struct run *runs;
	size_t nruns, capruns;
	struct stmt *stmts;
	size_t nstmts, capstmts;
	struct u64map stmt_by_hash;     /* FNV of location -> stmt */
	struct pair *pairs;
	size_t npairs, cappairs;
	struct u64map pair_by_key;      /* a << 32 | b -> pair */
	struct sc_analysis_result res;
	uint64_t events, truncated, mem_runs;
	uint64_t verdicts[SC_VERDICT_DIVERGED + 1];
	/* Result arrays. */
	struct sc_race_pair *out_races;
	struct sc_coverage_point *out_cov;
	/* Per-run state of sc_analysis_add. */
	struct sc_symbolizer *sym;
	struct u64map pc_stmt;          /* pc -> stmt, for the current run */
	struct u64map pc_atomic;        /* pc -> 1 atomic type's code, 2 not */
	const struct sc_trace *cur;
	struct run *cur_run;
	size_t cap_cur_pairs;
	int failed;
};

void sc_analysis_set_view(struct sc_analysis *a, enum sc_po_view view)
{
	a->view = view;
}

struct sc_analysis *sc_analysis_new(void)
{
	struct sc_analysis *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	u64map_init(&a->stmt_by_hash);
	u64map_init(&a->pair_by_key);
	u64map_init(&a->pc_stmt);
	u64map_init(&a->pc_atomic);
	a->sym = sc_symbolizer_new();
	if (!a->sym) {
		free(a);
		return NULL;
	}
	return a;
}

void sc_analysis_free(struct sc_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nruns; i++) {
		free(a->runs[i].name);
		free(a->runs[i].pairs);
	}
	free(a->runs);
	for (size_t i = 0; i < a->nstmts; i++) {
		free(a->stmts[i].location);
		free(a->stmts[i].function);
	}
	free(a->stmts);
	free(a->pairs);
	free(a->out_races);
	free(a->out_cov);
	u64map_free(&a->stmt_by_hash);
	u64map_free(&a->pair_by_key);
	u64map_free(&a->pc_stmt);
	u64map_free(&a->pc_atomic);
	sc_symbolizer_free(a->sym);
	free(a);
}

static int reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	while (c < need)
		c *= 2;
	void *p = realloc(*arr, c * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

/* The statement of a location, interned; -1 when out of memory. */
static int64_t intern_stmt(struct sc_analysis *a, const struct sc_symbol *s)
{
	/* Open hashing over the string hash: step on collisions. */
	for (uint64_t h = sc_fnv_str(SC_FNV_OFFSET, s->location);; h++) {
		int added;
		int64_t k = u64map_get_or_add(&a->stmt_by_hash, h,
					      (uint32_t)a->nstmts, &added);
		if (k < 0)
			return -1;
		if (!added) {
			if (strcmp(a->stmts[k].location, s->location) == 0)
				return k;
			continue;
		}
		if (reserve((void **)&a->stmts, &a->capstmts, a->nstmts + 1,
			    sizeof(*a->stmts)) < 0)
			return -1;
		struct stmt *st = &a->stmts[a->nstmts];
		st->location = strdup(s->location);
		st->function = strdup(s->function);
		if (!st->location || !st->function) {
			free(st->location);
			free(st->function);
			return -1;
		}
		a->nstmts++;
		return k;
	}
}

/* The key of event e's pc in the per-trace pc maps: the module map tells
 * its processes' programs apart (the same pc in a script's shell and its
 * test). */
static uint64_t pc_key(const struct sc_trace_map *map, uint64_t pc)
{
	return pc ^ (map ? u64_mix(map->id) : 0);
}

/* The library sources of atomic types' loads and stores: libstdc++'s
 * std::atomic (inlined into the program's line, or a real function at
 * -O0), and Rust's core::sync::atomic.  Their plain movs are atomic
 * accesses, which only the source tells from data accesses. */
static bool atomic_type_source(const char *path)
{
	static const char *const files[] = {
		"/atomic_base.h", "/atomic", "/atomic_wait.h",
		"/atomic_timed_wait.h", "/shared_ptr_atomic.h",
		"/sync/atomic.rs",
	};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t k = strlen(files[i]);
		if (n >= k && strcmp(path + n - k, files[i]) == 0)
			return true;
	}
	return false;
}

/* race_detect callback: whether memory event ev is an atomic type's own
 * load or store (a library's code, never the program's own file of the
 * same name). */
static bool on_atomic_code(void *ctx, size_t ev)
{
	struct sc_analysis *a = ctx;
	const struct sc_trace_event *e = &a->cur->events[ev];
	const struct sc_trace_map *map = sc_trace_event_map(a->cur, e);
	uint64_t key = pc_key(map, e->pc);
	int64_t v = u64map_get(&a->pc_atomic, key);
	if (v > 0)
		return v == 1;
	struct sc_symbol s;
	bool atomic = map &&
		      sc_symbolizer_pc(a->sym, map->modules, map->nmodules,
				       e->pc, &s) == 0 &&
		      s.system_file && atomic_type_source(s.system_file);
	int added;
	u64map_get_or_add(&a->pc_atomic, key, atomic ? 1 : 2, &added);
	return atomic;
}

/* The statement of event e, named by its process's module map. */
static int64_t stmt_of_event(struct sc_analysis *a,
			     const struct sc_trace_event *e)
{
	const struct sc_trace_map *map = sc_trace_event_map(a->cur, e);
	uint64_t key = pc_key(map, e->pc);
	int64_t k = u64map_get(&a->pc_stmt, key);
	if (k >= 0)
		return k;
	struct sc_symbol s;
	if (sc_symbolizer_pc(a->sym, map ? map->modules : NULL,
			     map ? map->nmodules : 0, e->pc, &s) < 0)
		return -1;
	k = intern_stmt(a, &s);
	int added;
	if (k < 0 || u64map_get_or_add(&a->pc_stmt, key, (uint32_t)k, &added) < 0)
		return -1;
	return k;
}

/* race_detect callback: count the statement pair of two racing events. */
static int on_race(void *ctx, size_t first, size_t second)
{
	struct sc_analysis *a = ctx;
	int64_t s1 = stmt_of_event(a, &a->cur->events[first]);
	int64_t s2 = stmt_of_event(a, &a->cur->events[second]);
	if (s1 < 0 || s2 < 0)
		return 1;
	if (s1 > s2) {
		int64_t x = s1;
		s1 = s2;
		s2 = x;
	}
	int added;
	int64_t p = u64map_get_or_add(&a->pair_by_key,
				      (uint64_t)s1 << 32 | (uint64_t)s2,
				      (uint32_t)a->npairs, &added);
	if (p < 0)
		return 1;
	if (added) {
		if (reserve((void **)&a->pairs, &a->cappairs, a->npairs + 1,
			    sizeof(*a->pairs)) < 0)
			return 1;
		/* Sides in location order, decided once per pair. */
		bool swap = strcmp(a->stmts[s1].location,
				   a->stmts[s2].location) > 0;
		a->pairs[a->npairs++] = (struct pair){
			.a = (uint32_t)(swap ? s2 : s1),
			.b = (uint32_t)(swap ? s1 : s2),
			.last_run = UINT64_MAX,
		};
	}
	struct pair *pr = &a->pairs[p];
	pr->count++;
	if (pr->last_run != a->nruns) {
		struct run *r = a->cur_run;
		pr->last_run = a->nruns;
		pr->runs++;
		if (reserve((void **)&r->pairs, &a->cap_cur_pairs,
			    r->npairs + 1, sizeof(*r->pairs)) < 0)
			return 1;
		r->pairs[r->npairs++] = (uint32_t)p;
	}
	return 0;
}

static int cmp_atomic_module(const void *x, const void *y)
{
	const struct sc_atomic_module *a = x, *b = y;
	return a->load < b->load ? -1 : a->load > b->load;
}

/* A module map's modules with their declared atomic data, by load
 * address. */
static int atomic_set(struct sc_analysis *a, const struct sc_trace_map *map,
		      struct sc_atomic_set *set)
{
	set->n = 0;
	set->mods = calloc(map->nmodules, sizeof(*set->mods));
	if (!set->mods)
		return -1;
	for (size_t i = 0; i < map->nmodules; i++) {
		const struct sc_trace_module *m = &map->modules[i];
		struct sc_atomic_module *v = &set->mods[set->n];
		uint64_t first = 0;
		if (!m->path)
			continue;
		v->ranges = sc_symbolizer_atomics(a->sym, m->path, &first);
		v->load = m->load_address;
		v->first_vaddr = first;
		set->n++;
	}
	qsort(set->mods, set->n, sizeof(*set->mods), cmp_atomic_module);
	return 0;
}

static void free_atomic_sets(struct sc_atomic_set *sets, size_t n)
{
	for (size_t i = 0; sets && i < n; i++)
		free(sets[i].mods);
	free(sets);
}

/* One atomic set per module map of t; *out NULL when t has no map. */
static int atomic_sets(struct sc_analysis *a, const struct sc_trace *t,
		       struct sc_atomic_set **out)
{
	*out = NULL;
	if (!t->nmaps)
		return 0;
	struct sc_atomic_set *sets = calloc(t->nmaps, sizeof(*sets));
	if (!sets)
		return -1;
	for (size_t i = 0; i < t->nmaps; i++)
		if (atomic_set(a, &t->maps[i], &sets[i]) < 0) {
			free_atomic_sets(sets, t->nmaps);
			return -1;
		}
	*out = sets;
	return 0;
}

static bool has_mem_events(const struct sc_trace *t)
{
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].kind >= SC_EV_MEM_READ &&
		    t->events[i].kind <= SC_EV_MEM_RMW)
			return true;
	return false;
}

int sc_analysis_add(struct sc_analysis *a, const struct sc_trace *t,
		    const char *name, char *err, size_t errlen)
{
	uint64_t fp;

	if (sc_trace_fingerprint_view(t, a->view, &fp, err, errlen) < 0)
		return -1;
	if (reserve((void **)&a->runs, &a->capruns, a->nruns + 1,
		    sizeof(*a->runs)) < 0)
		goto oom;
	struct run *r = &a->runs[a->nruns];
	memset(r, 0, sizeof(*r));
	r->name = strdup(name ? name : "");
	if (!r->name)
		goto oom;
	r->base_seed = t->base_seed;
	r->run_index = t->run_index;
	r->fingerprint = fp;

	bool mem = has_mem_events(t);
	if (mem) {
		/* Pairs found before a failure are counted in the pairs'
		 * totals: undo nothing, but do not count the run. */
		u64map_clear(&a->pc_stmt);
		u64map_clear(&a->pc_atomic);
		a->cur = t;
		a->cur_run = r;
		a->cap_cur_pairs = 0;
		struct sc_atomic_set *atomics;
		if (atomic_sets(a, t, &atomics) < 0) {
			free(r->name);
			goto oom;
		}
		int rc = race_detect(t, atomics, on_atomic_code, true, on_race, a,
				     err, errlen);
		free_atomic_sets(atomics, t->nmaps);
		if (rc < 0) {
			free(r->pairs);
			free(r->name);
			return -1;
		}
	}
	a->nruns++;
	a->events += t->nevents;
	a->truncated += t->truncated;
	a->mem_runs += mem;
	a->verdicts[t->verdict <= SC_VERDICT_DIVERGED ? t->verdict : 0]++;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int cmp_run(const void *x, const void *y)
{
	const struct run *a = x, *b = y;
	if (a->base_seed != b->base_seed)
		return a->base_seed < b->base_seed ? -1 : 1;
	if (a->run_index != b->run_index)
		return a->run_index < b->run_index ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_race(const void *x, const void *y)
{
	const struct sc_race_pair *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->runs != b->runs)
		return a->runs > b->runs ? -1 : 1;
	int c = strcmp(a->first, b->first);
	return c ? c : strcmp(a->second, b->second);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

const struct sc_analysis_result *sc_analysis_result(struct sc_analysis *a)
{
	struct sc_analysis_result *res = &a->res;
	uint64_t *fps = NULL;
	uint32_t *first_run = NULL;
	struct u64map seen;

	u64map_init(&seen);
	free(a->out_races);
	free(a->out_cov);
	a->out_races = NULL;
	a->out_cov = NULL;
	memset(res, 0, sizeof(*res));
	qsort(a->runs, a->nruns, sizeof(*a->runs), cmp_run);

	fps = malloc((a->nruns + 1) * sizeof(*fps));
	first_run = calloc(a->npairs + 1, sizeof(*first_run));
	a->out_cov = malloc((a->nruns + 1) * sizeof(*a->out_cov));
	a->out_races = malloc((a->npairs + 1) * sizeof(*a->out_races));
	if (!fps || !first_run || !a->out_cov || !a->out_races)
		goto oom;

	/* The coverage curve, in run order. */
	uint64_t distinct_pairs = 0;
	for (size_t i = 0; i < a->nruns; i++) {
		const struct run *r = &a->runs[i];
		int added;
		if (u64map_get_or_add(&seen, r->fingerprint, 0, &added) < 0)
			goto oom;
		for (size_t j = 0; j < r->npairs; j++)
			if (!first_run[r->pairs[j]]) {
				first_run[r->pairs[j]] = (uint32_t)i + 1;
				distinct_pairs++;
			}
		a->out_cov[i] = (struct sc_coverage_point){
			.run = (uint32_t)i + 1,
			.distinct_partial_orders = seen.len,
			.distinct_race_pairs = distinct_pairs,
		};
		fps[i] = r->fingerprint;
	}

	/* f1, f2: fingerprints seen exactly once and twice. */
	qsort(fps, a->nruns, sizeof(*fps), cmp_u64);
	for (size_t i = 0; i < a->nruns;) {
		size_t j = i;
		while (j < a->nruns && fps[j] == fps[i])
			j++;
		res->seen_once += j - i == 1;
		res->seen_twice += j - i == 2;
		i = j;
	}
	double f1 = (double)res->seen_once, f2 = (double)res->seen_twice;
	res->estimated_unseen_partial_orders =
		f2 > 0 ? f1 * f1 / (2 * f2)
		: f1 > 1 ? f1 * (f1 - 1) / 2 : 0.0;     /* never -0.0 */
	res->probability_next_new = a->nruns ? f1 / (double)a->nruns : 0;

	for (size_t p = 0; p < a->npairs; p++) {
		const struct pair *pr = &a->pairs[p];
		a->out_races[p] = (struct sc_race_pair){
			.first = a->stmts[pr->a].location,
			.second = a->stmts[pr->b].location,
			.first_function = a->stmts[pr->a].function,
			.second_function = a->stmts[pr->b].function,
			.count = pr->count,
			.runs = pr->runs,
			.first_run = first_run[p],
		};
	}
	qsort(a->out_races, a->npairs, sizeof(*a->out_races), cmp_race);

	res->runs = a->nruns;
	res->events = a->events;
	res->truncated_runs = a->truncated;
	res->mem_runs = a->mem_runs;
	res->distinct_partial_orders = seen.len;
	memcpy(res->verdicts, a->verdicts, sizeof(res->verdicts));
	res->races = a->out_races;
	res->nraces = a->npairs;
	res->coverage = a->out_cov;
	res->ncoverage = a->nruns;
	free(fps);
	free(first_run);
	u64map_free(&seen);
	return res;
oom:
	free(fps);
	free(first_run);
	u64map_free(&seen);
	return NULL;
}
