/*
 * coin_flip: correct, but not deterministic under a fixed schedule: the
 * worker takes the mutex once or twice depending on a random byte, so
 * the same choices of a scheduler lead to different scheduling points
 * from one run to the next.  chess must notice that a run did not follow
 * its recorded prefix, say so, and go on (tests/e2e/chess.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/random.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void *worker(void *arg)
{
	unsigned char coin = 0;
	int times;

	(void)arg;
	if (getrandom(&coin, 1, 0) != 1)
		coin = 0;
	times = 1 + (coin & 1);
	for (int i = 0; i < times; i++) {
		pthread_mutex_lock(&lock);
		total++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, worker, NULL) != 0 ||
	    pthread_create(&b, NULL, worker, NULL) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("coin_flip: %d\n", total >= 2 && total <= 4);
	return 0;
}
