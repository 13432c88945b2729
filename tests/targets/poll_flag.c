/*
 * poll_flag.c (correct): a poller checks a flag under a mutex, working a
 * little between checks, until a setter thread (created second) sets it
 * under the same mutex.  No schedule that lets the setter run fails; a
 * strategy that keeps the poller running for good makes a false hang
 * (surw did, while no other thread had touched the mutex in the run).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int flag;

static void work(void)
{
	for (volatile long i = 0; i < 20000; i++)
		;
}

static void *poller(void *arg)
{
	long polls = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		int seen = flag;
		pthread_mutex_unlock(&lock);
		if (seen)
			break;
		polls++;
		work();
	}
	return (void *)polls;
}

static void *setter(void *arg)
{
	(void)arg;
	work();
	pthread_mutex_lock(&lock);
	flag = 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t p, s;

	pthread_create(&p, NULL, poller, NULL);
	pthread_create(&s, NULL, setter, NULL);
	pthread_join(p, NULL);
	pthread_join(s, NULL);
	puts("flag seen");
	return 0;
}
