/* registry.c - the list of strategies (strategy.h). */
#include "config.h"

#include <string.h>

#include "strategy/strategy.h"

static const struct sc_strategy strategies[] = {
	{
		.name = "random",
		.summary = "uniform random walk over the enabled threads",
		.create = sc_random_create,
		.destroy = sc_random_destroy,
		.stateless = true,
	},
	{
		.name = "pct",
		.summary = "PCT: random thread priorities, D-1 priority change "
			   "points (--depth D)",
		.create = sc_pct_create,
		.destroy = sc_pct_destroy,
		.bound = sc_pct_bound,
		/* PCT runs the threads nearly one after the other: a lock
		 * both sides of a race take later (Rust's stdout lock)
		 * orders them, and the detector would not see the race. */
		.race_pilot_by = "pos",
	},
	{
		.name = "pos",
		.summary = "POS: random event priorities, re-drawn for racing events",
		.create = sc_pos_create,
		.destroy = sc_pos_destroy,
		.stateless = true,
	},
	{
		.name = "pos-rw",
		.summary = "POS*: like pos, but two reads do not race",
		.create = sc_pos_rw_create,
		.destroy = sc_pos_destroy,
		.stateless = true,
	},
	{
		.name = "noise",
		.summary = "noise making: the running thread keeps running, "
			   "yields injected with probability p "
			   "(--noise white|random|best, --p P, --c C)",
		.create = sc_noise_create,
		.destroy = sc_noise_destroy,
	},
	{
		.name = "speed",
		.summary = "thread speed control: per-thread quotas per epoch, "
			   "basis speed vectors enumerated over the runs",
		.create = sc_speed_create,
		.destroy = sc_speed_destroy,
	},
	{
		.name = "urw",
		.summary = "uniform random walk: threads drawn in proportion "
			   "to their estimated remaining events",
		.create = sc_urw_create,
		.destroy = sc_urw_destroy,
	},
	{
		.name = "surw",
		.summary = "selectively uniform random walk: urw only at "
			   "events on shared objects",
		.create = sc_surw_create,
		.destroy = sc_urw_destroy,
	},
	{
		.name = "portfolio",
		.summary = "rotates over pos, pct, pos-rw, surw, random, "
			   "noise best and speed, run by run",
		.create = sc_portfolio_create,
		.destroy = sc_portfolio_destroy,
	},
	{
		.name = "mix",
		.summary = "surw, surw and pct (depth 3) in turn, run by run",
		.create = sc_mix_create,
		.destroy = sc_portfolio_destroy,
	},
	{
		.name = "chess",
		.summary = "CHESS: systematic search of every schedule with at "
			   "most C preemptions (--preemptions C), fair, with "
			   "happens-before state caching",
		.create = sc_chess_create,
		.destroy = sc_chess_destroy,
		.done = sc_chess_done,
	},
	{
		.name = "native",
		.summary = "no control: run natively, no trace (baseline)",
	},
};

#define NSTRATEGIES (sizeof(strategies) / sizeof(strategies[0]))

/* In the design (docs/schedctl.1) but not written yet. */
static const char *const planned[] = {
	NULL,
};

const struct sc_strategy *sc_strategy_at(size_t i)
{
	return i < NSTRATEGIES ? &strategies[i] : NULL;
}

const struct sc_strategy *sc_strategy_find(const char *name)
{
	for (size_t i = 0; i < NSTRATEGIES; i++)
		if (strcmp(strategies[i].name, name) == 0)
			return &strategies[i];
	return NULL;
}

bool sc_strategy_planned(const char *name)
{
	for (size_t i = 0; i < sizeof(planned) / sizeof(planned[0]); i++)
		if (planned[i] && strcmp(planned[i], name) == 0)
			return true;
	return false;
}

const char *sc_strategy_list(void)
{
	static char buf[256];

	if (!buf[0])
		for (size_t i = 0; i < NSTRATEGIES; i++) {
			if (i)
				strcat(buf, ", ");
			strcat(buf, strategies[i].name);
		}
	return buf;
}
