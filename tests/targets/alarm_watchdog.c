/*
 * alarm_watchdog: a test with an alarm(2) watchdog, as test harnesses
 * arm them.
 *
 * Without arguments (correct): alarm(1), then two threads take a mutex
 * ROUNDS times each.  Natively that takes milliseconds, so the watchdog
 * never fires; under control it takes seconds of real time, and the
 * kernel's SIGALRM killed the run.  In the run's virtual time (10 us a
 * step) the work takes a fraction of a second: no alarm.
 *
 * "stuck" (buggy): the worker waits, taking and releasing the mutex, for
 * a flag nobody sets; the watchdog fires after one second of virtual
 * time (100000 steps), at the same step in every run of the schedule,
 * and kills the program.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 8000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long count;
static int flag, stuck;

static void *worker(void *arg)
{
	(void)arg;
	if (stuck) {
		for (;;) {
			pthread_mutex_lock(&lock);
			int f = flag;
			pthread_mutex_unlock(&lock);
			if (f)
				return NULL;
		}
	}
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		count++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	stuck = argc > 1 && strcmp(argv[1], "stuck") == 0;
	alarm(1);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	unsigned left = alarm(0);
	printf("alarm_watchdog: %ld rounds, %u s left\n", count, left);
	return count == 2 * ROUNDS && left == 1 ? 0 : 1;
}
