/*
 * speed.c - thread speed control (Chen, Gu, Wang, Yuan, Gu, "Testing
 * multithreaded programs via thread speed control", ESEC/FSE 2018).
 *
 * A speed vector gives each logical thread a speed 2^e, e in 0..k.  Time
 * is cut into epochs of L events; within an epoch a thread may run about
 * L * speed / (sum of the speeds) of its events (at least one): its quota.
 * At each point the next thread is drawn among the enabled threads with
 * quota left, in proportion to their quota.  An epoch ends after L events
 * or when no enabled thread has quota left; all quotas are then refilled.
 * A slow thread thus falls far behind a fast one, which exposes the
 * atomicity violations whose two halves are far apart in a trace.
 *
 * The runs of a session enumerate the basis vectors systematically: run r
 * gives a pair (ti, tj) and an exponent x: ti runs at 2^k, tj at 2^x, x
 * over 0..k, then the next pair; the other threads get random speeds in
 * 2^0..2^k.  The pairs range over the thread count the session learnt
 * (its most threads in a run, SC_SPEED_DEFAULT_THREADS before any run).
 * Params "epoch=L,k=K".  Futex wakes release a uniform subset.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy/learn.h"
#include "strategy/params.h"
#include "strategy/rng.h"
#include "strategy/strategy.h"

struct speed_thread {
	bool seen;
	uint32_t exp;               /* speed 2^exp */
	uint64_t quota;             /* events per epoch */
	uint64_t left;              /* of the quota, in this epoch */
};

struct speed_ctx {
	struct sc_rng rng;          /* first: sc_rng_pick_wake */
	uint32_t epoch;             /* L */
	uint32_t k;
	uint32_t ti, tj, x;         /* the basis pair of this run */
	uint32_t nbase;             /* threads the pairs range over */
	uint64_t speed_sum;         /* of the first nbase threads */
	uint64_t in_epoch;          /* events picked in this epoch */
	uint64_t epochs;
	struct sc_strategy_session *session;
	struct sc_run_stats stats;
	struct speed_thread *t;
	size_t nt;
	char err[64];
};

static int parse(const char *params, uint32_t *epoch, uint32_t *k, char *err,
		 size_t errlen)
{
	struct sc_params ps;

	*epoch = SC_SPEED_DEFAULT_EPOCH;
	*k = SC_SPEED_DEFAULT_K;
	if (sc_params_split(&ps, "speed", params, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < ps.n; i++) {
		if (strcmp(ps.key[i], "epoch") == 0) {
			if (sc_params_u32("speed", "epoch", ps.val[i], 1,
					  1u << 20, epoch, err, errlen) < 0)
				return -1;
		} else if (strcmp(ps.key[i], "k") == 0) {
			if (sc_params_u32("speed", "k", ps.val[i], 0, 20, k,
					  err, errlen) < 0)
				return -1;
		} else {
			snprintf(err, errlen, "strategy speed: unknown parameter "
				 "'%.32s' (known: epoch=L, k=K)", ps.key[i]);
			return -1;
		}
	}
	return 0;
}

static uint64_t quota_of(const struct speed_ctx *c, uint32_t exp)
{
	uint64_t q = (uint64_t)c->epoch * ((uint64_t)1 << exp) / c->speed_sum;

	return q ? q : 1;
}

/* The exponent of thread id in this run: the pair's, else a random one
 * (drawn when the thread first shows up: in the view's order, so a seed
 * gives the same speeds). */
static uint32_t exp_of(struct speed_ctx *c, uint32_t id)
{
	if (id == c->ti)
		return c->k;
	if (id == c->tj)
		return c->x;
	return (uint32_t)sc_rng_below(&c->rng, c->k + 1);
}

static struct speed_thread *thread_of(struct speed_ctx *c, uint32_t id)
{
	if (sc_grow_table((void **)&c->t, &c->nt, id, sizeof(*c->t)) < 0)
		return NULL;
	if (!c->t[id].seen) {
		c->t[id].seen = true;
		if (id >= c->nbase)
			c->t[id].exp = exp_of(c, id);
		c->t[id].quota = quota_of(c, c->t[id].exp);
		c->t[id].left = c->t[id].quota;
	}
	return &c->t[id];
}

static void new_epoch(struct speed_ctx *c)
{
	for (size_t i = 0; i < c->nt; i++)
		c->t[i].left = c->t[i].quota;
	c->in_epoch = 0;
	c->epochs++;
}

/* Draw among the enabled threads with quota left, weighted by quota;
 * SIZE_MAX when none has any left. */
static size_t draw(struct speed_ctx *c, const struct sc_sched_view *v)
{
	uint64_t total = 0, r;

	for (size_t i = 0; i < v->nenabled; i++) {
		const struct speed_thread *t = &c->t[v->threads[v->enabled[i]].thread];

		if (t->left)
			total += t->quota;
	}
	if (!total)
		return SIZE_MAX;
	r = sc_rng_below(&c->rng, total);
	for (size_t i = 0; i < v->nenabled; i++) {
		const struct speed_thread *t = &c->t[v->threads[v->enabled[i]].thread];

		if (!t->left)
			continue;
		if (r < t->quota)
			return v->enabled[i];
		r -= t->quota;
	}
	return SIZE_MAX;    /* not reached */
}

static int speed_pick(void *ctx, const struct sc_sched_view *view)
{
	struct speed_ctx *c = ctx;
	size_t pick;

	if (view->nenabled == 0)
		return SC_PICK_ABORT;   /* the engine never asks then */
	sc_run_stats_pick(&c->stats, c->session, view);
	for (size_t i = 0; i < view->nthreads; i++)
		if (!thread_of(c, view->threads[i].thread)) {
			snprintf(c->err, sizeof(c->err), "speed: out of memory");
			return SC_PICK_ABORT;
		}
	if (c->in_epoch >= c->epoch)
		new_epoch(c);
	pick = draw(c, view);
	if (pick == SIZE_MAX) {
		new_epoch(c);
		pick = draw(c, view);
	}
	c->t[view->threads[pick].thread].left--;
	c->in_epoch++;
	return (int)pick;
}

static void speed_executed(void *ctx, const struct sc_event *ev)
{
	struct speed_ctx *c = ctx;

	sc_run_stats_executed(&c->stats, NULL, ev);
}

static const char *speed_error(void *ctx)
{
	struct speed_ctx *c = ctx;

	return c->err[0] ? c->err : NULL;
}

int sc_speed_create(const char *params, uint64_t seed, uint32_t run,
		    struct sc_strategy_session *session,
		    struct sc_policy *out, char *err, size_t errlen)
{
	struct speed_ctx *c;
	uint32_t epoch, k, n, pair, idx;
	uint64_t cycle;

	if (parse(params, &epoch, &k, err, errlen) < 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sc_rng_seed(&c->rng, seed);
	c->epoch = epoch;
	c->k = k;
	c->session = session;
	n = session && session->max_threads ? session->max_threads
					     : SC_SPEED_DEFAULT_THREADS;
	if (n < 2)
		n = 2;
	if (n > SC_LEARN_THREADS)
		n = SC_LEARN_THREADS;
	c->nbase = n;
	/* Run r: ordered pair number (r-1) / (k+1), exponent (r-1) % (k+1). */
	cycle = (uint64_t)n * (n - 1) * (k + 1);
	idx = (uint32_t)((run ? run - 1 : 0) % cycle);
	pair = idx / (k + 1);
	c->x = idx % (k + 1);
	c->ti = pair / (n - 1);
	c->tj = pair % (n - 1);
	if (c->tj >= c->ti)
		c->tj++;
	/* The speeds of the first n threads, to size the quotas. */
	c->t = calloc(n, sizeof(*c->t));
	if (!c->t) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->nt = n;
	for (uint32_t i = 0; i < n; i++) {
		c->t[i].exp = exp_of(c, i);
		c->speed_sum += (uint64_t)1 << c->t[i].exp;
	}
	*out = (struct sc_policy){
		.ctx = c,
		.pick = speed_pick,
		.pick_wake = sc_rng_pick_wake,
		.executed = speed_executed,
		.error = speed_error,
	};
	return 0;
}

void sc_speed_destroy(struct sc_policy *p)
{
	struct speed_ctx *c = p->ctx;

	if (c) {
		sc_run_stats_end(&c->stats, c->session);
		free(c->t);
	}
	free(c);
	p->ctx = NULL;
}

bool sc_speed_quota(const struct sc_policy *p, uint32_t thread,
		    uint64_t *quota)
{
	const struct speed_ctx *c = p->ctx;

	if (!c || thread >= c->nt || !c->t[thread].seen)
		return false;
	*quota = c->t[thread].quota;
	return true;
}
