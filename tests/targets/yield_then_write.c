/*
 * yield_then_write (correct): a thread that yields or sleeps a few times
 * on its way to waking another must not make that other's timeout expire
 * first, and one that counts while it waits for a timeout must see it.
 *   1. B yields 3 times, then writes a pipe; main waits for it in
 *      poll() with a 1 s timeout.
 *   2. The same with 3 usleep(100)s.
 *   3. B yields 3 times, then signals; main waits in
 *      pthread_cond_timedwait() with a deadline 1 s away.
 *   4. A watchdog's 2 ms pthread_cond_timedwait() must time out while
 *      main counts its sched_yield()s until it does.
 * Natively 1-3 never time out (a yield takes a microsecond) and 4 ends
 * after 2 ms.  schedctl took any thread that only yields or sleeps as
 * waiting for a timeout: in 1-3 the timeout came at once (a false
 * failure) or, with a long one, the run waited for it instead of running
 * the yielder (a false hang: ctest -j2 in 23 of 40 runs).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int pipe_fd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready, timed_out;
static int use_sleep;

static void three_pauses(void)
{
	for (int i = 0; i < 3; i++) {
		if (use_sleep)
			usleep(100);
		else
			sched_yield();
	}
}

static void *writer(void *arg)
{
	(void)arg;
	three_pauses();
	if (write(pipe_fd[1], "x", 1) != 1)
		abort();
	return NULL;
}

static void *signaller(void *arg)
{
	(void)arg;
	three_pauses();
	pthread_mutex_lock(&lock);
	ready = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *watchdog(void *arg)
{
	struct timespec at;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &at);
	at.tv_nsec += 2000000;
	at.tv_sec += at.tv_nsec / 1000000000L;
	at.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&lock);
	while (pthread_cond_timedwait(&cond, &lock, &at) != ETIMEDOUT)
		;
	timed_out = 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void poll_for_writer(const char *what)
{
	struct pollfd pf = { .fd = pipe_fd[0], .events = POLLIN };
	pthread_t t;
	char c;

	pthread_create(&t, NULL, writer, NULL);
	if (poll(&pf, 1, 1000) != 1) {
		fprintf(stderr, "yield_then_write: poll timed out (%s)\n", what);
		exit(1);
	}
	if (read(pipe_fd[0], &c, 1) != 1)
		abort();
	pthread_join(t, NULL);
}

int main(void)
{
	pthread_t t;
	struct timespec at;
	long yields = 0;
	int rc = 0;

	if (pipe(pipe_fd) < 0)
		return 2;
	poll_for_writer("3 yields");
	use_sleep = 1;
	poll_for_writer("3 usleeps");
	use_sleep = 0;

	pthread_create(&t, NULL, signaller, NULL);
	clock_gettime(CLOCK_REALTIME, &at);
	at.tv_sec += 1;
	pthread_mutex_lock(&lock);
	while (!ready && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&cond, &lock, &at);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	if (!ready) {
		fprintf(stderr, "yield_then_write: cond_timedwait timed out\n");
		return 1;
	}

	pthread_create(&t, NULL, watchdog, NULL);
	for (;;) {
		pthread_mutex_lock(&lock);
		int done = timed_out;
		pthread_mutex_unlock(&lock);
		if (done)
			break;
		yields++;
		sched_yield();
	}
	pthread_join(t, NULL);
	printf("yield_then_write: ok\n");
	return yields < 0;
}
