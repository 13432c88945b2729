/*
 * po_writers: the analyzer's exact partial-order counts on a real program.
 * argv[1] = number of writer threads (default 2); argv[2] = "same" (every
 * thread writes one shared variable: N! orders of the writes) or "distinct"
 * (each writes its own variable: a single partial order).  Correct: no
 * assert, it only exists to be analysed at --granularity mem.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WRITERS 4

static volatile int shared;
static volatile int own[MAX_WRITERS];
static int distinct;

static void *writer(void *arg)
{
	long id = (long)arg;

	if (distinct)
		own[id] = 1;
	else
		shared = (int)id;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[MAX_WRITERS];

	distinct = argc > 2 && strcmp(argv[2], "distinct") == 0;
	if (n < 1 || n > MAX_WRITERS)
		return 2;
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, writer, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
