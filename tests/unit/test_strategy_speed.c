/*
 * test_strategy_speed.c - thread speed control: parameters, determinism,
 * only enabled threads, the basis pair enumeration over runs, quotas per
 * epoch (a thread never runs more than its quota in an epoch while
 * another enabled thread has quota left).
 */
#include "config.h"

#include <string.h>

#include "strategy_view.h"

static void test_params(void)
{
	const struct sc_strategy *s = sc_strategy_find("speed");
	const char *bad[] = { "epoch=0", "k=21", "epoch=x", "speed=1" };
	struct sc_policy p;
	char err[256];

	ok(s && s->create && !sc_strategy_planned("speed"),
	   "speed is registered");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ok(s && s->create(bad[i], 1, 1, NULL, &p, err, sizeof(err)) < 0 &&
		   err[0], "'%s' rejected: %s", bad[i], err);
	}
}

static void test_determinism(void)
{
	int en1, en2;

	ok(same_schedule("speed", "", 4, 4, 3000, &en1) && en1,
	   "a seed gives one schedule, only enabled threads");
	ok(!same_schedule("speed", "", 4, 5, 3000, &en2) && en2,
	   "another seed another one");
}

/* Run r of a session with 4 threads, k=7: pair (r-1)/8, exponent (r-1)%8.
 * Run 1: T0 at 2^7, T1 at 2^0; run 8: T0 and T1 at 2^7; run 9: T0 at
 * 2^7, T2 at 2^0. */
static void test_basis(void)
{
	struct sc_strategy_session s;
	uint64_t q[3][3];
	uint32_t runs[3] = { 1, 8, 9 };

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 3; i++) {
		struct sc_policy p;

		s.max_threads = 4;
		p = make_policy("speed", "epoch=1024", 1, runs[i], &s);
		step_policy(&p, 0x0f, 0, NULL);
		ok(sc_speed_quota(&p, 0, &q[i][0]) &&
		   sc_speed_quota(&p, 1, &q[i][1]) &&
		   sc_speed_quota(&p, 2, &q[i][2]), "run %u: quotas of T0..T2",
		   runs[i]);
		destroy_policy("speed", &p);
	}
	ok(q[0][0] >= 64 * q[0][1], "run 1: T0 2^7 times as fast as T1 "
	   "(%llu, %llu)", (unsigned long long)q[0][0],
	   (unsigned long long)q[0][1]);
	ok(q[1][0] == q[1][1], "run 8: T0 and T1 at the same speed");
	ok(q[2][0] >= 64 * q[2][2], "run 9: T0 2^7 times as fast as T2");
}

/* Within an epoch, a thread runs at most its quota while another enabled
 * thread still has some; all threads get their turn every epoch. */
static void test_quota(void)
{
	struct sc_strategy_session s;
	struct sc_policy p;
	uint64_t q[NTHREADS];
	int count[NTHREADS] = { 0 }, ok_quota = 1, epochs = 0;

	memset(&s, 0, sizeof(s));
	s.max_threads = 2;
	p = make_policy("speed", "epoch=64", 7, 1, &s);   /* T0 2^7, T1 2^0 */
	step_policy(&p, 0x3, 0, NULL);
	sc_speed_quota(&p, 0, &q[0]);
	sc_speed_quota(&p, 1, &q[1]);
	ok(q[0] == 63 && q[1] == 1, "epoch 64, speeds 128:1: quotas 63 and 1 "
	   "(%llu, %llu)", (unsigned long long)q[0], (unsigned long long)q[1]);
	count[0] = 0;
	count[1] = 0;
	/* The first pick was in epoch 1; 64 * 10 more steps. */
	for (int k = 1; k < 64 * 10 + 1; k++) {
		int t = step_policy(&p, 0x3, (uint64_t)k, NULL);

		if (t < 0 || t > 1) {
			ok_quota = 0;
			break;
		}
		count[t]++;
	}
	epochs = count[1];
	ok(ok_quota && count[1] >= 9 && count[1] <= 11,
	   "the slow thread runs once per epoch (%d times in 640 steps)",
	   epochs);
	destroy_policy("speed", &p);
}

int main(void)
{
	test_params();
	test_determinism();
	test_basis();
	test_quota();
	return done_testing();
}
