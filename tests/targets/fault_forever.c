/*
 * fault_forever: a thread faults, and its SIGSEGV handler returns without
 * fixing anything, so the same load faults again, forever.  The run must
 * still end at its --timeout ("hang"), and `schedctl stop` must end it.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>

static int *volatile nowhere;

static void ignore_fault(int sig)
{
	(void)sig;      /* returning re-runs the faulting load */
}

static void *worker(void *arg)
{
	(void)arg;
	return (void *)(long)*nowhere;
}

int main(void)
{
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ignore_fault;
	sigaction(SIGSEGV, &sa, NULL);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
