/*
 * spin_handoff (correct): two threads pass a turn back and forth, five
 * times each, by busy-waiting on an atomic_int with no system call in the
 * loop.  A supervisor that runs one thread at a time only gets control
 * back from a spinning thread by preempting it (time slice), so this
 * checks liveness, not a bug.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define TURNS 5

static atomic_int turn;		/* 0: ping's turn, 1: pong's turn */
static atomic_int handoffs;

static void play(int me)
{
	int i;

	for (i = 0; i < TURNS; i++) {
		while (atomic_load(&turn) != me)
			;	/* spin: no syscall on purpose */
		atomic_fetch_add(&handoffs, 1);
		atomic_store(&turn, !me);
	}
}

static void *ping(void *arg)
{
	(void)arg;
	play(0);
	return NULL;
}

static void *pong(void *arg)
{
	(void)arg;
	play(1);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, ping, NULL) != 0 ||
	    pthread_create(&b, NULL, pong, NULL) != 0) {
		perror("spin_handoff: pthread_create");
		return 2;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("spin_handoff: handoffs=%d\n", atomic_load(&handoffs));
	return 0;
}
