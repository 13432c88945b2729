/*
 * check_then_act: two threads withdraw 10 from a balance of 10.  Each
 * checks the balance in one critical section and withdraws in another, so
 * both can pass the check before either withdraws (an atomicity
 * violation) and the balance ends at -10: main's assert() aborts (verdict
 * "assert").
 *
 * Natively the first thread finishes long before the second one starts,
 * and the program prints "check_then_act: balance=0".
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static int balance = 10;

static void *withdraw(void *arg)
{
	int enough;

	(void)arg;
	pthread_mutex_lock(&account_lock);
	enough = balance >= 10;
	pthread_mutex_unlock(&account_lock);
	if (enough) {
		pthread_mutex_lock(&account_lock);
		balance -= 10;
		pthread_mutex_unlock(&account_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, withdraw, NULL) != 0) {
			perror("pthread_create");
			return 2;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(balance >= 0 && "overdrawn: check and act were not atomic");
	printf("check_then_act: balance=%d\n", balance);
	return 0;
}
