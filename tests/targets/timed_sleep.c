/*
 * timed_sleep.c - a worker thread sleeps 1 s while main waits for it;
 * main prints how long the sleep took and exits 1 when it took less than
 * 0.9 s.  Attached (tests/e2e/attach.sh) during its first 0.3 s, it must
 * keep real time: schedctl attach must not end a live process's sleeps
 * early, as launch's virtual time does.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double slept;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
	(void)arg;
	double start = now();
	sleep(1);
	slept = now() - start;
	return NULL;
}

int main(void)
{
	pthread_t t;

	usleep(300000);
	pthread_create(&t, NULL, sleeper, NULL);
	pthread_join(t, NULL);
	printf("slept %.2f s\n", slept);
	return slept < 0.9;
}
