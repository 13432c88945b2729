/*
 * u64map.h - an open-addressing hash map from 64-bit keys (object
 * addresses, pcs, fingerprints) to 32-bit values, for the analyzer's hot
 * loops; the chess strategy (daemon/strategy/chess_hb.c) uses it too.
 */
#ifndef SCHEDCTL_U64MAP_H
#define SCHEDCTL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint32_t *vals;         /* value + 1; 0 marks an empty slot */
	size_t cap;             /* power of two, or 0 */
	size_t len;
};

/* Finalizer of SplitMix64: a good 64-bit mixer, also used for hashing. */
static inline uint64_t u64_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
/* Remove every entry, keeping the memory. */
void u64map_clear(struct u64map *m);
/* The value stored for key, or -1. */
int64_t u64map_get(const struct u64map *m, uint64_t key);
/* The slot's value for key, inserting val when absent (*added set).
 * Returns the stored value, or -1 when out of memory. */
int64_t u64map_get_or_add(struct u64map *m, uint64_t key, uint32_t val,
			  int *added);

#endif /* SCHEDCTL_U64MAP_H */
