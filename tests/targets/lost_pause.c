/*
 * lost_pause (buggy): a worker says it is ready, then waits in pause()
 * for main's SIGUSR1.  When main's pthread_kill comes between the two,
 * the handler runs before pause(), which then waits for good, and main
 * waits in pthread_join: a lost signal.  Nothing is blocked on a lock,
 * so the run must still end at once as a deadlock naming the thread in
 * pause() and its line, not as a "hang" at the end of the time budget.
 * The fix: block SIGUSR1 first and wait with sigsuspend() (signal_handshake).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
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
	(void)arg;
	ready = 1;
	sched_yield();  /* natively the window is a few instructions */
	pause();        /* LOST-SIGNAL */
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t;

	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, worker, NULL);
	while (!ready)
		sched_yield();
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	printf("worker got the signal: %d\n", (int)got);
	return 0;
}
