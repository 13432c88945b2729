/*
 * rwlock_upgrade: a cache behind a pthread rwlock.  lookup() takes it for
 * reading and, on a miss, for writing without letting go of the read
 * lock: a deadlock with itself whenever the key is missing when it looks.
 * A warmer thread fills the key first under the write lock; when the
 * lookup runs first it blocks on its own read lock (and the warmer, which
 * wants the write lock, on it).  The report must say who holds the
 * rwlock: glibc keeps only the count of its readers.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static int cached = -1;

static int lookup(void)
{
	int v;

	pthread_rwlock_rdlock(&cache_lock);
	v = cached;
	if (v < 0) {
		/* BUG: the read lock is still held */
		pthread_rwlock_wrlock(&cache_lock);
		cached = v = 42;
		pthread_rwlock_unlock(&cache_lock);
	}
	pthread_rwlock_unlock(&cache_lock);
	return v;
}

static void *warm(void *arg)
{
	pthread_rwlock_wrlock(&cache_lock);
	cached = 42;
	pthread_rwlock_unlock(&cache_lock);
	return arg;
}

static void *user(void *arg)
{
	printf("rwlock_upgrade: %d\n", lookup());
	return arg;
}

int main(void)
{
	pthread_t w, u;

	pthread_create(&w, NULL, warm, NULL);
	pthread_create(&u, NULL, user, NULL);
	pthread_join(w, NULL);
	pthread_join(u, NULL);
	return 0;
}
