/*
 * crash_null: an atomicity violation that ends in a NULL dereference (the
 * shape of the MySQL proc_info bug).  The logger (T1) checks that the log
 * is open in one critical section and writes to it in another; the closer
 * (T2) sets the log pointer to NULL in between: the logger dereferences
 * NULL and dies of SIGSEGV (verdict "crash").
 *
 * Natively the logger finishes before the closer starts and the program
 * prints "crash_null: done".
 */
#include <pthread.h>
#include <stdio.h>

struct log {
	int lines;
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static struct log the_log;
static struct log *volatile current_log = &the_log;

static void *logger(void *arg)
{
	int open;

	(void)arg;
	pthread_mutex_lock(&log_lock);
	open = current_log != NULL;
	pthread_mutex_unlock(&log_lock);
	if (open) {
		pthread_mutex_lock(&log_lock);
		current_log->lines++;	/* BUG: may be NULL by now */
		pthread_mutex_unlock(&log_lock);
	}
	return NULL;
}

static void *closer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&log_lock);
	current_log = NULL;
	pthread_mutex_unlock(&log_lock);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	if (pthread_create(&t1, NULL, logger, NULL) != 0 ||
	    pthread_create(&t2, NULL, closer, NULL) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("crash_null: done\n");
	return 0;
}
