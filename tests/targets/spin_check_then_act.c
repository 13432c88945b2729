/*
 * spin_check_then_act: check_then_act with a lock of the program's own, a
 * C11 atomic_flag spinlock, instead of a pthread mutex: no pthread lock
 * call and no futex, only the lock's atomic exchange (xchg).  Two threads
 * withdraw 10 from a balance of 10; each checks the balance in one
 * critical section and withdraws in another, so both can pass the check
 * before either withdraws and the balance ends at -10: main's assert()
 * aborts (verdict "assert").
 *
 * With an argument ("fixed") each thread checks and withdraws in one
 * critical section: correct, it prints "balance=0" in every schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_flag account_lock = ATOMIC_FLAG_INIT;
static int balance = 10;
static int fixed;

static void spin_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&account_lock,
						 memory_order_acquire))
		;
}

static void spin_unlock(void)
{
	atomic_flag_clear_explicit(&account_lock, memory_order_release);
}

static void *withdraw(void *arg)
{
	int enough;

	(void)arg;
	spin_lock();
	enough = balance >= 10;
	if (fixed && enough)
		balance -= 10;
	spin_unlock();
	if (!fixed && enough) {
		spin_lock();
		balance -= 10;
		spin_unlock();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int i;

	fixed = argc > 1 && strcmp(argv[1], "fixed") == 0;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, withdraw, NULL) != 0) {
			perror("pthread_create");
			return 2;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(balance >= 0 && "overdrawn: check and act were not atomic");
	printf("spin_check_then_act: balance=%d\n", balance);
	return 0;
}
