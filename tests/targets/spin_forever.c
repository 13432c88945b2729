/*
 * spin_forever: a thread waits for a flag nobody sets, in a loop without
 * system calls or synchronisation.  The run must end at its --timeout
 * ("hang"), and `schedctl stop` or Ctrl-C must end it at once.
 */
#include <pthread.h>

static volatile int flag;

static void *worker(void *arg)
{
	(void)arg;
	while (!flag)
		;
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
