/*
 * random_locks.c - how much work each thread does is drawn at random:
 * T1 from getrandom(2), T2 from /dev/urandom.  Each thread adds its count
 * to a shared total with a check-then-act (read under the lock, write
 * under the lock again), which loses an update under some schedules; the
 * program asserts that nothing was lost.  A replay must give the threads
 * the same random draws as the recorded run, or it takes other branches
 * (tests/e2e/seeded_random.sh).  It prints the two draws: different
 * runs must see different ones.
 */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/random.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void add(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&lock);
		int seen = total;
		pthread_mutex_unlock(&lock);
		pthread_mutex_lock(&lock);
		total = seen + 1;
		pthread_mutex_unlock(&lock);
	}
}

static void *from_getrandom(void *arg)
{
	unsigned char r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		return NULL;
	*(int *)arg = r % 4 + 1;
	add(*(int *)arg);
	return NULL;
}

static void *from_urandom(void *arg)
{
	unsigned char r = 0;
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, &r, sizeof(r)) != sizeof(r))
		return NULL;
	close(fd);
	*(int *)arg = r % 4 + 1;
	add(*(int *)arg);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	int na = 0, nb = 0;

	pthread_create(&a, NULL, from_getrandom, &na);
	pthread_create(&b, NULL, from_urandom, &nb);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("draws %d %d total %d\n", na, nb, total);
	assert(total == na + nb);
	return 0;
}
