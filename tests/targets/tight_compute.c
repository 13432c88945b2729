/*
 * tight_compute (correct): two worker threads each run a tight loop (one
 * multiply-add per turn, 60 million turns: about 100 ms of CPU) with no
 * system call, while the other one could run.  Its state never repeats,
 * so with --slice-us 200 (a 50 ms budget) the supervisor preempts it as
 * a computation.  Preempted inside the loop, it could be found again in
 * replay only by looking at each of the hundreds of thousands of turns
 * a millisecond runs (minutes); preempted where its function returns,
 * at once (tests/e2e/replay_load.sh).  The output depends on nothing but
 * the constants; exit 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define WORKERS 2
#define TURNS 60000000L

static uint64_t results[WORKERS];

static void *worker(void *arg)
{
	uintptr_t me = (uintptr_t)arg;
	uint64_t x = me + 1;

	for (long i = 0; i < TURNS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	results[me] = x;
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];

	for (uintptr_t i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("%016llx %016llx\n", (unsigned long long)results[0],
	       (unsigned long long)results[1]);
	return 0;
}
