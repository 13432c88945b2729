/*
 * lost_signal_n N: a token passed along N workers through one condition
 * variable with pthread_cond_signal.  Worker i waits until the token is
 * i, then passes it to i+1 and signals.  With several workers waiting on
 * the same condition variable, the signal may wake a worker whose turn it
 * is not: it goes back to sleep and the signal is lost, so the worker
 * whose turn it is waits until its timeout and assert() fails (the fix is
 * pthread_cond_broadcast).  More workers: more wrong waiters to wake.
 *
 * Natively the workers wait in creation order and glibc wakes the oldest
 * waiter, which is the next in line, so the program prints
 * "lost_signal_n: token N+1".  The waits time out after 2 s so that a
 * lost signal never hangs a native run.  Default N is 3 (2 to 16).
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAXN 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int token;

static void *worker(void *arg)
{
	int i = (int)(long)arg, rc = 0;
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 2;
	pthread_mutex_lock(&lock);
	while (token != i && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&turn, &lock, &deadline);
	assert(token == i && "the signal for this worker was lost");
	token = i + 1;
	pthread_cond_signal(&turn);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN + 1];
	int n = argc > 1 ? atoi(argv[1]) : 3, i;

	if (n < 2 || n > MAXN) {
		fprintf(stderr, "lost_signal_n: worker count must be 2 to %d\n",
			MAXN);
		return 2;
	}
	for (i = 1; i <= n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	pthread_mutex_lock(&lock);
	token = 1;
	pthread_cond_signal(&turn);
	pthread_mutex_unlock(&lock);
	for (i = 1; i <= n; i++)
		pthread_join(t[i], NULL);
	printf("lost_signal_n: token %d\n", token);
	return 0;
}
