/*
 * u64map.c - open-addressing (linear probing) map from uint64 to uint32.
 * Never shrinks and has no delete: the analyzer builds one per trace or
 * per session and clears it between traces.
 */
#include <stdlib.h>
#include <string.h>

#include "u64map.h"

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	u64map_init(m);
}

void u64map_clear(struct u64map *m)
{
	if (m->cap)
		memset(m->vals, 0, m->cap * sizeof(*m->vals));
	m->len = 0;
}

int64_t u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	size_t mask = m->cap - 1, i = (size_t)u64_mix(key) & mask;
	while (m->vals[i]) {
		if (m->keys[i] == key)
			return (int64_t)m->vals[i] - 1;
		i = (i + 1) & mask;
	}
	return -1;
}

static int grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->vals[j])
			continue;
		size_t i = (size_t)u64_mix(m->keys[j]) & (cap - 1);
		while (vals[i])
			i = (i + 1) & (cap - 1);
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int64_t u64map_get_or_add(struct u64map *m, uint64_t key, uint32_t val,
			  int *added)
{
	*added = 0;
	/* Keep the load under 1/2: probes stay short. */
	if ((m->len + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	size_t mask = m->cap - 1, i = (size_t)u64_mix(key) & mask;
	while (m->vals[i]) {
		if (m->keys[i] == key)
			return (int64_t)m->vals[i] - 1;
		i = (i + 1) & mask;
	}
	if (val == UINT32_MAX)
		return -1;
	m->keys[i] = key;
	m->vals[i] = val + 1;
	m->len++;
	*added = 1;
	return val;
}
