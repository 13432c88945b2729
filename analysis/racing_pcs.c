/*
 * racing_pcs.c - the instructions of a run that took part in a data race,
 * and the plain accesses to words other threads changed atomically, for
 * race granularity: later runs of the session schedule exactly there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race_detect.h"
#include "u64map.h"

struct pcs {
	const struct sc_trace *t;
	uint64_t *v;
	size_t n, cap;
	bool *racing_write;     /* by event: a plain write that raced */
};

static int push(struct pcs *p, uint64_t pc)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint64_t *nv = realloc(p->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		p->v = nv;
		p->cap = cap;
	}
	p->v[p->n++] = pc;
	return 0;
}

static int on_race(void *ctx, size_t first, size_t second)
{
	struct pcs *p = ctx;

	p->racing_write[first] |= p->t->events[first].kind == SC_EV_MEM_WRITE;
	p->racing_write[second] |= p->t->events[second].kind == SC_EV_MEM_WRITE;
	return push(p, p->t->events[first].pc) < 0 ||
	       push(p, p->t->events[second].pc) < 0 ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The thread's next access after each racing write, when its next event
 * is a plain access (not a synchronisation point, which is one anyway).
 * Why: a point before a racing write lets the others run before it, but
 * none lets them run just after it, between it and the thread's next
 * point; a flag published before its data (set under a lock, the data's
 * store next) was then never seen set with the data missing, unless a
 * pilot run had also caught the data's store racing (QA: a double-checked
 * lock hit in 0 of 300 runs with seed 1, 33 with seed 2). */
static int push_after_racing_writes(const struct sc_trace *t, struct pcs *p)
{
	uint32_t nthreads = 0;
	size_t *next;

	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].thread >= nthreads)
			nthreads = t->events[i].thread + 1;
	next = malloc((nthreads ? nthreads : 1) * sizeof(*next));
	if (!next)
		return -1;
	for (uint32_t th = 0; th < nthreads; th++)
		next[th] = SIZE_MAX;
	/* Backwards: next[th] is th's first event after i. */
	for (size_t i = t->nevents; i-- > 0;) {
		const struct sc_trace_event *e = &t->events[i];
		size_t j = next[e->thread];
		if (p->racing_write[i] && j != SIZE_MAX &&
		    (t->events[j].kind == SC_EV_MEM_READ ||
		     t->events[j].kind == SC_EV_MEM_WRITE) &&
		    push(p, t->events[j].pc) < 0) {
			free(next);
			return -1;
		}
		next[e->thread] = i;
	}
	free(next);
	return 0;
}

/* How far back (events of the whole run) the reads before a racing
 * write are looked for. */
#define READS_BEFORE_WINDOW 4096

/* The thread's reads of the same word before each racing write, back to
 * its last synchronisation event: a read-modify-write made of plain
 * accesses (check, compute, write) goes wrong when another thread writes
 * between a read and the write, and the read that matters is often not
 * the one that raced.  QA: a bank withdrawal reads the balance twice,
 * `if (a.balance >= amt) { nb = a.balance - amt; a.balance = nb; }`;
 * the pilot runs ran the two threads one after the other, so the second
 * one failed the check, the races were "check <-> write" only, and the
 * re-read (the overdraft needs a write just before it) was never a
 * point: 0 of 100 runs failed, 8 of 100 at mem granularity. */
static int push_reads_before_racing_writes(const struct sc_trace *t,
					   struct pcs *p)
{
	for (size_t i = 0; i < t->nevents; i++) {
		if (!p->racing_write[i])
			continue;
		const struct sc_trace_event *w = &t->events[i];
		size_t stop = i > READS_BEFORE_WINDOW ? i - READS_BEFORE_WINDOW : 0;
		for (size_t j = i; j-- > stop;) {
			const struct sc_trace_event *e = &t->events[j];
			if (e->thread != w->thread)
				continue;
			if (e->kind != SC_EV_MEM_READ &&
			    e->kind != SC_EV_MEM_WRITE &&
			    e->kind != SC_EV_PREEMPT)
				break;  /* synchronisation: another segment */
			if (e->kind == SC_EV_MEM_READ &&
			    e->object >> 3 == w->object >> 3 &&
			    push(p, e->pc) < 0)
				return -1;
		}
	}
	return 0;
}

/* The plain accesses to words another thread changed with an atomic
 * read-modify-write.  The detector takes them for synchronisation (a
 * spin lock's releasing store, the load of an atomic flag: on x86 plain
 * movs), so they never race; yet the order of threads around them is
 * what such code gets wrong (QA: a reference count decremented with lock
 * xadd and read again with a plain load freed twice, found by mem
 * granularity in 95 of 500 runs and by the default in 0-2; a worker
 * polling an atomic stop flag ran until its slice was used up, 4-20 s a
 * run, since no point let main set the flag). */
static int push_sync_accesses(const struct sc_trace *t, struct pcs *p)
{
	struct u64map first, several;   /* word -> first rmw thread; words
					 * rmw'd by two threads or more */
	int rc = -1, added;

	u64map_init(&first);
	u64map_init(&several);
	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->kind != SC_EV_MEM_RMW)
			continue;
		int64_t th = u64map_get_or_add(&first, e->object >> 3,
					       e->thread, &added);
		if (th < 0 || (!added && (uint32_t)th != e->thread &&
			       u64map_get_or_add(&several, e->object >> 3, 1,
						 &added) < 0))
			goto out;
	}
	for (size_t i = 0; first.len && i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		if (e->kind != SC_EV_MEM_READ && e->kind != SC_EV_MEM_WRITE)
			continue;
		int64_t th = u64map_get(&first, e->object >> 3);
		if (th >= 0 && ((uint32_t)th != e->thread ||
				u64map_get(&several, e->object >> 3) >= 0) &&
		    push(p, e->pc) < 0)
			goto out;
	}
	rc = 0;
out:
	u64map_free(&first);
	u64map_free(&several);
	return rc;
}

int sc_trace_racing_pcs(const struct sc_trace *t, uint64_t **pcs, size_t *n,
			char *err, size_t errlen)
{
	struct pcs p = { .t = t };
	size_t k = 0;

	*pcs = NULL;
	*n = 0;
	p.racing_write = calloc(t->nevents ? t->nevents : 1, sizeof(bool));
	if (!p.racing_write) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Without the declared atomics: the accesses to an atomic flag or
	 * counter that plain movs make are where the outcome depends on
	 * the order of threads, and so good scheduling points, even though
	 * analyze does not call them races. */
	if (race_detect(t, NULL, NULL, false, on_race, &p, err, errlen) < 0) {
		free(p.v);
		free(p.racing_write);
		return -1;
	}
	if (push_after_racing_writes(t, &p) < 0 ||
	    push_reads_before_racing_writes(t, &p) < 0 ||
	    push_sync_accesses(t, &p) < 0) {
		snprintf(err, errlen, "out of memory");
		free(p.v);
		free(p.racing_write);
		return -1;
	}
	free(p.racing_write);
	if (p.n)
		qsort(p.v, p.n, sizeof(*p.v), cmp_u64);
	for (size_t i = 0; i < p.n; i++)
		if (p.v[i] != 0 && (k == 0 || p.v[i] != p.v[k - 1]))
			p.v[k++] = p.v[i];
	if (k == 0) {
		free(p.v);
		return 0;
	}
	*pcs = p.v;
	*n = k;
	return 0;
}
