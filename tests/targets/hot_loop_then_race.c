/*
 * hot_loop_then_race.c (buggy): a warm-up thread first runs a hot loop of
 * the program's own code (200000 iterations over a small table, as a
 * test's fixture or a cache warm-up does), then two threads increment a
 * shared counter without a lock (a lost update between the load and the
 * store of counter++: no scheduling point at sync granularity).  The
 * race pilot's budget of memory events is far smaller than the loop's
 * accesses: unless an instruction stops being scheduled after its first
 * events at it (mem_site_cap), the pilots spend the whole budget in the
 * loop, never see the counter's race, and no later run schedules there
 * (tests/e2e/race_gran.sh).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 200000
#define TABLE 64

static volatile int table[TABLE];
static volatile long counter;

static void *warm_up(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		table[i % TABLE] += i & 7;
	return NULL;
}

static void *add(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++)
		counter++;
	return NULL;
}

int main(void)
{
	pthread_t w, a, b;
	long sum = 0;

	pthread_create(&w, NULL, warm_up, NULL);
	pthread_join(w, NULL);
	pthread_create(&a, NULL, add, NULL);
	pthread_create(&b, NULL, add, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int i = 0; i < TABLE; i++)
		sum += table[i];
	printf("counter %ld, table %ld\n", counter, sum);
	assert(counter == 4);
	return 0;
}
