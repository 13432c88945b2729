/*
 * signal_unblocked (buggy): main blocks SIGUSR1 for the signal handling
 * it means to do with sigwait(), but only after it created its worker,
 * which inherited the signal unblocked; main's kill(getpid(), SIGUSR1)
 * then goes to the worker, whose default action ends the process.  The
 * report must say which thread the signal came to and that the program
 * sent it (it said only "killed by SIGUSR1").
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(void)
{
	pthread_t t;
	sigset_t usr1;
	int sig;

	pthread_create(&t, NULL, worker, NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);        /* too late */
	kill(getpid(), SIGUSR1);
	sigwait(&usr1, &sig);
	printf("got signal %d\n", sig);
	return 0;
}
