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
	},
	{
		.name = "native",
		.summary = "no control: run natively, no trace (baseline)",
	},
};

#define NSTRATEGIES (sizeof(strategies) / sizeof(strategies[0]))

/* In the design (docs/schedctl.1) but not written yet. */
static const char *const planned[] = {
	"pos", "pos-rw", "pct", "chess", "noise", "speed",
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
		if (strcmp(planned[i], name) == 0)
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
