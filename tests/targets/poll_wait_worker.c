/*
 * poll_wait_worker (correct): main waits up to 2 s in poll(2) for a
 * worker's eventfd write, as a test waits for a background job with a
 * deadline; the worker first takes a mutex WORK times (thousands of
 * scheduling points, a few milliseconds natively).  A poll timeout that
 * the schedule gave after a fixed number of the worker's steps, rather
 * than after the time the program asked for, made this correct program
 * fail.
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define WORK 1500

static int done_fd;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
	uint64_t one = 1;

	(void)arg;
	for (int i = 0; i < WORK; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	if (write(done_fd, &one, sizeof(one)) != sizeof(one))
		perror("poll_wait_worker: write");
	return NULL;
}

int main(void)
{
	pthread_t t;
	struct pollfd p;

	done_fd = eventfd(0, EFD_CLOEXEC);
	if (done_fd < 0) {
		perror("poll_wait_worker: eventfd");
		return 2;
	}
	p = (struct pollfd){ .fd = done_fd, .events = POLLIN };
	pthread_create(&t, NULL, worker, NULL);
	int n = poll(&p, 1, 2000);
	pthread_join(t, NULL);
	if (n != 1) {
		fprintf(stderr, "poll_wait_worker: the worker did not finish "
			"within 2 s (poll returned %d)\n", n);
		return 1;
	}
	printf("poll_wait_worker: %ld\n", counter);
	return 0;
}
