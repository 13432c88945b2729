/* atomic_stop_flag.c (correct): a worker counts until main sets an atomic
 * stop flag.  The flag's store is an xchg (seq_cst), its loads plain
 * movs, which the race detector takes for synchronisation: before, no
 * scheduling point was at the load, so at race granularity the worker
 * ran until its CPU budget was used up, 4-20 s a run (QA).  The load is
 * a scheduling point now (tests/e2e/race_gran.sh). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_bool stop;
static unsigned long rounds;

static void *worker(void *arg)
{
	while (!atomic_load(&stop))             /* LOAD */
		rounds++;
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	for (volatile int i = 0; i < 100000; i++)
		;
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("stopped after %s rounds\n", rounds ? "some" : "no");
	return 0;
}
