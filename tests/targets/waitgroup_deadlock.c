/*
 * waitgroup_deadlock: abba_deadlock's two threads (T1 takes lock_a then
 * lock_b, T2 lock_b then lock_a), with main waiting for them on a
 * condition variable they signal at their end (a wait group, or
 * boost::thread::join) rather than in pthread_join.  The deadlock's
 * report is located at a thread of the lock cycle (LOCK-AB or LOCK-BA
 * below), not at main's wait.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

static void finished(void)
{
	pthread_mutex_lock(&done_lock);
	done++;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&done_lock);
}

static void *a_then_b(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock_a);
	pthread_mutex_lock(&lock_b);                    /* LOCK-AB */
	pthread_mutex_unlock(&lock_b);
	pthread_mutex_unlock(&lock_a);
	finished();
	return NULL;
}

static void *b_then_a(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock_b);
	pthread_mutex_lock(&lock_a);                    /* LOCK-BA */
	pthread_mutex_unlock(&lock_a);
	pthread_mutex_unlock(&lock_b);
	finished();
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, a_then_b, NULL);
	pthread_create(&t2, NULL, b_then_a, NULL);
	pthread_detach(t1);
	pthread_detach(t2);
	pthread_mutex_lock(&done_lock);
	while (done < 2)
		pthread_cond_wait(&done_cond, &done_lock);
	pthread_mutex_unlock(&done_lock);
	printf("waitgroup_deadlock: done\n");
	return 0;
}
