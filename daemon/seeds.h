/*
 * seeds.h - the seed of each run of a session.
 *
 * CONTRACT (shared with --shard and with anyone re-running one run by
 * hand): run r (1-based) of a session with base seed B uses the seed
 *     splitmix64(B + r)     (64-bit wrap-around addition)
 * where splitmix64(x) is one output of the splitmix64 generator whose
 * state starts at x.  Runs are therefore independent given (B, r), and a
 * session split into shards by run ranges explores exactly the same runs.
 * Never change this function: recorded seeds would stop matching.
 */
#ifndef SCHEDCTL_SEEDS_H
#define SCHEDCTL_SEEDS_H

#include <stdint.h>

uint64_t sc_run_seed(uint64_t base_seed, uint32_t run);

#endif /* SCHEDCTL_SEEDS_H */
