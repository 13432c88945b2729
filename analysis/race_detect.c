/*
 * race_detect.c - vector-clock happens-before over synchronisation edges,
 * and a shadow memory of 8-byte words recording each thread's latest
 * read and write of every byte (a cell per access, with the bytes of the
 * word it is still the latest for).
 *
 * Cost: O(threads) per synchronisation event (clock joins), O(cells of the
 * word) per memory event; nothing per event is kept after the run.
 */
#include <stdlib.h>
#include <string.h>

#include "hb_rules.h"
#include "race_detect.h"
#include "u64map.h"

struct cell {
	uint32_t thread;
	uint32_t clock;         /* the thread's own clock at the access */
	uint32_t event;         /* index into t->events */
	uint8_t mask;           /* bytes of the word touched */
	uint8_t write;          /* write or rmw */
};

struct word {
	struct cell *cells;
	uint32_t n, cap;
	bool atomic;            /* an rmw touched it: accesses synchronise */
};

/* A synchronisation word that a lifted site still touches, unseen. */
struct blind {
	uint64_t object;
	bool release;           /* the site writes it */
};

struct rd {
	const struct sc_trace *t;
	const struct sc_atomic_set *atomics;    /* by module map */
	atomic_code_fn atomic_code;
	uint32_t n;             /* thread slots */
	uint32_t *vc;           /* n x n: vc[t*n + u] */
	uint32_t *pending;      /* n x n: clocks to join at t's next event */
	bool *has_pending;
	uint32_t *exitvc;       /* n x n */
	bool *exited;
	uint64_t *join_obj;     /* per thread: object of its last join */
	struct hb_thread *ths;  /* per thread: calls in progress */
	struct u64map objmap;   /* object -> index into objclk (n each) */
	uint32_t *objclk;
	size_t nobj, capobj;
	struct u64map wordmap;  /* address >> 3 -> index into words */
	struct word *words;
	size_t nwords, capwords;
	bool reported;          /* race_detect's: lifted sites order */
	struct u64map sitemap;  /* process and pc -> index into site_hits */
	uint32_t *site_hits;
	size_t nsites, capsites;
	struct blind *blind;
	size_t nblind, capblind;
};

static void join(uint32_t *dst, const uint32_t *src, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (src[i] > dst[i])
			dst[i] = src[i];
}

/* The release clock of an object, created zeroed; NULL when out of memory. */
static uint32_t *obj_clock(struct rd *r, uint64_t obj)
{
	int added;
	int64_t k = u64map_get_or_add(&r->objmap, obj, (uint32_t)r->nobj,
				      &added);
	if (k < 0)
		return NULL;
	if (added) {
		if (r->nobj == r->capobj) {
			size_t c = r->capobj ? r->capobj * 2 : 16;
			void *p = realloc(r->objclk, c * r->n * sizeof(uint32_t));
			if (!p)
				return NULL;
			r->objclk = p;
			r->capobj = c;
		}
		memset(r->objclk + r->nobj * r->n, 0, r->n * sizeof(uint32_t));
		r->nobj++;
	}
	return r->objclk + (size_t)k * r->n;
}

/* The shadow word of address a in the process of thread th: user
 * addresses have 47 bits, so a's word number (its low WORD_BITS bits)
 * leaves 20 bits for the process (the trace reader's limit of threads). */
#define WORD_BITS 44
#define WORD_MASK ((1ULL << WORD_BITS) - 1)

static uint64_t word_key(const struct rd *r, uint32_t th, uint64_t a)
{
	return (a >> 3) | (uint64_t)sc_trace_process_of(r->t, th) << WORD_BITS;
}

static struct word *get_word(struct rd *r, uint64_t w)
{
	int added;
	int64_t k = u64map_get_or_add(&r->wordmap, w, (uint32_t)r->nwords,
				      &added);
	if (k < 0)
		return NULL;
	if (added) {
		if (r->nwords == r->capwords) {
			size_t c = r->capwords ? r->capwords * 2 : 64;
			void *p = realloc(r->words, c * sizeof(*r->words));
			if (!p)
				return NULL;
			r->words = p;
			r->capwords = c;
		}
		memset(&r->words[r->nwords++], 0, sizeof(struct word));
	}
	return &r->words[k];
}

/* Record th's access to the bytes of mask.  A thread keeps one read and
 * one write cell per byte: the bytes this access touched are taken from
 * its older cell of the same kind, and the rest of that cell stays.
 * Why: a flag and the data it publishes often share a word (a bool after
 * an int); when the data's write replaced the flag's write whole, the
 * other thread's read of the flag raced with nothing, and the
 * double-checked lock's racing pair was never learnt. */
static int set_cell(struct word *w, uint32_t th, uint32_t clock,
		    uint32_t ev, uint8_t mask, bool write)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < w->n; i++) {
		struct cell c = w->cells[i];
		if (c.thread == th && c.write == write) {
			c.mask &= (uint8_t)~mask;
			if (!c.mask)
				continue;
		}
		w->cells[kept++] = c;
	}
	w->n = kept;
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? w->cap * 2 : 4;
		void *p = realloc(w->cells, cap * sizeof(*w->cells));
		if (!p)
			return -1;
		w->cells = p;
		w->cap = cap;
	}
	w->cells[w->n++] = (struct cell){ th, clock, ev, mask, write };
	return 0;
}

/* Whether the bytes of memory event e are declared atomic: the module
 * with the highest load address at or below them (its .bss may lie past
 * its file mappings) says. */
static bool declared_atomic(const struct rd *r, const struct sc_trace_event *e)
{
	const struct sc_atomic_module *m = NULL;
	uint64_t len = e->size ? e->size : 1;
	const struct sc_trace_map *map = r->atomics ?
		sc_trace_event_map(r->t, e) : NULL;
	if (!map)
		return false;
	const struct sc_atomic_set *set = &r->atomics[map - r->t->maps];

	for (size_t i = 0; i < set->n && set->mods[i].load <= e->object; i++)
		m = &set->mods[i];
	if (!m || !m->ranges || !m->ranges->n)
		return false;
	uint64_t a = e->object - m->load + m->first_vaddr;
	return sc_addr_ranges_overlap(m->ranges, a, a + len);
}

/* free(3) of a block (a free event): its words' accesses are forgotten.
 * Why: the next malloc may return the block to another thread as a new
 * object, ordered after the free by the allocator's lock, which no event
 * shows; without this the first thread's accesses to the old object
 * raced with the new owner's (the state of a std::thread that the first
 * thread deleted at its end, constructed again by main for the next). */
static void forget_block(struct rd *r, uint32_t th, uint64_t block,
			 uint32_t size)
{
	for (uint64_t a = block & ~7ULL; a < block + size && a >= (block & ~7ULL);
	     a += 8) {
		int64_t k = u64map_get(&r->wordmap, word_key(r, th, a));
		if (k >= 0) {
			r->words[k].n = 0;
			r->words[k].atomic = false;
		}
	}
}

/* How far below a thread's clear_child_tid word (in glibc's struct
 * pthread, at the top of the block that holds its stack and static TLS)
 * the block may reach: the largest default stack (RLIMIT_STACK's usual
 * 8 MiB) and a guard. */
#define THREAD_BLOCK_BELOW ((uint64_t)8 << 20 | 64 << 10)
#define THREAD_BLOCK_ABOVE 4096

/* The exit of thread th, whose clear_child_tid word is at ctid: its own
 * accesses to its stack and thread-local storage are forgotten.  Why:
 * glibc keeps the block of an exited thread and gives it to the next
 * thread created, whose thread-locals then sit at the same addresses,
 * ordered after the exit by glibc's own lock, which no event shows (Rust's
 * std and libtest: every thread-local of a test thread 'raced' with the
 * next test thread's).  Only th's cells: what other threads did there
 * stays, and th's accesses farther away are kept. */
static void forget_thread_block(struct rd *r, uint32_t th, uint64_t ctid)
{
	if (ctid < THREAD_BLOCK_BELOW)
		return;
	uint64_t lo = ctid - THREAD_BLOCK_BELOW, hi = ctid + THREAD_BLOCK_ABOVE;
	uint64_t process = word_key(r, th, 0);
	for (size_t i = 0; i < r->wordmap.cap; i++) {
		uint64_t key = r->wordmap.keys[i];
		if (!r->wordmap.vals[i] || (key & ~WORD_MASK) != process)
			continue;
		uint64_t a = (key & WORD_MASK) << 3;
		if (a < lo || a >= hi)
			continue;
		struct word *w = &r->words[r->wordmap.vals[i] - 1];
		uint32_t k = 0;
		for (uint32_t j = 0; j < w->n; j++)
			if (w->cells[j].thread != th)
				w->cells[k++] = w->cells[j];
		w->n = k;
	}
}

/* Check and record one memory access.  Returns 0, 1 when fn stopped the
 * scan, -1 when out of memory. */
static int mem_access(struct rd *r, size_t ev, race_fn fn, void *ctx)
{
	const struct sc_trace_event *e = &r->t->events[ev];
	uint32_t th = e->thread, *my = r->vc + (size_t)th * r->n;
	bool write = e->kind != SC_EV_MEM_READ;
	uint64_t start = e->object, len = e->size ? e->size : 1;
	/* Reported partners of this access, so that an access spanning two
	 * words reports each racing event once. */
	uint32_t seen[8];
	unsigned nseen = 0;

	if (len > 64)
		len = 64;
	for (uint64_t a = start & ~7ULL; a < start + len && a >= (start & ~7ULL);
	     a += 8) {
		uint64_t lo = a < start ? start - a : 0;
		uint64_t hi = start + len - a < 8 ? start + len - a : 8;
		uint8_t mask = (uint8_t)(((1u << hi) - 1) & ~((1u << lo) - 1));
		struct word *w = get_word(r, word_key(r, th, a));
		if (!w)
			return -1;
		/* Atomic instructions (rmw: lock prefix, xchg) are
		 * synchronisation, not data, and so are the other accesses to
		 * a word they touch: on x86 an atomic load or release store
		 * is a plain mov, indistinguishable from a data access. */
		if (e->kind == SC_EV_MEM_RMW)
			w->atomic = true;
		if (w->atomic)
			continue;
		for (uint32_t i = 0; i < w->n; i++) {
			const struct cell *c = &w->cells[i];
			if (c->thread == th || !(c->mask & mask) ||
			    !(c->write || write) ||
			    c->clock <= my[c->thread])
				continue;
			bool dup = false;
			for (unsigned s = 0; s < nseen; s++)
				dup |= seen[s] == c->event;
			if (dup)
				continue;
			if (nseen < 8)
				seen[nseen++] = c->event;
			if (fn(ctx, c->event, ev))
				return 1;
		}
		if (set_cell(w, th, my[th], (uint32_t)ev, mask, write) < 0)
			return -1;
	}
	return 0;
}

/* Plain accesses to a word that an rmw touched act as synchronisation
 * (hand-written spin locks release with a plain store). */
static bool atomic_word(struct rd *r, uint32_t th, uint64_t addr)
{
	int64_t k = u64map_get(&r->wordmap, word_key(r, th, addr));
	return k >= 0 && r->words[k].atomic;
}

/* The tracer stops scheduling (and recording) a memory access
 * instruction after t->mem_site_cap events at it in a process
 * (tracer/schedule.c): a spin loop's load is recorded 64 or 1000 times,
 * and the turn that reads the other thread's release store, the one the
 * happens-before edge comes from, is never seen.  So once a site that
 * touches a synchronisation word is lifted, every later event acquires
 * the word's release clock (the lifted site may read it at any time),
 * and when the site writes, every later event also releases into it.
 * That can only hide a race, never invent one (QA: a correct SPSC ring
 * "raced" on its slots in every run).
 *
 * Counts one event at e's site; returns -1 when out of memory. */
static int count_site(struct rd *r, const struct sc_trace_event *e,
		      bool sync)
{
	uint64_t process = sc_trace_process_of(r->t, e->thread);
	int added;

	if (!r->reported || !r->t->mem_site_cap || process >= 1u << 16)
		return 0;
	int64_t k = u64map_get_or_add(&r->sitemap, e->pc | process << 48,
				      (uint32_t)r->nsites, &added);
	if (k < 0)
		return -1;
	if (added) {
		if (r->nsites == r->capsites) {
			size_t c = r->capsites ? r->capsites * 2 : 64;
			void *p = realloc(r->site_hits, c * sizeof(uint32_t));
			if (!p)
				return -1;
			r->site_hits = p;
			r->capsites = c;
		}
		r->site_hits[r->nsites++] = 0;
	}
	if (++r->site_hits[k] != r->t->mem_site_cap || !sync)
		return 0;
	bool release = e->kind != SC_EV_MEM_READ;
	for (size_t i = 0; i < r->nblind; i++)
		if (r->blind[i].object == e->object) {
			r->blind[i].release |= release;
			return 0;
		}
	if (r->nblind == r->capblind) {
		size_t c = r->capblind ? r->capblind * 2 : 8;
		void *p = realloc(r->blind, c * sizeof(*r->blind));
		if (!p)
			return -1;
		r->blind = p;
		r->capblind = c;
	}
	r->blind[r->nblind++] = (struct blind){ e->object, release };
	return 0;
}

/* Join the release clocks of the lifted sites' words into my (acquire),
 * or my into those of the written ones (release). */
static int blind_sync(struct rd *r, uint32_t *my, bool release)
{
	for (size_t i = 0; i < r->nblind; i++) {
		if (release && !r->blind[i].release)
			continue;
		uint32_t *oc = obj_clock(r, r->blind[i].object);
		if (!oc)
			return -1;
		if (release)
			join(oc, my, r->n);
		else
			join(my, oc, r->n);
	}
	return 0;
}

static int run(struct rd *r, race_fn fn, void *ctx)
{
	const struct sc_trace *t = r->t;
	uint32_t n = r->n, next_new = 1, seen_max = 0;

	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		uint32_t th = e->thread;
		uint32_t *my = r->vc + (size_t)th * n;
		unsigned role = 0;

		if (th > seen_max)
			seen_max = th;
		if (r->has_pending[th]) {
			join(my, r->pending + (size_t)th * n, n);
			r->has_pending[th] = false;
		}
		my[th]++;
		if (blind_sync(r, my, false) < 0)
			return -1;
		bool sync_access = false;
		if (hb_is_mem(e->kind)) {
			role = hb_object_role(e->kind);
			sync_access = declared_atomic(r, e);
			if (!sync_access && r->atomic_code &&
			    r->atomic_code(ctx, i)) {
				struct word *w = get_word(r, word_key(r, th,
								      e->object));
				if (!w)
					return -1;
				w->atomic = true;
				sync_access = true;
			}
			if (!role && (sync_access || atomic_word(r, th, e->object)))
				role = e->kind == SC_EV_MEM_READ ? HB_ACQUIRE
								 : HB_RELEASE;
			if (count_site(r, e, role != 0) < 0)
				return -1;
		} else if (e->object) {
			role = hb_object_role(e->kind);
		}
		uint32_t *oc = NULL;
		if (role) {
			oc = obj_clock(r, e->object);
			if (!oc)
				return -1;
			if (role & HB_ACQUIRE)
				join(my, oc, n);
		}
		struct hb_keys keys;
		hb_thread_step(&r->ths[th], e, &keys);
		for (unsigned k = 0; k < keys.nacquire; k++) {
			uint32_t *mc = obj_clock(r, keys.acquire[k]);
			if (!mc)
				return -1;
			join(my, mc, n);
		}
		if (e->kind == SC_EV_LIB_JOIN)
			r->join_obj[th] = e->object;
		if (e->kind == SC_EV_LIB_JOIN ||
		    hb_join_wait(r->join_obj[th], e))
			for (uint32_t u = 0; u < n; u++)
				if (r->exited[u])
					join(my, r->exitvc + (size_t)u * n, n);
		if (hb_is_mem(e->kind) && !sync_access) {
			int m = mem_access(r, i, fn, ctx);
			if (m)
				return m;
		}
		if (e->kind == SC_EV_FREE)
			forget_block(r, th, e->object, e->size);
		if (oc && (role & HB_RELEASE)) {
			/* Re-fetched: obj_clock may have moved the clocks. */
			oc = obj_clock(r, e->object);
			if (!oc)
				return -1;
			join(oc, my, n);
		}
		for (unsigned k = 0; k < keys.nrelease; k++) {
			uint32_t *mc = obj_clock(r, keys.release[k]);
			if (!mc)
				return -1;
			join(mc, my, n);
		}
		if (blind_sync(r, my, true) < 0)
			return -1;
		const uint32_t *w = hb_woken(t, e);
		for (uint32_t j = 0; w && j < e->nwoken; j++) {
			if (w[j] >= n)
				continue;
			join(r->pending + (size_t)w[j] * n, my, n);
			r->has_pending[w[j]] = true;
		}
		if (e->kind == SC_EV_THREAD_CREATE) {
			if (next_new <= seen_max)
				next_new = seen_max + 1;
			if (next_new < n) {
				join(r->pending + (size_t)next_new * n, my, n);
				r->has_pending[next_new] = true;
			}
			next_new++;
		}
		if (e->kind == SC_EV_THREAD_EXIT) {
			if (e->object)
				forget_thread_block(r, th, e->object);
			memcpy(r->exitvc + (size_t)th * n, my, n * sizeof(*my));
			r->exited[th] = true;
		}
	}
	return 0;
}

int race_detect(const struct sc_trace *t, const struct sc_atomic_set *atomics,
		atomic_code_fn atomic_code, bool reported, race_fn fn,
		void *ctx, char *err, size_t errlen)
{
	struct rd r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.t = t;
	r.reported = reported;
	r.atomics = atomics;
	r.atomic_code = atomic_code;
	r.n = hb_thread_slots(t, err, errlen);
	if (!r.n)
		return -1;
	if (t->nevents > UINT32_MAX) {
		snprintf(err, errlen, "too many events for the race detector");
		return -1;
	}
	size_t nn = (size_t)r.n * r.n;
	u64map_init(&r.objmap);
	u64map_init(&r.wordmap);
	u64map_init(&r.sitemap);
	r.vc = calloc(nn, sizeof(uint32_t));
	r.pending = calloc(nn, sizeof(uint32_t));
	r.exitvc = calloc(nn, sizeof(uint32_t));
	r.has_pending = calloc(r.n, sizeof(bool));
	r.exited = calloc(r.n, sizeof(bool));
	r.join_obj = calloc(r.n, sizeof(uint64_t));
	r.ths = calloc(r.n, sizeof(*r.ths));
	if (!r.vc || !r.pending || !r.exitvc || !r.has_pending || !r.exited ||
	    !r.join_obj || !r.ths)
		rc = -1;
	else {
		for (uint32_t i = 0; i < r.n; i++)
			r.ths[i].no_io_edges = !reported;
		rc = run(&r, fn, ctx);
	}
	if (rc < 0)
		snprintf(err, errlen, "out of memory");
	else if (rc > 0) {
		snprintf(err, errlen, "race report failed");
		rc = -1;
	}
	for (size_t i = 0; i < r.nwords; i++)
		free(r.words[i].cells);
	free(r.words);
	free(r.objclk);
	u64map_free(&r.objmap);
	u64map_free(&r.wordmap);
	u64map_free(&r.sitemap);
	free(r.site_hits);
	free(r.blind);
	free(r.vc);
	free(r.pending);
	free(r.exitvc);
	free(r.has_pending);
	free(r.exited);
	free(r.join_obj);
	free(r.ths);
	return rc;
}
