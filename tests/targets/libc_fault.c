/*
 * libc_fault: a check-then-act bug that ends inside libc.  The reporter
 * checks that the job has a name, then measures it with strlen(); the
 * canceller clears the name in between, and strlen() faults on NULL
 * (verdict "crash" inside libc's strlen, called from report()).
 *
 * Natively the reporter finishes before the canceller starts and the
 * program prints "libc_fault: 3".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *volatile job_name = "abc";
static size_t name_len;

static void *report(void *arg)
{
	int named;

	(void)arg;
	pthread_mutex_lock(&job_lock);
	named = job_name != NULL;
	pthread_mutex_unlock(&job_lock);
	if (named) {
		pthread_mutex_lock(&job_lock);
		name_len = strlen(job_name);	/* BUG: may be NULL by now */
		pthread_mutex_unlock(&job_lock);
	}
	return NULL;
}

static void *cancel(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&job_lock);
	job_name = NULL;
	pthread_mutex_unlock(&job_lock);
	return NULL;
}

int main(void)
{
	pthread_t r, c;

	pthread_create(&r, NULL, report, NULL);
	pthread_create(&c, NULL, cancel, NULL);
	pthread_join(r, NULL);
	pthread_join(c, NULL);
	printf("libc_fault: %zu\n", name_len);
	return 0;
}
