/*
 * slow_counter (correct): two threads each add 1 to a mutex-guarded
 * counter 1500 times, sleeping 1 ms between additions, so the program
 * runs for a couple of seconds: long enough to be attached to
 * (tests/e2e/attach.sh).  Prints "total 3000" and exits 0 under any
 * schedule.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define PER_THREAD 1500

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *worker(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	for (int i = 0; i < PER_THREAD; i++) {
		pthread_mutex_lock(&lock);
		total++;
		pthread_mutex_unlock(&lock);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", total);
	return total == 2 * PER_THREAD ? 0 : 1;
}
