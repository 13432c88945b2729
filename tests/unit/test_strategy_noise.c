/*
 * test_strategy_noise.c - noise making: parameters, determinism per seed,
 * only enabled threads, the running thread keeps running except for
 * injected yields at rate p, p drawn in (0, 0.5] for random, 1/(1 + c n)
 * at half the locations for best, spins always switch.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "strategy_view.h"

static void test_params(void)
{
	const struct sc_strategy *s = sc_strategy_find("noise");
	const char *bad[] = { "noise=pink", "p=2", "p=x", "noise=best,p=0.2",
			      "noise=white,c=1", "q=1", "noise" };
	struct sc_policy p;
	char err[256];

	ok(s && s->create && !sc_strategy_planned("noise"),
	   "noise is registered");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ok(s && s->create(bad[i], 1, 1, NULL, &p, err, sizeof(err)) < 0 &&
		   err[0], "'%s' rejected: %s", bad[i], err);
	}
	ok(s && s->create("noise=best,c=0.5", 1, 1, NULL, &p, err,
			  sizeof(err)) == 0, "noise=best,c=0.5 accepted");
	if (s && p.ctx)
		s->destroy(&p);
}

static void test_determinism(void)
{
	const char *variants[] = { "", "noise=white,p=0.3", "noise=random",
				   "noise=best" };

	for (size_t i = 0; i < 4; i++) {
		int en1, en2, same = same_schedule("noise", variants[i], 9, 9,
						   2000, &en1);
		int differ = !same_schedule("noise", variants[i], 9, 10, 2000,
					    &en2);

		ok(same && en1 && en2, "noise '%s': a seed gives one schedule, "
		   "only enabled threads", variants[i]);
		ok(differ, "noise '%s': another seed another one", variants[i]);
	}
}

/* White noise: with everyone enabled, the thread switches in about p of
 * the steps, always to another thread. */
static void test_white_rate(void)
{
	struct sc_policy p = make_policy("noise", "noise=white,p=0.2", 3, 1,
					 NULL);
	int prev = -1, switches = 0, n = 20000;

	for (int k = 0; k < n; k++) {
		int t = step_policy(&p, 0x3f, (uint64_t)k, NULL);

		if (prev >= 0 && t != prev)
			switches++;
		prev = t;
	}
	ok(fabs((double)switches / n - 0.2) < 0.02,
	   "white p=0.2: %d switches in %d steps", switches, n);
	destroy_policy("noise", &p);

	/* p=0: the running thread keeps running until it is disabled. */
	p = make_policy("noise", "noise=white,p=0", 3, 1, NULL);
	prev = step_policy(&p, 0x3f, 0, NULL);
	switches = 0;
	for (int k = 1; k < 500; k++)
		switches += step_policy(&p, 0x3f, (uint64_t)k, NULL) != prev;
	ok(switches == 0, "p=0: the running thread keeps running");
	{
		int t = step_policy(&p, 0x3f & ~(1u << prev), 500, NULL);

		ok(t >= 0 && t != prev, "p=0: another thread when it blocks");
		prev = t;
	}
	/* A spin (yield) of the running thread lets another one run. */
	{
		struct view_buf v;
		struct sc_event ev;
		int t;

		make_view(&v, 0x3f, 501, NULL);
		t = p.pick(p.ctx, &v.view);
		ev = v.threads[t].next;
		ev.thread = (uint32_t)t;
		ev.kind = SC_EV_YIELD;
		p.executed(p.ctx, &ev);
		ok(step_policy(&p, 0x3f, 502, NULL) != t,
		   "after a yield the running thread lets another run");
	}
	destroy_policy("noise", &p);
}

static void test_random_and_best(void)
{
	struct sc_strategy_session s;
	double lo = 1, hi = 0;
	int zero = 0, full = 0;

	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct sc_policy p = make_policy("noise", "noise=random", seed,
						 1, NULL);
		double q = sc_noise_probability(&p, 0x1234);

		lo = q < lo ? q : lo;
		hi = q > hi ? q : hi;
		destroy_policy("noise", &p);
	}
	ok(lo > 0 && hi <= 0.5 && hi > 0.4 && lo < 0.1,
	   "random: p in (0, 0.5] per run (%.3f..%.3f)", lo, hi);

	memset(&s, 0, sizeof(s));
	for (uint64_t pc = 1; pc <= 30; pc++)
		sc_learn_pc(&s.learn, 0x400000 + pc);
	{
		struct sc_policy p = make_policy("noise", "noise=best", 5, 1, &s);
		double want = 1.0 / (1.0 + 30.0 / 3.0);

		for (uint64_t pc = 1; pc <= 200; pc++) {
			double q = sc_noise_probability(&p, 0x500000 + pc);

			zero += q == 0;
			full += fabs(q - want) < 1e-12;
		}
		ok(zero + full == 200 && zero > 70 && full > 70,
		   "best: p = 1/(1 + n/3) at about half of the locations "
		   "(%d of 200), 0 elsewhere", full);
		destroy_policy("noise", &p);
	}
	/* The session learns the pcs of executed events. */
	{
		struct sc_policy p = make_policy("noise", "noise=best", 5, 1, &s);

		for (int k = 0; k < 50; k++)
			step_policy(&p, 0x3f, (uint64_t)k, NULL);
		destroy_policy("noise", &p);
		ok(s.learn.npcs > 30 && s.runs == 2,
		   "best: the session learnt the executed pcs (%u) and the run",
		   s.learn.npcs);
	}
}

int main(void)
{
	test_params();
	test_determinism();
	test_white_rate();
	test_random_and_best();
	return done_testing();
}
