/* spin_deadlock.c - two threads take two pthread spinlocks in opposite
 * orders: a lock-order deadlock (when each holds its first lock while the
 * other wants it).  Natively the threads spin forever; under schedctl
 * the run must end as a deadlock that names the spinlocks.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_spinlock_t lock_a, lock_b;
static int transfers;

static void *a_then_b(void *arg)
{
	(void)arg;
	pthread_spin_lock(&lock_a);
	pthread_spin_lock(&lock_b);
	transfers++;
	pthread_spin_unlock(&lock_b);
	pthread_spin_unlock(&lock_a);
	return NULL;
}

static void *b_then_a(void *arg)
{
	(void)arg;
	pthread_spin_lock(&lock_b);
	pthread_spin_lock(&lock_a);
	transfers++;
	pthread_spin_unlock(&lock_a);
	pthread_spin_unlock(&lock_b);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	pthread_spin_init(&lock_a, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&lock_b, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&t1, NULL, a_then_b, NULL);
	pthread_create(&t2, NULL, b_then_a, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("spin_deadlock: transfers=%d\n", transfers);
	return 0;
}
