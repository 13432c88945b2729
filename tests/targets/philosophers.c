/*
 * philosophers.c (buggy): three dining philosophers with C11 threads,
 * each taking its left fork, then its right one, from an array of
 * mtx_t: a cycle of three threads each holding one fork and waiting for
 * the next one deadlocks.  The report must name the forks as elements of
 * the array (forks+0x28) and main's thrd_join by main's own line, not
 * libc's thrd_join.
 */
#include <stdio.h>
#include <threads.h>

#define N 3

static mtx_t forks[N];
static int meals;

static int philosopher(void *arg)
{
	int i = (int)(long)arg;

	mtx_lock(&forks[i]);
	mtx_lock(&forks[(i + 1) % N]);
	meals++;
	mtx_unlock(&forks[(i + 1) % N]);
	mtx_unlock(&forks[i]);
	return 0;
}

int main(void)
{
	thrd_t t[N];

	for (int i = 0; i < N; i++)
		mtx_init(&forks[i], mtx_plain);
	for (long i = 0; i < N; i++)
		thrd_create(&t[i], philosopher, (void *)i);
	for (int i = 0; i < N; i++)
		thrd_join(t[i], NULL);                  /* JOIN */
	printf("meals %d\n", meals);
	return 0;
}
