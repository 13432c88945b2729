/* deadline_order.c (correct): a worker waits 10 ms for a semaphore no one
 * posts, then posts the one main waits on for up to 30 s.  Main's wait
 * must not time out: its deadline comes long after the worker's.  Under
 * control both waits are timed waits of the schedule, and the policy
 * once chose among them when nothing could run: main's 30 s timed out
 * first in 11-14 of 30 runs (QA; tests/e2e/correct_targets.sh). */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static sem_t never, done;

static int wait_ms(sem_t *s, long ms)
{
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	do
		rc = sem_timedwait(s, &ts);
	while (rc == -1 && errno == EINTR);
	return rc;
}

static void *worker(void *arg)
{
	if (wait_ms(&never, 10) == 0)
		puts("posted by no one?");
	sem_post(&done);
	return arg;
}

int main(void)
{
	pthread_t t;

	sem_init(&never, 0, 0);
	sem_init(&done, 0, 0);
	pthread_create(&t, NULL, worker, NULL);
	if (wait_ms(&done, 30000) != 0) {
		fprintf(stderr, "the 30 s wait timed out before the 10 ms one\n");
		return 1;
	}
	pthread_join(t, NULL);
	puts("in deadline order");
	return 0;
}
