/*
 * yield_until_timeouts (correct): a watchdog counts the timeouts of a
 * 1 ms pthread_cond_timedwait; main polls with sched_yield (and a second
 * round with usleep) until it has seen three, then stops the watchdog.
 * Time passes for a thread that only yields or sleeps as when nothing can
 * run: the watchdog's timed waits must time out, or the run never ends.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c;
static atomic_int timeouts;
static atomic_int stop;

static void *watchdog(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	while (!stop) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (pthread_cond_timedwait(&c, &m, &ts) == ETIMEDOUT)
			timeouts++;
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

static void round_of(int yield)
{
	pthread_t t;

	stop = 0;
	timeouts = 0;
	pthread_create(&t, NULL, watchdog, NULL);
	while (timeouts < 3) {
		if (yield)
			sched_yield();
		else
			usleep(100);
	}
	stop = 1;
	pthread_mutex_lock(&m);
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
}

int main(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c, &ca);
	round_of(1);
	round_of(0);
	printf("three timeouts seen, twice\n");
	return 0;
}
