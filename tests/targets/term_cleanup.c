/*
 * term_cleanup PATH spin|deadlock: creates the file PATH, removes it in its
 * SIGTERM handler, and never ends by itself: "spin" spins in a second
 * thread (main joins it), "deadlock" joins a thread that waits on a
 * condition variable nobody signals.  schedctl must end it with SIGTERM
 * and a grace before SIGKILL, so that PATH is gone afterwards
 * (tests/e2e/interrupt.sh).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *path;
static volatile int stop;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void on_term(int sig)
{
	(void)sig;
	unlink(path);
	_exit(143);
}

static void *spin(void *arg)
{
	(void)arg;
	while (!stop)
		;
	return NULL;
}

static void *wait_forever(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!stop)
		pthread_cond_wait(&never, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t t;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: term_cleanup PATH spin|deadlock\n");
		return 2;
	}
	path = argv[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	close(fd);
	pthread_create(&t, NULL, strcmp(argv[2], "spin") == 0 ? spin
							      : wait_forever, NULL);
	pthread_join(t, NULL);
	unlink(path);
	return 0;
}
