/*
 * strategy.h - the registry of scheduling strategies.
 *
 * A strategy turns (parameters, run seed, run index) into a struct
 * sc_policy (tracer.h) for one run.  It sees threads, their next events
 * and the enabled set, never ptrace.  Each strategy lives in its own file
 * (random.c, later pos.c, pct.c...) and is listed in registry.c.
 */
#ifndef SCHEDCTL_STRATEGY_H
#define SCHEDCTL_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer.h"

/* The strategy of a launch without --strategy.  The design's default is
 * "pos"; until pos exists, the random walk. */
#define SC_DEFAULT_STRATEGY "random"

struct sc_strategy {
	const char *name;
	const char *summary;        /* one line for --help */
	/* Build the policy of run `run` (1-based) seeded with `seed`
	 * (seeds.h).  params is the "key=value,..." text (may be empty).
	 * Returns 0, or -1 with a one-line reason in err.  NULL for
	 * `native`: the run is not controlled and has no policy. */
	int (*create)(const char *params, uint64_t seed, uint32_t run,
		      struct sc_policy *out, char *err, size_t errlen);
	/* Free what create() allocated. */
	void (*destroy)(struct sc_policy *p);
};

/* The strategy called name, or NULL. */
const struct sc_strategy *sc_strategy_find(const char *name);

/* True for names of the design that are not implemented yet (pos, pct...):
 * the CLI says "not implemented yet" rather than "unknown". */
bool sc_strategy_planned(const char *name);

/* "random, native": the implemented names, for error messages. */
const char *sc_strategy_list(void);

/* Iterate: the i-th strategy, NULL past the end. */
const struct sc_strategy *sc_strategy_at(size_t i);

/* random.c */
int sc_random_create(const char *params, uint64_t seed, uint32_t run,
		     struct sc_policy *out, char *err, size_t errlen);
void sc_random_destroy(struct sc_policy *p);

#endif /* SCHEDCTL_STRATEGY_H */
