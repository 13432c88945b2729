/*
 * racy_counter.c - N threads (argv[1], default 2) each increment a shared
 * counter INCREMENTS times without a lock.  The load and the store of
 * counter++ are separate instructions, so an interleaving between them
 * loses an update and the final assert fails.  At sync granularity there
 * is no scheduling point between them: only --granularity mem finds it.
 * (Reconstructed from its build by the analyzer helper, which overwrote
 * the original by mistake; same lines, same behaviour.)
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define INCREMENTS 2
#define MAX_THREADS 64
static volatile long counter;

static void *add(void *arg)
{
	(void)arg;
	for (int i = 0; i < INCREMENTS; i++)
		counter++;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[MAX_THREADS];

	if (n < 1 || n > MAX_THREADS)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, add, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("racy_counter: %ld\n", counter);
	assert(counter == (long)n * INCREMENTS);
	return 0;
}
