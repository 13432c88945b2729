/*
 * exec_threaded (correct): a process with two threads execs itself (the
 * kernel ends the other thread), and the new image starts four threads
 * that count under a mutex, prints the count and joins them.  What a
 * rustup shim or a test runner that execs does; the exec'd image's
 * threads must be scheduled as the first image's were.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sem_t started;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *idle(void *arg)
{
	(void)arg;
	sem_post(&started);
	for (;;)
		pause();
	return NULL;
}

static void *count(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];

	if (argc > 1 && strcmp(argv[1], "exec'd") == 0) {
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, count, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		printf("counter=%d\n", counter);
		return counter != 200;
	}
	sem_init(&started, 0, 0);
	pthread_create(&t[0], NULL, idle, NULL);
	sem_wait(&started);
	execl("/proc/self/exe", argv[0], "exec'd", (char *)NULL);
	perror("exec_threaded: execl");
	return 127;
}
