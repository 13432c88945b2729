/*
 * race_sites.c - a data race and its correctly locked twin, for the
 * analyzer's race reports.
 *
 * Two threads update `counter` without a lock (the statements marked
 * RACE-A and RACE-B race: updates may be lost) and `total` under a mutex
 * (LOCKED-A and LOCKED-B: no race).  The global asm labels race_site_a,
 * ... mark the first instruction of each marked statement, so that a test
 * can find the statement's address in the binary and check that the
 * analyzer maps it back to the marked line.  Built with -O0 so that every
 * statement keeps its own instructions in source order.  Exits 0 either
 * way: a data race is not a crash.
 */
#include <pthread.h>
#include <stdio.h>

#define ITERATIONS 3

volatile long counter;
volatile long total;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *adder_a(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		__asm__ volatile(".globl race_site_a\nrace_site_a:"); counter = counter + 1; /* RACE-A */
		pthread_mutex_lock(&lock);
		__asm__ volatile(".globl locked_site_a\nlocked_site_a:"); total = total + 1; /* LOCKED-A */
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *adder_b(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERATIONS; i++) {
		__asm__ volatile(".globl race_site_b\nrace_site_b:"); counter = counter + 2; /* RACE-B */
		pthread_mutex_lock(&lock);
		__asm__ volatile(".globl locked_site_b\nlocked_site_b:"); total = total + 2; /* LOCKED-B */
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, adder_a, NULL) != 0 ||
	    pthread_create(&b, NULL, adder_b, NULL) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("counter %ld total %ld\n", counter, total);
	return 0;
}
