/*
 * memory_progress: a computation whose registers and stack are
 * the same every time it passes an instruction, while its progress lives
 * in memory only: step() is a long run of nops and one increment of a
 * global counter, called until the counter reaches LIMIT.  Its state at
 * a hot instruction repeats, as a spin loop's does, but it is no spin:
 * it must not be preempted as one (preempted at the second occurrence of
 * the state, a replay, which stops a spin at any occurrence, stopped it
 * thousands of calls early).  The other thread reads the counter (a
 * benign race: the output depends on the schedule, nothing fails), so
 * where the computation was preempted shows in the output: a replay must
 * print what its recording printed.  At mem granularity each call is two
 * events (a trace as large as wanted: `memory_progress CALLS`).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LIMIT 100000     /* calls of step(); argv[1] may say fewer */
#define READS 3

static long counter;                    /* the computation's progress */
static long limit = LIMIT;
static long seen[READS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The same registers at every nop: no argument, no result, no local. */
__attribute__((noinline)) static void step(void)
{
	__asm__ volatile(".rept 1000\n\tnop\n\t.endr" ::: "memory");
	counter++;
}

__attribute__((noinline)) static int done(void)
{
	return counter >= limit;
}

static void *compute(void *arg)
{
	(void)arg;
	do
		step();
	while (!done());
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < READS; i++) {
		pthread_mutex_lock(&lock);
		seen[i] = counter;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t c, r;

	if (argc > 1)
		limit = atol(argv[1]);
	pthread_create(&c, NULL, compute, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(c, NULL);
	pthread_join(r, NULL);
	for (int i = 0; i < READS; i++)
		printf("read %d: %ld\n", i, seen[i]);
	return 0;
}
