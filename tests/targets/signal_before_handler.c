/*
 * signal_before_handler (buggy): the worker installs its SIGUSR1 handler
 * itself, after setting up its state; main sends pthread_kill(worker,
 * SIGUSR1) right after creating it.  When the signal comes first, its
 * default action ends the process.  At mem granularity the worker is
 * stopped at the store of its state when main's signal comes, and the
 * supervisor steps it over that store: the report must still name the
 * thread the signal came to, where, and the sender (it said only
 * "killed by SIGUSR1").
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t got;
static volatile int state;

static void on_usr1(int sig)
{
	(void)sig;
	got = 1;
}

static void *worker(void *arg)
{
	struct sigaction sa;

	(void)arg;
	state = 1;                      /* a memory event before the handler */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	while (!got)
		;
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	puts("handled");
	return 0;
}
