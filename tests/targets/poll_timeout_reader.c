/*
 * poll_timeout_reader (correct): a writer thread writes MESSAGES small
 * messages to a pipe, sleeping 1 ms after every fifth; a reader thread
 * waits for them in poll(2) with a 5 ms timeout and counts the timeouts
 * it sees.  Whether a poll ends with data or with its timeout depends on
 * whether the writer wrote first: with the kernel's timer that was the
 * machine's choice (a busy machine delays the writer past 5 ms), so the
 * same seed gave other runs and a trace did not replay.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define MESSAGES 30

static int pipe_fd[2];

static void *writer(void *arg)
{
	char buf[64] = { 0 };

	(void)arg;
	for (int i = 0; i < MESSAGES; i++) {
		if (write(pipe_fd[1], buf, 10 + i % 7) < 0)
			perror("poll_timeout_reader: write");
		if (i % 5 == 4)
			usleep(1000);
	}
	close(pipe_fd[1]);
	return NULL;
}

static void *reader(void *arg)
{
	long *total = arg;
	char buf[256];
	int timeouts = 0;

	for (;;) {
		struct pollfd p = { .fd = pipe_fd[0], .events = POLLIN };
		int n = poll(&p, 1, 5);
		if (n == 0) {
			timeouts++;
			continue;
		}
		ssize_t got = read(pipe_fd[0], buf, sizeof(buf));
		if (got <= 0)
			break;
		*total += got;
	}
	fprintf(stderr, "poll_timeout_reader: %d timeouts\n", timeouts);
	return NULL;
}

int main(void)
{
	pthread_t w, r;
	long total = 0, want = 0;

	for (int i = 0; i < MESSAGES; i++)
		want += 10 + i % 7;
	if (pipe(pipe_fd) < 0) {
		perror("poll_timeout_reader: pipe");
		return 1;
	}
	pthread_create(&r, NULL, reader, &total);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	printf("poll_timeout_reader: %ld bytes\n", total);
	return total == want ? 0 : 1;
}
