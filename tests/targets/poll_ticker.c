/*
 * poll_ticker (correct): a ticker thread sleeps with a 1 ms timeout and
 * nothing to wait for, TICKS times, and counts each tick under a mutex;
 * meanwhile the main thread takes the mutex WORK times to look at the
 * count.  Where each tick's return falls among the main thread's events
 * is a matter of the call's timeout, which a schedule must not leave to
 * the machine's timer.  The ticks go round every call whose timeout
 * schedctl makes virtual, each with its own form of timeout (an int of
 * milliseconds, a timespec, a timeval).
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#define TICKS 14
#define FORMS 7

/* Sleep 1 ms in the i-th form of timed wait. */
static void tick_wait(int form, int epfd)
{
	struct timespec ts = { 0, 1000000 };
	struct timeval tv = { 0, 1000 };
	struct epoll_event ev;
	sigset_t none;

	sigemptyset(&none);
	switch (form) {
	case 0:
		poll(NULL, 0, 1);
		break;
	case 1:
		ppoll(NULL, 0, &ts, NULL);
		break;
	case 2:
		select(0, NULL, NULL, NULL, &tv);
		break;
	case 3:
		pselect(0, NULL, NULL, NULL, &ts, NULL);
		break;
	case 4:
		epoll_wait(epfd, &ev, 1, 1);
		break;
	case 5:
		epoll_pwait2(epfd, &ev, 1, &ts, NULL);
		break;
	default:
		sigtimedwait(&none, NULL, &ts);
		break;
	}
}
#define WORK 300

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ticks;

static void *ticker(void *arg)
{
	int epfd = epoll_create1(0);

	(void)arg;
	for (int i = 0; i < TICKS; i++) {
		tick_wait(i % FORMS, epfd);
		pthread_mutex_lock(&lock);
		ticks++;
		pthread_mutex_unlock(&lock);
	}
	close(epfd);
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
