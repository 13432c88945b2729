/*
 * atomicity_far: an atomicity violation whose two halves are far apart.
 * The auditor reads the balance, does a short job (GAP lock/unlock pairs
 * on its own lock), then writes back balance + 1, believing nothing
 * changed in between.  The depositor first works for a long time (LONG
 * pairs on its own lock, far more than GAP), then adds 1 to the balance.
 * The deposit is lost (assert) only when it lands inside the auditor's
 * short window, i.e. when the depositor has run LONG events while the
 * auditor ran fewer than GAP: a random walk moves both threads at about
 * the same speed and almost never gets there; a schedule where one thread
 * is much faster than the other (speed control) does.
 *
 * Natively both threads run their loops of uncontended locks in a few
 * microseconds and the window is a fraction of that: the program prints
 * "atomicity_far: balance 2".
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define GAP 12
#define LONG 150

static pthread_mutex_t balance_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t deposit_lock = PTHREAD_MUTEX_INITIALIZER;
static int balance, audit_work, deposit_work;

static void *auditor(void *arg)
{
	int seen, i;

	(void)arg;
	pthread_mutex_lock(&balance_lock);
	seen = balance;
	pthread_mutex_unlock(&balance_lock);
	for (i = 0; i < GAP; i++) {
		pthread_mutex_lock(&audit_lock);
		audit_work++;
		pthread_mutex_unlock(&audit_lock);
	}
	pthread_mutex_lock(&balance_lock);
	balance = seen + 1;
	pthread_mutex_unlock(&balance_lock);
	return NULL;
}

static void *depositor(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < LONG; i++) {
		pthread_mutex_lock(&deposit_lock);
		deposit_work++;
		pthread_mutex_unlock(&deposit_lock);
	}
	pthread_mutex_lock(&balance_lock);
	balance++;
	pthread_mutex_unlock(&balance_lock);
	return NULL;
}

int main(void)
{
	pthread_t a, d;

	pthread_create(&a, NULL, auditor, NULL);
	pthread_create(&d, NULL, depositor, NULL);
	pthread_join(a, NULL);
	pthread_join(d, NULL);
	assert(balance == 2 && "the deposit was lost");
	printf("atomicity_far: balance %d\n", balance);
	return 0;
}
