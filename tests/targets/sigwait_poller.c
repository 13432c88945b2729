/*
 * sigwait_poller (correct; pbzip2's shape): a signal thread sleeps in
 * sigwait() for the whole run, and a worker polls a flag with a 10 ms
 * pthread_cond_timedwait() in a loop.  main sets the flag without
 * signalling: the worker sees it only when a wait times out.  With every
 * other thread stopped, the sleeper in sigwait() must not keep the
 * timed wait from timing out (that was a hang).  Prints "done"; exit 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;
static int done, polling;
static sigset_t handled;

static void *signal_thread(void *arg)
{
	int sig;

	(void)arg;
	sigwait(&handled, &sig);
	return NULL;
}

static void *poller(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	polling = 1;
	while (!done) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 10000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&never_signalled, &lock, &until);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t sig_tid, poll_tid;
	int started = 0;

	sigemptyset(&handled);
	sigaddset(&handled, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &handled, NULL);
	if (pthread_create(&sig_tid, NULL, signal_thread, NULL) != 0 ||
	    pthread_create(&poll_tid, NULL, poller, NULL) != 0) {
		perror("sigwait_poller: pthread_create");
		return 2;
	}
	while (!started) {
		pthread_mutex_lock(&lock);
		started = polling;
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	done = 1;               /* no signal: the poller's timeout sees it */
	pthread_mutex_unlock(&lock);
	pthread_join(poll_tid, NULL);
	pthread_kill(sig_tid, SIGTERM);
	pthread_join(sig_tid, NULL);
	puts("sigwait_poller: done");
	return 0;
}
