/*
 * poll_ticker (correct): a ticker thread sleeps in poll(2) with a 1 ms
 * timeout and no descriptors, TICKS times, and counts each tick under a
 * mutex; meanwhile the main thread takes the mutex WORK times to look at
 * the count.  Where each tick's return falls among the main thread's
 * events is a matter of the poll's timeout, which a schedule must not
 * leave to the machine's timer.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>

#define TICKS 10
#define WORK 300

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ticks;

static void *ticker(void *arg)
{
	(void)arg;
	for (int i = 0; i < TICKS; i++) {
		poll(NULL, 0, 1);
		pthread_mutex_lock(&lock);
		ticks++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	long seen = 0;

	pthread_create(&t, NULL, ticker, NULL);
	for (int i = 0; i < WORK; i++) {
		pthread_mutex_lock(&lock);
		seen += ticks;
		pthread_mutex_unlock(&lock);
	}
	pthread_join(t, NULL);
	printf("poll_ticker: %d ticks\n", ticks);
	return ticks == TICKS ? 0 : 1;
}
