/*
 * sleep_backoff.c - sleeps that wait for another thread, two ways.
 *
 * busy (default, correct): like SQLite's busy handler, a client retries
 * a resource an owner holds, sleeping 1, 2, 4 ... 64 ms between 40
 * attempts (2.3 s in all) before it gives up with exit 2.  The
 * owner holds it for 400 lock/unlock pairs of work, microseconds: no
 * run ever gives up natively, and none may under schedctl (abstract
 * time ended every sleep at once: random and pct gave up in most runs).
 *
 * sleepsync (buggy): main starts a worker, sleeps 10 ms "to let it
 * finish", then asserts it did (the flaky test of a busy CI machine):
 * it fails only when the worker is held up for 10 ms, which schedctl
 * must still find.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int busy, done, work;

static void *owner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	busy = 1;
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 400; i++) {
		pthread_mutex_lock(&lock);
		work++;
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	busy = 0;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *client(void *arg)
{
	(void)arg;
	for (int attempt = 0; attempt < 40; attempt++) {
		pthread_mutex_lock(&lock);
		int free_now = !busy;
		if (free_now)
			done = 1;
		pthread_mutex_unlock(&lock);
		if (free_now)
			return NULL;
		usleep(1000u << (attempt < 6 ? attempt : 6));
	}
	fprintf(stderr, "sleep_backoff: resource busy, gave up\n");
	exit(2);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1 && strcmp(argv[1], "sleepsync") == 0) {
		pthread_create(&a, NULL, worker, NULL);
		usleep(10000);
		pthread_mutex_lock(&lock);
		assert(done && "the worker did not finish within 10 ms");
		pthread_mutex_unlock(&lock);
		pthread_join(a, NULL);
		return 0;
	}
	pthread_create(&a, NULL, owner, NULL);
	pthread_create(&b, NULL, client, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("sleep_backoff: %d units of work, client %s\n", work,
	       done ? "served" : "not served");
	return 0;
}
