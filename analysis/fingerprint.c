/*
 * fingerprint.c - the partial-order fingerprint of a run (POS, Yuan et al.
 * CAV 2018: two schedules are equivalent when they order every pair of
 * conflicting events the same way).
 *
 * Each event is hashed from its identity (logical thread, index within
 * that thread), kind, access, size and object, the identities of its
 * immediately preceding conflicting events on the same object (same
 * object != 0, not both reads: for a read, the last write; for a write or
 * rmw, the last write and every read since), the threads it woke, and for
 * thread_create the id of the created thread.  Those predecessor sets
 * determine the order of every conflicting pair, and program order is in
 * the identities, so the multiset of event hashes determines the partial
 * order and vice versa (up to 64-bit hash collisions).  The event hashes
 * are added (a commutative combination): interleaving independent events
 * differently leaves the fingerprint unchanged.
 *
 * Preemptions (a time slice ran out) and the returns of released
 * syscalls are left out: whether they appear depends on timing, not on
 * what the program did, and counting them would shift the indexes of
 * every later event of the thread.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "hb_rules.h"
#include "u64map.h"

struct obj_state {
	uint64_t last_write;    /* identity hash of the last writer, or 0 */
	uint64_t reads;         /* sum of the identity hashes of the reads
				 * since that write */
};

static inline uint64_t ident(uint32_t thread, uint32_t index)
{
	return u64_mix(((uint64_t)thread << 32 | index) + 0x9e3779b97f4a7c15ULL);
}

int sc_po_view_parse(const char *name, enum sc_po_view *out)
{
	if (strcmp(name, "all") == 0)
		*out = SC_PO_ALL;
	else if (strcmp(name, "program") == 0)
		*out = SC_PO_PROGRAM;
	else
		return -1;
	return 0;
}

/* The program's own events: library calls and memory accesses. */
static bool program_event(uint16_t kind)
{
	return kind == SC_EV_LIB_CREATE || kind == SC_EV_LIB_JOIN ||
	       (kind >= SC_EV_MUTEX_LOCK && kind <= SC_EV_MEM_RMW);
}

int sc_trace_fingerprint(const struct sc_trace *t, uint64_t *fp, char *err,
			 size_t errlen)
{
	return sc_trace_fingerprint_view(t, SC_PO_ALL, fp, err, errlen);
}

int sc_trace_fingerprint_view(const struct sc_trace *t, enum sc_po_view view,
			      uint64_t *fp, char *err, size_t errlen)
{
	uint32_t slots = hb_thread_slots(t, err, errlen);
	if (!slots)
		return -1;
	uint32_t *count = calloc(slots, sizeof(*count));
	struct obj_state *objs = NULL;
	size_t nobjs = 0, capobjs = 0;
	struct u64map map;
	uint64_t sum = 0;
	uint32_t next_new = 1, seen_max = 0;
	int rc = -1;

	u64map_init(&map);
	if (!count)
		goto oom;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->kind == SC_EV_PREEMPT || e->kind == SC_EV_SYSCALL_RETURN)
			continue;
		if (view == SC_PO_PROGRAM && !program_event(e->kind))
			continue;
		uint32_t th = e->thread;
		uint64_t id = ident(th, count[th]++);
		uint64_t h = u64_mix(id ^ ((uint64_t)e->kind |
					   (uint64_t)e->access << 16 |
					   (uint64_t)e->size << 24));
		h = u64_mix(h ^ e->object);
		if (th > seen_max)
			seen_max = th;
		if (e->object && e->access != SC_ACC_NONE) {
			/* Memory is per process (--follow-forks): user
			 * addresses have 47 bits.  Sync objects are not
			 * split: a process-shared one is the same. */
			uint64_t key = e->object;
			if (hb_is_mem(e->kind))
				key |= (uint64_t)sc_trace_process_of(t, th) << 47;
			int added;
			int64_t k = u64map_get_or_add(&map, key,
						      (uint32_t)nobjs, &added);
			if (k < 0)
				goto oom;
			if (added) {
				if (nobjs == capobjs) {
					size_t c = capobjs ? capobjs * 2 : 64;
					void *p = realloc(objs, c * sizeof(*objs));
					if (!p)
						goto oom;
					objs = p;
					capobjs = c;
				}
				memset(&objs[nobjs++], 0, sizeof(*objs));
			}
			struct obj_state *o = &objs[k];
			uint64_t pred;
			if (e->access == SC_ACC_READ) {
				pred = o->last_write;
				o->reads += id;
			} else {
				pred = u64_mix(o->last_write ^ 0x5851f42d4c957f2dULL)
				       + o->reads;
				o->last_write = id;
				o->reads = 0;
			}
			h = u64_mix(h ^ pred);
		}
		const uint32_t *w = hb_woken(t, e);
		if (w) {
			uint64_t ws = 0;
			for (uint32_t j = 0; j < e->nwoken; j++)
				ws += u64_mix((uint64_t)w[j] + 0x2545f4914f6cdd1dULL);
			h = u64_mix(h ^ ws);
		}
		if (e->kind == SC_EV_THREAD_CREATE) {
			if (next_new <= seen_max)
				next_new = seen_max + 1;
			h = u64_mix(h ^ ((uint64_t)next_new++ << 40));
		}
		sum += h;
	}
	*fp = u64_mix(sum);
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	u64map_free(&map);
	free(objs);
	free(count);
	return rc;
}
