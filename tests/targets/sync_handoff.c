/*
 * sync_handoff.c (correct): plain, non-atomic data handed from thread to
 * thread through each pthread and C11 primitive that the analyzer models:
 * mutex lock/trylock/timedlock, condition variable wait/signal/broadcast,
 * rwlock, semaphore, spin lock, barrier, pthread_once and call_once (data
 * written by the initialiser), create and join, mtx_lock/trylock/timedlock,
 * cnd_wait/signal and thrd_join.  Every access is ordered by one of them,
 * so `schedctl analyze` must report no race at --granularity mem.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>

#define THREADS 2

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t barrier;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static once_flag c11_once = ONCE_FLAG_INIT;
static sem_t sem;
static mtx_t c11_mu;
static cnd_t c11_cv;

static long by_lock, by_trylock, by_timedlock, by_rwlock, by_spin;
static long by_barrier[THREADS], once_value, c11_once_value;
static long by_cond, cond_ready, by_broadcast, broadcast_go;
static long by_sem, by_create, by_join[THREADS];
static long by_mtx, by_mtx_try, by_mtx_timed, by_cnd, cnd_ready;

static void init_once(void)
{
	once_value = 42;
}

static void init_c11_once(void)
{
	c11_once_value = 7;
}

static struct timespec soon(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	return ts;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	struct timespec ts = soon();
	long seen = by_create;          /* written before pthread_create */

	pthread_mutex_lock(&mu);
	by_lock++;
	pthread_mutex_unlock(&mu);
	while (pthread_mutex_trylock(&mu) != 0)
		;
	by_trylock++;
	pthread_mutex_unlock(&mu);
	pthread_mutex_timedlock(&mu, &ts);
	by_timedlock++;
	pthread_mutex_unlock(&mu);

	pthread_rwlock_wrlock(&rw);
	by_rwlock++;
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_rdlock(&rw);
	seen += by_rwlock;
	pthread_rwlock_unlock(&rw);

	pthread_spin_lock(&spin);
	by_spin++;
	pthread_spin_unlock(&spin);

	by_barrier[id] = id + 1;
	pthread_barrier_wait(&barrier);
	seen += by_barrier[1 - id];

	pthread_once(&once, init_once);
	seen += once_value;
	call_once(&c11_once, init_c11_once);
	seen += c11_once_value;

	/* Thread 0 produces, thread 1 consumes: cond signal, semaphore. */
	if (id == 0) {
		pthread_mutex_lock(&mu);
		by_cond = 1;
		cond_ready = 1;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		by_sem = 5;
		sem_post(&sem);
	} else {
		pthread_mutex_lock(&mu);
		while (!cond_ready)
			pthread_cond_wait(&cv, &mu);
		seen += by_cond;
		pthread_mutex_unlock(&mu);
		sem_wait(&sem);
		seen += by_sem;
	}
	/* Both wait for main's broadcast. */
	pthread_mutex_lock(&mu);
	while (!broadcast_go)
		pthread_cond_wait(&cv, &mu);
	seen += by_broadcast;
	pthread_mutex_unlock(&mu);

	by_join[id] = seen;             /* read by main after pthread_join */
	return NULL;
}

static int c11_worker(void *arg)
{
	struct timespec ts = soon();
	(void)arg;
	mtx_lock(&c11_mu);
	by_mtx++;
	mtx_unlock(&c11_mu);
	while (mtx_trylock(&c11_mu) != thrd_success)
		;
	by_mtx_try++;
	mtx_unlock(&c11_mu);
	mtx_timedlock(&c11_mu, &ts);
	by_mtx_timed++;
	by_cnd = 3;
	cnd_ready = 1;
	cnd_signal(&c11_cv);
	mtx_unlock(&c11_mu);
	return 0;
}

int main(void)
{
	pthread_t t[THREADS];
	thrd_t c;
	long total = 0;

	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	pthread_barrier_init(&barrier, NULL, THREADS);
	sem_init(&sem, 0, 0);
	mtx_init(&c11_mu, mtx_timed);
	cnd_init(&c11_cv);

	by_create = 1;
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_mutex_lock(&mu);
	by_broadcast = 2;
	broadcast_go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		total += by_join[i];
	}

	thrd_create(&c, c11_worker, NULL);
	mtx_lock(&c11_mu);
	while (!cnd_ready)
		cnd_wait(&c11_cv, &c11_mu);
	total += by_cnd;
	mtx_unlock(&c11_mu);
	thrd_join(c, NULL);
	total += by_mtx + by_mtx_try + by_mtx_timed;

	/* total depends on the interleaving (the rwlock reader may come
	 * first): print only whether every handoff arrived. */
	printf("sync_handoff: %s %ld %ld %ld\n", total >= 2 * 52 + 3 + 3 ?
	       "ok" : "lost", by_lock + by_trylock + by_timedlock, by_rwlock,
	       by_spin);
	return 0;
}
