/*
 * signal_parent: signals its parent, as a server telling whoever started
 * it that it is ready (kill(getppid(), SIGUSR1)) or a test script's
 * kill -USR1 $PPID.  Under schedctl the parent is the session's worker,
 * which must neither stop nor die of it.  Then prints the dispositions it
 * inherited, which must be the defaults of a fresh shell (the worker
 * ignores SIGHUP and SIGPIPE, and exec keeps an ignored signal ignored).
 * Usage: signal_parent [SIGNAL...]   (numbers; default SIGUSR1)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	return NULL;
}

static const char *disposition(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) < 0)
		return "?";
	return sa.sa_handler == SIG_IGN ? "ignored" :
	       sa.sa_handler == SIG_DFL ? "default" : "handled";
}

int main(int argc, char **argv)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	if (argc < 2)
		kill(getppid(), SIGUSR1);
	for (int i = 1; i < argc; i++)
		kill(getppid(), atoi(argv[i]));
	pthread_join(t, NULL);
	printf("SIGHUP %s, SIGPIPE %s, SIGUSR1 %s\n", disposition(SIGHUP),
	       disposition(SIGPIPE), disposition(SIGUSR1));
	return 0;
}
