/*
 * signal_wakes_sleeper (correct): a worker sleeps in sigsuspend until
 * main's pthread_kill runs its SIGUSR1 handler; main then joins it.  A thread woken from a
 * syscall by a handled signal comes back from that syscall after the
 * handler: the engine must see it come back, or it waits for it forever.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static volatile sig_atomic_t woken;

static void on_usr1(int sig)
{
	(void)sig;
	woken++;
}

static void *suspender(void *arg)
{
	sigset_t usr1, orig;

	(void)arg;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &orig);
	sigdelset(&orig, SIGUSR1);
	while (woken < 1)
		sigsuspend(&orig);
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t s;
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigaction(SIGUSR1, &sa, NULL);
	/* Blocked in main (and so at first in the threads it starts). */
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_create(&s, NULL, suspender, NULL);
	pthread_kill(s, SIGUSR1);
	pthread_join(s, NULL);
	printf("suspender woken\n");
	return 0;
}
