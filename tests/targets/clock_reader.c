/*
 * clock_reader.c (correct): two threads take turns under a mutex and
 * time their work with clock_gettime(CLOCK_MONOTONIC); main prints what
 * they measured, the wall clock (gettimeofday, time) and which thread
 * measured more, branching on it as a timing-based test does; and the
 * ticks of the time-stamp counter (rdtsc, rdtscp) around it all, as Go's
 * runtime and cycle-counting code read them.  Under schedctl the clock
 * is part of the schedule: a run and its replays print the same lines
 * (tests/e2e/replay_load.sh).  It also counts its clock reads until the
 * next millisecond, as code that truncates the time to milliseconds
 * (libuv's uv_now) sees it: the same in every session of one seed.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <x86intrin.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *worker(void *arg)
{
	long start = now_ns();

	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&lock);
		total += i;
		pthread_mutex_unlock(&lock);
	}
	*(long *)arg = now_ns() - start;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	long took_a = 0, took_b = 0;
	struct timeval tv;
	unsigned aux;
	unsigned long long tsc0 = __rdtsc();

	pthread_create(&a, NULL, worker, &took_a);
	pthread_create(&b, NULL, worker, &took_b);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	long ms = now_ns() / 1000000, reads = 1;
	while (now_ns() / 1000000 == ms)
		reads++;
	gettimeofday(&tv, NULL);
	printf("a took %ld ns, b took %ld ns; %s was slower\n", took_a, took_b,
	       took_a > took_b ? "a" : "b");
	printf("wall %ld.%06ld, time %ld, total %ld\n", (long)tv.tv_sec,
	       (long)tv.tv_usec, (long)time(NULL), total);
	printf("tsc ticks %llu\n", __rdtscp(&aux) - tsc0);
	printf("clock reads until the next millisecond: %ld\n", reads);
	return 0;
}
