/*
 * abandoned_lock.c (buggy): each of two threads adds an entry to a table
 * under table_lock, but the path that finds the table full returns early
 * without unlocking it.  The second thread to get there takes that
 * path; it exits holding the lock, and main's final lock waits forever:
 * a deadlock in which the holder is a thread that no longer exists
 * (tests/e2e/deadlock_report.sh: the report names it as such).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int entries;

static void *adder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&table_lock);
	if (entries >= 1)
		return NULL;            /* BUG: returns holding table_lock */
	entries++;
	pthread_mutex_unlock(&table_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, adder, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_lock(&table_lock);
	printf("entries: %d\n", entries);
	pthread_mutex_unlock(&table_lock);
	return 0;
}
