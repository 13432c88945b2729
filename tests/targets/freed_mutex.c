/*
 * freed_mutex: main tears down a work queue (its mutex included) while the
 * consumer may still lock it: the shape of SCTBench's pbzip2-0.9.4 bug.
 * The queue lives in its own mapping, so that a lock after the teardown
 * faults inside pthread_mutex_lock (verdict "crash", in libc, called from
 * consume()).
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

struct queue {
	pthread_mutex_t mu;
	int items;
	int done;
};

static struct queue *q;

static void *consume(void *arg)
{
	int taken = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&q->mu);	/* BUG: q may be unmapped */
		if (q->items > 0) {
			q->items--;
			taken++;
		}
		int done = q->done && q->items == 0;
		pthread_mutex_unlock(&q->mu);
		if (done)
			break;
	}
	return NULL;
}

int main(void)
{
	pthread_t c;

	q = mmap(NULL, sizeof(*q), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return 3;
	pthread_mutex_init(&q->mu, NULL);
	pthread_create(&c, NULL, consume, NULL);
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(&q->mu);
		q->items++;
		pthread_mutex_unlock(&q->mu);
	}
	pthread_mutex_lock(&q->mu);
	q->done = 1;
	pthread_mutex_unlock(&q->mu);
	/* BUG: the consumer may still be draining the queue: join first */
	pthread_mutex_destroy(&q->mu);
	munmap(q, sizeof(*q));
	pthread_join(c, NULL);
	puts("freed_mutex: done");
	return 0;
}
