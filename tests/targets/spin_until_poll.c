/* spin_until_poll.c (correct): a worker polls a pipe no one writes for
 * 20 ms, then sets a flag main spins on (plain loads, no atomic
 * read-modify-write on main's side).  The poll's timeout is virtual time:
 * it can only fire when main stops, and main was never stopped while
 * the worker sat in its poll, so every run hung (QA;
 * tests/e2e/correct_targets.sh). */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int done;

static void *worker(void *arg)
{
	int fd[2];
	struct pollfd p;

	if (pipe(fd) != 0)
		return arg;
	p = (struct pollfd){ .fd = fd[0], .events = POLLIN };
	if (poll(&p, 1, 20) != 0)
		puts("the pipe was written?");
	atomic_store(&done, 1);
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	while (!atomic_load_explicit(&done, memory_order_relaxed))
		;
	pthread_join(t, NULL);
	puts("the poll timed out");
	return 0;
}
