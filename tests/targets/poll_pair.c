/*
 * poll_pair (correct): two threads each sleep TICKS times in
 * poll(NULL, 0, 5), and after each return count their tick under a
 * mutex; main joins them and prints the counts.  Nothing races.
 *
 * On a clock, two 5 ms tickers started together take turns: each return
 * comes about 5 ms after that thread's previous one, so neither thread
 * gets more than a tick or two ahead.  Under schedctl the polls' timeouts are virtual,
 * and the one due first must fire first.  When any timeout whose real
 * time had passed could be chosen, one thread's polls went one after
 * another while the other's waited: a run took the sum of both threads'
 * sleeps, and which returns were offered depended on the machine's load.
 * virtual_polls.sh checks the turns in the trace.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>

#define TICKS 12

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ticks[2];

static void *ticker(void *arg)
{
	int *mine = arg;

	for (int i = 0; i < TICKS; i++) {
		poll(NULL, 0, 5);
		pthread_mutex_lock(&lock);
		(*mine)++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, ticker, &ticks[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("poll_pair: %d and %d ticks\n", ticks[0], ticks[1]);
	return ticks[0] == TICKS && ticks[1] == TICKS ? 0 : 1;
}
