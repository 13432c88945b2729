/*
 * test_strategy_portfolio.c - the portfolio (and mix) rotate over their
 * members run by run, are deterministic, pick only enabled threads, and
 * keep the session's counts whichever member ran.
 */
#include "config.h"

#include <string.h>

#include "strategy_view.h"

int main(void)
{
	const char *want[] = { "pos", "pct", "pos-rw", "surw", "random",
			       "noise", "speed", "pos" };
	struct sc_strategy_session s;
	struct sc_policy p;
	char err[256];
	int en1, en2;

	for (uint32_t r = 1; r <= 8; r++)
		is_str(sc_portfolio_member(r), want[r - 1], "run %u: %s", r,
		       want[r - 1]);
	/* surw through both pilots (runs 1..15), then surw, surw, pct. */
	const uint32_t mix_runs[] = { 1, 3, 15, 16, 17, 18, 19, 21 };
	const char *mix_want[] = { "surw", "surw", "surw", "surw", "surw",
				   "pct", "surw", "pct" };
	for (size_t i = 0; i < sizeof(mix_runs) / sizeof(mix_runs[0]); i++)
		is_str(sc_mix_member(mix_runs[i]), mix_want[i], "mix run %u: %s",
		       mix_runs[i], mix_want[i]);
	ok(same_schedule("mix", "", 3, 3, 1000, &en1) && en1,
	   "mix: a seed gives one schedule, only enabled threads");
	ok(sc_strategy_find("mix")->create("x=1", 1, 1, NULL, &p, err,
					   sizeof(err)) < 0,
	   "mix rejects parameters: %s", err);
	ok(same_schedule("portfolio", "", 3, 3, 1000, &en1) && en1,
	   "a seed gives one schedule, only enabled threads");
	ok(!same_schedule("portfolio", "", 3, 4, 1000, &en2) && en2,
	   "another seed another one");
	ok(sc_strategy_find("portfolio")->create("x=1", 1, 1, NULL, &p, err,
						 sizeof(err)) < 0,
	   "portfolio rejects parameters: %s", err);

	memset(&s, 0, sizeof(s));
	for (uint32_t r = 1; r <= 7; r++) {
		int bad = 0;

		p = make_policy("portfolio", "", 40 + r, r, &s);
		for (int k = 0; k < 300; k++) {
			unsigned mask = (k % 7) ? 0x3f : 0x05;
			int t = step_policy(&p, mask, (uint64_t)k, NULL);

			bad |= t < 0 || !((mask >> t) & 1);
		}
		ok(!bad, "run %u (%s): only enabled threads", r,
		   sc_portfolio_member(r));
		destroy_policy("portfolio", &p);
	}
	is_int(s.runs, 7, "the session counted every run once");
	ok(s.max_points >= 300 && s.max_threads == NTHREADS,
	   "the session learnt points and threads (%llu, %u)",
	   (unsigned long long)s.max_points, s.max_threads);
	return done_testing();
}
