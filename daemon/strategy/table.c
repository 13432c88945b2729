/* table.c - per-thread tables of the strategies, indexed by logical id. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "strategy/strategy.h"

int sc_grow_table(void **v, size_t *n, size_t id, size_t elem)
{
	if (id < *n)
		return 0;
	size_t cap = *n ? *n : 8;
	while (cap <= id)
		cap *= 2;
	char *t = realloc(*v, cap * elem);
	if (!t)
		return -1;
	/* New entries start zeroed: "not seen yet". */
	memset(t + *n * elem, 0, (cap - *n) * elem);
	*v = t;
	*n = cap;
	return 0;
}
