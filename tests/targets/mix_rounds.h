/*
 * mix_rounds.h - long runs of straight-line code for the computing
 * targets (budget_compute, alarm_compute): R256(x) is 256 rounds of a
 * multiply-xorshift on x, no branch, no memory access, so that a
 * replay's last stretch, breakpoint hit by breakpoint, stays short.
 */
#ifndef SCHEDCTL_MIX_ROUNDS_H
#define SCHEDCTL_MIX_ROUNDS_H

#define R1(x) x = x * 6364136223846793005ull + 1442695040888963407ull; \
	x ^= x >> 29;
#define R4(x) R1(x) R1(x) R1(x) R1(x)
#define R16(x) R4(x) R4(x) R4(x) R4(x)
#define R64(x) R16(x) R16(x) R16(x) R16(x)
#define R256(x) R64(x) R64(x) R64(x) R64(x)
#define R1024(x) R256(x) R256(x) R256(x) R256(x)

#endif
