/*
 * setup_then_race.c (buggy): a long single-threaded set-up of the
 * program's own (150000 stores to a global table, as a test framework's
 * start-up makes), then two threads increment a shared counter without a
 * lock (a lost update between the load and the store of counter++: no
 * scheduling point at sync granularity).  Race granularity's pilot runs
 * have a budget of memory events; spent on the set-up (a single thread:
 * nothing there can race) they never saw the counter's race, and no later
 * run scheduled there (tests/e2e/race_gran.sh).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define TABLE 150000

static volatile int table[TABLE];
static volatile long counter;

static void *add(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++)
		counter++;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	long sum = 0;

	for (int i = 0; i < TABLE; i++)
		table[i] = i & 7;
	pthread_create(&a, NULL, add, NULL);
	pthread_create(&b, NULL, add, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int i = 0; i < TABLE; i += 1000)
		sum += table[i];
	printf("counter %ld, table %ld\n", counter, sum);
	assert(counter == 4);
	return 0;
}
