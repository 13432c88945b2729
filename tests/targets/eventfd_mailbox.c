/*
 * eventfd_mailbox (correct): a main thread and a worker pass a token back
 * and forth ROUNDS times through two eventfds, each side asleep in poll(2)
 * until the other's write(2) wakes it, as ZeroMQ's mailboxes do.  A
 * mutex-protected counter is bumped on each side between the wakes, so
 * that where each wake returns among the other thread's events shows in
 * the schedule.
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define ROUNDS 20

static int to_worker, to_main;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long bumps;

static void bump(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&lock);
		bumps++;
		pthread_mutex_unlock(&lock);
	}
}

static void wait_token(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t v;

	while (poll(&p, 1, -1) != 1)
		;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		perror("eventfd_mailbox: read");
}

static void send_token(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		perror("eventfd_mailbox: write");
}

static void *worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		wait_token(to_worker);
		send_token(to_main);
		bump(3);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	to_worker = eventfd(0, EFD_CLOEXEC);
	to_main = eventfd(0, EFD_CLOEXEC);
	if (to_worker < 0 || to_main < 0) {
		perror("eventfd_mailbox: eventfd");
		return 1;
	}
	pthread_create(&t, NULL, worker, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		send_token(to_worker);
		bump(3);
		wait_token(to_main);
	}
	pthread_join(t, NULL);
	printf("eventfd_mailbox: %d rounds, %ld bumps\n", ROUNDS, bumps);
	return bumps == 6L * ROUNDS ? 0 : 1;
}
