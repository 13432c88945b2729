/*
 * deep_order N: a bug that needs N threads to run in one specific order.
 * Worker i (1..N) takes the stage lock once and moves the stage from i-1
 * to i only when the stage is exactly at that point, where the stages are
 * counted from the last worker created down to the first: worker N moves
 * 0 -> 1, worker N-1 moves 1 -> 2, ..., worker 1 moves N-1 -> N.  Reaching
 * stage N (every worker's critical section in reverse creation order)
 * trips assert().  A chain of N ordering constraints: the bug's depth
 * grows with N (a uniform random walk hits it in about 1/N! of the runs).
 *
 * Natively the workers start in creation order, and each does plain
 * computation (no system call, so no scheduling point) in proportion to
 * its number before it takes the lock, so the first created enters first
 * and the chain breaks at once: the program prints "deep_order: stage S
 * of N" with S < N.  Default N is 3 (2 to 16).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 16

static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER;
static int stage, nthreads;
static volatile unsigned work_sink;

/* Worker i's own set-up: about i * 20000 multiply-adds. */
static void warm_up(int i)
{
	unsigned h = 2166136261u;

	for (long k = 0; k < 20000L * i; k++)
		h = (h ^ (unsigned)k) * 16777619u;
	work_sink = h;
}

static void *worker(void *arg)
{
	int i = (int)(long)arg;

	warm_up(i);
	pthread_mutex_lock(&stage_lock);
	if (stage == nthreads - i)
		stage++;
	pthread_mutex_unlock(&stage_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN + 1];
	int i;

	nthreads = argc > 1 ? atoi(argv[1]) : 3;
	if (nthreads < 2 || nthreads > MAXN) {
		fprintf(stderr, "deep_order: thread count must be 2 to %d\n",
			MAXN);
		return 2;
	}
	for (i = 1; i <= nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (i = 1; i <= nthreads; i++)
		pthread_join(t[i], NULL);
	assert(stage < nthreads && "every worker ran in reverse order");
	printf("deep_order: stage %d of %d\n", stage, nthreads);
	return 0;
}
