/*
 * guide.c - the guided run of schedctl minimize (guide.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "strategy/guide.h"
#include "strategy/learn.h"

struct guide_switch {
	uint32_t thread, count, to;
};

struct guide_wake {
	uint32_t thread, count;
	uint32_t first, n;              /* into woken[] */
};

struct guide_ctx {
	struct guide_switch *sw;
	size_t nsw;
	struct guide_wake *wakes;
	size_t nwakes;
	uint32_t *woken;
	size_t nwoken;
	uint32_t *counts;               /* counted events per logical thread */
	size_t ncounts;
	bool have_last, alone;
	uint32_t last;
	struct sc_spin_watch spin;
	bool last_spins;                /* repeats its event (learn.h) */
	uint32_t preemptions;
	char *taken;                    /* "T.n>U ..." of the preemptions */
	size_t taken_len, taken_cap;
};

static uint32_t count_of(const struct guide_ctx *c, uint32_t t)
{
	return t < c->ncounts ? c->counts[t] : 0;
}

static const struct guide_switch *switch_at(const struct guide_ctx *c,
					     uint32_t t, uint32_t n)
{
	for (size_t i = 0; i < c->nsw; i++)
		if (c->sw[i].thread == t && c->sw[i].count == n)
			return &c->sw[i];
	return NULL;
}

static int view_index(const struct sc_sched_view *v, uint32_t t, bool enabled)
{
	for (size_t i = 0; i < v->nthreads; i++)
		if (v->threads[i].thread == t &&
		    (!enabled || v->threads[i].enabled))
			return (int)i;
	return -1;
}

static void note_preemption(struct guide_ctx *c, uint32_t t, uint32_t n,
			    uint32_t to)
{
	char one[48];
	int len = snprintf(one, sizeof(one), "%s%" PRIu32 ".%" PRIu32 ">%" PRIu32,
			   c->taken_len ? " " : "", t, n, to);

	c->preemptions++;
	if (c->taken_len + (size_t)len + 1 > c->taken_cap) {
		size_t cap = c->taken_cap ? c->taken_cap * 2 : 256;
		char *p = realloc(c->taken, cap);
		if (!p)
			return;     /* the count stays right; the text is short */
		c->taken = p;
		c->taken_cap = cap;
	}
	memcpy(c->taken + c->taken_len, one, (size_t)len + 1);
	c->taken_len += (size_t)len;
}

/* The enabled thread with the lowest id but `except`; -1: none. */
static int lowest_enabled(const struct sc_sched_view *view, uint32_t except)
{
	int best = -1;

	for (size_t i = 0; i < view->nenabled; i++) {
		uint32_t e = view->enabled[i];
		if (view->threads[e].thread == except)
			continue;
		if (best < 0 || view->threads[e].thread <
				view->threads[best].thread)
			best = (int)e;
	}
	return best;
}

static int guide_pick(void *ctx, const struct sc_sched_view *view)
{
	struct guide_ctx *c = ctx;
	int last = -1;

	c->alone = view->nthreads == 1;
	if (view->nenabled == 0)
		return SC_PICK_ABORT;
	if (c->have_last)
		last = view_index(view, c->last, true);
	if (c->have_last) {
		uint32_t n = count_of(c, c->last);
		const struct guide_switch *s = switch_at(c, c->last, n);
		int to = s && s->to != c->last ? view_index(view, s->to, true)
			 : -1;
		if (to >= 0) {
			if (last >= 0)
				note_preemption(c, c->last, n, s->to);
			return to;
		}
	}
	if (last >= 0) {
		const struct sc_event *next = &view->threads[last].next;
		/* A spin waits for the others: like a block, they run
		 * (the lowest enabled one), and it is no preemption. */
		bool spin = c->last_spins ||
			    (next->kind == SC_EV_PREEMPT &&
			     (next->preempt_flags & SC_PREEMPT_SPIN));
		int other = spin ? lowest_enabled(view, c->last) : -1;
		if (other >= 0)
			return other;
		/* Timing stopped it, not its program: it simply goes on. */
		if (next->kind == SC_EV_PREEMPT ||
		    next->kind == SC_EV_SYSCALL_RETURN)
			return SC_PICK_GO_ON(last);
		return last;
	}
	return lowest_enabled(view, UINT32_MAX);
}

static size_t guide_pick_wake(void *ctx, const struct sc_event *waker,
			      const uint32_t *waiters, size_t nwaiters,
			      size_t nwake, uint32_t *out)
{
	struct guide_ctx *c = ctx;
	size_t want = nwake < nwaiters ? nwake : nwaiters, k = 0;
	uint32_t n = count_of(c, waker->thread);

	for (size_t i = 0; i < c->nwakes; i++) {
		const struct guide_wake *w = &c->wakes[i];
		if (w->thread != waker->thread || w->count != n)
			continue;
		if (w->n < want)
			want = w->n;
		for (uint32_t j = 0; j < w->n && k < want; j++)
			for (size_t x = 0; x < nwaiters; x++)
				if (waiters[x] == c->woken[w->first + j]) {
					out[k++] = (uint32_t)x;
					break;
				}
		break;
	}
	/* The rest (or all, without a recorded choice): the oldest. */
	for (size_t x = 0; x < nwaiters && k < want; x++) {
		bool taken = false;
		for (size_t j = 0; j < k; j++)
			taken |= out[j] == x;
		if (!taken)
			out[k++] = (uint32_t)x;
	}
	return k;
}

static void guide_executed(void *ctx, const struct sc_event *ev)
{
	struct guide_ctx *c = ctx;

	c->have_last = true;
	c->last = ev->thread;
	c->last_spins = sc_spin_watch_event(&c->spin, ev);
	if (!sc_guide_counts(ev->kind))
		return;
	if (ev->thread >= c->ncounts) {
		size_t n = ev->thread + 16u;
		uint32_t *p = realloc(c->counts, n * sizeof(*p));
		if (!p)
			return;
		memset(p + c->ncounts, 0, (n - c->ncounts) * sizeof(*p));
		c->counts = p;
		c->ncounts = n;
	}
	c->counts[ev->thread]++;
}

static int guide_release(void *ctx, const struct sc_event *ev)
{
	struct guide_ctx *c = ctx;

	(void)ev;
	return sc_release_mode(c->alone);
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(p, n * size);
	if (q)
		*cap = n;
	return q;
}

/* One token of the text; -1 when it is not a switch or a wake. */
static int parse_token(struct guide_ctx *c, const char *tok, size_t *capsw,
		       size_t *capw, size_t *capwoken)
{
	unsigned long t, n, to;
	char *end;

	if (tok[0] == 'w') {
		t = strtoul(tok + 1, &end, 10);
		if (*end != '.')
			return -1;
		n = strtoul(end + 1, &end, 10);
		if (*end != '=')
			return -1;
		struct guide_wake w = { (uint32_t)t, (uint32_t)n,
					(uint32_t)c->nwoken, 0 };
		do {
			to = strtoul(end + 1, &end, 10);
			uint32_t *p = grow(c->woken, capwoken, c->nwoken + 1,
					   sizeof(*p));
			if (!p)
				return -1;
			c->woken = p;
			c->woken[c->nwoken++] = (uint32_t)to;
			w.n++;
		} while (*end == ',');
		if (*end)
			return -1;
		struct guide_wake *q = grow(c->wakes, capw, c->nwakes + 1,
					    sizeof(*q));
		if (!q)
			return -1;
		c->wakes = q;
		c->wakes[c->nwakes++] = w;
		return 0;
	}
	t = strtoul(tok, &end, 10);
	if (end == tok || *end != '.')
		return -1;
	n = strtoul(end + 1, &end, 10);
	if (*end != '>')
		return -1;
	to = strtoul(end + 1, &end, 10);
	if (*end)
		return -1;
	struct guide_switch *s = grow(c->sw, capsw, c->nsw + 1, sizeof(*s));
	if (!s)
		return -1;
	c->sw = s;
	c->sw[c->nsw++] = (struct guide_switch){ (uint32_t)t, (uint32_t)n,
						 (uint32_t)to };
	return 0;
}

static const char *guide_error(void *ctx)
{
	(void)ctx;
	return "no thread was enabled";
}

void sc_guide_destroy(struct sc_policy *p)
{
	struct guide_ctx *c = p->ctx;

	if (!c)
		return;
	free(c->sw);
	free(c->wakes);
	free(c->woken);
	free(c->counts);
	free(c->taken);
	free(c);
	p->ctx = NULL;
}

int sc_guide_create(const char *text, struct sc_policy *out, char *err,
		    size_t errlen)
{
	struct guide_ctx *c = calloc(1, sizeof(*c));
	char *copy = strdup(text ? text : "");
	size_t capsw = 0, capw = 0, capwoken = 0;

	*out = (struct sc_policy){ .ctx = c };
	if (!c || !copy) {
		free(copy);
		sc_guide_destroy(out);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char *save = NULL;
	for (char *tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (parse_token(c, tok, &capsw, &capw, &capwoken) < 0) {
			snprintf(err, errlen, "bad schedule item '%s' (want "
				 "T.n>U or wT.n=A,B)", tok);
			free(copy);
			sc_guide_destroy(out);
			return -1;
		}
	free(copy);
	*out = (struct sc_policy){
		.ctx = c,
		.pick = guide_pick,
		.pick_wake = guide_pick_wake,
		.executed = guide_executed,
		.release = guide_release,
		.error = guide_error,
	};
	return 0;
}

uint32_t sc_guide_preemptions(const struct sc_policy *p, char *buf,
			      size_t len)
{
	const struct guide_ctx *c = p->ctx;

	if (len)
		snprintf(buf, len, "%s", c && c->taken ? c->taken : "");
	return c ? c->preemptions : 0;
}

/* Append printf output to a growing string. */
static bool append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
	char one[64];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(one, sizeof(one), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(one))
		return false;
	char *p = grow(*s, cap, *len + (size_t)n + 1, 1);
	if (!p)
		return false;
	*s = p;
	memcpy(p + *len, one, (size_t)n + 1);
	*len += (size_t)n;
	return true;
}

char *sc_guide_from_trace(const struct sc_trace *t)
{
	char *s = NULL;
	size_t len = 0, cap = 0, ncounts = t->threads + 1;
	uint32_t *counts;
	bool ok = true;

	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].thread >= ncounts)
			ncounts = t->events[i].thread + 1u;
	counts = calloc(ncounts, sizeof(*counts));
	if (!counts || !append(&s, &len, &cap, "%s", ""))
		goto fail;
	for (size_t i = 0; i < t->nevents && ok; i++) {
		const struct sc_trace_event *e = &t->events[i];
		const char *sep = len ? " " : "";

		if (e->nwoken) {
			ok = append(&s, &len, &cap, "%sw%" PRIu32 ".%" PRIu32 "=",
				    sep, e->thread, counts[e->thread]);
			for (uint32_t j = 0; j < e->nwoken && ok; j++)
				ok = append(&s, &len, &cap, "%s%" PRIu32,
					    j ? "," : "",
					    t->wake_pool[e->woken_offset + j]);
			sep = " ";
		}
		if (sc_guide_counts(e->kind))
			counts[e->thread]++;
		if (ok && i + 1 < t->nevents &&
		    t->events[i + 1].thread != e->thread)
			ok = append(&s, &len, &cap, "%s%" PRIu32 ".%" PRIu32
				    ">%" PRIu32, sep, e->thread,
				    counts[e->thread], t->events[i + 1].thread);
	}
	if (!ok)
		goto fail;
	free(counts);
	return s;
fail:
	free(counts);
	free(s);
	return NULL;
}
