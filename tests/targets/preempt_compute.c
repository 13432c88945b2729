/*
 * preempt_compute (correct): two worker threads each do a long
 * computation (about 20-50 ms of CPU on the project's machines) that
 * makes no system call, while the other worker (and, until it joins, the
 * main thread) is runnable.  A supervisor that runs one thread at a time
 * gets control back only by preempting the computing thread when its
 * time slice (2 ms of CPU by default) runs out, so a run's trace holds
 * `preempt` events, and a replay must stop each worker at the recorded
 * instruction.  The result of each worker depends only on its seed: the
 * output is the same in every run, and the exit status is 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define WORKERS 2
#define WORDS 4096
#define ROUNDS 5000

struct job {
	uint32_t seed;
	uint32_t result;
};

static uint32_t compute(uint32_t seed, int rounds)
{
	uint32_t a[WORDS];	/* on the thread's stack: no syscall */
	uint32_t x = seed, sum = 0;
	int r, i;

	for (i = 0; i < WORDS; i++) {
		x = x * 1664525u + 1013904223u;
		a[i] = x;
	}
	for (r = 0; r < rounds; r++)
		for (i = 0; i < WORDS; i++) {
			a[i] ^= a[(i * 7 + r) % WORDS] * 2654435761u + (uint32_t)r;
			sum += a[i] >> 3;
		}
	return sum;
}

static void *worker(void *arg)
{
	struct job *j = arg;

	j->result = compute(j->seed, ROUNDS);
	return NULL;
}

int main(void)
{
	pthread_t tids[WORKERS];
	struct job jobs[WORKERS];
	int i;

	for (i = 0; i < WORKERS; i++) {
		jobs[i].seed = (uint32_t)i + 1;
		if (pthread_create(&tids[i], NULL, worker, &jobs[i]) != 0) {
			perror("preempt_compute: pthread_create");
			return 2;
		}
	}
	for (i = 0; i < WORKERS; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < WORKERS; i++)
		printf("preempt_compute: worker %d: %08x\n", i, (unsigned)jobs[i].result);
	return 0;
}
