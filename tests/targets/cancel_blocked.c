/*
 * cancel_blocked (correct): main cancels threads that wait for good, in
 * pthread_cond_wait, in sem_wait and in pthread_join, and joins them.
 * Cancelling sends each a signal (SIGCANCEL) that interrupts its wait;
 * it may come before the thread even reaches the wait, then the wait
 * returns at once.  The supervisor models those waits itself, so it must
 * let the signal through: it used to report a deadlock (or a hang) here.
 * Prints "cancel_blocked: 3 cancelled"; exit 0.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;
static sem_t never_posted;
static pthread_t sem_waiter;

static void unlock(void *arg)
{
	(void)arg;
	pthread_mutex_unlock(&lock);
}

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_cleanup_push(unlock, NULL);
	for (;;)
		pthread_cond_wait(&never_signalled, &lock);
	pthread_cleanup_pop(1);
	return NULL;
}

static void *sem_waiting(void *arg)
{
	(void)arg;
	for (;;)
		sem_wait(&never_posted);
	return NULL;
}

static void *joiner(void *arg)
{
	(void)arg;
	pthread_join(sem_waiter, NULL);   /* the semaphore waiter never ends */
	return NULL;
}

int main(void)
{
	pthread_t cond_tid, join_tid;
	int cancelled = 0;
	void *ret;

	sem_init(&never_posted, 0, 0);
	if (pthread_create(&cond_tid, NULL, cond_waiter, NULL) != 0 ||
	    pthread_create(&sem_waiter, NULL, sem_waiting, NULL) != 0 ||
	    pthread_create(&join_tid, NULL, joiner, NULL) != 0) {
		perror("cancel_blocked: pthread_create");
		return 2;
	}
	pthread_cancel(cond_tid);
	pthread_cancel(join_tid);
	pthread_join(cond_tid, &ret);
	cancelled += ret == PTHREAD_CANCELED;
	pthread_join(join_tid, &ret);
	cancelled += ret == PTHREAD_CANCELED;
	pthread_cancel(sem_waiter);
	pthread_join(sem_waiter, &ret);
	cancelled += ret == PTHREAD_CANCELED;
	printf("cancel_blocked: %d cancelled\n", cancelled);
	return cancelled == 3 ? 0 : 1;
}
