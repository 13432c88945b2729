/* addr_ranges.c - sets of address ranges (include/addr_ranges.h). */
#include <stdlib.h>
#include <string.h>

#include "addr_ranges.h"

int sc_addr_ranges_push(struct sc_addr_ranges *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct sc_addr_range *nv = realloc(r->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		r->v = nv;
		r->cap = cap;
	}
	r->v[r->n].lo = lo;
	r->v[r->n].hi = hi;
	r->n++;
	return 0;
}

bool sc_addr_ranges_contain(const struct sc_addr_ranges *r, uint64_t addr)
{
	for (size_t i = 0; i < r->n; i++)
		if (addr >= r->v[i].lo && addr < r->v[i].hi)
			return true;
	return false;
}

static int cmp_range(const void *a, const void *b)
{
	const struct sc_addr_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void sc_addr_ranges_normalize(struct sc_addr_ranges *r)
{
	size_t k = 0;

	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), cmp_range);
	for (size_t i = 0; i < r->n; i++) {
		if (k && r->v[i].lo <= r->v[k - 1].hi) {
			if (r->v[i].hi > r->v[k - 1].hi)
				r->v[k - 1].hi = r->v[i].hi;
		} else {
			r->v[k++] = r->v[i];
		}
	}
	r->n = k;
}

bool sc_addr_ranges_overlap(const struct sc_addr_ranges *r, uint64_t lo,
			    uint64_t hi)
{
	/* Sorted and disjoint: only the last range starting below hi can
	 * reach into [lo, hi). */
	size_t a = 0, b = r->n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (r->v[mid].lo < hi)
			a = mid + 1;
		else
			b = mid;
	}
	return a > 0 && r->v[a - 1].hi > lo;
}

void sc_addr_ranges_free(struct sc_addr_ranges *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
