/*
 * bounded_buffer (correct): a 4-slot ring buffer guarded by one mutex and
 * two condition variables; 2 producers put 100 items each, 2 consumers
 * take 100 items each.  The checksum does not depend on which consumer
 * gets which item, so every interleaving prints the same line.
 */
#include <pthread.h>
#include <stdio.h>

#define CAPACITY 4
#define PER_THREAD 100

static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static long slots[CAPACITY];
static int head, count;
static long sum, sum_squares;
static int taken;

static void put(long v)
{
	pthread_mutex_lock(&buf_lock);
	while (count == CAPACITY)
		pthread_cond_wait(&not_full, &buf_lock);
	slots[(head + count) % CAPACITY] = v;
	count++;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&buf_lock);
}

static long get(void)
{
	long v;

	pthread_mutex_lock(&buf_lock);
	while (count == 0)
		pthread_cond_wait(&not_empty, &buf_lock);
	v = slots[head];
	head = (head + 1) % CAPACITY;
	count--;
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&buf_lock);
	return v;
}

static void *producer(void *arg)
{
	long base = (long)arg;
	long i;

	for (i = 1; i <= PER_THREAD; i++)
		put(base + i);
	return NULL;
}

static void *consumer(void *arg)
{
	long local_sum = 0, local_squares = 0;
	int i;

	(void)arg;
	for (i = 0; i < PER_THREAD; i++) {
		long v = get();

		local_sum += v;
		local_squares += v * v;
	}
	pthread_mutex_lock(&buf_lock);
	sum += local_sum;
	sum_squares += local_squares;
	taken += PER_THREAD;
	pthread_mutex_unlock(&buf_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	int i, err = 0;

	err |= pthread_create(&t[0], NULL, producer, (void *)1000L);
	err |= pthread_create(&t[1], NULL, consumer, NULL);
	err |= pthread_create(&t[2], NULL, producer, (void *)2000L);
	err |= pthread_create(&t[3], NULL, consumer, NULL);
	if (err) {
		fprintf(stderr, "bounded_buffer: pthread_create failed\n");
		return 2;
	}
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("bounded_buffer: items=%d sum=%ld squares=%ld left=%d\n",
	       taken, sum, sum_squares, count);
	return 0;
}
