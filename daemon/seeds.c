/* seeds.c - per-run seeds; see the contract in seeds.h. */
#include "config.h"

#include "seeds.h"
#include "strategy/rng.h"

uint64_t sc_run_seed(uint64_t base_seed, uint32_t run)
{
	return sc_splitmix64(base_seed + run);
}
