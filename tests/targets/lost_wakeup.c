/*
 * lost_wakeup: the classic lost wake-up.  The waiter (T1) tests the flag
 * without holding the mutex and only then locks and waits; the signaller
 * (T2) sets the flag and signals without holding the mutex.  If the
 * signal falls between the waiter's test and its pthread_cond_wait, nobody
 * is waiting yet, the signal is lost and the waiter sleeps forever while
 * main waits in pthread_join: every thread is blocked (verdict
 * "deadlock").
 *
 * Natively the waiter is created first and is asleep in the condition
 * variable long before the signaller runs, or the signaller runs first and
 * the waiter sees the flag; the program prints "lost_wakeup: woken".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static atomic_int ready;

static void *waiter(void *arg)
{
	(void)arg;
	if (!atomic_load_explicit(&ready, memory_order_relaxed)) {
		/* BUG: the test above is not under ready_lock. */
		pthread_mutex_lock(&ready_lock);
		pthread_cond_wait(&ready_cond, &ready_lock);
		pthread_mutex_unlock(&ready_lock);
	}
	return NULL;
}

static void *signaller(void *arg)
{
	(void)arg;
	/* BUG: neither the store nor the signal holds ready_lock. */
	atomic_store_explicit(&ready, 1, memory_order_relaxed);
	pthread_cond_signal(&ready_cond);
	return NULL;
}

int main(void)
{
	pthread_t w, s;

	if (pthread_create(&w, NULL, waiter, NULL) != 0 ||
	    pthread_create(&s, NULL, signaller, NULL) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_join(s, NULL);
	pthread_join(w, NULL);
	printf("lost_wakeup: woken\n");
	return 0;
}
