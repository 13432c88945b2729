/* sanitized_uaf.c - built by tests/e2e/sanitizers.sh with
 * -fsanitize=address (and thread): main takes the shared buffer under the
 * lock but writes it after unlocking, while the worker frees it under the
 * lock.  When the worker runs between main's unlock and its write, the
 * write is a heap use after free (AddressSanitizer) and a data race
 * (ThreadSanitizer).  With -DFIXED main writes under the lock: correct.
 * A leak on purpose (kept) tells whether the leak check is off. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int *shared;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	pthread_mutex_lock(&lock);
	free(shared);
	shared = NULL;
	pthread_mutex_unlock(&lock);
	return arg;
}

int main(void)
{
	pthread_t t;
	int *mine, *leaked = malloc(16);

	shared = malloc(sizeof(*shared));
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&lock);
	mine = shared;
#ifdef FIXED
	if (mine)
		*mine = 1;
#endif
	pthread_mutex_unlock(&lock);
#ifndef FIXED
	if (mine)
		*mine = 1;      /* the worker may have freed it by now */
#endif
	pthread_join(t, NULL);
	printf("done %p\n", (void *)leaked);
	return 0;
}
