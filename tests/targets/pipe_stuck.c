/*
 * pipe_stuck.c - both threads read a pipe that nobody ever writes: every
 * thread waits inside the kernel, none at a scheduling point.  The run
 * ends at --timeout with a hang whose report shows both threads' stacks
 * at their read (tests/e2e/liveness.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];

static void *reader(void *arg)
{
	char c;

	(void)arg;
	if (read(fds[0], &c, 1) == 1)
		puts("worker read a byte");
	return NULL;
}

int main(void)
{
	pthread_t t;
	char c;

	if (pipe(fds) < 0)
		return 2;
	pthread_create(&t, NULL, reader, NULL);
	if (read(fds[0], &c, 1) == 1)
		puts("main read a byte");
	pthread_join(t, NULL);
	return 0;
}
