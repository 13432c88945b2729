/*
 * detached_spinner (correct): main starts a detached thread that counts
 * in a loop with no system call and no synchronisation until a flag that
 * nobody sets, and returns.  Natively the process ends at main's return,
 * the thread with it.  Under control the exit waited behind the thread:
 * every time a strategy chose the counting thread over main's exit, it
 * ran until its time slice budget was used (seconds of CPU), and a
 * strategy that kept choosing it (pos: its priority never re-drawn) made
 * a false hang.  The run must pass.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int stop;

static void *count(void *arg)
{
	volatile unsigned long counted = 0;     /* on the stack: no spin */

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		counted++;
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, count, NULL);
	pthread_detach(t);
	printf("detached_spinner: main returns\n");
	return 0;
}
