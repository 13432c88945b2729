/*
 * order_violation: main publishes a pointer only after it has started the
 * thread that reads it.  Both accesses hold a mutex, so the race is at the
 * granularity of synchronisation calls: it is a bug in the order of two
 * critical sections, not a data race.
 *
 * Natively the new thread needs a while to start and then fills a private
 * table before it looks at the configuration, so main usually wins and the
 * program prints "order_violation: value=42".  When the worker's critical
 * section runs first it reads NULL and assert() aborts (verdict "assert").
 * That still happens in a few percent of native runs, mostly when the
 * kernel lets the new thread preempt main on its CPU.  The table costs no
 * scheduling point: under a supervisor that switches threads only at
 * synchronisation calls the race is wide open.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int config_value = 42;
static int *config;		/* set by main after pthread_create */
static int seen;		/* what the worker read through config */
static volatile unsigned table_sink;

/* The worker's own set-up: plain computation, no system call. */
static void fill_private_table(void)
{
	unsigned table[256], h = 2166136261u;
	int i, round;

	for (round = 0; round < 16; round++)
		for (i = 0; i < 256; i++) {
			h = (h ^ (unsigned)i) * 16777619u;
			table[i] = h;
		}
	table_sink = table[h & 255];
}

static void *worker(void *arg)
{
	int *p;

	(void)arg;
	fill_private_table();
	pthread_mutex_lock(&config_lock);
	p = config;
	pthread_mutex_unlock(&config_lock);
	assert(p != NULL && "config read before main initialised it");
	seen = *p;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_mutex_lock(&config_lock);
	config = &config_value;
	pthread_mutex_unlock(&config_lock);
	pthread_join(t, NULL);
	printf("order_violation: value=%d\n", seen);
	return 0;
}
