/*
 * sync_zoo (correct): one of each synchronisation primitive a supervisor
 * must model, used correctly by 4 threads: pthread_once, a barrier, a
 * read-write lock, a counting semaphore, a spin lock, C11 atomics and
 * thread-local counters; then main waits 50 ms on a condition variable
 * that nobody signals and expects ETIMEDOUT.  Every line of output is the
 * same in every interleaving.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define THREADS 4
#define ROUNDS 10
#define SEM_SLOTS 2

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_barrier_t barrier;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static sem_t slots;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;

static int once_calls;
static int table[THREADS];
static long spin_counter;
static atomic_int atomic_counter;
static atomic_int in_section, sem_overflow;
static atomic_int before_barrier, barrier_errors;
static __thread int tls_count;
static int tls_sum;

static void init_once(void)
{
	once_calls++;
}

static void use_semaphore(void)
{
	sem_wait(&slots);
	if (atomic_fetch_add(&in_section, 1) >= SEM_SLOTS)
		atomic_store(&sem_overflow, 1);
	atomic_fetch_sub(&in_section, 1);
	sem_post(&slots);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	int i, j, seen;

	pthread_once(&once, init_once);

	atomic_fetch_add(&before_barrier, 1);
	pthread_barrier_wait(&barrier);
	if (atomic_load(&before_barrier) != THREADS)
		atomic_store(&barrier_errors, 1);

	for (i = 0; i < ROUNDS; i++) {
		pthread_rwlock_rdlock(&table_lock);
		for (seen = 0, j = 0; j < THREADS; j++)
			seen += table[j];
		(void)seen;
		pthread_rwlock_unlock(&table_lock);

		pthread_rwlock_wrlock(&table_lock);
		table[id]++;
		pthread_rwlock_unlock(&table_lock);

		use_semaphore();

		pthread_spin_lock(&spin);
		spin_counter++;
		pthread_spin_unlock(&spin);

		atomic_fetch_add(&atomic_counter, 1);
		tls_count++;
	}

	pthread_mutex_lock(&sum_lock);
	tls_sum += tls_count;
	pthread_mutex_unlock(&sum_lock);
	return NULL;
}

static int timed_wait_without_signal(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec deadline;
	int rc;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += 50 * 1000 * 1000;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&m);
	do	/* 0 would be a spurious wake-up: wait again */
		rc = pthread_cond_timedwait(&c, &m, &deadline);
	while (rc == 0);
	pthread_mutex_unlock(&m);
	return rc;
}

int main(void)
{
	pthread_t t[THREADS];
	int i, table_sum = 0, rc;

	if (pthread_barrier_init(&barrier, NULL, THREADS) != 0 ||
	    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) != 0 ||
	    sem_init(&slots, 0, SEM_SLOTS) != 0) {
		perror("sync_zoo: init");
		return 2;
	}
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i) != 0) {
			perror("sync_zoo: pthread_create");
			return 2;
		}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < THREADS; i++)
		table_sum += table[i];
	rc = timed_wait_without_signal();

	printf("sync_zoo: once_calls=%d\n", once_calls);
	printf("sync_zoo: barrier=%s\n", atomic_load(&barrier_errors) ? "broken" : "ok");
	printf("sync_zoo: rwlock_table=%d\n", table_sum);
	printf("sync_zoo: semaphore=%s\n", atomic_load(&sem_overflow) ? "overflow" : "ok");
	printf("sync_zoo: spin_counter=%ld\n", spin_counter);
	printf("sync_zoo: atomic_counter=%d\n", atomic_load(&atomic_counter));
	printf("sync_zoo: tls_sum=%d\n", tls_sum);
	printf("sync_zoo: timedwait=%s\n", rc == ETIMEDOUT ? "ETIMEDOUT" : "unexpected");

	pthread_barrier_destroy(&barrier);
	pthread_spin_destroy(&spin);
	sem_destroy(&slots);
	return 0;
}
