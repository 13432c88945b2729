/*
 * events_loop: the program the benchmark runs under schedctl: 2 threads x
 * 20000 lock/unlock of one mutex, i.e. a known, large number of
 * scheduling points for very little work, so that the wall time of a
 * controlled run divided by its events is the cost of a scheduling point.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long iterations = 20000;

static void *loop(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < iterations; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int i;

	if (argc > 1)
		iterations = strtol(argv[1], NULL, 10);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, loop, NULL) != 0) {
			perror("events_loop: pthread_create");
			return 2;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("events_loop: counter=%ld\n", counter);
	return 0;
}
