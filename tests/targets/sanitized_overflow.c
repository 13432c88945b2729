/*
 * sanitized_overflow: a check-then-act race that ends in a signed
 * overflow, for tests/e2e/sanitizers.sh (built there with gcc
 * -fsanitize=undefined, whose reports do not stop the program by
 * default).  Two workers each add 1 to a budget one below INT_MAX if it
 * is below INT_MAX; the check and the addition are two critical
 * sections, so both can pass the check and the second addition
 * overflows.  With -DFIXED they are one.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int budget = INT_MAX - 1;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	int room = budget < INT_MAX;
#ifndef FIXED
	pthread_mutex_unlock(&lock);
	if (!room)
		return NULL;
	pthread_mutex_lock(&lock);
#endif
	if (room)
		budget = budget + 1;    /* overflows when the other added first */
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("sanitized_overflow: budget %d\n", budget);
	return 0;
}
