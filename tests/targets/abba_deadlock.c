/*
 * abba_deadlock: T1 takes lock_a then lock_b, T2 takes lock_b then
 * lock_a.  If each gets its first lock before the other gets its second,
 * both wait forever (verdict "deadlock"; the report names T1, T2, lock_a
 * and lock_b, which is why the mutexes are named globals).
 *
 * Natively T1 almost always releases both locks before T2 starts, and the
 * program prints "abba_deadlock: done".  No sleeps: the window is only
 * what the scheduler makes of it.
 */
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int transfers;

static void *a_then_b(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock_a);
	pthread_mutex_lock(&lock_b);
	transfers++;
	pthread_mutex_unlock(&lock_b);
	pthread_mutex_unlock(&lock_a);
	return NULL;
}

static void *b_then_a(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock_b);
	pthread_mutex_lock(&lock_a);
	transfers++;
	pthread_mutex_unlock(&lock_a);
	pthread_mutex_unlock(&lock_b);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	if (pthread_create(&t1, NULL, a_then_b, NULL) != 0 ||
	    pthread_create(&t2, NULL, b_then_a, NULL) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("abba_deadlock: done, transfers=%d\n", transfers);
	return 0;
}
