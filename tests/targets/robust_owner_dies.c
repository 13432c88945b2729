/*
 * robust_owner_dies (correct): a thread locks a robust mutex and ends
 * without unlocking it while another waits for it (or comes to it later);
 * the kernel marks the mutex's owner dead and wakes the waiter, whose
 * pthread_mutex_lock returns EOWNERDEAD; it makes the mutex consistent
 * and unlocks it.  Never a deadlock.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static pthread_mutex_t m;
static sem_t locked;

static void *dies_holding(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	sem_post(&locked);
	return NULL;
}

static void *inherits(void *arg)
{
	int rc;

	(void)arg;
	sem_wait(&locked);
	rc = pthread_mutex_lock(&m);
	if (rc == EOWNERDEAD)
		pthread_mutex_consistent(&m);
	pthread_mutex_unlock(&m);
	printf("%s\n", rc == EOWNERDEAD ? "EOWNERDEAD" : "unexpected");
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_t dier, heir;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&m, &a);
	sem_init(&locked, 0, 0);
	pthread_create(&heir, NULL, inherits, NULL);
	pthread_create(&dier, NULL, dies_holding, NULL);
	pthread_join(dier, NULL);
	pthread_join(heir, NULL);
	return 0;
}
