/*
 * main_pthread_exit (correct): main starts three workers that count under
 * a mutex and ends with pthread_exit; the last thread to end exits the
 * process, which runs the atexit handler that prints the count.  The
 * leader thread of a process is reaped only with the whole process: its
 * exit must not keep the workers from being scheduled.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void report(void)
{
	printf("counter=%d\n", counter);
}

static void *count(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	atexit(report);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, count, NULL) != 0)
			return 1;
	pthread_exit(NULL);
}
