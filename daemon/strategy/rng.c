/* rng.c - splitmix64 and xoshiro256** (Blackman and Vigna, public domain
 * algorithms; written from their published definitions), and uniform
 * random subsets drawn from them. */
#include "config.h"

#include <stdlib.h>

#include "strategy/rng.h"

uint64_t sc_splitmix64_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sc_splitmix64(uint64_t x)
{
	return sc_splitmix64_next(&x);
}

void sc_rng_seed(struct sc_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	/* splitmix64 never yields four zero words in a row, the one state
	 * xoshiro cannot leave. */
	for (int i = 0; i < 4; i++)
		r->s[i] = sc_splitmix64_next(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sc_rng_next(struct sc_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t sc_rng_below(struct sc_rng *r, uint64_t n)
{
	/* Reject the top partial block so that every residue is equally
	 * likely: limit is the largest multiple of n minus one. */
	uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;
	uint64_t x;

	do
		x = sc_rng_next(r);
	while (x > limit);
	return x % n;
}

size_t sc_rng_subset(struct sc_rng *r, size_t n, size_t k, uint32_t *out)
{
	uint32_t stackidx[64];
	uint32_t *idx = n <= 64 ? stackidx : malloc(n * sizeof(*idx));

	if (k > n)
		k = n;
	if (!idx)
		return SIZE_MAX;
	/* Partial Fisher-Yates: the first k slots become a uniform k-subset. */
	for (size_t i = 0; i < n && k > 0; i++)
		idx[i] = (uint32_t)i;
	for (size_t i = 0; i < k; i++) {
		size_t j = i + (size_t)sc_rng_below(r, n - i);
		uint32_t t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
	}
	/* Ascending: the order in which the kernel would list them. */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			uint32_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (size_t i = 0; i < k; i++)
		out[i] = idx[i];
	if (idx != stackidx)
		free(idx);
	return k;
}

size_t sc_rng_pick_wake(void *ctx, const struct sc_event *waker,
			const uint32_t *waiters, size_t nwaiters, size_t nwake,
			uint32_t *out)
{
	(void)waker;
	(void)waiters;
	return sc_rng_subset(ctx, nwaiters, nwake, out);
}
