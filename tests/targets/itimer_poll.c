/*
 * itimer_poll (correct): a 1 ms setitimer(ITIMER_REAL) counts SIGALRMs
 * while a worker waits in poll(NULL, 0, 2 ms), epoll_wait or select ten
 * times (argv[1]: poll, epoll or select) and main joins it; main prints
 * the count.  Every timer is virtual time: the alarms fire at the same
 * steps in every run of a seed and in its replays, and the count is the
 * same (QA: same-seed runs differed in 10 of 10, most replays diverged,
 * and a late alarm came during main's printf in some runs).
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>

static volatile sig_atomic_t alarms;
static const char *how = "poll";

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void *worker(void *arg)
{
	int ep = epoll_create1(0);
	struct epoll_event ev;

	(void)arg;
	for (int i = 0; i < 10; i++) {
		if (strcmp(how, "epoll") == 0) {
			epoll_wait(ep, &ev, 1, 2);
		} else if (strcmp(how, "select") == 0) {
			struct timeval tv = { 0, 2000 };
			select(0, NULL, NULL, NULL, &tv);
		} else {
			poll(NULL, 0, 2);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } };
	pthread_t t;

	if (argc > 1)
		how = argv[1];
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &every_ms, NULL);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("alarms %d\n", (int)alarms);
	return 0;
}
