/*
 * torn_pair: setters (argv[1], default 1) each write a pair of variables
 * (first, then second) with their own id; a checker reads the pair and
 * asserts both halves agree.  A checker whose two loads straddle a
 * setter's two stores sees a torn pair.  With more setters the checker
 * must also avoid the other setters' stores landing between its loads in
 * the "healing" order, and the schedule space grows: the bug gets rarer
 * for a random walk.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_SETTERS 16

static volatile long first, second;

static void *setter(void *arg)
{
	long id = (long)arg;

	first = id;
	second = id;
	return NULL;
}

static void *checker(void *arg)
{
	(void)arg;
	long a = first;
	long b = second;
	assert(a == b);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t s[MAX_SETTERS], c;

	if (n < 1 || n > MAX_SETTERS)
		return 2;
	pthread_create(&c, NULL, checker, NULL);
	for (long i = 0; i < n; i++)
		pthread_create(&s[i], NULL, setter, (void *)(i + 1));
	pthread_join(c, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(s[i], NULL);
	printf("torn_pair: done\n");
	return 0;
}
