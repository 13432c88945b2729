/*
 * rng.h - the strategies' pseudo-random numbers: xoshiro256** seeded from
 * one 64-bit seed through splitmix64, so a (seed) fully determines every
 * draw of a run and replays are exact.
 */
#ifndef SCHEDCTL_RNG_H
#define SCHEDCTL_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "tracer.h"

struct sc_rng {
	uint64_t s[4];
};

/* splitmix64: one step of the generator from its state *x (advanced). */
uint64_t sc_splitmix64_next(uint64_t *x);
/* splitmix64 as a mixing function of one value. */
uint64_t sc_splitmix64(uint64_t x);

void sc_rng_seed(struct sc_rng *r, uint64_t seed);
uint64_t sc_rng_next(struct sc_rng *r);
/* Uniform in [0, n); n must be > 0.  Unbiased (rejection). */
uint64_t sc_rng_below(struct sc_rng *r, uint64_t n);

/* A uniform random subset of min(k, n) of the indexes 0..n-1, written to
 * out[] in ascending order; returns its size, or SIZE_MAX when out of
 * memory.  (Futex wakes of the random walk and of POS.) */
size_t sc_rng_subset(struct sc_rng *r, size_t n, size_t k, uint32_t *out);

/* struct sc_policy.pick_wake for the strategies that release a uniform
 * random subset of the waiters: ctx must start with its struct sc_rng. */
size_t sc_rng_pick_wake(void *ctx, const struct sc_event *waker,
			const uint32_t *waiters, size_t nwaiters, size_t nwake,
			uint32_t *out);

#endif /* SCHEDCTL_RNG_H */
