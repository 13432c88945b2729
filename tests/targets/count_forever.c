/*
 * count_forever (stuck): a thread waits on a condition variable nobody
 * signals while main counts in a loop forever, with no system call and
 * no synchronisation: a hang at --timeout.  Main is preempted once, as a
 * computation whose CPU budget ran out (about 1.5 s of CPU at the
 * default slice), so a replay needs that much CPU to reach the end of
 * the recorded run: one given less time must not call the hang
 * reproduced.
 */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile int go;

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&never, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t;
	volatile unsigned long counted = 0;

	pthread_create(&t, NULL, waiter, NULL);
	for (;;)
		counted++;
}
