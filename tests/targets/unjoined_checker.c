/*
 * unjoined_checker: main starts a checker and two updaters, then returns
 * without joining any of them (SCTBench's account_bad).  The checker looks
 * at the balance only once both updaters are done, and then expects a
 * value that is wrong (the bug): it fails only when it takes the lock
 * after both updaters and before main's exit ends the process.
 *
 * Natively main's return wins nearly always.  A strategy that lets main
 * end the process whenever its one remaining event is drawn cuts the
 * threads short in most runs too.
 *
 * Arguments:
 *   fixed     the checker expects the right value: no run may fail;
 *   racy      the updaters touch the balance without the lock (a data
 *             race that only runs where the threads get to run show);
 *   watchdog  a fourth thread sleeps in a loop forever, as a watchdog
 *             does: the process must still end when main returns.
 */
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int balance = 10;
static bool deposited, withdrawn, fixed, racy;

static void *check(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	if (deposited && withdrawn) {
		int expected = fixed ? 10 + 5 - 3 : 10 - 5 - 3;
		assert(balance == expected);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *deposit(void *arg)
{
	(void)arg;
	if (!racy)
		pthread_mutex_lock(&lock);
	balance += 5;
	deposited = true;
	if (!racy)
		pthread_mutex_unlock(&lock);
	return NULL;
}

static void *withdraw(void *arg)
{
	(void)arg;
	if (!racy)
		pthread_mutex_lock(&lock);
	balance -= 3;
	withdrawn = true;
	if (!racy)
		pthread_mutex_unlock(&lock);
	return NULL;
}

static void *watchdog(void *arg)
{
	(void)arg;
	for (;;)
		usleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t t[4];

	fixed = strcmp(mode, "fixed") == 0;
	racy = strcmp(mode, "racy") == 0;
	if (strcmp(mode, "watchdog") == 0 &&
	    pthread_create(&t[3], NULL, watchdog, NULL)) {
		fprintf(stderr, "unjoined_checker: pthread_create failed\n");
		return 1;
	}
	if (pthread_create(&t[0], NULL, check, NULL) ||
	    pthread_create(&t[1], NULL, deposit, NULL) ||
	    pthread_create(&t[2], NULL, withdraw, NULL)) {
		fprintf(stderr, "unjoined_checker: pthread_create failed\n");
		return 1;
	}
	return 0;
}
