/*
 * chess_count: two threads each lock and unlock a mutex twice; main
 * creates them and joins them.  Correct under every schedule.  Small
 * enough that its schedules can be counted by hand (tests/e2e/chess.sh
 * has the count): with no argument both threads use one mutex, with
 * "separate" each has its own, so that all their events are independent
 * and happens-before caching has most to merge.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;
static int separate;
static int counts[2];

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	pthread_mutex_t *m = separate && id == 1 ? &second : &first;

	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(m);
		counts[id]++;
		pthread_mutex_unlock(m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	separate = argc > 1 && strcmp(argv[1], "separate") == 0;
	if (pthread_create(&a, NULL, worker, (void *)0L) != 0 ||
	    pthread_create(&b, NULL, worker, (void *)1L) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("chess_count: %d %d\n", counts[0], counts[1]);
	return 0;
}
