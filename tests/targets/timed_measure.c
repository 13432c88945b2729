/*
 * timed_measure (correct): a program that checks its own timed waits, as
 * timer and timeout tests do.  It measures, on CLOCK_MONOTONIC:
 *   - usleep(20 ms) and an absolute clock_nanosleep 15 ms ahead;
 *   - pthread_cond_timedwait on a deadline 10 ms away (nobody signals);
 *   - sem_timedwait on a deadline 10 ms away (nobody posts);
 * and, after its one worker has ended (the only live thread),
 *   - poll(NULL, 0, 5), epoll_wait on an eventfd never written (5 ms)
 *     and select with a 5 ms timeval.
 * Each must take at least its time and end by its timeout; then it prints
 * "timed_measure: ok".  Under schedctl the clock is virtual: each wait
 * used to read 10 us (a false assertion failure), and the polls of the
 * only live thread, released without their timeout, never came back (a
 * false hang).
 */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;
static sem_t never_posted;
static int worker_ran;

static long now_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static struct timespec ahead(clockid_t clock, long us)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_nsec += us * 1000;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

/* At least `want` us between start and now, or the program fails. */
static void took_at_least(const char *what, long start, long want)
{
	long took = now_us(CLOCK_MONOTONIC) - start;

	if (took < want) {
		fprintf(stderr, "timed_measure: %s took %ld us, less than %ld\n",
			what, took, want);
		assert(took >= want);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	worker_ran = 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t;
	long start;

	sem_init(&never_posted, 0, 0);
	pthread_create(&t, NULL, worker, NULL);

	start = now_us(CLOCK_MONOTONIC);
	usleep(20000);
	took_at_least("usleep(20 ms)", start, 20000);

	start = now_us(CLOCK_MONOTONIC);
	struct timespec at = ahead(CLOCK_MONOTONIC, 15000);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	took_at_least("clock_nanosleep(TIMER_ABSTIME, +15 ms)", start, 15000);

	start = now_us(CLOCK_MONOTONIC);
	at = ahead(CLOCK_REALTIME, 10000);
	pthread_mutex_lock(&lock);
	int rc = pthread_cond_timedwait(&never_signalled, &lock, &at);
	pthread_mutex_unlock(&lock);
	assert(rc == ETIMEDOUT);
	took_at_least("pthread_cond_timedwait(+10 ms)", start, 10000);

	start = now_us(CLOCK_MONOTONIC);
	at = ahead(CLOCK_REALTIME, 10000);
	assert(sem_timedwait(&never_posted, &at) == -1 && errno == ETIMEDOUT);
	took_at_least("sem_timedwait(+10 ms)", start, 10000);

	pthread_join(t, NULL);  /* from here on the only live thread */
	assert(worker_ran);

	start = now_us(CLOCK_MONOTONIC);
	assert(poll(NULL, 0, 5) == 0);
	took_at_least("poll(5 ms), alone", start, 5000);

	int efd = eventfd(0, EFD_NONBLOCK);
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN }, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
	start = now_us(CLOCK_MONOTONIC);
	assert(epoll_wait(ep, &out, 1, 5) == 0);
	took_at_least("epoll_wait(5 ms), alone", start, 5000);

	struct timeval tv = { 0, 5000 };
	start = now_us(CLOCK_MONOTONIC);
	assert(select(0, NULL, NULL, NULL, &tv) == 0);
	took_at_least("select(5 ms), alone", start, 5000);

	printf("timed_measure: ok\n");
	return 0;
}
