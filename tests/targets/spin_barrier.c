/*
 * spin_barrier (correct): three threads meet 20 times at a
 * sense-reversing barrier made of C11 atomics, whose waiters spin
 * reading two words a turn (the shared sense and their own), and check
 * each other's slots between barriers.  At --granularity mem, pos let
 * the spinners re-draw each other's priorities at every read while the
 * last arriver's pending event kept a low one: it ran again after
 * millions of steps or never, and correct runs were "hangs" (QA).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 20

static atomic_int count = THREADS;
static atomic_int sense;
static int slot[THREADS];

static void barrier(int *local_sense)
{
	*local_sense = !*local_sense;
	if (atomic_fetch_sub_explicit(&count, 1, memory_order_acq_rel) == 1) {
		atomic_store_explicit(&count, THREADS, memory_order_relaxed);
		atomic_store_explicit(&sense, *local_sense,
				      memory_order_release);
	} else {
		while (atomic_load_explicit(&sense, memory_order_acquire) !=
		       *(volatile int *)local_sense)
			;
	}
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int local_sense = 0;

	for (int r = 1; r <= ROUNDS; r++) {
		slot[id] = r;
		barrier(&local_sense);
		for (int j = 0; j < THREADS; j++)
			assert(slot[j] == r);
		barrier(&local_sense);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	puts("ok");
	return 0;
}
