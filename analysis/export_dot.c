/*
 * export_dot.c - `schedctl export --format dot`: the partial order of a
 * run as a Graphviz digraph.
 *
 * Nodes are events ("T1#3 mutex_lock lock_a"), one cluster per thread.
 * Edges: program order between consecutive events of a thread (black);
 * across threads, the synchronisation happens-before of hb_rules.h (blue)
 * and conflicting accesses to one object, not both reads (red, dashed).
 * Cross-thread edges implied by others are left out (transitive
 * reduction): every event carries the vector clock of the full partial
 * order, and an edge a -> b is drawn only when neither b's predecessor in
 * its thread nor another source of b already follows a.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "hb_rules.h"
#include "json_escape.h"
#include "u64map.h"

struct obj {
	int64_t *last_release;  /* per thread: latest release event, or -1 */
	int64_t last_write;     /* conflicts: the latest write, or -1 */
	size_t *reads;          /* reads since that write */
	size_t nreads, capreads;
};

struct src {
	size_t ev;
	bool sync;
};

struct dot {
	const struct sc_trace *t;
	uint32_t n;
	uint32_t *vc;           /* nevents x n */
	uint32_t *index;        /* event -> index within its thread */
	int64_t *last;          /* per thread: latest event, or -1 */
	struct src **pending;   /* per thread: wake/create sources */
	size_t *npending, *cappending;
	int64_t *exit_ev;       /* per thread: exit event, or -1 */
	uint64_t *join_obj;     /* per thread: object of its last join */
	struct hb_thread *ths;  /* per thread: calls in progress */
	struct u64map objmap;
	struct obj *objs;
	size_t nobjs, capobjs;
	struct src *srcs;
	size_t nsrcs, capsrcs;
};

static int push(void **arr, size_t *n, size_t *cap, const void *item,
		size_t elem)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		void *p = realloc(*arr, c * elem);
		if (!p)
			return -1;
		*arr = p;
		*cap = c;
	}
	memcpy((char *)*arr + *n * elem, item, elem);
	(*n)++;
	return 0;
}

static struct obj *get_obj(struct dot *d, uint64_t object)
{
	int added;
	int64_t k = u64map_get_or_add(&d->objmap, object, (uint32_t)d->nobjs,
				      &added);
	if (k < 0)
		return NULL;
	if (added) {
		struct obj o = { .last_write = -1 };
		o.last_release = malloc(d->n * sizeof(*o.last_release));
		if (!o.last_release)
			return NULL;
		for (uint32_t i = 0; i < d->n; i++)
			o.last_release[i] = -1;
		if (push((void **)&d->objs, &d->nobjs, &d->capobjs, &o,
			 sizeof(o)) < 0) {
			free(o.last_release);
			return NULL;
		}
	}
	return &d->objs[k];
}

static int add_src(struct dot *d, size_t ev, bool sync)
{
	for (size_t i = 0; i < d->nsrcs; i++)
		if (d->srcs[i].ev == ev) {
			d->srcs[i].sync |= sync;
			return 0;
		}
	struct src s = { ev, sync };
	return push((void **)&d->srcs, &d->nsrcs, &d->capsrcs, &s, sizeof(s));
}

static void node(struct dot *d, size_t i, struct sc_symbolizer *sym, FILE *out)
{
	const struct sc_trace_event *e = &d->t->events[i];
	char obj[600] = "";
	if (e->object) {
		struct sc_symbol s = { .location = NULL };
		if (sym)
			sc_symbolizer_event_data(sym, d->t, e, e->object, &s);
		if (s.location && s.location[0] != '0')
			snprintf(obj, sizeof(obj), " %s", s.location);
		else
			snprintf(obj, sizeof(obj), " 0x%" PRIx64, e->object);
	}
	char label[800];
	snprintf(label, sizeof(label), "T%" PRIu32 "#%" PRIu32 " %s%s",
		 e->thread, d->index[i],
		 sc_event_kind_name((enum sc_event_kind)e->kind), obj);
	fprintf(out, "    e%zu [label=", i);
	sc_json_string(out, label);     /* a JSON string is a DOT string */
	fputs("];\n", out);
}

/* The sources of event i (into d->srcs) and the state updates after it. */
static int sources(struct dot *d, size_t i, uint32_t *next_new,
		   uint32_t *seen_max)
{
	const struct sc_trace_event *e = &d->t->events[i];
	uint32_t th = e->thread;
	d->nsrcs = 0;
	for (size_t k = 0; k < d->npending[th]; k++)
		if (add_src(d, d->pending[th][k].ev, true) < 0)
			return -1;
	d->npending[th] = 0;
	/* Before the object lookup below: get_obj may move d->objs. */
	struct hb_keys keys;
	hb_thread_step(&d->ths[th], e, &keys);
	for (unsigned k = 0; k < keys.nacquire; k++) {
		struct obj *m = get_obj(d, keys.acquire[k]);
		if (!m)
			return -1;
		for (uint32_t u = 0; u < d->n; u++)
			if (u != th && m->last_release[u] >= 0 &&
			    add_src(d, (size_t)m->last_release[u], true) < 0)
				return -1;
	}
	for (unsigned k = 0; k < keys.nrelease; k++) {
		struct obj *m = get_obj(d, keys.release[k]);
		if (!m)
			return -1;
		m->last_release[th] = (int64_t)i;
	}
	unsigned role = e->object ? hb_object_role(e->kind) : 0;
	struct obj *o = NULL;
	if (e->object && (role || e->access != SC_ACC_NONE)) {
		o = get_obj(d, e->object);
		if (!o)
			return -1;
	}
	if (role & HB_ACQUIRE)
		for (uint32_t u = 0; u < d->n; u++)
			if (u != th && o->last_release[u] >= 0 &&
			    add_src(d, (size_t)o->last_release[u], true) < 0)
				return -1;
	if (e->kind == SC_EV_LIB_JOIN)
		d->join_obj[th] = e->object;
	if (e->kind == SC_EV_LIB_JOIN || hb_join_wait(d->join_obj[th], e))
		for (uint32_t u = 0; u < d->n; u++)
			if (d->exit_ev[u] >= 0 &&
			    add_src(d, (size_t)d->exit_ev[u], true) < 0)
				return -1;
	if (o && e->access != SC_ACC_NONE) {
		if (o->last_write >= 0 &&
		    add_src(d, (size_t)o->last_write, false) < 0)
			return -1;
		if (e->access != SC_ACC_READ) {
			for (size_t k = 0; k < o->nreads; k++)
				if (add_src(d, o->reads[k], false) < 0)
					return -1;
			o->nreads = 0;
			o->last_write = (int64_t)i;
		} else if (push((void **)&o->reads, &o->nreads, &o->capreads,
				&i, sizeof(i)) < 0) {
			return -1;
		}
	}
	if (role & HB_RELEASE)
		o->last_release[th] = (int64_t)i;
	const uint32_t *w = hb_woken(d->t, e);
	struct src me = { i, true };
	for (uint32_t k = 0; w && k < e->nwoken; k++)
		if (w[k] < d->n &&
		    push((void **)&d->pending[w[k]], &d->npending[w[k]],
			 &d->cappending[w[k]], &me, sizeof(me)) < 0)
			return -1;
	if (th > *seen_max)
		*seen_max = th;
	if (e->kind == SC_EV_THREAD_CREATE) {
		if (*next_new <= *seen_max)
			*next_new = *seen_max + 1;
		uint32_t nt = (*next_new)++;
		if (nt < d->n &&
		    push((void **)&d->pending[nt], &d->npending[nt],
			 &d->cappending[nt], &me, sizeof(me)) < 0)
			return -1;
	}
	if (e->kind == SC_EV_THREAD_EXIT)
		d->exit_ev[th] = (int64_t)i;
	return 0;
}

static int draw(struct dot *d, struct sc_symbolizer *sym, FILE *out)
{
	const struct sc_trace *t = d->t;
	uint32_t n = d->n, next_new = 1, seen_max = 0;
	uint32_t *count = calloc(n, sizeof(*count));
	if (!count)
		return -1;

	fputs("digraph run {\n  rankdir=TB;\n  node [shape=box, "
	      "fontname=\"monospace\", fontsize=10];\n", out);
	/* Clusters first: one per thread, in id order. */
	for (size_t i = 0; i < t->nevents; i++)
		d->index[i] = count[t->events[i].thread]++;
	for (uint32_t th = 0; th < n; th++) {
		if (!count[th])
			continue;
		fprintf(out, "  subgraph cluster_T%" PRIu32 " {\n    label=\"T%"
			PRIu32 "\";\n", th, th);
		for (size_t i = 0; i < t->nevents; i++)
			if (t->events[i].thread == th)
				node(d, i, sym, out);
		fputs("  }\n", out);
	}
	free(count);

	for (size_t i = 0; i < t->nevents; i++) {
		const struct sc_trace_event *e = &t->events[i];
		uint32_t th = e->thread, *vc = d->vc + i * n;
		int64_t prev = d->last[th];
		if (sources(d, i, &next_new, &seen_max) < 0)
			return -1;
		if (prev >= 0) {
			memcpy(vc, d->vc + (size_t)prev * n, n * sizeof(*vc));
			fprintf(out, "  e%" PRId64 " -> e%zu;\n", prev, i);
		}
		for (size_t k = 0; k < d->nsrcs; k++) {
			size_t a = d->srcs[k].ev;
			uint32_t u = t->events[a].thread;
			uint32_t ca = d->vc[a * n + u];
			bool implied = u == th || vc[u] >= ca;
			for (size_t j = 0; j < d->nsrcs && !implied; j++)
				implied = j != k &&
					  d->vc[d->srcs[j].ev * n + u] >= ca;
			if (!implied)
				fprintf(out, "  e%zu -> e%zu [%s];\n", a, i,
					d->srcs[k].sync ? "color=blue"
					: "color=red, style=dashed");
		}
		for (size_t k = 0; k < d->nsrcs; k++) {
			const uint32_t *sv = d->vc + d->srcs[k].ev * n;
			for (uint32_t u = 0; u < n; u++)
				if (sv[u] > vc[u])
					vc[u] = sv[u];
		}
		vc[th] = d->index[i] + 1;
		d->last[th] = (int64_t)i;
	}
	fputs("}\n", out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

int sc_trace_export_dot(const struct sc_trace *t, struct sc_symbolizer *sym,
			size_t max_events, FILE *out, char *err, size_t errlen)
{
	struct dot d;
	int rc = -1;

	/* Graphviz's layout grows much faster than the graph: 635 events
	 * took 0.7 s, 3512 took 4.5 minutes, 6000 over 11 minutes (QA). */
	if (!max_events)
		max_events = 1500;
	if (t->nevents > max_events) {
		snprintf(err, errlen, "%zu events: too many for Graphviz to lay "
			 "out in reasonable time (at most %zu; --format chrome "
			 "shows a trace of any size in Perfetto)", t->nevents,
			 max_events);
		return -1;
	}
	memset(&d, 0, sizeof(d));
	d.t = t;
	d.n = hb_thread_slots(t, err, errlen);
	if (!d.n)
		return -1;
	u64map_init(&d.objmap);
	d.vc = calloc(t->nevents * d.n + 1, sizeof(*d.vc));
	d.index = calloc(t->nevents + 1, sizeof(*d.index));
	d.last = malloc(d.n * sizeof(*d.last));
	d.exit_ev = malloc(d.n * sizeof(*d.exit_ev));
	d.pending = calloc(d.n, sizeof(*d.pending));
	d.npending = calloc(d.n, sizeof(*d.npending));
	d.cappending = calloc(d.n, sizeof(*d.cappending));
	d.join_obj = calloc(d.n, sizeof(*d.join_obj));
	d.ths = calloc(d.n, sizeof(*d.ths));
	if (d.vc && d.index && d.last && d.exit_ev && d.pending && d.npending &&
	    d.cappending && d.join_obj && d.ths) {
		for (uint32_t i = 0; i < d.n; i++)
			d.last[i] = d.exit_ev[i] = -1;
		rc = draw(&d, sym, out);
		if (rc < 0)
			snprintf(err, errlen, "%s", ferror(out) ? strerror(errno)
						: "out of memory");
	} else {
		snprintf(err, errlen, "out of memory");
	}
	for (size_t i = 0; i < d.nobjs; i++) {
		free(d.objs[i].last_release);
		free(d.objs[i].reads);
	}
	free(d.objs);
	u64map_free(&d.objmap);
	for (uint32_t i = 0; d.pending && i < d.n; i++)
		free(d.pending[i]);
	free(d.pending);
	free(d.npending);
	free(d.cappending);
	free(d.srcs);
	free(d.vc);
	free(d.index);
	free(d.last);
	free(d.exit_ev);
	free(d.join_obj);
	free(d.ths);
	return rc;
}
