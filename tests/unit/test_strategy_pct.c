/*
 * test_strategy_pct.c - PCT on synthetic views: strict priorities, the
 * d-1 change points among the estimated k points, only enabled threads,
 * determinism for a seed, waking by priority, starvation drops, the
 * session's estimate of k and the probability bound.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "strategy/strategy.h"
#include "tap.h"

#define NTHREADS 4

struct view_buf {
	struct sc_thread_view threads[NTHREADS];
	uint32_t enabled[NTHREADS];
	struct sc_sched_view view;
};

/* NTHREADS threads, those in mask enabled, all about to lock a mutex. */
static void make_view(struct view_buf *b, unsigned mask)
{
	size_t n = 0;

	for (uint32_t i = 0; i < NTHREADS; i++) {
		b->threads[i] = (struct sc_thread_view){
			.thread = i,
			.state = (mask >> i) & 1 ? SC_TS_READY : SC_TS_BLOCKED,
			.enabled = (mask >> i) & 1,
			.next = { .thread = i, .kind = SC_EV_MUTEX_LOCK,
				  .access = SC_ACC_RMW, .object = 0x1000 + i },
		};
		if ((mask >> i) & 1)
			b->enabled[n++] = i;
	}
	b->view = (struct sc_sched_view){
		.nthreads = NTHREADS, .threads = b->threads,
		.nenabled = n, .enabled = b->enabled,
	};
}

static struct sc_policy make_pct(const char *params, uint64_t seed,
				 struct sc_strategy_session *s)
{
	const struct sc_strategy *st = sc_strategy_find("pct");
	struct sc_policy p = { 0 };
	char err[256];

	if (!st || st->create(params, seed, 1, s, &p, err, sizeof(err)) < 0)
		bail_out("cannot create the pct strategy");
	return p;
}

static void test_registry_and_params(void)
{
	const struct sc_strategy *st = sc_strategy_find("pct");
	struct sc_policy p;
	char err[256] = "";

	ok(st && st->create && st->destroy && st->bound,
	   "pct is registered with a bound");
	ok(!sc_strategy_planned("pct"), "pct is no longer planned");
	ok(st && st->create("depth=0", 1, 1, NULL, &p, err, sizeof(err)) < 0 &&
	   strstr(err, "depth"), "depth=0 is rejected: %s", err);
	ok(st && st->create("depth=x", 1, 1, NULL, &p, err, sizeof(err)) < 0,
	   "depth=x is rejected: %s", err);
	ok(st && st->create("width=2", 1, 1, NULL, &p, err, sizeof(err)) < 0 &&
	   strstr(err, "width"), "unknown parameters are rejected: %s", err);
	ok(st && st->create("depth=65", 1, 1, NULL, &p, err, sizeof(err)) < 0,
	   "depth above %d is rejected", SC_PCT_MAX_DEPTH);
	if (st && st->create("depth=5", 1, 1, NULL, &p, err, sizeof(err)) == 0) {
		ok(1, "depth=5 is accepted");
		st->destroy(&p);
	} else {
		ok(0, "depth=5 is accepted: %s", err);
	}
}

/* Depth 1: no change point, so a fixed view always gets the same pick,
 * and the threads are ordered consistently (a total order). */
static void test_strict_priorities(void)
{
	struct view_buf v;
	unsigned top_seen = 0;
	int constant = 1, consistent = 1, enabled_only = 1;

	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct sc_policy p = make_pct("depth=1", seed, NULL);
		int first;
		int64_t prio[NTHREADS];

		make_view(&v, 0xf);
		first = p.pick(p.ctx, &v.view);
		top_seen |= 1u << first;
		for (int i = 0; i < 50; i++)
			constant &= p.pick(p.ctx, &v.view) == first;
		for (uint32_t t = 0; t < NTHREADS; t++)
			if (!sc_pct_priority(&p, t, &prio[t]))
				consistent = 0;
		/* Every subset: the pick is its enabled thread of highest
		 * priority. */
		for (unsigned mask = 1; mask < 16; mask++) {
			int k;

			make_view(&v, mask);
			k = p.pick(p.ctx, &v.view);
			if (k < 0 || !((mask >> k) & 1)) {
				enabled_only = 0;
				continue;
			}
			for (uint32_t t = 0; t < NTHREADS; t++)
				if (((mask >> t) & 1) && prio[t] > prio[k])
					consistent = 0;
		}
		sc_pct_destroy(&p);
	}
	ok(constant, "depth 1: the same thread runs while it is enabled");
	ok(consistent, "the pick is always the enabled thread of highest priority");
	ok(enabled_only, "only enabled threads are picked");
	is_int(top_seen, 0xf, "over 200 seeds each thread comes first sometimes");
}

static void test_deterministic(void)
{
	struct sc_strategy_session sa = { .runs = 1, .max_points = 20 },
				   sb = sa, sc = sa;
	struct sc_policy a = make_pct("depth=3", 42, &sa),
			 b = make_pct("depth=3", 42, &sb),
			 c = make_pct("depth=3", 4242, &sc);
	struct view_buf v;
	int same = 1, differ = 0;

	for (int i = 0; i < 40; i++) {
		int pa, pb, pc;

		make_view(&v, i % 5 == 4 ? 0x5 : 0xf);
		pa = a.pick(a.ctx, &v.view);
		pb = b.pick(b.ctx, &v.view);
		pc = c.pick(c.ctx, &v.view);
		same &= pa == pb;
		differ |= pa != pc;
	}
	ok(same, "same seed, same 40 picks");
	ok(differ, "another seed, another schedule");
	sc_pct_destroy(&a);
	sc_pct_destroy(&b);
	sc_pct_destroy(&c);
}

/* Depth 2 with k = 10: exactly one change of the running thread at a
 * point in 1..10, to a thread that then keeps running; over seeds, every
 * point in 1..10 is used. */
static void test_change_points(void)
{
	struct view_buf v;
	unsigned points_seen = 0;
	int one_switch = 1, in_range = 1, dropped_low = 1;

	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct sc_strategy_session s = { .runs = 3, .max_points = 10 };
		struct sc_policy p = make_pct("depth=2", seed, &s);
		int prev = -1, switches = 0, at = 0;

		make_view(&v, 0x7);
		for (int i = 1; i <= 30; i++) {
			int k = p.pick(p.ctx, &v.view);

			if (prev >= 0 && k != prev) {
				int64_t pr;

				switches++;
				at = i;
				/* The thread that was about to run
				 * dropped to priority 1. */
				if (!sc_pct_priority(&p, (uint32_t)prev, &pr) ||
				    pr != 1)
					dropped_low = 0;
			}
			prev = k;
		}
		/* The change at point 1 lowers the first thread before
		 * it ran: no switch is visible then. */
		if (switches > 1)
			one_switch = 0;
		if (switches == 1) {
			if (at < 2 || at > 10)
				in_range = 0;
			points_seen |= 1u << at;
		} else {
			points_seen |= 1u << 1;
		}
		sc_pct_destroy(&p);
	}
	ok(one_switch, "depth 2: at most one change of the running thread");
	ok(in_range, "the change happens within the estimated k = 10 points");
	ok(dropped_low, "the thread at the change point drops to priority 1");
	is_int(points_seen, 0x7fe, "every point 1..10 is a change point for some seed");
}

/* Points with one enabled thread are not counted. */
static void test_sequential_not_counted(void)
{
	struct sc_strategy_session s = { 0 };
	struct sc_policy p = make_pct("depth=3", 5, &s);
	struct view_buf v;

	make_view(&v, 0x1);
	for (int i = 0; i < 7; i++)
		p.pick(p.ctx, &v.view);
	make_view(&v, 0x3);
	for (int i = 0; i < 4; i++)
		p.pick(p.ctx, &v.view);
	sc_pct_destroy(&p);
	is_int((long long)s.max_points, 4, "only the 4 contested points count");
	is_int(s.max_threads, NTHREADS, "threads seen: %d", NTHREADS);
	is_int(s.runs, 1, "the run was counted at destroy");
}

/* The first run estimates k = SC_PCT_DEFAULT_POINTS; later runs the most
 * points of a run so far, and the bound is 1/(n k^(d-1)). */
static void test_estimate_and_bound(void)
{
	const struct sc_strategy *st = sc_strategy_find("pct");
	struct sc_strategy_session s = { 0 };
	struct sc_bound b;

	ok(!st->bound("depth=3", &s, &b),
	   "no run learnt from yet: no bound (no n or k to state)");
	s = (struct sc_strategy_session){ .runs = 4, .max_points = 10,
					  .max_threads = 4 };
	ok(st->bound("depth=3", &s, &b), "bound for depth 3");
	is_int((long long)b.points, 10, "k is the most points of a run");
	is_int(b.threads, 4, "n is the most threads of a run");
	ok(fabs(b.per_run - 1.0 / 400) < 1e-12, "per run: 1/(4 * 10^2) = %g",
	   b.per_run);
	ok(st->bound("", &s, &b) && b.depth == SC_PCT_DEFAULT_DEPTH,
	   "default depth %d", SC_PCT_DEFAULT_DEPTH);
	ok(st->bound("depth=1", &s, &b) && fabs(b.per_run - 0.25) < 1e-12,
	   "depth 1: 1/n");
	ok(!st->bound("depth=0", &s, &b), "no bound for bad parameters");
	ok(fabs(sc_miss_probability(0.5, 3) - 0.125) < 1e-12, "(1 - 0.5)^3");
	ok(fabs(sc_miss_probability(0.01, 100) - pow(0.99, 100)) < 1e-12,
	   "(1 - 0.01)^100");
	ok(sc_miss_probability(0.3, 0) == 1.0, "no runs: missed for sure");
}

/* A thread that keeps spinning at the top drops below the others. */
static void test_spinning(void)
{
	struct view_buf v;
	int progressed = 1;

	for (uint64_t seed = 1; seed <= 50; seed++) {
		struct sc_policy p = make_pct("depth=1", seed, NULL);
		int top, k = -1, i;

		make_view(&v, 0x3);
		top = p.pick(p.ctx, &v.view);
		v.threads[top].next.kind = SC_EV_YIELD;
		for (i = 0; i < 10; i++) {
			k = p.pick(p.ctx, &v.view);
			if (k != top)
				break;
		}
		if (k == top)
			progressed = 0;
		sc_pct_destroy(&p);
	}
	ok(progressed, "a yielding thread at the top lets the other run");
}

/* The main thread steps aside before it exits the process. */
static void test_exit_drop(void)
{
	struct view_buf v;
	int stepped_aside = 1;

	for (uint64_t seed = 1; seed <= 50; seed++) {
		struct sc_policy p = make_pct("depth=1", seed, NULL);

		make_view(&v, 0x3);
		v.threads[0].next.kind = SC_EV_PROCESS_EXIT;
		if (p.pick(p.ctx, &v.view) != 1)
			stepped_aside = 0;
		sc_pct_destroy(&p);
	}
	ok(stepped_aside, "T0 about to exit lets T1 run first");
}

/* Steps with one enabled thread are not points and draw nothing. */
static void test_single_choice_free(void)
{
	struct sc_strategy_session sa = { .runs = 1, .max_points = 8 },
				   sb = sa;
	struct sc_policy a = make_pct("depth=3", 61, &sa),
			 b = make_pct("depth=3", 61, &sb);
	struct view_buf v, one;
	int same = 1;

	make_view(&v, 0xf);
	make_view(&one, 0x1);
	/* Both see every thread first, as the first step of a run does. */
	a.pick(a.ctx, &one.view);
	b.pick(b.ctx, &one.view);
	for (int i = 0; i < 30; i++) {
		if (i % 2 == 0)
			same &= b.pick(b.ctx, &one.view) == 0;
		same &= a.pick(a.ctx, &v.view) == b.pick(b.ctx, &v.view);
	}
	ok(same, "single-choice steps do not change the later choices");
	{
		struct sc_event sys = { .kind = SC_EV_SYSCALL_BLOCKING };
		struct sc_sched_view alone = one.view;

		alone.nthreads = 1;
		a.pick(a.ctx, &alone);
		is_int(a.release(a.ctx, &sys), SC_RELEASE_AWAIT,
		       "the only live thread's syscall is awaited");
		a.pick(a.ctx, &one.view);
		is_int(a.release(a.ctx, &sys), SC_RELEASE_AUTO,
		       "with other threads alive, the engine decides");
	}
	sc_pct_destroy(&a);
	sc_pct_destroy(&b);
}

static void test_wake(void)
{
	struct view_buf v;
	int highest = 1;

	for (uint64_t seed = 1; seed <= 50; seed++) {
		struct sc_policy p = make_pct("depth=1", seed, NULL);
		struct sc_event waker = { .kind = SC_EV_FUTEX_WAKE };
		uint32_t waiters[3] = { 3, 1, 2 }, out[3];
		int64_t pr[NTHREADS];
		size_t n;

		make_view(&v, 0xf);
		p.pick(p.ctx, &v.view);
		for (uint32_t t = 0; t < NTHREADS; t++)
			sc_pct_priority(&p, t, &pr[t]);
		n = p.pick_wake(p.ctx, &waker, waiters, 3, 1, out);
		if (n != 1)
			highest = 0;
		else
			for (int i = 0; i < 3; i++)
				if (pr[waiters[i]] > pr[waiters[out[0]]])
					highest = 0;
		n = p.pick_wake(p.ctx, &waker, waiters, 3, 2, out);
		if (n != 2 || out[0] >= out[1] || out[1] >= 3)
			highest = 0;
		else
			for (int i = 0; i < 3; i++)
				if ((uint32_t)i != out[0] && (uint32_t)i != out[1] &&
				    (pr[waiters[i]] > pr[waiters[out[0]]] ||
				     pr[waiters[i]] > pr[waiters[out[1]]]))
					highest = 0;
		if (p.pick_wake(p.ctx, &waker, waiters, 3, 10, out) != 3)
			highest = 0;
		sc_pct_destroy(&p);
	}
	ok(highest, "wakes release the waiters of highest priority");
}

int main(void)
{
	test_registry_and_params();
	test_strict_priorities();
	test_deterministic();
	test_change_points();
	test_sequential_not_counted();
	test_estimate_and_bound();
	test_spinning();
	test_exit_drop();
	test_single_choice_free();
	test_wake();
	return done_testing();
}
