/* mem_loop: two threads each do ITERATIONS load+store pairs on shared
 * variables: at --granularity mem every access is a scheduling point, so
 * wall time / events is schedctl's cost per memory event. */
#include <pthread.h>
#include <stdio.h>

#define ITERATIONS 20000

static volatile long shared[2];

static void *work(void *arg)
{
	long k = (long)arg;

	for (long i = 0; i < ITERATIONS; i++)
		shared[k] = shared[k] + i;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, work, (void *)0);
	pthread_create(&b, NULL, work, (void *)1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%ld %ld\n", shared[0], shared[1]);
	return 0;
}
