/* spin_until_poll.c (correct): a worker waits 20 ms for something no one
 * does, then sets a flag main busy-waits on.  Natively main spins for
 * 20 ms; under control the worker's timeout is virtual time, which fires
 * only at a decision where main is seen waiting.
 *
 *   spin_until_poll [WAIT [SPIN]]
 *     WAIT  poll (default): poll(2) on a pipe no one writes;
 *           cond: pthread_cond_timedwait no one signals
 *     SPIN  flag (default): main loads the flag (plain loads, no atomic
 *           read-modify-write on main's side);
 *           clock: main reads CLOCK_MONOTONIC between its loads
 *
 * History (QA; tests/e2e/correct_targets.sh): with poll and flag main was
 * never stopped while the worker sat in its poll, so every run hung.
 * Once the flag's load was a scheduling point (a plain access to a word
 * another thread changed atomically), each load was a step that was no
 * spin, and a cond_timedwait never timed out (5 of 10 runs hung).  With
 * clock, virtual time moved 1 us a read and no decision came while main
 * read it: 3 of 4 poll runs hung. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int done;
static const char *wait_kind = "poll", *spin_kind = "flag";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void wait_poll(void)
{
	int fd[2];
	struct pollfd p;

	if (pipe(fd) != 0)
		return;
	p = (struct pollfd){ .fd = fd[0], .events = POLLIN };
	if (poll(&p, 1, 20) != 0)
		puts("the pipe was written?");
}

static void wait_cond(void)
{
	struct timespec until;
	int rc;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 20000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	rc = pthread_cond_timedwait(&never, &lock, &until);
	pthread_mutex_unlock(&lock);
	if (rc != ETIMEDOUT)
		printf("the condition was signalled? (%d)\n", rc);
}

static void *worker(void *arg)
{
	if (strcmp(wait_kind, "cond") == 0)
		wait_cond();
	else
		wait_poll();
	atomic_store(&done, 1);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	struct timespec now;

	if (argc > 1)
		wait_kind = argv[1];
	if (argc > 2)
		spin_kind = argv[2];
	pthread_create(&t, NULL, worker, NULL);
	if (strcmp(spin_kind, "clock") == 0)
		while (!atomic_load_explicit(&done, memory_order_relaxed))
			clock_gettime(CLOCK_MONOTONIC, &now);
	else
		while (!atomic_load_explicit(&done, memory_order_relaxed))
			;
	pthread_join(t, NULL);
	puts("the wait timed out");
	return 0;
}
