/*
 * fnv.h - FNV-1a, 64 bits: the one hash of strings and small records that
 * the tracer and the offline tools keep as keys (environment digests,
 * cache keys).  Not for anything an adversary chooses.
 */
#ifndef SCHEDCTL_FNV_H
#define SCHEDCTL_FNV_H

#include <stddef.h>
#include <stdint.h>

#define SC_FNV_OFFSET 0xcbf29ce484222325ULL
#define SC_FNV_PRIME 0x100000001b3ULL

/* h extended by the n bytes at p. */
static inline uint64_t sc_fnv_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * SC_FNV_PRIME;
	return h;
}

/* h extended by the string s, without its NUL. */
static inline uint64_t sc_fnv_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * SC_FNV_PRIME;
	return h;
}

#endif
