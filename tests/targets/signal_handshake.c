/*
 * signal_handshake [timer|child] (correct): lost_pause fixed, and two
 * waits whose signal comes from outside the threads.
 *
 * Without an argument: the worker blocks SIGUSR1 before it says it is
 * ready and waits in sigsuspend() with it unblocked, so main's
 * pthread_kill is never lost.  "timer": main waits in sigwait() for a
 * timer_create() timer's SIGUSR1 (20 ms).  "child": main forks a child
 * that sleeps 20 ms and sends its parent SIGUSR1, and waits in pause().
 * Every thread then waits in the kernel for a signal that a timer or a
 * child process will send: no run may end as a deadlock.  Prints "done".
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_int ready;
static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got = 1;
}

static void *worker(void *arg)
{
	sigset_t usr1, old;

	(void)arg;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	ready = 1;
	sched_yield();
	while (!got)
		sigsuspend(&old);
	return NULL;
}

static int handshake(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	while (!ready)
		sched_yield();
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	return got ? 0 : 1;
}

static int from_timer(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGUSR1 };
	struct itimerspec its = { .it_value = { 0, 20 * 1000 * 1000 } };
	sigset_t usr1;
	timer_t timer;
	int sig = 0;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0 ||
	    timer_settime(timer, 0, &its, NULL) != 0)
		return 2;
	sigwait(&usr1, &sig);
	timer_delete(timer);
	return sig == SIGUSR1 ? 0 : 1;
}

static int from_child(void)
{
	sigset_t usr1, old;
	pid_t child;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	child = fork();
	if (child == 0) {
		usleep(20 * 1000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	while (!got)
		sigsuspend(&old);
	waitpid(child, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int rc;

	sigaction(SIGUSR1, &sa, NULL);
	if (argc > 1 && !strcmp(argv[1], "timer"))
		rc = from_timer();
	else if (argc > 1 && !strcmp(argv[1], "child"))
		rc = from_child();
	else
		rc = handshake();
	puts(rc ? "no signal" : "done");
	return rc;
}
