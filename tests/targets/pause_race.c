/*
 * pause_race.c (buggy): two workers increment a shared count without a
 * lock (read, sched_yield, write: a lost update), and the second created
 * tells main with pthread_kill; main waits for that in pause(), with every
 * other thread still to run, then checks the count.  Replay must let the
 * others run while main is in pause() (it comes back through its signal
 * handler, with no return of its own): it used to wait for main and hang.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_t main_thread;
static int hits;
static volatile sig_atomic_t told;

static void on_usr1(int sig)
{
	(void)sig;
	told = 1;
}

static void *worker(void *last)
{
	int seen = hits;

	sched_yield();
	hits = seen + 1;
	if (last)
		pthread_kill(main_thread, SIGUSR1);
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t a, b;

	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, (void *)1);
	while (!told)
		pause();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("hits %d\n", hits);
	if (hits != 2)
		abort();
	return 0;
}
