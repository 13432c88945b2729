/*
 * exit_status: a lost update.  Two threads increment a counter by reading
 * it in one critical section and writing it back in another; if both read
 * before either writes, one increment is lost and main exits with status 3
 * (verdict "exit").  With the argument "return", main returns the 3
 * instead of calling exit(3): the report names main, not the entry point
 * whose code called exit on its behalf.
 *
 * Natively the first thread finishes before the second starts and the
 * program prints "exit_status: counter=2".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *increment(void *arg)
{
	int v;

	(void)arg;
	pthread_mutex_lock(&counter_lock);
	v = counter;
	pthread_mutex_unlock(&counter_lock);
	pthread_mutex_lock(&counter_lock);
	counter = v + 1;		/* BUG: v may be stale */
	pthread_mutex_unlock(&counter_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, increment, NULL) != 0) {
			perror("pthread_create");
			return 2;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (counter != 2) {
		fprintf(stderr, "exit_status: lost update, counter=%d\n", counter);
		if (argc > 1 && strcmp(argv[1], "return") == 0)
			return 3;
		exit(3);
	}
	printf("exit_status: counter=%d\n", counter);
	return 0;
}
