/*
 * pipe_reader (correct): a reader thread blocks in read(2) on a pipe that
 * a writer thread feeds with a few small writes, then closes.  The reader
 * counts bytes until end of file.  Exercises threads blocked in the kernel
 * (not in a futex) while others run.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WRITES 5

static int pipe_fd[2];
static long total;

static void *reader(void *arg)
{
	char buf[64];
	ssize_t n;

	(void)arg;
	while ((n = read(pipe_fd[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			perror("pipe_reader: read");
			return NULL;
		}
		total += n;
	}
	return NULL;
}

static void *writer(void *arg)
{
	static const char msg[] = "hello pipe";	/* 10 bytes without the NUL */
	int i;

	(void)arg;
	for (i = 0; i < WRITES; i++)
		if (write(pipe_fd[1], msg, strlen(msg)) < 0)
			perror("pipe_reader: write");
	close(pipe_fd[1]);
	return NULL;
}

int main(void)
{
	pthread_t r, w;

	if (pipe(pipe_fd) != 0) {
		perror("pipe_reader: pipe");
		return 2;
	}
	if (pthread_create(&r, NULL, reader, NULL) != 0 ||
	    pthread_create(&w, NULL, writer, NULL) != 0) {
		perror("pipe_reader: pthread_create");
		return 2;
	}
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	close(pipe_fd[0]);
	printf("pipe_reader: bytes=%ld\n", total);
	return 0;
}
