/*
 * counted_then_order.c (buggy): an order violation after correctly locked
 * work.  Both threads first bump a counter under a mutex (conflicting
 * accesses, but ordered by the lock); then the worker reads `config`,
 * which main publishes only after starting it: the worker may dereference
 * NULL (crash).  At mem granularity the counter's accesses conflict too,
 * and minimize must not name them: the racing pair is main's write of
 * config (line 44) and the worker's read of it (line 29)
 * (tests/e2e/minimize.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct settings {
	int value;
};

static struct settings *config;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static int started;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&count_lock);
	started++;
	pthread_mutex_unlock(&count_lock);
	int v = config->value;                  /* line 29: the use */
	printf("value %d\n", v);
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&count_lock);
	started++;
	pthread_mutex_unlock(&count_lock);
	struct settings *s = malloc(sizeof(*s));
	s->value = 42;
	config = s;                             /* line 44: the init */
	pthread_join(t, NULL);
	free(s);
	return 0;
}
