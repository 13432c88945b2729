/*
 * test_strategy_random.c - the random walk and the seed contract:
 * deterministic for a seed, picks only enabled threads, wake subsets of
 * the right size without repeats, splitmix64 reference values.
 */
#include "config.h"

#include <stdint.h>

#include "seeds.h"
#include "strategy/rng.h"
#include "strategy/strategy.h"
#include "tap.h"

#define NTHREADS 6

/* A view of NTHREADS threads where those in mask are enabled. */
struct view_buf {
	struct sc_thread_view threads[NTHREADS];
	uint32_t enabled[NTHREADS];
	struct sc_sched_view view;
};

static void make_view(struct view_buf *b, unsigned mask, uint64_t step)
{
	size_t n = 0;

	for (uint32_t i = 0; i < NTHREADS; i++) {
		b->threads[i] = (struct sc_thread_view){
			.thread = i,
			.state = SC_TS_READY,
			.enabled = (mask >> i) & 1,
			.next = { .kind = SC_EV_MUTEX_LOCK, .object = 0x1000 + i },
		};
		if ((mask >> i) & 1)
			b->enabled[n++] = i;
	}
	b->view = (struct sc_sched_view){
		.step = step, .nthreads = NTHREADS, .threads = b->threads,
		.nenabled = n, .enabled = b->enabled,
	};
}

static struct sc_policy make_policy(uint64_t seed)
{
	const struct sc_strategy *s = sc_strategy_find("random");
	struct sc_policy p = { 0 };
	char err[256];

	if (!s || s->create("", seed, 1, NULL, &p, err, sizeof(err)) < 0)
		bail_out("cannot create the random strategy");
	return p;
}

static void test_registry(void)
{
	const struct sc_strategy *s = sc_strategy_find("random");
	struct sc_policy p;
	char err[256] = "";

	ok(s != NULL && s->create != NULL, "random is registered and controlled");
	ok(sc_strategy_find("native") && !sc_strategy_find("native")->create,
	   "native is registered without a policy");
	ok(!sc_strategy_find("nope"), "unknown names are not found");
	ok(!sc_strategy_planned("chess") && !sc_strategy_planned("nope") &&
	   !sc_strategy_planned("pos") && sc_strategy_find("chess"),
	   "every strategy of the design is implemented (chess too)");
	is_str(sc_strategy_list(), "random, pct, pos, pos-rw, noise, speed, urw, "
	       "surw, portfolio, mix, chess, native",
	       "list of known strategies");
	ok(s && s->create("x=1", 1, 1, NULL, &p, err, sizeof(err)) < 0 && err[0],
	   "random rejects parameters: %s", err);
}

static void test_deterministic(void)
{
	struct sc_policy a = make_policy(42), b = make_policy(42),
			 c = make_policy(43);
	struct view_buf v;
	int same = 1, differ = 0;

	make_view(&v, 0x3f, 0);
	for (int i = 0; i < 200; i++) {
		int pa = a.pick(a.ctx, &v.view);
		int pb = b.pick(b.ctx, &v.view);
		int pc = c.pick(c.ctx, &v.view);

		same &= pa == pb;
		differ |= pa != pc;
	}
	ok(same, "same seed, same 200 picks");
	ok(differ, "another seed, another schedule");
	sc_random_destroy(&a);
	sc_random_destroy(&b);
	sc_random_destroy(&c);
}

static void test_enabled_only(void)
{
	struct sc_policy p = make_policy(7);
	struct view_buf v;
	unsigned seen = 0;
	int only = 1;

	make_view(&v, 0x2a, 0);        /* T1, T3, T5 */
	for (int i = 0; i < 1000; i++) {
		int k = p.pick(p.ctx, &v.view);

		if (k < 0 || k >= NTHREADS || !v.threads[k].enabled)
			only = 0;
		else
			seen |= 1u << k;
	}
	ok(only, "1000 picks, all enabled threads");
	is_int(seen, 0x2a, "every enabled thread was picked at least once");
	make_view(&v, 0x10, 0);
	is_int(p.pick(p.ctx, &v.view), 4, "a single enabled thread is picked");
	sc_random_destroy(&p);
}

/* Check one pick_wake answer: n distinct ascending indexes < nwaiters. */
static int valid_wake(const uint32_t *out, size_t n, size_t nwaiters)
{
	for (size_t i = 0; i < n; i++)
		if (out[i] >= nwaiters || (i > 0 && out[i] <= out[i - 1]))
			return 0;
	return 1;
}

static void test_wake(void)
{
	struct sc_policy p = make_policy(99);
	struct sc_event waker = { .kind = SC_EV_FUTEX_WAKE, .object = 0x10 };
	uint32_t waiters[5] = { 3, 1, 4, 2, 5 }, out[5];
	unsigned seen = 0;
	int valid = 1;
	size_t n;

	n = p.pick_wake(p.ctx, &waker, waiters, 5, 1, out);
	is_int((long long)n, 1, "wake 1 of 5 wakes one");
	n = p.pick_wake(p.ctx, &waker, waiters, 5, 2, out);
	ok(n == 2 && valid_wake(out, n, 5), "wake 2 of 5: two distinct waiters");
	n = p.pick_wake(p.ctx, &waker, waiters, 5, 100, out);
	ok(n == 5 && valid_wake(out, n, 5), "wake all: every waiter once");
	n = p.pick_wake(p.ctx, &waker, waiters, 0, 1, out);
	is_int((long long)n, 0, "no waiters: nobody woken");
	for (int i = 0; i < 500; i++) {
		n = p.pick_wake(p.ctx, &waker, waiters, 5, 2, out);
		valid &= n == 2 && valid_wake(out, n, 5);
		for (size_t k = 0; k < n; k++)
			seen |= 1u << out[k];
	}
	ok(valid, "500 wakes of 2 of 5 are valid subsets");
	is_int(seen, 0x1f, "every waiter gets woken sometimes");
	sc_random_destroy(&p);
}

static void test_rng_and_seeds(void)
{
	struct sc_rng r;
	int in_range = 1;

	/* splitmix64 from state 0: published first output. */
	ok(sc_splitmix64(0) == 0xe220a8397b1dcdafULL, "splitmix64(0) reference");
	ok(sc_run_seed(UINT64_MAX, 1) == sc_splitmix64(0),
	   "run seed = splitmix64(base + run), wrapping");
	ok(sc_run_seed(100, 7) == sc_splitmix64(107), "run 7 of base 100");
	ok(sc_run_seed(5, 1) != sc_run_seed(5, 2), "runs get different seeds");
	sc_rng_seed(&r, 1);
	for (int i = 0; i < 10000; i++)
		in_range &= sc_rng_below(&r, 3) < 3;
	ok(in_range, "rng_below(3) stays below 3");
	is_int((long long)sc_rng_below(&r, 1), 0, "rng_below(1) is 0");
}

int main(void)
{
	test_registry();
	test_deterministic();
	test_enabled_only();
	test_wake();
	test_rng_and_seeds();
	return done_testing();
}
