/*
 * pshared_deadline (correct): a mutex and a condition variable shared
 * between processes (PTHREAD_PROCESS_SHARED, in a MAP_SHARED mapping,
 * the condvar on CLOCK_MONOTONIC), used by two threads: main waits with
 * a deadline 1 s away for a flag that a thread sets after two yields.
 * Five rounds.  Such futexes are the kernel's to wait on (another
 * process may use them), and the deadline main computed from the run's
 * virtual clock went to the kernel as it was: once the session had run
 * for more than a second the deadline lay in the kernel's past and the
 * wait timed out at once (QA: named semaphores, message queues).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

struct shared {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
};

static struct shared *sh;

static void *signaller(void *arg)
{
	(void)arg;
	sched_yield();
	sched_yield();
	pthread_mutex_lock(&sh->lock);
	sh->ready = 1;
	pthread_cond_signal(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->lock, &ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sh->cond, &ca);

	for (int round = 0; round < 5; round++) {
		pthread_t t;
		struct timespec at;

		sh->ready = 0;
		pthread_create(&t, NULL, signaller, NULL);
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += 1;
		pthread_mutex_lock(&sh->lock);
		while (!sh->ready) {
			if (pthread_cond_timedwait(&sh->cond, &sh->lock, &at) ==
			    ETIMEDOUT && !sh->ready) {
				fprintf(stderr, "pshared_deadline: round %d: "
					"timed out\n", round);
				exit(1);
			}
		}
		pthread_mutex_unlock(&sh->lock);
		pthread_join(t, NULL);
	}
	printf("pshared_deadline: ok\n");
	return 0;
}
