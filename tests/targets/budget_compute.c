/*
 * budget_compute (correct): two worker threads each run a computation of
 * about 80 ms of CPU with no system call, while the other one could run.
 * Its state never repeats (a counter and a mixing hash change every
 * turn), so the supervisor does not take it for a spin loop: it is
 * preempted only when it has used its CPU budget (250 slices; the tests
 * give it --slice-us 100, a 25 ms budget), at an instruction that timing
 * chose.  A replay must stop each worker at exactly that instruction,
 * in the same register state.  Each turn of the loop is a long run of
 * straight-line code (256 rounds of a multiply-xorshift), so that the
 * replay's last stretch, breakpoint hit by breakpoint, stays short.
 * The output depends only on the seeds; exit 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define WORKERS 2
#define TURNS 120000

#include "mix_rounds.h"

static uint64_t results[WORKERS];

static void *worker(void *arg)
{
	uintptr_t me = (uintptr_t)arg;
	uint64_t x = me + 1;

	for (int i = 0; i < TURNS; i++) {
		R256(x)
	}
	results[me] = x;
	return NULL;
}

int main(void)
{
	pthread_t tids[WORKERS];

	for (uintptr_t i = 0; i < WORKERS; i++)
		if (pthread_create(&tids[i], NULL, worker, (void *)i) != 0) {
			perror("budget_compute: pthread_create");
			return 2;
		}
	for (int i = 0; i < WORKERS; i++)
		pthread_join(tids[i], NULL);
	for (int i = 0; i < WORKERS; i++)
		printf("budget_compute: worker %d: %016llx\n", i,
		       (unsigned long long)results[i]);
	return 0;
}
