/*
 * double_assert (buggy): two threads increment a counter without a lock
 * and both assert on it, so in many runs both fail at about the same
 * time: the first writes its message to stderr, then waits in abort()
 * while the second writes its own.  Every failing run must replay,
 * whichever thread's abort ended it (replay released the first thread's
 * write as a blocking call, and it still held stderr's lock when the
 * second wrote: those replays diverged).
 */
#include <assert.h>
#include <pthread.h>

static volatile int count;

static void *bump(void *arg)
{
	(void)arg;
	count++;
	assert(count < 0 && "the count went up");
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, bump, NULL);
	pthread_create(&b, NULL, bump, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
