/*
 * main_pthread_exit (correct): main starts three workers that count under
 * a mutex and ends with pthread_exit; the last thread to end exits the
 * process, which runs the atexit handler that prints the count.  The
 * leader thread of a process is reaped only with the whole process: its
 * exit must not keep the workers from being scheduled.  With the argument
 * "deadlock" (bug) a worker then locks the mutex twice: a deadlock after
 * main's exit, reported as one with the worker's stack
 * (tests/e2e/deadlock_report.sh), not a hang at the time budget.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void report(void)
{
	printf("counter=%d\n", counter);
}

static void *count(void *arg)
{
	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	if (arg) {
		pthread_mutex_lock(&lock);
		pthread_mutex_lock(&lock);      /* the bug: a self-deadlock */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *deadlock = argc > 1 && strcmp(argv[1], "deadlock") == 0 ? &t
								     : NULL;

	atexit(report);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, count, i == 2 ? deadlock : NULL))
			return 1;
	pthread_exit(NULL);
}
