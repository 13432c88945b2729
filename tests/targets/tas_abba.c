/*
 * tas_abba (bug: deadlock): two test-and-set spinlocks made of C11
 * atomic_flag, taken in opposite orders by two threads.  Natively both
 * threads spin for ever; under schedctl a thread looping on a
 * test-and-set of a held flag is a spin wait (spin_model.c), so the run
 * is reported as a deadlock naming both locks, not a hang at the time
 * budget (tests/e2e/atomics.sh).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_flag lock_a = ATOMIC_FLAG_INIT;
static atomic_flag lock_b = ATOMIC_FLAG_INIT;

static void take(atomic_flag *f)
{
	while (atomic_flag_test_and_set_explicit(f, memory_order_acquire))
		;
}

static void drop(atomic_flag *f)
{
	atomic_flag_clear_explicit(f, memory_order_release);
}

static void *a_then_b(void *arg)
{
	take(&lock_a);
	take(&lock_b);
	drop(&lock_b);
	drop(&lock_a);
	return arg;
}

static void *b_then_a(void *arg)
{
	take(&lock_b);
	take(&lock_a);
	drop(&lock_a);
	drop(&lock_b);
	return arg;
}

int main(void)
{
	pthread_t x, y;

	pthread_create(&x, NULL, a_then_b, NULL);
	pthread_create(&y, NULL, b_then_a, NULL);
	pthread_join(x, NULL);
	pthread_join(y, NULL);
	printf("both threads done\n");
	return 0;
}
