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

#include "tracer.h"

extern char **environ;

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= FNV64_PRIME;
	}
	/* The terminating NUL separates the strings: {"A=1","B"} and
	 * {"A=1B"} must differ. */
	h ^= 0;
	h *= FNV64_PRIME;
	return h;
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
	uint64_t h = FNV64_OFFSET;
	for (size_t i = 0; i < n; i++)
		h = fnv1a(h, sorted[i]);
	free(sorted);
	return h;
}
