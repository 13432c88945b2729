/* itimer_measured.c (correct): main waits for three expirations of a
 * 10 ms interval timer (setitimer, SIGALRM) and checks on the monotonic
 * clock that 30 ms passed, while a worker runs.  The timer runs on the
 * run's virtual clock; it fired by its real time while nothing could run
 * without the clock moving on, and the program read 3 ms (QA;
 * tests/e2e/correct_targets.sh). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t expirations;

static void on_alarm(int sig)
{
	(void)sig;
	expirations++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	return arg;
}

int main(void)
{
	struct itimerval every_10ms = { { 0, 10000 }, { 0, 10000 } }, off = { 0 };
	sigset_t alarm_only, old;
	pthread_t t;
	double start, took;

	signal(SIGALRM, on_alarm);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm_only, &old);
	pthread_create(&t, NULL, worker, NULL);
	start = now();
	setitimer(ITIMER_REAL, &every_10ms, NULL);
	while (expirations < 3)
		sigsuspend(&old);
	took = now() - start;
	setitimer(ITIMER_REAL, &off, NULL);
	pthread_join(t, NULL);
	if (took < 0.0299) {
		fprintf(stderr, "3 expirations of 10 ms took %.6f s\n", took);
		return 1;
	}
	puts("3 expirations");
	return 0;
}
