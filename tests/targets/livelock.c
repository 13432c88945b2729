/*
 * livelock (bug: hang): two threads each wait, spinning, for a flag the
 * other sets only once its own wait is over.  Every run ends at its step
 * or time budget with both threads preempted in their spins, again and
 * again.  A replay must end where the recording did, with the hang,
 * instead of letting a thread with no recorded event left spin until the
 * replay's own --timeout.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int a_done, b_done;

static void *first(void *arg)
{
	while (!atomic_load(&b_done))
		;
	atomic_store(&a_done, 1);
	return arg;
}

static void *second(void *arg)
{
	while (!atomic_load(&a_done))
		;
	atomic_store(&b_done, 1);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, first, NULL) != 0 ||
	    pthread_create(&b, NULL, second, NULL) != 0) {
		perror("livelock: pthread_create");
		return 2;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	puts("livelock: never printed");
	return 0;
}
