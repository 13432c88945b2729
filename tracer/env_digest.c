/*
 * env_digest.c - a digest of the target's environment for trace headers.
 *
 * Replays compare it to warn when the environment differs from the recorded
 * one (it changes addresses on the stack, getenv() results...).  Sorting
 * first makes the digest independent of the order of envp, which differs
 * between shells and launchers for the same set of variables.
 */
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "tracer.h"

extern char **environ;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The terminating NUL separates the strings: {"A=1","B"} and {"A=1B"}
 * must differ. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	return sc_fnv_bytes(sc_fnv_str(h, s), "", 1);
}

/* envp NULL means the current environment (as in struct sc_run_config).
 * Returns 0 only if the pointer array cannot be copied (out of memory). */
uint64_t sc_env_digest(char *const *envp)
{
	if (!envp)
		envp = environ;
	size_t n = 0;
	if (envp)
		while (envp[n])
			n++;

	char **sorted = NULL;
	if (n) {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return 0;
		memcpy(sorted, envp, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_str);
	}
	uint64_t h = SC_FNV_OFFSET;
	for (size_t i = 0; i < n; i++)
		h = fnv1a(h, sorted[i]);
	free(sorted);
	return h;
}
