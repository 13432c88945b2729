/*
 * abba_heartbeat: an AB-BA deadlock beside a thread that never blocks.
 * Two workers take account_lock and audit_lock in opposite orders; a
 * detached heartbeat thread wakes every 10 ms for ever, as a watchdog,
 * a logger's flusher or a sanitizer's background thread would.  When
 * the workers deadlock, the program still has a thread that runs, so
 * "every thread is blocked" never comes: the run was a hang at its time
 * budget.
 *
 * With the argument "ordered" both workers take the locks in the same
 * order: no deadlock in any schedule.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;
static int ordered;
static long balance, audited;

static void *heartbeat(void *arg)
{
	(void)arg;
	for (;;)
		usleep(10000);
	return NULL;
}

static void *transfer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&account_lock);
	pthread_mutex_lock(&audit_lock);
	balance += 10;
	audited++;
	pthread_mutex_unlock(&audit_lock);
	pthread_mutex_unlock(&account_lock);
	return NULL;
}

static void *audit(void *arg)
{
	pthread_mutex_t *first = ordered ? &account_lock : &audit_lock;
	pthread_mutex_t *second = ordered ? &audit_lock : &account_lock;

	(void)arg;
	pthread_mutex_lock(first);
	pthread_mutex_lock(second);     /* BUG unless ordered: AB-BA */
	audited += balance >= 0;
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t hb, t1, t2;

	ordered = argc > 1 && strcmp(argv[1], "ordered") == 0;
	if (pthread_create(&hb, NULL, heartbeat, NULL) != 0 ||
	    pthread_detach(hb) != 0 ||
	    pthread_create(&t1, NULL, transfer, NULL) != 0 ||
	    pthread_create(&t2, NULL, audit, NULL) != 0) {
		perror("abba_heartbeat: pthread_create");
		return 2;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("abba_heartbeat: balance %ld, audited %ld\n", balance, audited);
	return 0;
}
