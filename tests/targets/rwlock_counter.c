/*
 * rwlock_counter.c (correct, apart from one deliberate race): writers
 * increment `locked` under pthread_rwlock_wrlock (or trywrlock), readers
 * read it under pthread_rwlock_rdlock (or tryrdlock).  Every access to
 * `locked` is ordered by the rwlock, so the analyzer must report no race
 * on it.  `unlocked` is incremented by every thread with no lock at all:
 * the one real data race, which the analyzer must still report.  The
 * lines of both are marked (LOCKED-*, UNLOCKED) for tests/e2e.  The final
 * check is on `locked` only, so every run passes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 2
#define ROUNDS 2

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long locked;
static volatile long unlocked;
static long seen_total;

static void *worker(void *arg)
{
	int try = (int)(long)arg;
	long seen = 0;

	for (int i = 0; i < ROUNDS; i++) {
		if (try) {
			while (pthread_rwlock_trywrlock(&rw) != 0)
				;
		} else {
			pthread_rwlock_wrlock(&rw);
		}
		locked++;                               /* LOCKED-WRITE */
		pthread_rwlock_unlock(&rw);

		if (try) {
			while (pthread_rwlock_tryrdlock(&rw) != 0)
				;
		} else {
			pthread_rwlock_rdlock(&rw);
		}
		seen += locked;                         /* LOCKED-READ */
		pthread_rwlock_unlock(&rw);
	}
	unlocked++;                                     /* UNLOCKED */
	pthread_rwlock_wrlock(&rw);
	seen_total += seen;                             /* LOCKED-TOTAL */
	pthread_rwlock_unlock(&rw);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i & 1)) != 0)
			return 3;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("rwlock_counter: %ld\n", locked);
	return locked == THREADS * ROUNDS ? 0 : 1;
}
