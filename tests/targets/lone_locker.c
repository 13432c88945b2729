/*
 * lone_locker: main takes and releases a mutex N times (default 3000)
 * while its worker sleeps on a condition variable, then wakes it.  All
 * those lock events have no choice (the worker is blocked): a long
 * program, not a stuck one, whatever --max-steps says.
 * Usage: lone_locker [N]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t state = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready, done;
static long counter;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&state);
	ready = 1;
	pthread_cond_signal(&ready_cond);
	while (!done)
		pthread_cond_wait(&done_cond, &state);
	pthread_mutex_unlock(&state);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000;
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	/* The worker set ready holding the state lock, which it gives up
	 * only in its wait: once main has the lock back, it waits. */
	pthread_mutex_lock(&state);
	while (!ready)
		pthread_cond_wait(&ready_cond, &state);
	pthread_mutex_unlock(&state);
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&counter_lock);
		counter++;
		pthread_mutex_unlock(&counter_lock);
	}
	pthread_mutex_lock(&state);
	done = 1;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&state);
	pthread_join(t, NULL);
	printf("%ld\n", counter);
	return 0;
}
