/*
 * atomic_handoff.c (correct, apart from one deliberate race): data
 * handed from a producer to a consumer through C11 atomics with release
 * stores and acquire loads, which x86 compiles to plain movs: a global
 * flag, an atomic member of a structure, and an array of atomic slot
 * flags.  Every access to the data is ordered by its flag, so the
 * analyzer must report no race on it nor on the flags.  `unlocked` is
 * incremented by both threads with nothing at all: the one real data
 * race (marked UNLOCKED for tests/e2e/rwlock_races.sh).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define SLOTS 4

static atomic_int ready;
static int payload;

static struct {
	long data;
	atomic_int full;
} box;

static atomic_int slot_full[SLOTS];
static int slot_data[SLOTS];

static volatile long unlocked;

/* Both threads, no lock: one statement, one line. */
static void bump(void)
{
	unlocked++;                                     /* UNLOCKED */
}

static void *producer(void *arg)
{
	(void)arg;
	payload = 42;
	atomic_store_explicit(&ready, 1, memory_order_release);
	box.data = 7;
	atomic_store_explicit(&box.full, 1, memory_order_release);
	for (int i = 0; i < SLOTS; i++) {
		slot_data[i] = i * i;
		atomic_store_explicit(&slot_full[i], 1, memory_order_release);
	}
	bump();
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0;

	(void)arg;
	while (!atomic_load_explicit(&ready, memory_order_acquire))
		;
	sum += payload;
	while (!atomic_load_explicit(&box.full, memory_order_acquire))
		;
	sum += box.data;
	for (int i = 0; i < SLOTS; i++) {
		while (!atomic_load_explicit(&slot_full[i], memory_order_acquire))
			;
		sum += slot_data[i];
	}
	bump();
	return (void *)sum;
}

int main(void)
{
	pthread_t p, c;
	void *sum;

	if (pthread_create(&c, NULL, consumer, NULL) != 0 ||
	    pthread_create(&p, NULL, producer, NULL) != 0)
		return 3;
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	printf("sum %ld\n", (long)sum);
	return (long)sum == 42 + 7 + 0 + 1 + 4 + 9 ? 0 : 1;
}
